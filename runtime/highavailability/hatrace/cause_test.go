package hatrace_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/hatrace"
)

// The lines below are cut from the logs of real runs, one per cause (the
// tests of runtime/entrypoint and tools/flink that make each happen
// assert the same kinds on their whole logs): two JobManagers,
// standalonesession-0 leading first, and a TaskManager.
const (
	grant0     = "2026-12-02 10:44:23,549 INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id 1774de4133269ae7b8b827423fb5d581. Creating new DispatcherLeaderProcess.\n"
	revoke0At  = " INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was revoked the leadership with leader id 1774de4133269ae7b8b827423fb5d581. Stopping the SessionDispatcherLeaderProcess.\n"
	grant1At   = " INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id 5db39e20bf1fdf44bb0834f93ecdc2d7. Creating new DispatcherLeaderProcess.\n"
	electionAt = " WARN  ZooKeeperLeaderElectionDriver [] - Connection to ZooKeeper suspended, waiting for reconnection.\n"
	retrieveAt = " WARN  ZooKeeperLeaderRetrievalDriver [] - Connection to ZooKeeper suspended. Can no longer retrieve the leader from ZooKeeper.\n"
	lostAt     = " WARN  ZooKeeperLeaderElectionDriver [] - Connection to ZooKeeper lost. The contender no longer participates in the leader election.\n"
	backAt     = " INFO  ZooKeeperLeaderElectionDriver [] - Connection to ZooKeeper was reconnected. Leader election can be restarted.\n"
	closedAt   = " INFO  PekkoRpcService [] - The connection to the RPC service at localhost:42093 was closed by the peer.\n"
	jobLineAt  = " INFO  JobMaster [] - Starting execution of job 'Ticker' (b6ce15904f48c34020f6d59cf8a6f583) under job master id 1774de4133269ae7b8b827423fb5d581.\n"
)

// at is a line of the fixtures at a time of 2026-12-02 10:44.
func at(seconds string, line string) string { return "2026-12-02 10:44:" + seconds + line }

func explain(t *testing.T, jm0, jm1, tm string) hatrace.Cause {
	t.Helper()
	cause, ok := hatrace.Explain([]hatrace.Log{
		read(t, "standalonesession-0", jm0), read(t, "standalonesession-1", jm1), read(t, "taskexecutor-0", tm),
	})
	require.True(t, ok, "a cause in the logs")
	return cause
}

