package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/hatrace"
	"flinklab/tools/learn/diagnose"
)

// The failover drills as a learner meets them: the logs of four real
// processes after the leader stopped leading. The answers people write
// there blame ZooKeeper, name the JobManager that leads now, or paste the
// standby's grant, which every failover writes; each is told what is
// wrong, and the right answer passes in the words people use. The two
// drills run side by side: their processes mostly wait on each other.
func TestTheFailoverDrillsAreGradedAsALearnerAnswersThem(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Run("d23", func(t *testing.T) {
		t.Parallel()
		d := startAsALearner(t, "d23") // the leader JobManager was killed
		d.refuses(t, []wrongAnswer{
			{"the template as it is", ""},
			{"the right process and line, but a pause", "cause: GC pause\nprocess: standalonesession-0\nline: " + d.provingLine(t)},
			{"ZooKeeper down, the new leader and the standby's grant", "cause: ZooKeeper down\nprocess: standalonesession-1\nline: " +
				d.lastLineOf("DefaultDispatcherRunner was granted leadership")},
			{"a line of the healthy part of the log", "cause: killed\nprocess: standalonesession-0\nline: " + d.lineOf("Starting execution of job 'Ticker'")},
		}, "leader-killed", "killed", "SIGKILL", "crash", "standalonesession-0", "closed by the peer")
		d.accepts(t, "cause: SIGKILL\nprocess: flink-flinklab-standalonesession-0-localhost.log\nline: "+d.provingLine(t))
	})
	t.Run("d24", func(t *testing.T) {
		t.Parallel()
		d := startAsALearner(t, "d24") // the leader JobManager was paused, and fenced off when it resumed
		d.refuses(t, []wrongAnswer{
			{"ZooKeeper cut it off", "cause: connection suspended\nprocess: standalonesession-0\nline: " +
				d.lineOf("Connection to ZooKeeper suspended, waiting for reconnection.")},
			{"a kill, and the JobManager that recovered the job", "cause: killed\nprocess: standalonesession-1\nline: " +
				d.lineOf("Successfully recovered 1 persisted job graphs.")},
			{"the standby's grant", "cause: paused\nprocess: standalonesession-0\nline: " + d.lastLineOf("DefaultDispatcherRunner was granted leadership")},
			{"the old leader's job SUSPENDED, a consequence", "cause: GC\nprocess: standalonesession-0\nline: " + d.lineOf("reached terminal state SUSPENDED")},
		}, "leader-paused", "paused", "SIGSTOP", "frozen", "fenced", "standalonesession-0", "was revoked the leadership")
		d.accepts(t, "cause: GC pause\nprocess: standalonesession-0\nline: "+d.lineOf("DefaultDispatcherRunner was revoked the leadership"))
	})
}

// lastLineOf is the first line of the last record that contains text, as
// a learner copies it: the standby's grant is the last grant.
func (d *learnerDrill) lastLineOf(text string) string {
	for i := len(d.logs.All) - 1; i >= 0; i-- {
		if r := d.logs.All[i]; strings.Contains(r.Text(), text) {
			return d.firstLine(r)
		}
	}
	panic("no line with " + strconv.Quote(text) + " in the drill's logs")
}

// provingLine is a line of the drill's proof that is not its context (a
// grant, the last line before a silence), pasted with its file's name
// before it, as grep prints it: two TaskManagers may write the same line
// in the same millisecond.
func (d *learnerDrill) provingLine(t *testing.T) string {
	t.Helper()
	cause, ok := d.logs.Explain()
	require.True(t, ok)
	for _, r := range d.logs.ProofOf(cause) {
		if slices.ContainsFunc(cause.Proof, func(l hatrace.Line) bool {
			return !l.Context && l.Message == strings.SplitN(r.Message, "\n", 2)[0] && l.Time.Equal(r.Time)
		}) {
			return r.File + ":" + strings.SplitN(r.LogRecord.String(), "\n", 2)[0]
		}
	}
	t.Fatalf("no proving line but context: %s", cause)
	return ""
}

// causeList is every cause, as a message that asks for one lists them:
// naming all of them names none.
func causeList() string {
	var causes []string
	for _, c := range diagnose.Causes() {
		causes = append(causes, string(c))
	}
	return strings.Join(causes, ", ")
}
