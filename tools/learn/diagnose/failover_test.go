package diagnose_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/hatrace"
	"flinklab/tools/learn/diagnose"
)

var (
	killedKey = diagnose.FailoverKey{Cause: hatrace.LeaderKilled, Process: "standalonesession-0"}
	pausedKey = diagnose.FailoverKey{Cause: hatrace.LeaderPaused, Process: "standalonesession-0"}
)

func TestParseFailoverAnswer(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    diagnose.FailoverAnswer
		wantErr string
	}{
		{name: "all three",
			file: "# what ended it\ncause: SIGKILL\nprocess: standalonesession-0\nline: " + closedByPeer + "\n",
			want: diagnose.FailoverAnswer{Cause: "SIGKILL", Process: "standalonesession-0", Line: closedByPeer}},
		{name: "names are kept as written, for the grade to read",
			file: "Cause:  GC pause \nPROCESS: log/" + jobManager0Log + "\n",
			want: diagnose.FailoverAnswer{Cause: "GC pause", Process: "log/" + jobManager0Log}},
		{name: "the template as it is", file: "cause:\nprocess:\nline:\n", want: diagnose.FailoverAnswer{}},
		{name: "a step drill's key", file: "step: h1\n", wantErr: `answer line 1: unknown key "step" (want cause, process or line)`},
		{name: "a key twice", file: "cause: killed\ncause: paused\n", wantErr: "answer line 2: cause given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := diagnose.ParseFailoverAnswer([]byte(tt.file))
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Every cause is named by its kind and by the words people use for it.
func TestCanonicalCauseAcceptsTheNamesPeopleUse(t *testing.T) {
	for want, names := range map[hatrace.Kind][]string{
		hatrace.LeaderKilled:        {"leader-killed", "Leader Killed", "killed", "SIGKILL", "kill -9", "crash", "died", "OOM killer"},
		hatrace.LeaderPaused:        {"leader-paused", "paused", "GC pause", "gc-pause", "SIGSTOP", "frozen", "frozen VM", "fenced off"},
		hatrace.ConnectionSuspended: {"connection-suspended", "suspended", "network partition"},
		hatrace.SessionExpired:      {"session expired", "lost"},
		hatrace.ZooKeeperDown:       {"zookeeper-down", "ZooKeeper down", "zk down"},
		hatrace.SuspensionTolerated: {"suspension-tolerated", "tolerated"},
		hatrace.LeaderStopped:       {"leader-stopped", "stopped", "shut down", "SIGTERM"},
	} {
		for _, name := range names {
			got, ok := diagnose.CanonicalCause(name)
			assert.True(t, ok, name)
			assert.Equal(t, want, got, name)
		}
	}
	for _, none := range []string{"", "  ", "the leader", "network", "h1"} {
		_, ok := diagnose.CanonicalCause(none)
		assert.False(t, ok, "%q", none)
	}
}

func TestCanonicalProcessReadsTheLogFilesName(t *testing.T) {
	for name, want := range map[string]string{
		"standalonesession-0":                                   "standalonesession-0",
		"StandaloneSession 1":                                   "standalonesession-1",
		jobManager0Log:                                          "standalonesession-0",
		".learn-drills/d23/log/" + jobManager1Log:               "standalonesession-1",
		"taskexecutor-1":                                        "taskexecutor-1",
		"flink-someone-taskexecutor-0-host.example.com.log":     "taskexecutor-0",
		"  flink-flinklab-standalonesession-12-localhost.log  ": "standalonesession-12",
	} {
		got, ok := diagnose.CanonicalProcess(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, none := range []string{"", "JobManager", "the leader", "standalonesession", "jobmanager-0"} {
		_, ok := diagnose.CanonicalProcess(none)
		assert.False(t, ok, "%q", none)
	}
}

// The answers people write after a failover, each refused for what is
// wrong with it, and never with the right cause, process or line.
func TestGradeFailoverRefusesWhatLearnersWrite(t *testing.T) {
	killed, paused := loadDrill(t, leaderKilled()), loadDrill(t, leaderPaused())
	right := diagnose.FailoverAnswer{Cause: "killed", Process: "standalonesession-0", Line: closedByPeer}
	tests := []struct {
		name     string
		key      diagnose.FailoverKey
		logs     diagnose.Logs
		answer   diagnose.FailoverAnswer
		part     func(diagnose.FailoverVerdict) diagnose.Part
		contains []string
	}{{
		name: "the right process, and a pause for a kill", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Cause: "GC pause", Process: "standalonesession-0"},
		part:     cause,
		contains: []string{"is silent while another JobManager is granted the leadership, and writes on afterwards", "These logs do not show that."},
	}, {
		name: "the right process, and a kill for a pause", key: pausedKey, logs: paused,
		answer:   diagnose.FailoverAnswer{Cause: "SIGKILL", Process: "standalonesession-0"},
		part:     cause,
		contains: []string{"A killed leader's log simply ends", "These logs do not show that."},
	}, {
		name: "ZooKeeper down, for a killed leader", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Cause: "ZooKeeper down"},
		part:     cause,
		contains: []string{"every process loses its connection at the same moment, the TaskManagers too", "the order of a few lines in several logs"},
	}, {
		name: "a cause that is none", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Cause: "bad luck"},
		part:     cause,
		contains: []string{`"bad luck" is none of the causes: choose one of leader-killed, leader-paused, connection-suspended`},
	}, {
		name: "the new leader's process", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Process: "standalonesession-1"},
		part:     process,
		contains: []string{"standalonesession-1 is the JobManager granted the leadership last in these logs", "ended before that grant"},
	}, {
		name: "a TaskManager", key: pausedKey, logs: paused,
		answer:   diagnose.FailoverAnswer{Process: tm0},
		part:     process,
		contains: []string{"taskexecutor-0 is a TaskManager: it follows the leader and never leads"},
	}, {
		name: "a JobManager whose log is not there", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Process: "standalonesession-2"},
		part:     process,
		contains: []string{"There is no log of standalonesession-2 among the logs shown"},
	}, {
		name: "the standby's grant, which every failover writes", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Line: standbyLeads[0]},
		part:     line,
		contains: []string{"every failover writes it, whatever ended the leadership before"},
	}, {
		name: "the new ResourceManager's grant, its text only", key: pausedKey, logs: paused,
		answer:   diagnose.FailoverAnswer{Line: "Resource manager service is granted leadership with session id " + session1},
		part:     line,
		contains: []string{"every failover writes it"},
	}, {
		name: "a line of the healthy part of the log", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Line: "Starting execution of job 'Ticker'"},
		part:     line,
		contains: []string{"written while the cluster was still healthy"},
	}, {
		name: "a consequence: the job recovered", key: pausedKey, logs: paused,
		answer:   diagnose.FailoverAnswer{Line: "Successfully recovered 1 persisted job graphs."},
		part:     line,
		contains: []string{"it tells what followed, not what ended the leadership"},
	}, {
		name: "a consequence: the old leader's job SUSPENDED", key: pausedKey, logs: paused,
		answer:   diagnose.FailoverAnswer{Line: "reached terminal state SUSPENDED."},
		part:     line,
		contains: []string{"it tells what followed, not what ended the leadership"},
	}, {
		name: "the dead leader's last line, which a frozen one would leave too", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Line: leaderStart[len(leaderStart)-1]},
		part:     line,
		contains: []string{"marks when it happened, but more than one cause would leave it just so"},
	}, {
		name: "the paused leader's last line before its silence", key: pausedKey, logs: paused,
		answer:   diagnose.FailoverAnswer{Line: leaderStart[len(leaderStart)-1]},
		part:     line,
		contains: []string{"marks when it happened, but more than one cause would leave it just so"},
	}, {
		name: "a line that is in every TaskManager's log", key: killedKey, logs: killed,
		answer:   diagnose.FailoverAnswer{Line: "Connecting to ResourceManager pekko.tcp"},
		part:     line,
		contains: []string{"is in several lines of the logs"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := diagnose.GradeFailover(tt.key, tt.logs, tt.answer)
			require.NoError(t, v.Err)
			assert.False(t, v.Passed())
			p := tt.part(v)
			assert.False(t, p.Right)
			for _, s := range tt.contains {
				assert.Contains(t, p.Message, s)
			}
			cause, ok := tt.logs.Explain()
			require.True(t, ok)
			said := strings.ToLower(sayingNoneOf(v.String()))
			for _, giveaway := range giveawaysOf(tt.key, cause) {
				if !strings.Contains(tt.answer.Cause+tt.answer.Process+tt.answer.Line, giveaway) {
					assert.NotContains(t, said, strings.ToLower(giveaway), "a wrong part's message never says the answer")
				}
			}
		})
	}
	v := diagnose.GradeFailover(killedKey, killed, right)
	assert.True(t, v.Passed(), v.String())
}