func TestExplainTellsTheCausesApart(t *testing.T) {
	for _, tc := range []struct {
		name         string
		jm0, jm1, tm string
		kind         hatrace.Kind
		what         string
		proof        []string // the proving lines' messages, as they begin, in order
	}{{
		name: "killed: the old leader's log stops",
		jm0:  grant0 + at("23,748", jobLineAt),
		jm1:  at("23,765", closedAt) + at("26,060", grant1At),
		kind: hatrace.LeaderKilled,
		what: "standalonesession-0's log stops at 10:44:23.748 with no word of losing the leadership, and standalonesession-1 was granted it 2.312s later",
		proof: []string{"Starting execution of job", "The connection to the RPC service at localhost:42093 was closed by the peer.",
			"DefaultDispatcherRunner was granted leadership with leader id 5db3"},
	}, {
		name: "paused: the old leader learns it after the next grant",
		jm0:  grant0 + at("23,748", jobLineAt) + at("26,105", electionAt) + at("26,106", revoke0At),
		jm1:  at("26,060", grant1At),
		kind: hatrace.LeaderPaused,
		what: "standalonesession-0 learned that it had lost the leadership 46ms after standalonesession-1 was granted it; its log is silent for 2.357s around that grant",
		proof: []string{"Starting execution of job", "DefaultDispatcherRunner was granted leadership with leader id 5db3",
			"Connection to ZooKeeper suspended, waiting", "DefaultDispatcherRunner was revoked the leadership"},
	}, {
		name: "SUSPENDED, by default: the leadership ends at once",
		jm0:  grant0 + at("24,029", retrieveAt) + at("24,029", electionAt) + at("24,029", revoke0At) + at("26,030", lostAt),
		jm1:  at("26,061", grant1At),
		kind: hatrace.ConnectionSuspended,
		what: "standalonesession-0 alone lost its connection to ZooKeeper, and its leadership ended at SUSPENDED, at once",
		proof: []string{"Connection to ZooKeeper suspended, waiting for reconnection.", "DefaultDispatcherRunner was revoked",
			"DefaultDispatcherRunner was granted leadership with leader id 5db3"},
	}, {
		name: "tolerated SUSPENDED, then the session LOST",
		jm0:  grant0 + at("24,210", electionAt) + at("26,210", lostAt) + at("26,210", revoke0At),
		jm1:  at("26,553", grant1At),
		kind: hatrace.SessionExpired,
		what: "it kept leading while SUSPENDED, and its leadership ended only when the session was LOST",
		proof: []string{"Connection to ZooKeeper suspended", "Connection to ZooKeeper lost.", "DefaultDispatcherRunner was revoked",
			"DefaultDispatcherRunner was granted leadership with leader id 5db3"},
	}, {
		name: "ZooKeeper down: every process suspended",
		jm0:  grant0 + at("24,369", electionAt) + at("24,369", revoke0At) + at("25,300", backAt),
		jm1:  at("24,370", retrieveAt) + at("25,383", grant1At),
		tm:   at("24,370", retrieveAt),
		kind: hatrace.ZooKeeperDown,
		what: "standalonesession-0, standalonesession-1 and taskexecutor-0 lost their connection to ZooKeeper at the same time",
		proof: []string{"Connection to ZooKeeper suspended, waiting", "DefaultDispatcherRunner was revoked", "Connection to ZooKeeper suspended. Can no longer",
			"Connection to ZooKeeper suspended. Can no longer", "DefaultDispatcherRunner was granted leadership with leader id 5db3"},
	}, {
		name: "stopped: the old leader shut down",
		jm0: grant0 + at("26,131", " INFO  SignalHandler [] - RECEIVED SIGNAL 15: SIGTERM. Shutting down as requested.\n") +
			at("26,131", " INFO  StandaloneSessionClusterEntrypoint [] - Shutting StandaloneSessionClusterEntrypoint down with application status UNKNOWN. Diagnostics Cluster entrypoint has been closed externally..\n"),
		jm1:   at("26,150", grant1At),
		kind:  hatrace.LeaderStopped,
		what:  "standalonesession-0 was shut down",
		proof: []string{"Shutting StandaloneSessionClusterEntrypoint down", "DefaultDispatcherRunner was granted leadership with leader id 5db3"},
	}, {
		name:  "a suspension tolerated: one leader throughout",
		jm0:   grant0 + at("24,616", electionAt) + at("25,622", backAt),
		kind:  hatrace.SuspensionTolerated,
		what:  "standalonesession-0 lost its connection to ZooKeeper and got it back 1.006s later, within the session timeout, and kept leading",
		proof: []string{"Connection to ZooKeeper suspended", "Connection to ZooKeeper was reconnected"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cause := explain(t, tc.jm0, tc.jm1, tc.tm)
			assert.Equal(t, tc.kind, cause.Kind, "%s", cause)
			assert.Equal(t, "standalonesession-0", cause.Process)
			assert.Equal(t, "1774de4133269ae7b8b827423fb5d581", cause.Session)
			assert.Contains(t, cause.What, tc.what)
			require.Len(t, cause.Proof, len(tc.proof), "%s", cause)
			for i, p := range tc.proof {
				assert.True(t, strings.HasPrefix(cause.Proof[i].Message, p), "proof line %d: %s", i, cause.Proof[i])
			}
		})
	}
}

// A proof's context lines place it in time but would prove another cause
// as well: the next grant, and the last line before a silence.
func TestOnlyTheLinesThatTellACauseApartAreNotContext(t *testing.T) {
	telling := func(c hatrace.Cause) []string {
		var out []string
		for _, l := range c.Proof {
			if !l.Context {
				out = append(out, l.Message)
			}
		}
		return out
	}
	killed := explain(t, grant0+at("23,748", jobLineAt), at("23,765", closedAt)+at("26,060", grant1At), at("23,765", closedAt))
	assert.Equal(t, []string{"The connection to the RPC service at localhost:42093 was closed by the peer.",
		"The connection to the RPC service at localhost:42093 was closed by the peer."}, telling(killed), "every peer's")
	paused := explain(t, grant0+at("23,748", jobLineAt)+at("26,106", electionAt)+at("26,106", revoke0At), at("26,060", grant1At), "") // the same millisecond
	assert.Equal(t, []string{"Connection to ZooKeeper suspended, waiting for reconnection.",
		"DefaultDispatcherRunner was revoked the leadership with leader id 1774de4133269ae7b8b827423fb5d581. Stopping the SessionDispatcherLeaderProcess."}, telling(paused))
	alone := explain(t, grant0+at("23,748", jobLineAt), at("26,060", grant1At), "")
	assert.Equal(t, []string{"Starting execution of job 'Ticker' (b6ce15904f48c34020f6d59cf8a6f583) under job master id 1774de4133269ae7b8b827423fb5d581."},
		telling(alone), "with no peer that saw it die, the log's end is all there is")
}

