package diagnose_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
	"flinklab/tools/learn/diagnose"
)

var (
	barrierLostKey       = diagnose.Key{Step: trace.K4, Kind: fault.BarrierLost, Component: diagnose.Task}
	checkpointExpiredKey = diagnose.Key{Step: trace.K1, Kind: fault.CheckpointExpired, Component: diagnose.JobMaster}
)

// checkpointLines are the JobManager's lines of a checkpointed ticker whose
// second checkpoint completed and whose third expired, whatever step it
// stopped at: the expiry, the failure it counts as, the global failover.
var checkpointLines = []string{
	"2026-11-30 14:28:22,982 INFO  CheckpointCoordinator [] - Triggering checkpoint 2 (type=CheckpointType{name='Checkpoint', " +
		"sharingFilesStrategy=FORWARD_BACKWARD}) @ 1796048902982 for job " + job + ".",
	"2026-11-30 14:28:22,983 INFO  CheckpointCoordinator [] - Completed checkpoint 2 for job " + job + " (241 bytes, checkpointDuration=1 ms, finalizationTime=0 ms).",
	"2026-11-30 14:28:27,982 INFO  CheckpointCoordinator [] - Triggering checkpoint 3 (type=CheckpointType{name='Checkpoint', " +
		"sharingFilesStrategy=FORWARD_BACKWARD}) @ 1796048907982 for job " + job + ".",
	"2026-11-30 14:28:42,982 INFO  CheckpointCoordinator [] - Checkpoint 3 of job " + job + " expired before completing.",
	"2026-11-30 14:28:42,982 WARN  CheckpointFailureManager [] - Failed to trigger or complete checkpoint 3 for job " + job + ". (0 consecutive failed attempts so far)",
	"org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing.",
	"2026-11-30 14:28:42,982 INFO  DefaultScheduler [] - Trying to recover from a global failure.",
	"Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to Checkpoint expired before completing., " +
		"view the Checkpoint History tab or the Job Manager log to find out why continuous checkpoints failed.",
	"2026-11-30 14:28:42,982 INFO  DefaultScheduler [] - 4 tasks will be restarted to recover from a global failure.",
	"2026-11-30 14:28:42,982 INFO  ExecutionGraph [] - Job Ticker (" + job + ") switched from state RUNNING to RESTARTING.",
}

// The lines of checkpointStatistics, from 1: the history's row of the
// failed checkpoint, and its sources' and running-count's rows.
const (
	historyLine, sourcesLine, countsLine = 5, 10, 11
)

// checkpointStatistics is what the client is shown of the ticker's
// checkpoints as the web UI shows them, when checkpoint 3 failed with
// sources of its 2 source subtasks and counts of its 2 running-count
// subtasks acknowledged.
func checkpointStatistics(failure string, sources, counts int) []string {
	all := sources + counts
	return []string{
		"The web UI, Checkpoints of Ticker (GET /jobs/" + job + "/checkpoints, and /jobs/" + job + "/checkpoints/details/<id> of each failed checkpoint):",
		"  Counts: triggered 3, in progress 0, completed 2, failed 1, restored 1",
		"  History, newest first:",
		"  ID  Status     Acknowledged  Trigger Time  End to End Duration  Checkpointed Data Size",
		fmt.Sprintf("  3   FAILED     %d/4 (%d%%)     14:28:27.982  15000 ms             10 B", all, 25*all),
		"  2   COMPLETED  4/4 (100%)    14:28:22.982  1 ms                 241 B",
		"",
		"Checkpoint 3, FAILED (" + failure + "), by vertex:",
		"  ID  Vertex                               Acknowledged  Latest Acknowledgement  Checkpointed Data Size",
		fmt.Sprintf("  3   Source: sensor-events                %d/2 (%d%%)    14:28:27.982            10 B", sources, 50*sources),
		fmt.Sprintf("  3   running-count -> Sink: collect-sink  %d/2 (%d%%)      -                       0 B", counts, 50*counts),
		"",
		"$ ./bin/flink list -a",
	}
}

const expiredMessage = "Checkpoint expired before completing."

// expiredCheckpoint is a drill of a checkpoint that expired: the
// JobManager's lines, and what the client was shown of the checkpoint.
func expiredCheckpoint(sources, counts int) map[string][]string {
	return map[string][]string{
		diagnose.JobManagerLogFile: checkpointLines,
		diagnose.ClientFile:        checkpointStatistics(expiredMessage, sources, counts),
	}
}

