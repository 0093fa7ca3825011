package fault_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/state"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
	"flinklab/runtime/trace"
)

// tickerEvents is how many events the checkpointed ticker counts: 200 per
// sensor, 10 s at 100 a second.
const tickerEvents = 1000

// TestAFaultAtEachCheckpointStepFailsAsFlinkWould breaks each step of a
// checkpoint (k1, k2, k4, k5, k6) of the ticker, a keyed running count
// checkpointed every 200 ms with a timeout of 1 s and Flink's default of
// no tolerable failed checkpoint, on 2 TaskManagers × 2 slots, and checks
// what a learner would see: how the checkpoint ended and whether it
// counted, the job's failover or not, the checkpoint statistics, Flink's
// log lines, the step the trace points at, and the diagnosis with its
// proof. Whatever broke, the job finishes and every sensor's last count
// is exactly 200: a failover restores the latest completed checkpoint.
//
//	k1 checkpoint-expired          the triggers never reach the sources: the checkpoint expires, counts, the job fails over
//	k2 task-not-ready              a source declines: the checkpoint is aborted, does not count, the next one completes
//	k4 barrier-lost                an alignment never ends: backpressure stops the job, the checkpoint expires, failover
//	k5 storage-write-fails         a task's state cannot be written: it declines, the failure counts, failover
//	k5 taskexecutor-dies-…         a TaskManager dies in the checkpoint: its heartbeat times out, failover, no count
//	k6 metadata-write-fails        _metadata cannot be written: the checkpoint is aborted, does not count, chk-N deleted
func TestAFaultAtEachCheckpointStepFailsAsFlinkWould(t *testing.T) {
	tests := []struct {
		fault fault.Fault
		// files puts the checkpoints under a state.checkpoints.dir; the
		// others stay in the JobManager's memory.
		files bool
		// timeout is execution.checkpointing.timeout.
		timeout time.Duration
		// failover: the job restarted, and from which kind of failure.
		failover  bool
		global    bool
		wantLog   []string
		component string
	}{
		{fault: fault.Fault{Step: trace.K1, After: 1}, timeout: time.Second, failover: true, global: true,
			wantLog: []string{"expired before completing.", "Exceeded checkpoint tolerable failure threshold. The latest checkpoint " +
				"failed due to Checkpoint expired before completing., view the Checkpoint History tab or the Job Manager log to find out " +
				"why continuous checkpoints failed."},
			component: "CheckpointCoordinator"},
		{fault: fault.Fault{Step: trace.K2}, timeout: time.Second,
			wantLog:   []string{"Checkpoint was declined (tasks not ready) Caused by: Task name with subtask : Source: sensor-events ("},
			component: "Task"},
		{fault: fault.Fault{Step: trace.K4, After: 4}, timeout: time.Second, failover: true, global: true,
			wantLog:   []string{"expired before completing.", "Exceeded checkpoint tolerable failure threshold."},
			component: "CheckpointBarrierHandler"},
		{fault: fault.Fault{Step: trace.K5, Kind: fault.StorageWriteFails, After: 4}, files: true, timeout: time.Second, failover: true, global: true,
			wantLog: []string{"asynchronous part of checkpoint 2 could not be completed.", "Could not materialize checkpoint 2 for operator ",
				"The latest checkpoint failed due to Asynchronous task checkpoint failed."},
			component: "AsyncCheckpointRunnable/CheckpointStorage"},
		// The heartbeat timeout (2 s) must come before the checkpoint's, as
		// Flink's 50 s come before its 10 min.
		{fault: fault.Fault{Step: trace.K5, Kind: fault.TaskExecutorDiesDuringCheckpoint, After: 4}, timeout: 10 * time.Second, failover: true,
			wantLog:   []string{"Heartbeat of TaskManager with id taskexecutor-"},
			component: "TaskExecutor"},
		{fault: fault.Fault{Step: trace.K6}, files: true, timeout: time.Second,
			wantLog:   []string{"Failure to finalize checkpoint. Caused by: Could not finalize the pending checkpoint 1.", "Error while processing AcknowledgeCheckpoint message"},
			component: "CheckpointCoordinator"},
	}
	for _, tt := range tests {
		kind := tt.fault.Kind
		if kind == "" {
			kind = fault.Kinds(tt.fault.Step)[0]
		}
		t.Run(string(tt.fault.Step)+":"+string(kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
				cfg.Interval = 200 * time.Millisecond
				cfg.Timeout = tt.timeout
				if tt.files {
					cfg.CheckpointsDir = t.TempDir()
				}
				require.Zero(t, cfg.TolerableFailures, "Flink's default")
				cluster, captured := startCheckpointedCluster(t, cfg)
				job := tickerJob(t, cluster)
				require.NoError(t, cluster.Faults().Inject(tt.fault))
				_, err := cluster.SubmitJob(context.Background(), job)
				require.NoError(t, err)

				// The step breaks: the trace shows it.
				broke := awaitEvent(t, cluster, job.JobID, func(e trace.Event) bool { return e.Failed && e.Step == tt.fault.Step })
				switch kind {
				case fault.CheckpointExpired:
					// The job runs on while its checkpoint waits in vain.
					before := ticker.Results.Len()
					expired := awaitExpiry(t, cluster, job.JobID)
					assert.Greater(t, ticker.Results.Len(), before+50, "the records flow while the checkpoint is lost")
					assert.Equal(t, 0, expired.NumAcknowledgedSubtasks, "no source took the checkpoint")
				case fault.BarrierLost:
					// The alignment never ends: the task reads nothing, its
					// producers' queues fill, and backpressure stops the
					// sources, so nothing reaches any sink.
					time.Sleep(500 * time.Millisecond)
					synctest.Wait()
					stalled := ticker.Results.Len()
					time.Sleep(300 * time.Millisecond)
					synctest.Wait()
					assert.Equal(t, stalled, ticker.Results.Len(), "backpressure from the blocked channels stops the job (%s)", broke)
					expired := awaitExpiry(t, cluster, job.JobID)
					assert.Greater(t, expired.NumAcknowledgedSubtasks, 0, "the sources took the checkpoint")
					assert.Less(t, expired.NumAcknowledgedSubtasks, expired.NumSubtasks, "the task whose alignment hung did not")
				}

				result, err := cluster.RequestJobResult(context.Background(), job.JobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
				synctest.Wait() // what the job's end sets off is logged too
				assertEveryCountExactlyOnce(t)

				graph, err := cluster.Dispatcher().RequestJob(context.Background(), job.JobID)
				require.NoError(t, err)
				records := captured.Records()
				log := logText(records)
				for _, want := range tt.wantLog {
					assert.Contains(t, log, want)
				}
				stats, err := cluster.Dispatcher().RequestCheckpointStats(context.Background(), job.JobID)
				require.NoError(t, err)
				require.NotNil(t, stats)
				assert.Positive(t, stats.Counts.Failed, "the broken checkpoint is counted as failed in the statistics")
				assert.Positive(t, stats.Counts.Completed, "later checkpoints complete")
				if tt.failover {
					require.NotEmpty(t, graph.ExceptionHistory, "the failure that restarted the job")
					for _, v := range graph.Vertices {
						for _, sub := range v.Subtasks {
							assert.Positive(t, sub.AttemptNumber, "every task restarted: %s", v.Name)
						}
					}
					assert.Contains(t, log, fmt.Sprintf("Restoring job %s from Checkpoint ", job.JobID), "from the latest completed checkpoint")
				} else {
					assert.Empty(t, graph.ExceptionHistory, "the job ran on")
					for _, v := range graph.Vertices {
						for _, sub := range v.Subtasks {
							assert.Zero(t, sub.AttemptNumber, "no task restarted: %s", v.Name)
						}
					}
					assert.Contains(t, log, "(0 consecutive failed attempts so far)", "the failure does not count")
				}
				if tt.global {
					assert.Contains(t, graph.ExceptionHistory[len(graph.ExceptionHistory)-1].Exception,
						"Exceeded checkpoint tolerable failure threshold.", "the CheckpointFailureManager failed the job")
					assert.Contains(t, log, "Trying to recover from a global failure.")
					assert.Contains(t, log, "4 tasks will be restarted to recover from a global failure.")
				}
				if kind == fault.MetadataWriteFails {
					_, err := os.Stat(filepath.Join(cfg.CheckpointsDir, job.JobID.String(), state.CheckpointDirPrefix+"1"))
					assert.True(t, os.IsNotExist(err), "the aborted checkpoint's directory is deleted: %v", err)
				}

				events := cluster.Trace().JobEvents(job.JobID)
				failures := trace.Failures(events)
				require.NotEmpty(t, failures)
				assert.Equal(t, tt.fault.Step, failures[0].Step, "the trace points at the step that broke")
				d, ok := fault.Diagnose(events)
				require.True(t, ok)
				d = fault.Explain(d, records)
				assert.Equal(t, kind, d.Kind, "the log shows the fault's kind:\n%s", d)
				assert.Equal(t, tt.component, d.Component, "%s", d)
				assert.GreaterOrEqual(t, len(d.Proof), 3, "%s", d)
				assert.LessOrEqual(t, len(d.Proof), 5, "%s", d)
				for _, line := range d.Proof {
					assert.Equal(t, records[line.Index], line.Record, "a proving line is a line of the log")
					assert.NotEqual(t, "FaultInjector", line.Record.Logger)
				}
				assert.Len(t, cluster.Faults().Fired(), 1, "the fault fired once")
			})
		})
	}
}