func TestExplainFindsNoCauseInAnUndisturbedCluster(t *testing.T) {
	_, ok := hatrace.Explain([]hatrace.Log{read(t, "standalonesession-0", grant0+at("23,748", jobLineAt)), read(t, "standalonesession-1", "")})
	assert.False(t, ok, "one leader, never disturbed")
	_, ok = hatrace.Explain(nil)
	assert.False(t, ok, "no log")
}

func TestACauseReadsAsAnEngineerWouldWriteIt(t *testing.T) {
	cause := explain(t, grant0+at("23,748", jobLineAt), at("26,060", grant1At), "")
	assert.Equal(t, `cause: leader-killed — standalonesession-0's log stops at 10:44:23.748 with no word of losing the leadership, and standalonesession-1 was granted it 2.312s later: the process died (SIGKILL, the OOM killer, a crash) or froze and never resumed
  outcome: the dead leader suspended nothing; its latch node stayed in ZooKeeper until its session expired (high-availability.zookeeper.client.session-timeout), then standalonesession-1 was granted the leadership, recovered the jobs from the JobGraphStore and ran them again; the TaskManagers failed the old JobMaster's tasks ("Disconnect from JobManager") and registered at the new leader
  where to look: why the process ended: its .out file, the kernel's log (the OOM killer), whoever sent the signal; nothing in Flink's logs says
  the lines that show it:
    standalonesession-0  10:44:23.748 INFO  JobMaster - Starting execution of job 'Ticker' (b6ce15904f48c34020f6d59cf8a6f583) under job master id 1774de4133269ae7b8b827423fb5d581.
    standalonesession-1  10:44:26.060 INFO  DefaultDispatcherRunner - DefaultDispatcherRunner was granted leadership with leader id 5db39e20bf1fdf44bb0834f93ecdc2d7. Creating new DispatcherLeaderProcess.`, cause.String())
}

// What a leader went through earlier, and came back from, is no cause of
// what ended its leadership later; nor is another process's connection
// that broke at another time.
func TestExplainLooksAtTheOutageThatEndedTheLeadership(t *testing.T) {
	earlier := at("20,000", electionAt) + at("20,500", backAt) // tolerated, long before
	tmEarlier := at("20,000", retrieveAt) + at("20,400", " INFO  ZooKeeperLeaderRetrievalDriver [] - Connection to ZooKeeper was reconnected. Leader retrieval can be restarted.\n")
	for _, tc := range []struct {
		name         string
		jm0, jm1, tm string
		kind         hatrace.Kind
	}{{
		name: "a tolerated suspension, then a shutdown",
		jm0: grant0 + earlier + at("26,131",
			" INFO  StandaloneSessionClusterEntrypoint [] - Shutting StandaloneSessionClusterEntrypoint down with application status UNKNOWN. Diagnostics Cluster entrypoint has been closed externally..\n"),
		jm1:  at("26,150", grant1At),
		kind: hatrace.LeaderStopped,
	}, {
		name: "a tolerated suspension, then a pause",
		jm0:  grant0 + earlier + at("23,748", jobLineAt) + at("26,105", electionAt) + at("26,106", revoke0At),
		jm1:  at("26,060", grant1At),
		kind: hatrace.LeaderPaused,
	}, {
		name: "a TaskManager's earlier outage, then the leader cut off alone",
		jm0:  grant0 + at("24,029", electionAt) + at("24,029", revoke0At),
		jm1:  at("26,061", grant1At),
		tm:   tmEarlier,
		kind: hatrace.ConnectionSuspended,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cause := explain(t, tc.jm0, tc.jm1, tc.tm)
			assert.Equal(t, tc.kind, cause.Kind, "%s", cause)
		})
	}
}