// healthyCheckpoints is the same job's run without the fault: its
// checkpoints complete.
func healthyCheckpoints() map[string][]string {
	return map[string][]string{
		diagnose.JobManagerLogFile: checkpointLines[:2],
		diagnose.ClientFile:        {"  ID  Status     Acknowledged", "  2   COMPLETED  4/4 (100%)    14:28:22.982  1 ms  241 B"},
	}
}

func TestCheckpointRowsReadTheFailedCheckpoints(t *testing.T) {
	rows := loadDrill(t, expiredCheckpoint(2, 1)).CheckpointRows()
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %d %q %d/%d %s", r.Where(), r.Checkpoint, r.Vertex, r.Acknowledged, r.Subtasks, r.Failure))
	}
	assert.Equal(t, []string{
		fmt.Sprintf(`client.txt:%d 3 "" 3/4 %s`, historyLine, expiredMessage),
		fmt.Sprintf(`client.txt:%d 3 "Source: sensor-events" 2/2 %s`, sourcesLine, expiredMessage),
		fmt.Sprintf(`client.txt:%d 3 "running-count -> Sink: collect-sink" 1/2 %s`, countsLine, expiredMessage),
	}, got, "a completed checkpoint has no rows; a failed one has its history's and its vertices'")
	assert.Equal(t, strings.TrimSpace(checkpointStatistics(expiredMessage, 2, 1)[countsLine-1]), strings.TrimSpace(rows[2].Text))

	assert.Empty(t, loadDrill(t, jarCorrupted()).CheckpointRows(), "a job without checkpoints")
}

// Where a checkpoint that expired stopped is in its rows: no source took
// it (k1), or the sources did and running-count did not (k4). A
// checkpoint that failed otherwise, or that some of its sources took,
// proves neither.
func TestTheRowsThatProveWhereACheckpointStopped(t *testing.T) {
	tests := []struct {
		name            string
		failure         string
		sources, counts int
		k1, k4          []int // the lines of the rows that prove it
	}{
		{name: "no subtask took it", failure: expiredMessage, k1: []int{historyLine, sourcesLine}},
		{name: "the sources took it, running-count did not", failure: expiredMessage, sources: 2, k4: []int{countsLine}},
		{name: "one running-count subtask took it", failure: expiredMessage, sources: 2, counts: 1, k4: []int{countsLine}},
		{name: "one source took it", failure: expiredMessage, sources: 1},
		{name: "aborted as the job failed over", failure: "Checkpoint Coordinator is suspending."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := loadDrill(t, map[string][]string{diagnose.ClientFile: checkpointStatistics(tt.failure, tt.sources, tt.counts), tm0: nil})
			for key, want := range map[diagnose.Key][]int{checkpointExpiredKey: tt.k1, barrierLostKey: tt.k4} {
				var got []int
				for _, r := range key.ProvingRows(logs) {
					got = append(got, r.Line)
				}
				assert.Equal(t, want, got, "%s", key.Step)
			}
		})
	}
	assert.Empty(t, jarCorruptedKey.ProvingRows(loadDrill(t, expiredCheckpoint(0, 0))), "m10's lines prove it")
	assert.True(t, barrierLostKey.ProvedByStatistics())
	assert.False(t, jarCorruptedKey.ProvedByStatistics())
}

