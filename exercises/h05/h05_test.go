//go:build unix

// Exercise h05: predict the logs of a killed leader.
//
// TestYourPrediction reads the answers from the file FLINKLAB_PREDICTION
// names (`go run ./tools/learn check h05` passes exercises/h05/answer.txt),
// runs the README's scenario on real processes of the flink command and a
// real ZooKeeper server (scenario.KilledLeader: a leader JobManager is
// killed with SIGKILL while its job runs, and the standby takes over), and
// compares the answers with what each process's log got from the kill
// until the job ran again (logpredict.Grade). A wrong answer is told what
// is wrong, never what is right.
package h05_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/tools/learn/logpredict"
)

// The log lines the README asks about, as the template writes them: a "…"
// stands for what differs from run to run.
var lines = []string{
	"DefaultDispatcherRunner was granted leadership with leader id …. Creating new DispatcherLeaderProcess.",
	"Job … reached terminal state SUSPENDED.",
	"The connection to the RPC service at … was closed by the peer.",
	"Recover all persisted job graphs that are not finished, yet.",
	"Connection to ZooKeeper suspended, waiting for reconnection.",
	"JobManager for job … with leader id … lost leadership.",
	"The heartbeat of JobManager with id … timed out.",
	"Successfully recovered 1 persisted job graphs.",
	"… switched from RUNNING to FAILED with failure cause: Disconnect from JobManager responsible for …",
	"Job Pipelines (…) switched from state RUNNING to FAILING.",
	"DefaultDispatcherRunner was revoked the leadership with leader id …. Stopping the SessionDispatcherLeaderProcess.",
	"Connecting to ResourceManager …",
	"Job Pipelines (…) switched from state CREATED to RUNNING.",
	"Successful registration at resource manager … under registration id ….",
}

// The processes an answer names.
var processes = []logpredict.Process{
	{Name: "old-leader"},
	{Name: "new-leader"},
	{Name: "taskmanagers"},
}

// TestMain stops the ZooKeeper server the scenario starts
// (zookeepertest.Shared) once the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	zookeepertest.StopShared()
	os.Exit(code)
}

// The template asks every line of the README, once, and answers none.
func TestTheTemplateAsksEveryLine(t *testing.T) {
	template, err := os.ReadFile("answer.template.txt")
	require.NoError(t, err)
	for _, line := range lines {
		assert.Contains(t, string(template), "\n"+line+" =\n", "the template asks %q", line)
	}
	f, err := os.Open("answer.template.txt")
	require.NoError(t, err)
	defer f.Close()
	predicted, err := logpredict.Read(f, lines, processes)
	require.NoError(t, err)
	assert.Empty(t, predicted, "the template answers nothing")
}

func TestYourPrediction(t *testing.T) {
	path := os.Getenv("FLINKLAB_PREDICTION")
	if path == "" {
		t.Skip("no prediction to compare: go run ./tools/learn check h05 compares exercises/h05/answer.txt")
	}
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	predicted, err := logpredict.Read(f, lines, processes)
	require.NoError(t, err, "reading your prediction")
	if len(predicted) == 0 {
		t.Fatal("not predicted yet: after each line, write the processes whose logs have it (old-leader, new-leader, taskmanagers), or none")
	}

	failover := scenario.KilledLeader(t)
	logs := logpredict.Logs{
		"old-leader":   {failover.OldLeader},
		"new-leader":   {failover.NewLeader},
		"taskmanagers": failover.TaskManagers,
	}
	mistakes, err := logpredict.Grade(predicted, lines, logs, processes)
	require.NoError(t, err, "the run does not say where a line is, which it must: the scenario is not what the README says")
	for _, mistake := range mistakes {
		t.Error(mistake)
	}
}
