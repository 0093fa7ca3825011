package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"flinklab/runtime/highavailability/hatrace"
)

// FailoverVerdict is the grade of a failover drill's answer: its cause,
// its process and its line.
type FailoverVerdict struct {
	Cause, Process, Line Part
	// Err is set when the drill itself is broken (its logs do not show
	// the key's cause): the caller's error, not the learner's.
	Err error
}

// Passed reports whether every part is right.
func (v FailoverVerdict) Passed() bool {
	return v.Err == nil && v.Cause.Right && v.Process.Right && v.Line.Right
}

// String prints the verdict, a line per part, as Verdict.String does.
func (v FailoverVerdict) String() string {
	return printParts(v.Err, []namedPart{{"cause:", v.Cause}, {"process:", v.Process}, {"line:", v.Line}})
}

// GradeFailover grades an answer against a failover drill's key and
// logs. The cause is right when it names the key's (any alias, see
// CanonicalCause); the process when it names the key's (CanonicalProcess);
// the line when it is in exactly one record of the logs and that record
// is one of the lines hatrace.Explain quotes as the proof of the cause,
// but for its context (the next grant, which every failover writes, and
// the last line before a silence, which more than one cause leaves). A
// wrong part's message says what is wrong and where to look, never the
// right cause or process, and never quotes a proving line.
func GradeFailover(key FailoverKey, logs Logs, a FailoverAnswer) FailoverVerdict {
	processes := logs.haLogs()
	cause, ok := hatrace.Explain(processes)
	if !ok || cause.Kind != key.Cause || cause.Process != key.Process {
		return FailoverVerdict{Err: fmt.Errorf("diagnose: the logs do not show the key's cause, %s of %s (hatrace.Explain: %q of %q)",
			key.Cause, key.Process, cause.Kind, cause.Process)}
	}
	return FailoverVerdict{
		Cause:   gradeCause(key.Cause, a.Cause),
		Process: gradeProcess(processes, cause, a.Process),
		Line:    gradeFailoverLine(logs, cause, a.Line),
	}
}

// whatCauseShows is how each cause shows in the logs, told to a learner
// who names it when it is not the drill's. None names another cause.
var whatCauseShows = map[hatrace.Kind]string{
	hatrace.LeaderKilled: "A killed leader's log simply ends: it never says that it lost the leadership, " +
		"and the other processes see its connections close at the moment it dies.",
	hatrace.LeaderPaused: "A leader that was not running for a while is silent while another JobManager is granted the leadership, " +
		"and writes on afterwards: only then does it learn that it no longer leads.",
	hatrace.ConnectionSuspended: "A leader cut off from ZooKeeper says so first (\"Connection to ZooKeeper suspended\") " +
		"and gives the leadership up at once, before another JobManager is granted it.",
	hatrace.SessionExpired: "A leader that tolerates a suspended connection says so, leads on for a session timeout, " +
		"and gives the leadership up when its session is lost (\"Connection to ZooKeeper lost\"), before another JobManager is granted it.",
	hatrace.ZooKeeperDown: "When ZooKeeper itself is down, every process loses its connection at the same moment, " +
		"the TaskManagers too: each log says \"Connection to ZooKeeper suspended\" at that time.",
	hatrace.SuspensionTolerated: "A tolerated suspension ends no leadership: the leader reconnects within the session timeout and leads on, " +
		"and no other JobManager is granted the leadership.",
	hatrace.LeaderStopped: "A leader that is shut down says so (\"Shutting … down\") before its log ends, " +
		"and another JobManager is granted the leadership at once, with no session timeout to wait for.",
}

// causeRule is where the cause is read, told with every wrong cause.
const causeRule = "What ended a leadership is told by the order of a few lines in several logs: " +
	"the grants and revocations of the leadership and each process's connection to ZooKeeper, side by side in time."

