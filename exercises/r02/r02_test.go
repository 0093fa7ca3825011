// Package r02 is the scenario of reading exercise r02: a job waits for a
// slot, and a TaskManager joins the cluster. While it runs, the runtime
// records the causal stack of every hand-over (rpc.RecordCauses); when it
// ends, the ways the run took from the new TaskExecutor's registration to
// the JobMaster's offerSlots go to the test's log, where
// `go run ./tools/learn check r02` finds them: a chain is right only if
// this run took it.
package r02

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/minicluster"
)

// TestScenario runs the numbers job at parallelism 2 on a MiniCluster
// whose one TaskManager has one slot. The job's four tasks share two
// slots and are deployed together, so it waits, RUNNING, with one slot
// offered and a second one missing. Then a second TaskManager starts
// (Flink's MiniCluster#startTaskManager), registers, and its slot goes to
// the waiting job, which runs to FINISHED.
func TestScenario(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scenario.RecordRunPaths(t)
		cluster, logs := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 1})
		collector := numbers.NewCollector()
		t.Cleanup(collector.Close)
		g := numbers.JobGraph(numbers.Config{Count: 10, Parallelism: 2, Collector: collector})
		require.NoError(t, cluster.UploadJar(g, numbers.Jar()))
		jobID, err := cluster.SubmitJob(context.Background(), g)
		require.NoError(t, err)

		synctest.Wait() // the job holds the one slot there is, and waits for a second
		status, err := cluster.RequestJobStatus(context.Background(), jobID)
		require.NoError(t, err)
		require.Equal(t, api.JobRunning, status, "the job waits for its second slot")

		require.NoError(t, cluster.StartTaskManager())
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		require.Equal(t, api.JobFinished, result.JobStatus, "%s\n%s", result.FailureCause, logs)
		squares := collector.Values()
		slices.Sort(squares)
		require.Equal(t, []int64{1, 4, 9, 16, 25, 36, 49, 64, 81, 100}, squares)
	})
}