func cause(v diagnose.FailoverVerdict) diagnose.Part   { return v.Cause }
func process(v diagnose.FailoverVerdict) diagnose.Part { return v.Process }
func line(v diagnose.FailoverVerdict) diagnose.Part    { return v.Line }

// sayingNoneOf leaves out of a verdict what names no answer: the list of
// every cause (naming all names none) and the place of the learner's own
// line.
func sayingNoneOf(verdict string) string {
	var causes []string
	for _, c := range diagnose.Causes() {
		causes = append(causes, string(c))
	}
	verdict = strings.ReplaceAll(verdict, strings.Join(causes, ", "), "the causes")
	return ownPlace.ReplaceAllString(verdict, "(the line's place)")
}

// ownPlace is where a pasted line is, as a message quotes it.
var ownPlace = regexp.MustCompile(`\(flink-[^)]*\.log:\d+\)`)

// giveawaysOf are the words that would say a failover drill's answer: the
// names of its cause (the kind and the words people use for it), its
// process, and five words in a row of each proving line.
func giveawaysOf(key diagnose.FailoverKey, c hatrace.Cause) []string {
	words := []string{string(key.Cause), key.Process}
	switch key.Cause {
	case hatrace.LeaderKilled:
		words = append(words, "SIGKILL", "crash", "died", "OOM")
	case hatrace.LeaderPaused:
		words = append(words, "paused", "SIGSTOP", "frozen", "fenced", "garbage collection")
	}
	for _, l := range c.Proof {
		fields := strings.Fields(l.Message)
		for i := 0; i+5 <= len(fields); i++ {
			words = append(words, strings.Join(fields[i:i+5], " "))
		}
	}
	return words
}

