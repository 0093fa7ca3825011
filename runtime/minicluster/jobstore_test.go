package minicluster

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/jobgraph"
)

// waitingJob is a job of parallelism subtasks that cannot get its slots
// in a cluster of one slot, so it waits until it is cancelled.
func waitingJob(parallelism int) *jobgraph.JobGraph {
	g := jobgraph.New("waiting")
	g.AddVertex(jobgraph.NewJobVertex("Source", "test.Source", parallelism))
	return g
}

// cancelToTheEnd submits a job that waits for slots, cancels it and
// waits until the Dispatcher has stored its end.
func cancelToTheEnd(tb testing.TB, ctx context.Context, cluster *MiniCluster, parallelism int) api.JobID {
	tb.Helper()
	g := waitingJob(parallelism)
	if _, err := cluster.SubmitJob(ctx, g); err != nil {
		tb.Fatal(err)
	}
	if err := cluster.CancelJob(ctx, g.JobID); err != nil {
		tb.Fatal(err)
	}
	if result, err := cluster.RequestJobResult(ctx, g.JobID); err != nil || result.JobStatus != api.JobCanceled {
		tb.Fatalf("cancel %s: %v %v", g.JobID, result.JobStatus, err)
	}
	return g.JobID
}

// The MiniCluster keeps every ended job, as Flink's does; given a
// session cluster's store with jobstore.max-capacity 5, its Dispatcher
// lists the five latest only.
func TestTheMiniClustersJobStore(t *testing.T) {
	bounded := dispatcher.DefaultJobStoreConfig()
	bounded.MaxCapacity = 5
	tests := []struct {
		name     string
		jobStore dispatcher.JobStoreConfig
		kept     int
	}{
		{"Flink's MiniCluster: every job in memory", dispatcher.JobStoreConfig{}, 7},
		{"File, max-capacity 5", bounded, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cluster, _ := startClusterWith(t, Config{JobStore: tt.jobStore})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var ended []api.JobID
				for range 7 {
					ended = append(ended, cancelToTheEnd(t, ctx, cluster, 2))
				}
				synctest.Wait() // every cleanup is done

				listed, err := cluster.Dispatcher().ListJobs(ctx)
				require.NoError(t, err)
				assert.ElementsMatch(t, ended[len(ended)-tt.kept:], listed, "the latest jobs")
				if tt.kept < len(ended) {
					_, err := cluster.RequestJobStatus(ctx, ended[0])
					assert.ErrorContains(t, err, "Could not find Flink job ("+ended[0].String()+")")
				}
			})
		})
	}
}