// startCheckpointedCluster starts 2 TaskManagers × 2 slots with cfg's
// checkpointing, heartbeats that notice a lost TaskManager within 2 s, and
// a fixed-delay restart strategy, 3 attempts 500 ms apart; its INFO log is
// captured.
func startCheckpointedCluster(t *testing.T, cfg checkpoint.CheckpointCoordinatorConfiguration) (*minicluster.MiniCluster, *fault.LogCapture) {
	t.Helper()
	captured := fault.NewLogCapture(slog.LevelInfo)
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers: 2, NumSlotsPerTaskManager: 2,
		WorkingDir:    t.TempDir(),
		RPCTimeout:    2 * time.Second,
		Heartbeat:     heartbeat.HeartbeatServices{Interval: 500 * time.Millisecond, Timeout: 2 * time.Second},
		StartUpPeriod: 2 * time.Second,
		RestartStrategy: failover.Config{Type: failover.TypeFixedDelay,
			FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: 500 * time.Millisecond}},
		Checkpointing: cfg,
		Logger:        slog.New(captured),
	})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	t.Cleanup(func() { require.NoError(t, cluster.Close()) })
	synctest.Wait() // the TaskExecutors have registered
	return cluster, captured
}

// tickerJob uploads the ticker, counting tickerEvents events at 100 a
// second at parallelism 2 into ticker.Results, and returns its JobGraph.
func tickerJob(t *testing.T, cluster *minicluster.MiniCluster) *jobgraph.JobGraph {
	t.Helper()
	ticker.Results.Clear()
	sg, err := streaming.PlanProgram(ticker.ProgramClass,
		[]string{"--rate", "100", "--count", fmt.Sprint(tickerEvents), "--output", ticker.OutputCollect}, 2)
	require.NoError(t, err)
	job, err := sg.JobGraph()
	require.NoError(t, err)
	jar, err := ticker.Jar()
	require.NoError(t, err)
	require.NoError(t, cluster.UploadJar(job, jar))
	return job
}