// closedByPeer2 is TaskManager 1 seeing the dead leader's connection
// close too, a few milliseconds earlier than TaskManager 0: the cause
// quotes both, and either proves it.
const closedByPeer2 = "2026-11-30 16:43:17,434 INFO  PekkoRpcService [] - The connection to the RPC service at localhost:43951 was closed by the peer."

// Any line of the proof but its context (a grant, the last line before
// a silence) is the answer, whole or in part.
func TestGradeFailoverAcceptsEachProvingLine(t *testing.T) {
	for _, d := range []struct {
		key   diagnose.FailoverKey
		files map[string][]string
		lines []string
	}{
		{killedKey, withLines(leaderKilled(), tm1, closedByPeer2), []string{closedByPeer, closedByPeer2}},
		{pausedKey, leaderPaused(), []string{revokedLate, "was revoked the leadership with leader id " + session0}},
	} {
		logs := loadDrill(t, d.files)
		for _, l := range d.lines {
			v := diagnose.GradeFailover(d.key, logs, diagnose.FailoverAnswer{Cause: string(d.key.Cause), Process: jobManager0Log, Line: l})
			assert.True(t, v.Passed(), "%s: %s\n%s", d.key.Cause, l, v)
		}
	}
}

// A key the logs do not show is the drill's fault, not the learner's.
func TestGradeFailoverOfAKeyTheLogsDoNotShow(t *testing.T) {
	v := diagnose.GradeFailover(pausedKey, loadDrill(t, leaderKilled()), diagnose.FailoverAnswer{Cause: "paused"})
	assert.ErrorContains(t, v.Err, "the logs do not show the key's cause, leader-paused of standalonesession-0")
	assert.Contains(t, v.String(), "cannot grade: ")
}

