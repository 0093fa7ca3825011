package hatrace_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability/hatrace"
)

// The logs of a killed leader's failover, cut to the lines that matter and
// a few that do not: the standby (standalonesession-1) takes over under
// session 14f5…, recovers the job, and both TaskManagers follow.
const (
	oldLeader = `2026-12-02 06:32:32,159 INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id 8d3183790a98858b1da91964d569a29e. Creating new DispatcherLeaderProcess.
2026-12-02 06:32:32,161 INFO  SessionDispatcherLeaderProcess [] - Successfully recovered 0 persisted job graphs.
`
	newLeader = `2026-12-02 06:32:40,783 INFO  PekkoRpcService [] - The connection to the RPC service at localhost:44005 was closed by the peer.
2026-12-02 06:32:43,187 INFO  DefaultDispatcherRunner [] - DefaultDispatcherRunner was granted leadership with leader id 14f5806a77708ef707ecee64c2009470. Creating new DispatcherLeaderProcess.
2026-12-02 06:32:43,187 INFO  SessionDispatcherLeaderProcess [] - Recover all persisted job graphs that are not finished, yet.
2026-12-02 06:32:43,199 INFO  SessionDispatcherLeaderProcess [] - Successfully recovered 1 persisted job graphs.
`
	taskManager0 = `2026-12-02 06:32:32,240 INFO  TaskExecutor [] - Connecting to ResourceManager pekko.tcp://flink@localhost:44005/user/rpc/resourcemanager_0(8d3183790a98858b1da91964d569a29e).
2026-12-02 06:32:32,256 INFO  TaskExecutor [] - Successful registration at resource manager pekko.tcp://flink@localhost:44005/user/rpc/resourcemanager_0 under registration id 0aa1.
2026-12-02 06:32:43,193 WARN  Task [] - Source: sensor-events (1/2)#0 (6e0b_0_0) switched from RUNNING to FAILED with failure cause: Disconnect from JobManager responsible for 9844.
Disconnect from JobManager responsible for 9844.
2026-12-02 06:32:43,203 INFO  TaskExecutor [] - Connecting to ResourceManager pekko.tcp://flink@localhost:33109/user/rpc/resourcemanager_0(14f5806a77708ef707ecee64c2009470).
2026-12-02 06:32:43,206 INFO  TaskExecutor [] - Successful registration at resource manager pekko.tcp://flink@localhost:33109/user/rpc/resourcemanager_0 under registration id 991a.
`
	taskManager1 = `2026-12-02 06:32:43,204 INFO  TaskExecutor [] - Connecting to ResourceManager pekko.tcp://flink@localhost:33109/user/rpc/resourcemanager_0(14f5806a77708ef707ecee64c2009470).
2026-12-02 06:32:43,207 INFO  TaskExecutor [] - Successful registration at resource manager pekko.tcp://flink@localhost:33109/user/rpc/resourcemanager_0 under registration id 77b2.
`
)

func read(t *testing.T, process, text string) hatrace.Log {
	t.Helper()
	l, err := hatrace.ReadLog(process, strings.NewReader(text))
	require.NoError(t, err)
	return l
}

func steps(events []hatrace.Event) []string {
	var got []string
	for _, e := range events {
		got = append(got, string(e.Step)+" "+e.Process)
	}
	return got
}

func TestTheTraceOfAKilledLeadersFailover(t *testing.T) {
	logs := []hatrace.Log{
		read(t, "standalonesession-0", oldLeader), read(t, "standalonesession-1", newLeader),
		read(t, "taskexecutor-0", taskManager0), read(t, "taskexecutor-1", taskManager1),
	}
	events, session := hatrace.Trace(logs)
	assert.Equal(t, "14f5806a77708ef707ecee64c2009470", session, "the last session granted")
	assert.Equal(t, []string{
		"h1 standalonesession-1",
		"h4 standalonesession-1",
		"h2 ",
		"h3 taskexecutor-0",
		"h3 taskexecutor-1",
		"h5 taskexecutor-0",
		"h5 taskexecutor-1",
	}, steps(events), "in the order they happened: the leader recovers before it publishes its ResourceManager's address")
	assert.Contains(t, events[2].Message, "(not logged) the leader information of session 14f5806a77708ef707ecee64c2009470")
	assert.Contains(t, hatrace.Diagnose(logs).String(), "the failover is complete: standalonesession-1 leads under session 14f5806a77708ef707ecee64c2009470")
}

func TestDiagnoseNamesTheFirstMissingStep(t *testing.T) {
	cut := func(text string, lines int) string {
		return strings.Join(strings.SplitAfter(text, "\n")[:lines], "")
	}
	for _, tc := range []struct {
		name string
		logs []hatrace.Log
		want string
	}{
		{"nobody granted", []hatrace.Log{read(t, "standalonesession-1", cut(newLeader, 1)), read(t, "taskexecutor-0", cut(taskManager0, 2))},
			"step h1 — LeaderLatch (ZooKeeperLeaderElectionDriver): no JobManager was granted the leadership"},
		{"granted, not recovered", []hatrace.Log{read(t, "standalonesession-1", cut(newLeader, 3)), read(t, "taskexecutor-0", taskManager0)},
			"step h4 — SessionDispatcherLeaderProcess: standalonesession-1 was granted the leadership (session 14f5806a77708ef707ecee64c2009470) but did not recover the jobs"},
		{"a TaskManager that did not find the leader", []hatrace.Log{read(t, "standalonesession-1", newLeader), read(t, "taskexecutor-0", taskManager0), read(t, "taskexecutor-1", "")},
			"step h3 — leader retrieval (ZooKeeperLeaderRetrievalDriver) of taskexecutor-1"},
		{"a TaskManager that did not register", []hatrace.Log{read(t, "standalonesession-1", newLeader), read(t, "taskexecutor-1", cut(taskManager1, 1))},
			"step h5 — TaskExecutor taskexecutor-1: taskexecutor-1 found the new ResourceManager but did not register there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Contains(t, hatrace.Diagnose(tc.logs).String(), tc.want)
		})
	}
}