func TestGradeACheckpointDrill(t *testing.T) {
	stuck, lost := loadDrill(t, expiredCheckpoint(2, 0)), loadDrill(t, expiredCheckpoint(0, 0))
	row := func(sources, counts, line int) string {
		return checkpointStatistics(expiredMessage, sources, counts)[line-1]
	}
	tests := []struct {
		name      string
		key       diagnose.Key
		logs      diagnose.Logs
		answer    diagnose.Answer
		right     []string // the parts that are right
		contains  []string // in the message of a part that is not
		otherwise []string // in no message
	}{
		{name: "k4, all right", key: barrierLostKey, logs: stuck,
			answer: diagnose.Answer{Step: "k4", Component: "CheckpointBarrierHandler", Line: row(2, 0, countsLine)},
			right:  []string{"step", "component", "line"}},
		{name: "k4, the row as grep prints it", key: barrierLostKey, logs: stuck,
			answer: diagnose.Answer{Line: fmt.Sprintf("client.txt:%d:%s", countsLine, row(2, 0, countsLine))},
			right:  []string{"line"}},
		{name: "k4 answered with the coordinator that gave up", key: barrierLostKey, logs: stuck,
			answer: diagnose.Answer{Step: "k6", Component: "CheckpointCoordinator", Line: "Checkpoint 3 of job " + job + " expired before completing."},
			contains: []string{"At k6 ", "an expired checkpoint, a restart or a FAILED job is a consequence",
				`"CheckpointCoordinator" is not the component to open. The line that proves the failure is a row of the checkpoint statistics (client.txt)`,
				"That line is in the logs (" + diagnose.JobManagerLogFile + ":4) and tells of a checkpoint that expired; but an expired checkpoint reads alike"},
			otherwise: []string{"running-count", "0/2", "Task", "k4"}},
		{name: "k4 answered with the sources' row", key: barrierLostKey, logs: stuck,
			answer:    diagnose.Answer{Step: "k1", Line: row(2, 0, sourcesLine)},
			contains:  []string{"At k1 ", fmt.Sprintf("That row of the checkpoint statistics (client.txt:%d) does not show where the checkpoint stopped.", sourcesLine)},
			otherwise: []string{"running-count", "0/2", "k4"}},
		{name: "k4 answered with the history's row", key: barrierLostKey, logs: stuck,
			answer:   diagnose.Answer{Line: row(2, 0, historyLine)},
			contains: []string{"does not show where the checkpoint stopped"}},
		{name: "k1, all right", key: checkpointExpiredKey, logs: lost,
			answer: diagnose.Answer{Step: "k1", Component: "CheckpointCoordinator", Line: row(0, 0, sourcesLine)},
			right:  []string{"step", "component", "line"}},
		{name: "k1, the history's row", key: checkpointExpiredKey, logs: lost,
			answer: diagnose.Answer{Component: "JobMaster", Line: row(0, 0, historyLine)},
			right:  []string{"component", "line"}},
		{name: "k1 answered with running-count's row", key: checkpointExpiredKey, logs: lost,
			answer:    diagnose.Answer{Step: "k4", Component: "Task", Line: row(0, 0, countsLine)},
			contains:  []string{"At k4 ", `"Task" is not the component to open.`, "does not show where the checkpoint stopped"},
			otherwise: []string{"Source:", "k1", "JobMaster", "CheckpointCoordinator"}},
		{name: "a line of the logs that proves nothing", key: checkpointExpiredKey, logs: lost,
			answer:   diagnose.Answer{Line: "Completed checkpoint 2 for job " + job},
			contains: []string{"That line is in the logs (" + diagnose.JobManagerLogFile + ":2), but it does not prove the failure."}},
		{name: "a line of the client that is no row", key: checkpointExpiredKey, logs: lost,
			answer:   diagnose.Answer{Line: "Counts: triggered 3, in progress 0"},
			contains: []string{"That line is in client.txt (line 2), but it does not show where the checkpoint stopped."}},
		{name: "in the logs and the client", key: checkpointExpiredKey, logs: lost,
			answer:   diagnose.Answer{Line: expiredMessage},
			contains: []string{"is in several lines of the logs and client.txt"}},
		{name: "in several rows", key: checkpointExpiredKey, logs: lost,
			answer:   diagnose.Answer{Line: "0 B"},
			contains: []string{`"0 B" is too short`}},
		{name: "nowhere", key: checkpointExpiredKey, logs: lost,
			answer:   diagnose.Answer{Step: "m7", Line: "3   Source: sensor-events   2/2 (100%)"},
			contains: []string{"At m7 ", "is in neither the logs nor client.txt"}},
		{name: "nothing", key: checkpointExpiredKey, logs: lost,
			contains: []string{"Name the step, k1–k7.", "Paste the line that proves the failure: a row of the checkpoint statistics in client.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := diagnose.Grade(tt.key, tt.logs, tt.answer)
			require.NoError(t, v.Err)
			parts := map[string]diagnose.Part{"step": v.Step, "component": v.Component, "line": v.Line}
			var said []string
			for name, part := range parts {
				assert.Equal(t, contains(tt.right, name), part.Right, "%s: %s", name, part.Message)
				said = append(said, part.Message)
			}
			for _, s := range tt.contains {
				assert.Contains(t, strings.Join(said, "\n"), s)
			}
			for _, s := range tt.otherwise {
				if !strings.Contains(tt.answer.Line+string(tt.answer.Step)+tt.answer.Component, s) {
					assert.NotContains(t, strings.Join(said, "\n"), s, "a message never says the answer")
				}
			}
		})
	}
}