func TestCheckFailoverHonest(t *testing.T) {
	healthy := loadDrill(t, healthyHA())
	assert.NoError(t, diagnose.CheckFailoverHonest(killedKey, loadDrill(t, leaderKilled()), healthy))
	assert.NoError(t, diagnose.CheckFailoverHonest(pausedKey, loadDrill(t, leaderPaused()), healthy))

	t.Run("the logs show another cause", func(t *testing.T) {
		err := diagnose.CheckFailoverHonest(pausedKey, loadDrill(t, leaderKilled()), healthy)
		assert.ErrorIs(t, err, diagnose.ErrIncomplete)
		assert.ErrorContains(t, err, "hatrace.Explain reads leader-killed of standalonesession-0, want leader-paused of standalonesession-0")
	})
	t.Run("another process", func(t *testing.T) {
		err := diagnose.CheckFailoverHonest(diagnose.FailoverKey{Cause: hatrace.LeaderKilled, Process: "standalonesession-1"}, loadDrill(t, leaderKilled()), healthy)
		assert.ErrorIs(t, err, diagnose.ErrIncomplete)
	})
	t.Run("no failover at all", func(t *testing.T) {
		err := diagnose.CheckFailoverHonest(killedKey, healthy, healthy)
		assert.ErrorIs(t, err, diagnose.ErrIncomplete)
		assert.ErrorContains(t, err, "reads no cause from them")
	})
	t.Run("a line names the signal", func(t *testing.T) {
		files := withLines(leaderKilled(), tm1, "2026-11-30 16:43:19,900 INFO  TaskExecutor [] - The JobManager was sent SIGKILL.")
		err := diagnose.CheckFailoverHonest(killedKey, loadDrill(t, files), healthy)
		assert.ErrorIs(t, err, diagnose.ErrGivesAway)
		assert.ErrorContains(t, err, tm1+":5 (\"SIGKILL\")")
	})
	t.Run("the run without the incident shows a cause too", func(t *testing.T) {
		err := diagnose.CheckFailoverHonest(killedKey, loadDrill(t, leaderKilled()), loadDrill(t, leaderKilled()))
		assert.ErrorIs(t, err, diagnose.ErrHealthyToo)
	})
}

func TestNewFailoverKey(t *testing.T) {
	key, err := diagnose.NewFailoverKey("leader-paused", "standalonesession-0")
	require.NoError(t, err)
	assert.Equal(t, pausedKey, key)
	_, err = diagnose.NewFailoverKey("paused", "standalonesession-0")
	assert.ErrorContains(t, err, `cause "paused" is none of leader-killed, leader-paused`, "a key names the kind, not an alias")
	_, err = diagnose.NewFailoverKey("leader-paused", "taskexecutor-0")
	assert.ErrorContains(t, err, `process "taskexecutor-0": want a JobManager's`)
}

// Two TaskManagers may see a dead leader's connection close in the same
// millisecond, and write the same line: pasted whole it is in both logs,
// and the name of its file, before it as grep prints it, tells which.
func TestALineTwoLogsHaveAlikeIsToldApartByItsFile(t *testing.T) {
	logs := loadDrill(t, withLines(leaderKilled(), tm1, closedByPeer))
	answer := diagnose.FailoverAnswer{Cause: "killed", Process: "standalonesession-0", Line: closedByPeer}
	v := diagnose.GradeFailover(killedKey, logs, answer)
	assert.False(t, v.Line.Right)
	assert.Contains(t, v.Line.Message, "is in several logs, alike to the millisecond: put the name of the file you mean before it")

	for _, file := range []string{tm0, tm1, ".learn-drills/d23/log/" + tm1} {
		answer.Line = file + ":" + closedByPeer
		v = diagnose.GradeFailover(killedKey, logs, answer)
		assert.True(t, v.Passed(), "%s\n%s", answer.Line, v)
	}
	answer.Line = jobManager1Log + ":" + closedByPeer
	assert.Contains(t, diagnose.GradeFailover(killedKey, logs, answer).Line.Message, "is not in the logs shown")
	assert.NoError(t, diagnose.CheckFailoverHonest(killedKey, logs, loadDrill(t, healthyHA())), "each proving line can be pasted")
}
