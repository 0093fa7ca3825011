package drill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/rest"
)

// showCheckpoints writes the job's checkpoints to told as the web UI's
// Checkpoints tab shows them: its counts, the latest completed and failed
// checkpoint and the latest restore, the history (GET
// /jobs/:jobid/checkpoints), and, for each failed checkpoint of the
// history, how many subtasks of each vertex acknowledged it (GET
// /jobs/:jobid/checkpoints/details/:checkpointid, by the vertices' names
// of GET /jobs/:jobid). The logs say that a checkpoint expired; these say
// where it stopped.
//
//	Checkpoint 7, FAILED (Checkpoint expired before completing.), by vertex:
//	  ID  Vertex                               Acknowledged  Latest Acknowledgement  Checkpointed Data Size
//	  7   Source: sensor-events                2/2 (100%)    08:43:35.131            245 B
//	  7   running-count -> Sink: collect-sink  0/2 (0%)      -                       0 B
//
// Every row begins with its checkpoint's ID, so that each is a line of
// its own.
func (e *endpoint) showCheckpoints(t *testing.T, jobID api.JobID, told *bytes.Buffer) {
	path := "/jobs/" + jobID.String() + "/checkpoints"
	status, answer := e.do(http.MethodGet, path, "", nil)
	if status != http.StatusOK {
		fmt.Fprintf(told, "GET %s\n%d %s\n\n", path, status, answer)
		return
	}
	var stats checkpoint.CheckpointStatsSnapshot
	require.NoError(t, json.Unmarshal(answer, &stats))
	_, answer = e.do(http.MethodGet, "/jobs/"+jobID.String(), "", nil)
	var job rest.JobDetailsInfo
	require.NoError(t, json.Unmarshal(answer, &job))

	fmt.Fprintf(told, "The web UI, Checkpoints of %s (GET %s, and %s/details/<id> of each failed checkpoint):\n", job.Name, path, path)
	c := stats.Counts
	fmt.Fprintf(told, "  Counts: triggered %d, in progress %d, completed %d, failed %d, restored %d\n",
		c.Total, c.InProgress, c.Completed, c.Failed, c.Restored)
	if l := stats.Latest.Completed; l != nil {
		fmt.Fprintf(told, "  Latest completed checkpoint: %d, triggered %s, end to end duration %d ms, checkpointed data size %d B\n",
			l.ID, clock(l.TriggerTimestamp), l.EndToEndDuration, l.CheckpointedSize)
	}
	if l := stats.Latest.Failed; l != nil {
		fmt.Fprintf(told, "  Latest failed checkpoint: %d, failed %s: %s\n", l.ID, clock(l.FailureTimestamp), l.FailureMessage)
	}
	if l := stats.Latest.Restored; l != nil {
		fmt.Fprintf(told, "  Latest restore: %d, restored %s\n", l.ID, clock(l.RestoreTimestamp))
	}
	fmt.Fprintf(told, "  History, newest first:\n")
	w := tabwriter.NewWriter(told, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "  ID\tStatus\tAcknowledged\tTrigger Time\tEnd to End Duration\tCheckpointed Data Size")
	for _, h := range stats.History {
		fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%d ms\t%d B\n", h.ID, h.Status, acknowledged(h.NumAcknowledgedSubtasks, h.NumSubtasks),
			clock(h.TriggerTimestamp), h.EndToEndDuration, h.CheckpointedSize)
	}
	require.NoError(t, w.Flush())
	fmt.Fprintln(told)

	for _, h := range stats.History {
		if h.Status == checkpoint.StatusFailed {
			e.showFailedCheckpoint(t, path, h.ID, job.Vertices, told)
		}
	}
}

// showFailedCheckpoint writes how many subtasks of each vertex
// acknowledged failed checkpoint id, in the job's order of vertices.
func (e *endpoint) showFailedCheckpoint(t *testing.T, path string, id int64, vertices []rest.JobDetailsVertexInfo, told *bytes.Buffer) {
	status, answer := e.do(http.MethodGet, fmt.Sprintf("%s/details/%d", path, id), "", nil)
	require.Equal(t, http.StatusOK, status, "%s", answer)
	var details checkpoint.CheckpointStatistics
	require.NoError(t, json.Unmarshal(answer, &details))
	fmt.Fprintf(told, "Checkpoint %d, %s (%s), by vertex:\n", id, details.Status, details.FailureMessage)
	w := tabwriter.NewWriter(told, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "  ID\tVertex\tAcknowledged\tLatest Acknowledgement\tCheckpointed Data Size")
	for _, v := range vertices {
		task, ok := details.Tasks[v.ID.String()]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%d B\n", id, v.Name, acknowledged(task.NumAcknowledgedSubtasks, task.NumSubtasks),
			clock(task.LatestAckTimestamp), task.CheckpointedSize)
	}
	require.NoError(t, w.Flush())
	fmt.Fprintln(told)
}

// acknowledged is "2/4 (50%)", as the web UI shows how many subtasks
// acknowledged a checkpoint.
func acknowledged(acks, subtasks int) string {
	percent := 0
	if subtasks > 0 {
		percent = 100 * acks / subtasks
	}
	return fmt.Sprintf("%d/%d (%d%%)", acks, subtasks, percent)
}

// clock is a REST answer's time (ms since the epoch, on the drill's
// clock) as the web UI shows it, "08:43:35.131"; "-" for none.
func clock(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("15:04:05.000")
}