func gradeCause(want hatrace.Kind, got string) Part {
	choose := "choose one of " + causeList() + "."
	if strings.TrimSpace(got) == "" {
		return Part{Message: "Name what ended the old leader's leadership: " + choose}
	}
	c, ok := CanonicalCause(got)
	switch {
	case ok && c == want:
		return Part{Right: true}
	case !ok:
		return Part{Message: fmt.Sprintf("%s is none of the causes: %s", quote(got), choose)}
	}
	return Part{Message: whatCauseShows[c] + " These logs do not show that. " + causeRule}
}

// gradeProcess grades the process named against the cause's, among the
// logs shown, each as package hatrace reads it.
func gradeProcess(processes []hatrace.Log, cause hatrace.Cause, got string) Part {
	if strings.TrimSpace(got) == "" {
		return Part{Message: "Name the JobManager whose leadership ended, as its log file names it: standalonesession-N."}
	}
	p, ok := CanonicalProcess(got)
	switch {
	case ok && p == cause.Process:
		return Part{Right: true}
	case !ok:
		return Part{Message: fmt.Sprintf("%s names no process: name a JobManager as its log file names it, standalonesession-N, or give the file's name.", quote(got))}
	case !slices.ContainsFunc(processes, func(l hatrace.Log) bool { return l.Process == p }):
		return Part{Message: fmt.Sprintf("There is no log of %s among the logs shown: name a JobManager whose log is there.", p)}
	case !jobManagerProcess.MatchString(p):
		return Part{Message: fmt.Sprintf("%s is a TaskManager: it follows the leader and never leads. Name a JobManager, standalonesession-N.", p)}
	case p == lastLeader(processes):
		return Part{Message: fmt.Sprintf("%s is the JobManager granted the leadership last in these logs: "+
			"name the one whose leadership ended before that grant.", p)}
	}
	return Part{Message: fmt.Sprintf("%s is not the JobManager whose leadership ended: "+
		"find in the JobManagers' logs who was granted the leadership, and whose leadership came before the last grant.", p)}
}

// lastLeader is the JobManager granted the leadership last: h1 of the
// last leader session.
func lastLeader(processes []hatrace.Log) string {
	events, session := hatrace.Trace(processes)
	if session == "" {
		return ""
	}
	return events[0].Process // h1 comes first
}

func gradeFailoverLine(logs Logs, cause hatrace.Cause, line string) Part {
	if strings.TrimSpace(line) == "" {
		return Part{Message: "Paste the log line that proves what ended the old leader's leadership."}
	}
	i, wrong, ok := pastedRecord(logs, line)
	if !ok {
		return wrong
	}
	r := logs.All[i]
	if slices.ContainsFunc(quotable(cause), func(l hatrace.Line) bool { return isProof(r, l) }) {
		return Part{Right: true}
	}
	switch {
	case grant.MatchString(firstLine(r.Message)):
		return Part{Message: fmt.Sprintf("That line is in the logs (%s), but every failover writes it, whatever ended the leadership before: "+
			"a grant says who leads next, not why the leader before stopped leading.", r.Where())}
	case slices.ContainsFunc(cause.Proof, func(l hatrace.Line) bool { return isProof(r, l) }):
		return Part{Message: fmt.Sprintf("That line is in the logs (%s) and marks when it happened, but more than one cause would leave it just so: "+
			"find a line that tells them apart, in this log or in the others at that moment.", r.Where())}
	case i < firstProofIndex(logs, cause):
		return Part{Message: fmt.Sprintf("That line is in the logs (%s), but it was written while the cluster was still healthy: "+
			"nothing had happened to the leader yet.", r.Where())}
	}
	return Part{Message: fmt.Sprintf("That line is in the logs (%s), but it tells what followed, not what ended the leadership. "+
		"Look for a line that only this cause writes, or whose place in time shows it, beside the lines of the other logs at that moment.", r.Where())}
}

// firstProofIndex is the index in logs.All of the earliest line of
// cause's proof.
func firstProofIndex(logs Logs, cause hatrace.Cause) int {
	return slices.IndexFunc(logs.All, func(r Record) bool {
		return slices.ContainsFunc(cause.Proof, func(l hatrace.Line) bool { return isProof(r, l) })
	})
}
