package diagnose

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"flinklab/runtime/highavailability/hatrace"
	"flinklab/runtime/logging"
)

// FailoverKey is the answer to a failover drill: what ended the old
// leader's leadership, one of the kinds package hatrace tells apart, and
// the JobManager it happened to, named as its log file is
// ("standalonesession-0").
type FailoverKey struct {
	Cause   hatrace.Kind
	Process string
}

// NewFailoverKey returns the key of a failover drill, or an error for a
// cause that is none of Causes or a process that is no JobManager's.
func NewFailoverKey(cause, process string) (FailoverKey, error) {
	if !slices.Contains(Causes(), hatrace.Kind(cause)) {
		return FailoverKey{}, fmt.Errorf("diagnose: cause %q is none of %s", cause, causeList())
	}
	if !jobManagerProcess.MatchString(process) {
		return FailoverKey{}, fmt.Errorf("diagnose: process %q: want a JobManager's, standalonesession-N", process)
	}
	return FailoverKey{Cause: hatrace.Kind(cause), Process: process}, nil
}

// Causes lists the causes a learner chooses from: what hatrace.Explain
// tells apart, in the order of lesson 02b's table.
func Causes() []hatrace.Kind {
	return []hatrace.Kind{hatrace.LeaderKilled, hatrace.LeaderPaused, hatrace.ConnectionSuspended,
		hatrace.SessionExpired, hatrace.ZooKeeperDown, hatrace.SuspensionTolerated, hatrace.LeaderStopped}
}

func causeList() string {
	names := make([]string, len(Causes()))
	for i, c := range Causes() {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// causeAliases are the other names people give each cause: what they
// would say on call, and what did it. Case, spaces, hyphens and
// underscores do not count. "stopped" is a shut-down leader's: a leader
// stopped with SIGSTOP is "paused".
var causeAliases = map[hatrace.Kind][]string{
	hatrace.LeaderKilled: {"killed", "kill", "kill -9", "SIGKILL", "crash", "crashed", "died", "dead",
		"OOM", "OOM killer", "OOM-killed"},
	hatrace.LeaderPaused: {"paused", "pause", "GC", "GC pause", "long GC", "garbage collection", "SIGSTOP",
		"frozen", "froze", "frozen VM", "fenced", "fenced off"},
	hatrace.ConnectionSuspended: {"suspended", "connection suspended", "network partition", "partitioned", "cut off"},
	hatrace.SessionExpired:      {"expired", "session expired", "lost", "connection lost", "session lost"},
	hatrace.ZooKeeperDown:       {"ZooKeeper down", "ZK down", "ZooKeeper outage", "ZooKeeper unreachable", "ZooKeeper failed"},
	hatrace.SuspensionTolerated: {"tolerated", "suspension tolerated"},
	hatrace.LeaderStopped:       {"stopped", "shut down", "shutdown", "SIGTERM", "stop-cluster"},
}

// CanonicalCause returns the cause name names: a kind of Causes, or one
// of its aliases. False for a name that is none.
func CanonicalCause(name string) (hatrace.Kind, bool) {
	n := normalizeCause(name)
	if n == "" {
		return "", false
	}
	for _, c := range Causes() {
		if n == normalizeCause(string(c)) || slices.ContainsFunc(causeAliases[c], func(a string) bool { return n == normalizeCause(a) }) {
			return c, true
		}
	}
	return "", false
}

// normalizeCause lowercases s and drops its spaces, hyphens and
// underscores: "GC pause", "gc-pause" and "gcpause" are one name.
func normalizeCause(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return -1
		}
		return r
	}, normalizeName(s))
}

// jobManagerProcess and anyProcess are the names of processes as package
// hatrace names them.
var (
	jobManagerProcess = regexp.MustCompile(`^standalonesession-\d+$`)
	anyProcess        = regexp.MustCompile(`^(?:standalonesession|taskexecutor)-\d+$`)
)

// processOfFile returns the process whose log a file is, as package hatrace
// names it ("standalonesession-0" for
// flink-flinklab-standalonesession-0-localhost.log), or "".
func processOfFile(file string) string {
	return hatrace.ProcessOf(path.Base(file))
}

// CanonicalProcess returns the process name names, as a learner writes
// it: "standalonesession-0", "StandaloneSession 0", or the log file's
// name, with its directory or without. False for a name that is none.
func CanonicalProcess(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if p := processOfFile(name); p != "" {
		return p, true
	}
	n := strings.ToLower(strings.Join(strings.Fields(name), "-"))
	if anyProcess.MatchString(n) {
		return n, true
	}
	return "", false
}

// haLogs returns the logs as package hatrace reads them: one Log per
// file that is a process's, named as processOfFile names it, each record
// with its first line only.
func (l Logs) haLogs() []hatrace.Log {
	var logs []hatrace.Log
	for _, file := range slices.Sorted(maps.Keys(l.Files)) {
		process := processOfFile(file)
		if process == "" {
			continue
		}
		log := hatrace.Log{Process: process}
		for _, r := range l.Files[file] {
			log.Records = append(log.Records, hatrace.Record{Time: r.Time, Level: logging.LevelName(r.Level), Logger: r.Logger, Message: firstLine(r.Message)})
		}
		logs = append(logs, log)
	}
	return logs
}

// Explain is hatrace.Explain on the logs: what ended the leadership of the
// leader before the last one, and the lines that prove it.
func (l Logs) Explain() (hatrace.Cause, bool) { return hatrace.Explain(l.haLogs()) }

// ProofOf returns the records of All that cause's proving lines quote, in
// log order: where each is in the files.
func (l Logs) ProofOf(cause hatrace.Cause) []Record {
	var records []Record
	for _, r := range l.All {
		if slices.ContainsFunc(cause.Proof, func(p hatrace.Line) bool { return isProof(r, p) }) {
			records = append(records, r)
		}
	}
	return records
}

// isProof reports whether r is the record a proving line quotes.
func isProof(r Record, proof hatrace.Line) bool {
	return processOfFile(r.File) == proof.Process && r.Time.Equal(proof.Time) && r.Logger == proof.Logger && firstLine(r.Message) == proof.Message
}

// grant is how every grant of a leadership reads, whichever component's:
// the Dispatcher runner's, the ResourceManager service's, a JobMaster
// runner's.
var grant = regexp.MustCompile(`\b(?:was|is) granted leadership with (?:leader|session) id `)

// quotable returns the lines of cause's proof a learner may answer with:
// those that tell the cause apart, not its context (the next leader's
// grant, which every failover writes, or the last line before a silence,
// which a dead leader and a frozen one both leave).
func quotable(cause hatrace.Cause) []hatrace.Line {
	var lines []hatrace.Line
	for _, l := range cause.Proof {
		if !l.Context {
			lines = append(lines, l)
		}
	}
	return lines
}
