package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/fault"
)

// A checkpoint that expired leaves the same lines in the JobManager's log
// whatever step it stopped at: "Checkpoint N of job … expired before
// completing.", the failure the CheckpointFailureManager counts, the
// global failover. What tells the steps apart is the checkpoint's
// statistics, which the drill's ClientFile shows as the web UI's
// Checkpoints tab does (GET /jobs/:jobid/checkpoints and
// /checkpoints/details/:id): a row per checkpoint of the history, and
// under each failed checkpoint a row per vertex, with how many of its
// subtasks acknowledged it.
//
//	  ID  Status     Acknowledged  Trigger Time  End to End Duration  Checkpointed Data Size
//	  3   FAILED     2/4 (50%)     08:05:30.325  15000 ms             10 B
//	…
//	Checkpoint 3, FAILED (Checkpoint expired before completing.), by vertex:
//	  ID  Vertex                               Acknowledged  Latest Acknowledgement  Checkpointed Data Size
//	  3   Source: sensor-events                2/2 (100%)    08:05:30.325            10 B
//	  3   running-count -> Sink: collect-sink  0/2 (0%)      -                       0 B

// CheckpointRow is a row of a failed checkpoint's statistics in the
// ClientFile: the whole checkpoint's (Vertex empty), or one vertex's.
type CheckpointRow struct {
	Line       int    // the line of the ClientFile, from 1
	Text       string // the line as the file has it
	Checkpoint int64
	Failure    string // why the checkpoint failed, as its details say: "Checkpoint expired before completing."
	// Vertex is the vertex's name, "Source: sensor-events"; empty in the
	// row of the whole checkpoint.
	Vertex                 string
	Acknowledged, Subtasks int
}

// Where returns "client.txt:line", the row's place.
func (r CheckpointRow) Where() string { return fmt.Sprintf("%s:%d", ClientFile, r.Line) }

// source reports whether the row is a source vertex's: Flink names a
// source's vertex "Source: …".
func (r CheckpointRow) source() bool { return strings.HasPrefix(r.Vertex, "Source: ") }

// complete reports whether every subtask of the row acknowledged.
func (r CheckpointRow) complete() bool { return r.Acknowledged == r.Subtasks }

// expired reports whether the row's checkpoint expired.
func (r CheckpointRow) expired() bool { return r.Failure == checkpoint.CheckpointExpired.Message }

var (
	// historyRow is a failed checkpoint's row in the history: its ID and
	// acknowledged subtasks.
	historyRow = regexp.MustCompile(`^\s+(\d+)\s+FAILED\s+(\d+)/(\d+) \(\d+%\)`)
	// detailsHeader begins the vertices' rows of a failed checkpoint.
	detailsHeader = regexp.MustCompile(`^Checkpoint (\d+), FAILED \((.*)\), by vertex:$`)
	// vertexRow is a vertex's row under it: the checkpoint's ID, the
	// vertex's name and its acknowledged subtasks, columns apart by two
	// spaces or more.
	vertexRow = regexp.MustCompile(`^\s+(\d+)\s+(\S.*?)\s{2,}(\d+)/(\d+) \(\d+%\)`)
)

// CheckpointRows reads the rows of the failed checkpoints from the
// ClientFile: each one's row in the history, and each of its vertices'
// under its details, in file order.
func (l Logs) CheckpointRows() []CheckpointRow {
	lines := strings.Split(l.Client, "\n")
	failures := map[int64]string{} // the failure of each checkpoint whose details are shown
	for _, line := range lines {
		if m := detailsHeader.FindStringSubmatch(line); m != nil {
			failures[atoi64(m[1])] = m[2]
		}
	}
	var rows []CheckpointRow
	var details int64 = -1 // the checkpoint whose details the lines are in, -1 for none
	for i, line := range lines {
		row := CheckpointRow{Line: i + 1, Text: line}
		switch m := detailsHeader.FindStringSubmatch(line); {
		case m != nil:
			details = atoi64(m[1])
			continue
		case strings.TrimSpace(line) == "":
			details = -1
			continue
		}
		if m := vertexRow.FindStringSubmatch(line); details >= 0 && m != nil && atoi64(m[1]) == details {
			row.Checkpoint, row.Vertex = details, m[2]
			row.Acknowledged, row.Subtasks = atoi(m[3]), atoi(m[4])
		} else if m := historyRow.FindStringSubmatch(line); details < 0 && m != nil {
			row.Checkpoint = atoi64(m[1])
			row.Acknowledged, row.Subtasks = atoi(m[2]), atoi(m[3])
		} else {
			continue
		}
		row.Failure = failures[row.Checkpoint]
		rows = append(rows, row)
	}
	return rows
}