// awaitEvent waits for the job's first event that matches.
func awaitEvent(t *testing.T, cluster *minicluster.MiniCluster, job api.JobID, match func(trace.Event) bool) trace.Event {
	t.Helper()
	var found trace.Event
	require.NoError(t, cluster.Trace().Await(context.Background(), job, func(events []trace.Event) bool {
		i := slices.IndexFunc(events, match)
		if i >= 0 {
			found = events[i]
		}
		return i >= 0
	}))
	return found
}

// awaitExpiry waits until a checkpoint of the job expired and returns its
// statistics.
func awaitExpiry(t *testing.T, cluster *minicluster.MiniCluster, job api.JobID) checkpoint.CheckpointStatistics {
	t.Helper()
	awaitEvent(t, cluster, job, func(e trace.Event) bool {
		return e.Failed && strings.HasSuffix(e.Message, "expired before completing.")
	})
	stats, err := cluster.Dispatcher().RequestCheckpointStats(context.Background(), job)
	require.NoError(t, err)
	require.NotNil(t, stats.Latest.Failed)
	assert.Equal(t, checkpoint.CheckpointExpired.Message, stats.Latest.Failed.FailureMessage)
	return *stats.Latest.Failed
}

// assertEveryCountExactlyOnce checks the ticker's final counts: each
// sensor's last count is its number of events, though a failover emitted
// some counts again (the collect sink is not transactional).
func assertEveryCountExactlyOnce(t *testing.T) {
	t.Helper()
	last := map[string]int64{}
	for _, c := range ticker.Results.Values() {
		last[c.F0] = c.F1
	}
	require.Len(t, last, ticker.NumSensors)
	for sensor, count := range last {
		assert.Equal(t, int64(tickerEvents/ticker.NumSensors), count, "%s: its last count", sensor)
	}
}

// logText is the captured log as one text, each record a line (and its
// cause on the next).
func logText(records []fault.LogRecord) string {
	var b strings.Builder
	for _, r := range records {
		b.WriteString(r.String() + "\n")
	}
	return b.String()
}
