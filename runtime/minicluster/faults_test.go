package minicluster

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

// threeRestarts is the demo's restart strategy: fixed-delay, 3 attempts,
// 1 s apart.
var threeRestarts = failover.Config{Type: failover.TypeFixedDelay, FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: time.Second}}

// TestAFaultAtEachStepFailsAsFlinkWouldAndTheJobRecovers injects one fault
// at each step m3…m11 (m1 and m2 break in the REST endpoint, see
// runtime/rest) into a bounded job on 2 TaskManagers × 2 slots, and checks
// what a learner would see: how the job ended, how many attempts it took,
// the log line Flink writes for that failure, and the step the trace and
// the diagnosis point at.
func TestAFaultAtEachStepFailsAsFlinkWouldAndTheJobRecovers(t *testing.T) {
	tests := []struct {
		fault fault.Fault
		// wantStatus is the job's end; wantAttempt the attempt number its
		// subtasks end in: 0 when the step's own retry absorbed the fault,
		// 1 when the job was restarted. For m9 it is at least 1: until the
		// JobMaster has noticed the dead TaskManager through its heartbeat,
		// a restart may deploy into its slots again. For a rejected offer
		// (m8) it is 0 or more: the TaskExecutor frees the rejected slots,
		// and when it holds none for the job any more it closes its
		// JobManager connection, as Flink's does; a slot offered again
		// while that goodbye is on its way can be lost with it, which
		// restarts the job.
		wantStatus  api.JobStatus
		wantAttempt int
		wantLog     string
		wantDiag    string
	}{
		{fault.Fault{Step: trace.M3}, 0, 0, "Received JobGraph submission", "Dispatcher"},
		{fault.Fault{Step: trace.M4}, api.JobFailed, 0, "JobInitializationException: Could not start the JobMaster.", "JobMaster"},
		{fault.Fault{Step: trace.M4, Kind: fault.MaxParallelismExceeded}, api.JobFailed, 0, "is higher than the max parallelism (1).", "JobMaster"},
		{fault.Fault{Step: trace.M5}, api.JobFinished, 0, "JobManager successfully registered at ResourceManager", "ResourceManager"},
		{fault.Fault{Step: trace.M5, Kind: fault.RegistrationError}, api.JobFinished, 0, "Pausing and re-attempting registration in 10000 ms", "ResourceManager"},
		{fault.Fault{Step: trace.M6}, api.JobFinished, 0, "Failed to declare resource requirements of job", "SlotPool"},
		{fault.Fault{Step: trace.M7}, api.JobFinished, 1, "Could not acquire the minimum required resources, failing slot requests.", "SlotManager"},
		{fault.Fault{Step: trace.M7, Kind: fault.SlotSharingGroupTooLarge}, api.JobFailed, 0, "ResourceRequirement{resourceProfile=ResourceProfile{cpuCores=16, ", "SlotManager"},
		{fault.Fault{Step: trace.M8, Kind: fault.SlotOfferRejected}, api.JobFinished, 0, "Offer reserved slots to the leader of job", "TaskExecutor"},
		{fault.Fault{Step: trace.M8, Kind: fault.SlotOfferTimeout}, api.JobFinished, 0, "Offer reserved slots to the leader of job", "TaskExecutor"},
		{fault.Fault{Step: trace.M9}, api.JobFinished, 1, "not responding after a rpcTimeout of 2s", "TaskExecutor"},
		{fault.Fault{Step: trace.M10, Kind: fault.BlobUnavailable}, api.JobFinished, 1, "Failed to fetch BLOB", "BlobServer/BlobCache"},
		{fault.Fault{Step: trace.M10, Kind: fault.JarCorrupted}, api.JobFinished, 1, "Detected data corruption during transfer", "BlobServer/BlobCache"},
		{fault.Fault{Step: trace.M11}, api.JobFinished, 1, "switched from INITIALIZING to FAILED with failure cause", "Task"},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cluster, logs := startClusterWith(t, Config{
					NumTaskManagers: 2, NumSlotsPerTaskManager: 2,
					Heartbeat: fastHeartbeats, RestartStrategy: threeRestarts,
					StartUpPeriod: 2 * time.Second, RPCTimeout: 2 * time.Second,
				})
				collector := numbers.NewCollector()
				job := numbersJob(t, cluster, numbers.Config{Count: 100, Parallelism: 2, Collector: collector})
				require.NoError(t, cluster.Faults().Inject(tt.fault))

				_, err := cluster.SubmitJob(context.Background(), job)
				events := func() []trace.Event { return cluster.Trace().JobEvents(job.JobID) }
				if tt.fault.Step == trace.M3 {
					assert.ErrorContains(t, err, "fault injected at step m3")
				} else {
					require.NoError(t, err)
					result, err := cluster.RequestJobResult(context.Background(), job.JobID)
					require.NoError(t, err)
					assert.Equal(t, tt.wantStatus, result.JobStatus, result.FailureCause)
					if tt.wantStatus == api.JobFinished {
						graph := requestJob(t, cluster, job.JobID)
						attempt := -1
						for name, sub := range subtasks(graph) {
							if tt.fault.Step == trace.M9 || tt.fault.Kind == fault.SlotOfferRejected {
								assert.GreaterOrEqual(t, sub.AttemptNumber, tt.wantAttempt, name)
							} else {
								assert.Equal(t, tt.wantAttempt, sub.AttemptNumber, name)
							}
							attempt = max(attempt, sub.AttemptNumber)
						}
						n := len(collector.Values())
						assert.True(t, n >= 100 && n <= 100*(1+attempt),
							"every number once, and what the failed attempts emitted before their restart: %d", n)
						if tt.wantAttempt > 0 {
							require.NotEmpty(t, graph.ExceptionHistory, "the failure that restarted the job")
						}
					}
				}

				assert.Contains(t, logs.String(), tt.wantLog)
				kind := tt.fault.Kind
				if kind == "" {
					kind = fault.Kinds(tt.fault.Step)[0]
				}
				assert.Contains(t, logs.String(), "Injecting fault "+string(kind))
				failures := trace.Failures(events())
				require.NotEmpty(t, failures, "the trace shows where it broke")
				assert.Equal(t, tt.fault.Step, failures[0].Step)
				d, ok := fault.Diagnose(events())
				require.True(t, ok)
				assert.Equal(t, tt.wantDiag, d.Component)
				assert.Len(t, cluster.Faults().Fired(), 1, "the fault fired once")
			})
		})
	}
}