func contains(parts []string, part string) bool {
	for _, p := range parts {
		if p == part {
			return true
		}
	}
	return false
}

// A drill of an expired checkpoint is honest when its statistics say
// where it stopped: the lines the logs have are k1's as well as k4's.
func TestCheckHonestOfACheckpointDrill(t *testing.T) {
	tests := []struct {
		name     string
		key      diagnose.Key
		files    map[string][]string
		healthy  map[string][]string
		wantErrs []error
		contains []string
	}{
		{name: "k4", key: barrierLostKey, files: expiredCheckpoint(2, 0), healthy: healthyCheckpoints()},
		{name: "k1", key: checkpointExpiredKey, files: expiredCheckpoint(0, 0), healthy: healthyCheckpoints()},
		{name: "no statistics", key: barrierLostKey, files: without(expiredCheckpoint(2, 0), diagnose.ClientFile, ""),
			healthy: healthyCheckpoints(), wantErrs: []error{diagnose.ErrIncomplete},
			contains: []string{"k4:barrier-lost: no row of the checkpoint statistics in client.txt shows an expired checkpoint that every source acknowledged"}},
		{name: "k4's key on k1's statistics", key: barrierLostKey, files: expiredCheckpoint(0, 0), healthy: healthyCheckpoints(),
			wantErrs: []error{diagnose.ErrIncomplete, diagnose.ErrAmbiguous},
			contains: []string{"the evidence of k1:checkpoint-expired is complete:", fmt.Sprintf("client.txt:%d: 3   Source: sensor-events", sourcesLine)}},
		{name: "k1's key on k4's statistics", key: checkpointExpiredKey, files: expiredCheckpoint(2, 0), healthy: healthyCheckpoints(),
			wantErrs: []error{diagnose.ErrIncomplete, diagnose.ErrAmbiguous},
			contains: []string{"the evidence of k4:barrier-lost is complete:"}},
		{name: "a step's name", key: barrierLostKey, healthy: healthyCheckpoints(),
			files:    withLines(expiredCheckpoint(2, 0), diagnose.JobManagerLogFile, "2026-11-30 14:28:43,000 INFO  JobMaster [] - Fault K4 ahead"),
			wantErrs: []error{diagnose.ErrGivesAway}, contains: []string{`("Fault")`}},
		{name: "a kind of a checkpoint's fault", key: barrierLostKey, healthy: healthyCheckpoints(),
			files:    withLines(expiredCheckpoint(2, 0), diagnose.ClientFile, "barrier-lost"),
			wantErrs: []error{diagnose.ErrGivesAway}, contains: []string{`("barrier-lost")`}},
		{name: "k4 as a word", key: barrierLostKey, healthy: healthyCheckpoints(),
			files:    withLines(expiredCheckpoint(2, 0), diagnose.ClientFile, "step k4"),
			wantErrs: []error{diagnose.ErrGivesAway}, contains: []string{`("k4")`}},
		{name: "every run expires alike", key: barrierLostKey, files: expiredCheckpoint(2, 0), healthy: expiredCheckpoint(2, 0),
			wantErrs: []error{diagnose.ErrHealthyToo}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := diagnose.CheckHonest(tt.key, loadDrill(t, tt.files), loadDrill(t, tt.healthy))
			t.Log(err)
			if len(tt.wantErrs) == 0 {
				assert.NoError(t, err)
				return
			}
			for _, want := range tt.wantErrs {
				assert.ErrorIs(t, err, want)
			}
			for _, other := range []error{diagnose.ErrIncomplete, diagnose.ErrGivesAway, diagnose.ErrHealthyToo, diagnose.ErrAmbiguous} {
				if !contains(errNames(tt.wantErrs), other.Error()) {
					assert.False(t, errors.Is(err, other), "only the checks that failed: %v", err)
				}
			}
			for _, s := range tt.contains {
				assert.ErrorContains(t, err, s)
			}
		})
	}
}

func errNames(errs []error) []string {
	var names []string
	for _, err := range errs {
		names = append(names, err.Error())
	}
	return names
}
