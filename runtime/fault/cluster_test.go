package fault_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/trace"
)

// TestTheLogOfAClusterProvesEachDiagnosis breaks each step m4…m11 of a
// numbers job on a MiniCluster (2 TaskManagers × 2 slots, Flink's timeouts
// shortened, a fixed-delay restart strategy) and reads the cluster's INFO
// log as the demo does: the log shows the kind of failure that was
// injected (for m8, whose kinds can leave the same lines, possibly only
// what either kind shows), and three to five of its lines prove it. The two
// kinds of m4 end alike, the job FAILED during initialization, and the log
// tells them apart: for max-parallelism-exceeded the JobMaster never
// created its ExecutionGraph, and the cause is the ExecutionGraph's own
// check. The two kinds of m7 end alike too, the slot requests failed with
// NoResourceAvailableException, and the log tells them apart: for
// slot-sharing-group-too-large the job asked for slots of 16 CPU cores,
// which no TaskManager has, so every restart fails the same way and the
// job is FAILED. Steps m1–m3 break in the REST endpoint and the
// Dispatcher behind it, which the demo's test (tools/demo) drives through
// real HTTP.
func TestTheLogOfAClusterProvesEachDiagnosis(t *testing.T) {
	for _, step := range fault.Steps() {
		if step == trace.M1 || step == trace.M2 || step == trace.M3 {
			continue
		}
		for _, kind := range fault.Kinds(step) {
			f := fault.Fault{Step: step, Kind: kind}
			t.Run(f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					captured := fault.NewLogCapture(slog.LevelInfo)
					cluster, err := minicluster.New(minicluster.Config{
						NumTaskManagers: 2, NumSlotsPerTaskManager: 2,
						WorkingDir:    t.TempDir(),
						RPCTimeout:    2 * time.Second,
						Heartbeat:     heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 5 * time.Second},
						StartUpPeriod: 2 * time.Second,
						RestartStrategy: failover.Config{Type: failover.TypeFixedDelay,
							FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: time.Second}},
						Logger: slog.New(captured),
					})
					require.NoError(t, err)
					require.NoError(t, cluster.Start())
					t.Cleanup(func() { require.NoError(t, cluster.Close()) })
					synctest.Wait() // the TaskExecutors have registered

					collector := numbers.NewCollector()
					t.Cleanup(collector.Close)
					job := numbers.JobGraph(numbers.Config{Count: 100, Parallelism: 2, Collector: collector})
					require.NoError(t, cluster.UploadJar(job, numbers.Jar()))
					require.NoError(t, cluster.Faults().Inject(f))
					_, err = cluster.SubmitJob(context.Background(), job)
					require.NoError(t, err)
					result, err := cluster.RequestJobResult(context.Background(), job.JobID)
					require.NoError(t, err)
					if step == trace.M4 {
						assert.Equal(t, api.JobFailed, result.JobStatus)
						assert.Contains(t, result.FailureCause, "JobInitializationException: Could not start the JobMaster.")
					}
					if kind == fault.MaxParallelismExceeded {
						assert.Contains(t, result.FailureCause, "Vertex Source: numbers's parallelism (2) is higher than the max parallelism (1). "+
							"Please lower the parallelism or increase the max parallelism.", "the ExecutionGraph's own check, on the widest vertex")
						assert.NotContains(t, result.FailureCause, "fault", "the cause is the real one")
					}

					if kind == fault.SlotSharingGroupTooLarge {
						assert.Equal(t, api.JobFailed, result.JobStatus, "no restart finds a slot that large")
						assert.Contains(t, result.FailureCause, "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=3,")
						assert.Contains(t, result.FailureCause, "NoResourceAvailableException: Could not acquire the minimum required resources.")
						assert.NotContains(t, result.FailureCause, "fault", "the cause is the real one")
					}

					synctest.Wait() // what the job's end sets off is logged too
					d, ok := fault.Diagnose(cluster.Trace().JobEvents(job.JobID))
					require.True(t, ok)
					records := captured.Records()
					d = fault.Explain(d, records)
					if step == trace.M8 {
						assert.Contains(t, []fault.Kind{kind, ""}, d.Kind)
					} else {
						assert.Equal(t, kind, d.Kind, "the log shows the fault's kind:\n%s", d)
					}
					assert.GreaterOrEqual(t, len(d.Proof), 3, "%s", d)
					assert.LessOrEqual(t, len(d.Proof), 5, "%s", d)
					for _, line := range d.Proof {
						assert.Equal(t, records[line.Index], line.Record, "a proving line is a line of the log")
						assert.True(t, line.Clue.Matches(line.Record))
					}
					if kind == fault.MaxParallelismExceeded {
						assert.Contains(t, d.String(), "is higher than the max parallelism (1).", "the proof quotes the cause:\n%s", d)
					}
					if kind == fault.SlotSharingGroupTooLarge {
						assert.Contains(t, d.String(), "ResourceRequirement{resourceProfile=ResourceProfile{cpuCores=16, ", "the proof quotes the requirement:\n%s", d)
						assert.Contains(t, d.String(), "Available: ResourceProfile{cpuCores=2, ", "and what a TaskManager has:\n%s", d)
					}
				})
			})
		}
	}
}