func atoi(s string) int     { n, _ := strconv.Atoi(s); return n }
func atoi64(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

// statisticsProof is, for each kind of failure whose log lines another
// kind writes alike, which rows of the checkpoint statistics prove it:
// where the checkpoint that expired stopped.
var statisticsProof = map[fault.Kind]func(rows []CheckpointRow) []CheckpointRow{
	// k1: the triggers never reached the sources, so no source took the
	// checkpoint, nor anything after them: the checkpoint's row, or a
	// source's, with no subtask acknowledged.
	fault.CheckpointExpired: func(rows []CheckpointRow) []CheckpointRow {
		return rowsWhere(rows, func(r CheckpointRow) bool {
			return r.expired() && r.Acknowledged == 0 && (r.Vertex == "" || r.source())
		})
	},
	// k4: every source took the checkpoint, and a task downstream did not:
	// the row of a vertex after the sources with subtasks that did not
	// acknowledge, in a checkpoint whose sources all did.
	fault.BarrierLost: func(rows []CheckpointRow) []CheckpointRow {
		sourcesTookIt := map[int64]bool{}
		for _, r := range rows {
			if r.source() {
				took, seen := sourcesTookIt[r.Checkpoint]
				sourcesTookIt[r.Checkpoint] = (took || !seen) && r.complete()
			}
		}
		return rowsWhere(rows, func(r CheckpointRow) bool {
			return r.expired() && r.Vertex != "" && !r.source() && !r.complete() && sourcesTookIt[r.Checkpoint]
		})
	},
}

// rowsWhere returns the rows that keep is true of, in order.
func rowsWhere(rows []CheckpointRow, keep func(CheckpointRow) bool) []CheckpointRow {
	var kept []CheckpointRow
	for _, r := range rows {
		if keep(r) {
			kept = append(kept, r)
		}
	}
	return kept
}

// whatStatisticsShow describes, for the messages of CheckHonest, the rows
// each statisticsProof looks for.
var whatStatisticsShow = map[fault.Kind]string{
	fault.CheckpointExpired: "an expired checkpoint that no source acknowledged",
	fault.BarrierLost:       "an expired checkpoint that every source acknowledged and a vertex after them did not, in full",
}

// ProvedByStatistics reports whether the key's fault is proved by a row
// of the checkpoint statistics rather than by a log line: its log lines
// are another kind's too.
func (k Key) ProvedByStatistics() bool {
	_, ok := statisticsProof[k.Kind]
	return ok
}

// proof is what proves a kind of failure in a drill: the lines of its
// evidence, and for a kind that statisticsProof knows the rows of the
// checkpoint statistics; complete when every line that must be there is,
// and a row if one is asked for.
type proof struct {
	lines    []Record
	rows     []CheckpointRow
	complete bool
}

// findProof finds what proves e in logs.
func findProof(e fault.Evidence, logs Logs) proof {
	lines, complete := logs.Find(e)
	p := proof{lines: lines, complete: complete}
	if rowsOf, ok := statisticsProof[e.Kind]; ok {
		p.rows = rowsOf(logs.CheckpointRows())
		p.complete = p.complete && len(p.rows) > 0
	}
	return p
}

// ProvingRows returns the rows of the checkpoint statistics that prove
// the key's fault in logs, or none for a fault its log lines prove.
func (k Key) ProvingRows(logs Logs) []CheckpointRow {
	rowsOf, ok := statisticsProof[k.Kind]
	if !ok {
		return nil
	}
	return rowsOf(logs.CheckpointRows())
}

// rowToLookFor describes the row that proves a fault that the checkpoint
// statistics prove, by where it is only.
const rowToLookFor = "a row of the checkpoint statistics in " + ClientFile + ", where the checkpoint that expired is shown by vertex"

// gradeStatisticsLine grades the line of an answer to a drill whose fault
// the checkpoint statistics prove: it is right when it is in exactly one
// line of the logs and the ClientFile, and that line is one of the rows
// that prove the fault. A line of the logs that proves the expiry is not
// enough: it reads alike whatever step the checkpoint stopped at.
func gradeStatisticsLine(logs Logs, proof proof, line string) Part {
	if strings.TrimSpace(line) == "" {
		return Part{Message: "Paste the line that proves the failure: " + rowToLookFor + "."}
	}
	inLogs, record := locate(logs, readPasted(line))
	inClient, n := locateClient(logs.Client, line)
	switch {
	case inLogs == inSeveral || inClient == inSeveral || inLogs == found && inClient == found:
		where := "the logs and " + ClientFile
		switch {
		case inLogs != found && inLogs != inSeveral:
			where = ClientFile
		case inClient != found && inClient != inSeveral:
			where = "the logs"
		}
		return Part{Message: fmt.Sprintf("%s is in several lines of %s: paste more of the one you mean (the whole line says which).",
			quote(line), where)}
	case inClient == found:
		if slices.ContainsFunc(proof.rows, func(r CheckpointRow) bool { return r.Line == n }) {
			return Part{Right: true}
		}
		if slices.ContainsFunc(logs.CheckpointRows(), func(r CheckpointRow) bool { return r.Line == n }) {
			return Part{Message: fmt.Sprintf("That row of the checkpoint statistics (%s:%d) does not show where the checkpoint stopped. "+
				"Read every row of a checkpoint that expired, vertex by vertex: which took it, and which did not?", ClientFile, n)}
		}
		return Part{Message: fmt.Sprintf("That line is in %s (line %d), but it does not show where the checkpoint stopped. Look for %s.",
			ClientFile, n, rowToLookFor)}
	case inLogs == found:
		r := logs.All[record]
		if slices.ContainsFunc(proof.lines, func(p Record) bool { return p.File == r.File && p.Line == r.Line }) {
			return Part{Message: fmt.Sprintf("That line is in the logs (%s) and tells of a checkpoint that expired; but an expired checkpoint "+
				"reads alike in the logs whatever step it stopped at. Paste %s: it shows where the checkpoint stopped.", r.Where(), rowToLookFor)}
		}
		return Part{Message: fmt.Sprintf("That line is in the logs (%s), but it does not prove the failure. Look for %s. "+
			"A consequence (an expired checkpoint, a restart, a FAILED job) is not the proof.", r.Where(), rowToLookFor)}
	case inLogs == tooShort && inClient == tooShort:
		return Part{Message: fmt.Sprintf("%s is too short to tell one line from another: paste at least %d characters of the line, or all of it.",
			quote(line), minPasted)}
	}
	return Part{Message: fmt.Sprintf("%s is in neither the logs nor %s: paste the line as its file has it.", quote(line), ClientFile)}
}
