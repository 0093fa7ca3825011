package remote_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	_ "flinklab/runtime/gateway/remote"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
	"flinklab/runtime/state"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// overTCP serves gw on one TCPService and returns the stub of G that a
// second TCPService connects to it: every call crosses a real loopback
// connection, as between two processes.
func overTCP[G any](t *testing.T, gw any) G {
	t.Helper()
	server, client := newService(t), newService(t)
	address := server.Address("endpoint_0")
	require.NoError(t, server.Register(address, gw))
	g, err := rpc.Connect[G](testContext(t), client, address)
	require.NoError(t, err)
	require.NotEqual(t, reflect.TypeOf(gw), reflect.TypeOf(g), "a stub, not the object")
	return g
}

func newService(t *testing.T) *rpc.TCPService {
	t.Helper()
	s, err := rpc.NewTCPService(rpc.TCPConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Values with every field set, so that a field lost on the wire shows.
var (
	jobID        = api.NewJobID()
	jobMasterID  = api.NewJobMasterID()
	rmID         = api.NewResourceManagerID()
	tmID         = api.ResourceID("taskexecutor-3f2a9c")
	jmResourceID = api.ResourceID("jobmanager-5e0f1a")
	rmResourceID = api.ResourceID("resourcemanager-77aa01")
	allocationID = api.NewAllocationID()
	instanceID   = api.NewInstanceID()
	slotID       = api.SlotID{ResourceID: tmID, SlotNumber: 3}
	profile      = api.ResourceProfileFromResources(1.5, 512)
	jmAddress    = "pekko.tcp://flink@10.0.0.1:6123/user/rpc/jobmanager_1"
	tmAddress    = "pekko.tcp://flink@10.0.0.2:6122/user/rpc/taskmanager_0"
	when         = time.Date(2026, 11, 30, 10, 15, 2, 417_000_000, time.UTC)
	vertexID     = api.NewJobVertexID()
	attemptID    = api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: vertexID, SubtaskIndex: 2},
		AttemptNumber:     1,
	}
	partitionID = api.ResultPartitionID{
		PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID(), PartitionNum: 2},
		ProducerID:  attemptID,
	}
	slotOffers = []gateway.SlotOffer{
		{AllocationID: allocationID, SlotIndex: 0, ResourceProfile: profile},
		{AllocationID: api.NewAllocationID(), SlotIndex: 1, ResourceProfile: profile},
	}
	archived = &gateway.ArchivedExecutionGraph{
		JobID:            jobID,
		JobName:          "WordCount",
		State:            api.JobRestarting,
		StatusTimestamps: map[api.JobStatus]time.Time{api.JobCreated: when, api.JobRunning: when.Add(time.Second)},
		FailureCause:     "java.lang.RuntimeException: boom",
		Vertices: []gateway.ArchivedExecutionJobVertex{{
			ID: vertexID, Name: "Map", Parallelism: 4, MaxParallelism: 128, SlotSharingGroup: "default",
			State: api.ExecutionRunning,
			Subtasks: []gateway.ArchivedExecution{{
				SubtaskIndex: 2, AttemptNumber: 1, AttemptID: attemptID, State: api.ExecutionFailed,
				TaskManager: tmID, AllocationID: allocationID, FailureCause: "boom",
				StateTimestamps: map[api.ExecutionState]time.Time{api.ExecutionDeploying: when, api.ExecutionFailed: when.Add(time.Minute)},
			}},
		}},
		ExceptionHistory: []gateway.ExceptionHistoryEntry{{
			Exception: "java.lang.RuntimeException: boom", Timestamp: when, TaskName: "Map (3/4)#1", TaskManagerID: tmID,
			ConcurrentExceptions: []gateway.ExceptionHistoryEntry{{Exception: "also", Timestamp: when}},
		}},
		CheckpointCoordinatorConfiguration: &checkpoint.CheckpointCoordinatorConfiguration{
			Interval: 200 * time.Millisecond, Timeout: 10 * time.Minute, MaxConcurrent: 1, Mode: checkpoint.ExactlyOnce,
			Retention: checkpoint.RetainOnCancellation, CheckpointsDir: "/checkpoints", SavepointDir: "/savepoints", NumRetained: 1,
		},
		CheckpointStatsSnapshot: checkpointStats,
	}
	tdd = gateway.TaskDeploymentDescriptor{
		JobID:              jobID,
		JobName:            "WordCount",
		ExecutionAttemptID: attemptID,
		AllocationID:       allocationID,
		TaskInfo: gateway.TaskInformation{
			JobVertexID: vertexID, TaskName: "Map", NumberOfSubtasks: 4, MaxNumberOfSubtasks: 128,
			InvokableClassName: "StreamTask", TaskConfiguration: map[string]string{"operator": "map"},
		},
		UserJarBlobKeys:    []blob.PermanentBlobKey{blob.KeyOf([]byte("wordcount.jar"))},
		ProducedPartitions: []gateway.ResultPartitionDeploymentDescriptor{{PartitionID: partitionID, NumberOfSubpartitions: 4, PartitionType: jobgraph.Blocking}},
		InputGates: []gateway.InputGateDeploymentDescriptor{{
			ConsumedResultID: api.NewIntermediateDataSetID(), ConsumedSubpartitionIndex: 2,
			ShuffleDescriptors: []gateway.ShuffleDescriptor{{ResultPartitionID: partitionID, ProducerLocation: tmID}},
		}},
	}
	heartbeatTimeout = &gateway.TimeoutException{Message: "Heartbeat of TaskManager with id taskexecutor-3f2a9c timed out."}
	savepointPath    = "/savepoints/savepoint-8d4f2a-0123456789ab"
	completed        = checkpoint.CheckpointStatistics{
		ID: 7, Status: checkpoint.StatusCompleted, IsSavepoint: true,
		TriggerTimestamp: 1700000000000, LatestAckTimestamp: 1700000000040, CheckpointedSize: 2048, StateSize: 2048,
		EndToEndDuration: 40, NumSubtasks: 4, NumAcknowledgedSubtasks: 4, CheckpointType: "SAVEPOINT",
		Tasks: map[string]checkpoint.TaskCheckpointStatistics{vertexID.String(): {
			ID: 7, Status: checkpoint.StatusCompleted, LatestAckTimestamp: 1700000000040, StateSize: 2048,
			CheckpointedSize: 2048, EndToEndDuration: 40, NumSubtasks: 4, NumAcknowledgedSubtasks: 4,
		}},
		ExternalPath: savepointPath,
	}
	checkpointStats = &checkpoint.CheckpointStatsSnapshot{
		Counts: checkpoint.CheckpointStatsCounts{Restored: 1, Total: 9, InProgress: 1, Completed: 7, Failed: 1},
		Summary: checkpoint.CheckpointStatsSummary{
			StateSize:        checkpoint.StatsSummaryDto{Min: 1, Max: 2048, Avg: 512, P50: 300.5, P90: 2000, P95: 2048, P99: 2048, P999: 2048},
			EndToEndDuration: checkpoint.StatsSummaryDto{Min: 3, Max: 40, Avg: 12, P50: 10.25},
		},
		Latest: checkpoint.LatestCheckpoints{
			Savepoint: &completed,
			Failed: &checkpoint.CheckpointStatistics{ID: 8, Status: checkpoint.StatusFailed, LatestAckTimestamp: -1,
				CheckpointType: "CHECKPOINT", Tasks: map[string]checkpoint.TaskCheckpointStatistics{},
				FailureTimestamp: 1700000001000, FailureMessage: "Checkpoint expired before completing."},
			Restored: &checkpoint.RestoredCheckpointStatistics{ID: 3, RestoreTimestamp: 1699999999000, IsSavepoint: true, ExternalPath: savepointPath},
		},
		History: []checkpoint.CheckpointStatistics{completed},
	}
	requirements = jobgraph.JobResourceRequirements{
		vertexID:             {Parallelism: jobgraph.Parallelism{LowerBound: 1, UpperBound: 4}},
		api.NewJobVertexID(): {Parallelism: jobgraph.Parallelism{LowerBound: -1, UpperBound: -1}},
	}
)

// newJobGraph returns a small graph with every part the codec writes.
func newJobGraph() *jobgraph.JobGraph {
	g := jobgraph.New("WordCount")
	g.UserJarBlobKeys = []blob.PermanentBlobKey{blob.KeyOf([]byte("wordcount.jar"))}
	source := jobgraph.NewJobVertex("Source: Words", "StreamTask", 2)
	sink := jobgraph.NewJobVertex("Count", "StreamTask", 2)
	sink.MaxParallelism = 128
	sink.SlotSharingGroup = "counting"
	sink.Configuration = map[string]string{"operator": "count"}
	g.AddVertex(source)
	g.AddVertex(sink)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded).ShipStrategyName = "HASH"
	return g
}

// assertTimeoutCause checks that heartbeatTimeout arrived as cause, with
// its text and its type.
func assertTimeoutCause(t *testing.T, cause error) {
	t.Helper()
	var timeout *gateway.TimeoutException
	require.ErrorAs(t, cause, &timeout, "errors.As finds the TimeoutException on the other side")
	assert.Equal(t, heartbeatTimeout, timeout)
	assert.EqualError(t, cause, heartbeatTimeout.Message)
}

// roundTrips has one test per gateway method: the arguments arrive intact
// at the fake behind a TCPService, and its answer arrives intact at the
// caller.
var roundTrips = map[string]func(t *testing.T){
	// DispatcherGateway

	"DispatcherGateway.SubmitJob": func(t *testing.T) {
		var got *jobgraph.JobGraph
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			SubmitJobFunc: func(_ context.Context, jobGraph *jobgraph.JobGraph) error { got = jobGraph; return nil },
		})
		sent := newJobGraph()
		require.NoError(t, g.SubmitJob(testContext(t), sent))
		want, err := jobgraph.Encode(sent)
		require.NoError(t, err)
		gotJSON, err := jobgraph.Encode(got)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(gotJSON))
		assert.Equal(t, sent.JobID, got.JobID)
		assert.Len(t, got.Vertices()[1].Inputs(), 1, "the edge survived")
	},
	"DispatcherGateway.CancelJob": func(t *testing.T) {
		var got api.JobID
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			CancelJobFunc: func(_ context.Context, id api.JobID) error { got = id; return nil },
		})
		require.NoError(t, g.CancelJob(testContext(t), jobID))
		assert.Equal(t, jobID, got)
	},
	"DispatcherGateway.RequestJobStatus": func(t *testing.T) {
		var got api.JobID
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			RequestJobStatusFunc: func(_ context.Context, id api.JobID) (api.JobStatus, error) { got = id; return api.JobCancelling, nil },
		})
		status, err := g.RequestJobStatus(testContext(t), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobCancelling, status)
		assert.Equal(t, jobID, got)
	},
	"DispatcherGateway.RequestJob": func(t *testing.T) {
		var got api.JobID
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			RequestJobFunc: func(_ context.Context, id api.JobID) (*gateway.ArchivedExecutionGraph, error) {
				got = id
				return archived, nil
			},
		})
		graph, err := g.RequestJob(testContext(t), jobID)
		require.NoError(t, err)
		assert.Equal(t, archived, graph)
		assert.Equal(t, jobID, got)
	},
	"DispatcherGateway.ListJobs": func(t *testing.T) {
		jobs := []api.JobID{jobID, api.NewJobID()}
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			ListJobsFunc: func(context.Context) ([]api.JobID, error) { return jobs, nil },
		})
		got, err := g.ListJobs(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, jobs, got)
	},
	"DispatcherGateway.RequestMultipleJobDetails": func(t *testing.T) {
		details := []gateway.JobDetails{gateway.JobDetailsOf(archived)}
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			RequestMultipleJobDetailsFunc: func(context.Context) ([]gateway.JobDetails, error) { return details, nil },
		})
		got, err := g.RequestMultipleJobDetails(testContext(t))
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, details[0].TasksPerState, got[0].TasksPerState)
		assert.True(t, details[0].LastModification.Equal(got[0].LastModification))
		assert.Equal(t, details[0].NumTasks, got[0].NumTasks)
		assert.Equal(t, details[0].JobID, got[0].JobID)
	},
	"DispatcherGateway.RequestJobResult": func(t *testing.T) {
		result := api.JobResult{JobID: jobID, JobName: "WordCount", JobStatus: api.JobFailed,
			ApplicationStatus: api.ApplicationFailed, NetRuntime: 1500 * time.Millisecond, FailureCause: "boom"}
		var got api.JobID
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			RequestJobResultFunc: func(_ context.Context, id api.JobID) (api.JobResult, error) { got = id; return result, nil },
		})
		answer, err := g.RequestJobResult(testContext(t), jobID)
		require.NoError(t, err)
		assert.Equal(t, result, answer)
		assert.Equal(t, jobID, got)
	},
	"DispatcherGateway.RequestJobResourceRequirements": func(t *testing.T) {
		var got api.JobID
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			RequestJobResourceRequirementsFunc: func(_ context.Context, id api.JobID) (jobgraph.JobResourceRequirements, error) {
				got = id
				return requirements, nil
			},
		})
		answer, err := g.RequestJobResourceRequirements(testContext(t), jobID)
		require.NoError(t, err)
		assert.Equal(t, requirements, answer)
		assert.Equal(t, jobID, got)
	},
	"DispatcherGateway.UpdateJobResourceRequirements": func(t *testing.T) {
		var got []any
		invalid := &gateway.InvalidJobResourceRequirementsError{JobID: jobID, Errors: []string{"one", "two"}}
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			UpdateJobResourceRequirementsFunc: func(_ context.Context, id api.JobID, r jobgraph.JobResourceRequirements) error {
				got = []any{id, r}
				return invalid
			},
		})
		err := g.UpdateJobResourceRequirements(testContext(t), jobID, requirements)
		assert.Equal(t, []any{jobID, requirements}, got)
		var answer *gateway.InvalidJobResourceRequirementsError
		require.ErrorAs(t, err, &answer, "a refusal crosses with its errors")
		assert.Equal(t, invalid, answer)
	},

	"DispatcherGateway.TriggerSavepointAndGetLocation": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			TriggerSavepointAndGetLocationFunc: func(_ context.Context, id api.JobID, dir string, mode gateway.TriggerSavepointMode) (string, error) {
				got = []any{id, dir, mode}
				return savepointPath, nil
			},
		})
		path, err := g.TriggerSavepointAndGetLocation(testContext(t), jobID, "/savepoints", gateway.ModeCancelWithSavepoint)
		require.NoError(t, err)
		assert.Equal(t, savepointPath, path)
		assert.Equal(t, []any{jobID, "/savepoints", gateway.ModeCancelWithSavepoint}, got)
	},
	"DispatcherGateway.StopWithSavepointAndGetLocation": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			StopWithSavepointAndGetLocationFunc: func(_ context.Context, id api.JobID, dir string, mode gateway.TriggerSavepointMode) (string, error) {
				got = []any{id, dir, mode}
				return "", checkpoint.ErrNoSavepointDirectory
			},
		})
		_, err := g.StopWithSavepointAndGetLocation(testContext(t), jobID, "", gateway.ModeTerminateWithSavepoint)
		assert.ErrorIs(t, err, checkpoint.ErrNoSavepointDirectory, "the refusal crosses")
		assert.Equal(t, []any{jobID, "", gateway.ModeTerminateWithSavepoint}, got)
	},
	"DispatcherGateway.RequestCheckpointStats": func(t *testing.T) {
		var got api.JobID
		g := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{
			RequestCheckpointStatsFunc: func(_ context.Context, id api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
				got = id
				return checkpointStats, nil
			},
		})
		stats, err := g.RequestCheckpointStats(testContext(t), jobID)
		require.NoError(t, err)
		assert.Equal(t, checkpointStats, stats)
		assert.Equal(t, jobID, got)

		// A job without checkpointing has no statistics: nil crosses as nil.
		none, err := overTCP[gateway.DispatcherGateway](t, &gatewaytest.DispatcherGateway{}).RequestCheckpointStats(testContext(t), jobID)
		require.NoError(t, err)
		assert.Nil(t, none)
	},

	// JobMasterGateway

	"JobMasterGateway.RegisterTaskManager": func(t *testing.T) {
		location := gateway.TaskManagerLocation{ResourceID: tmID, Address: tmAddress}
		var got []any
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			RegisterTaskManagerFunc: func(_ context.Context, id api.JobMasterID, job api.JobID, tm gateway.TaskManagerLocation) (gateway.JMTMRegistrationSuccess, error) {
				got = []any{id, job, tm}
				return gateway.JMTMRegistrationSuccess{JobManagerResourceID: jmResourceID}, nil
			},
		})
		success, err := g.RegisterTaskManager(testContext(t), jobMasterID, jobID, location)
		require.NoError(t, err)
		assert.Equal(t, gateway.JMTMRegistrationSuccess{JobManagerResourceID: jmResourceID}, success)
		assert.Equal(t, []any{jobMasterID, jobID, location}, got)
	},
	"JobMasterGateway.OfferSlots": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			OfferSlotsFunc: func(_ context.Context, id api.JobMasterID, tm api.ResourceID, offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
				got = []any{id, tm, offers}
				return offers[:1], nil
			},
		})
		accepted, err := g.OfferSlots(testContext(t), jobMasterID, tmID, slotOffers)
		require.NoError(t, err)
		assert.Equal(t, slotOffers[:1], accepted)
		assert.Equal(t, []any{jobMasterID, tmID, slotOffers}, got)
	},
	"JobMasterGateway.UpdateTaskExecutionState": func(t *testing.T) {
		cause := fmt.Errorf("%w: Could not submit task. Caused by: boom", gateway.ErrTaskSubmission)
		var gotID api.JobMasterID
		var got gateway.TaskExecutionState
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			UpdateTaskExecutionStateFunc: func(_ context.Context, id api.JobMasterID, state gateway.TaskExecutionState) error {
				gotID, got = id, state
				return nil
			},
		})
		require.NoError(t, g.UpdateTaskExecutionState(testContext(t), jobMasterID,
			gateway.TaskExecutionState{AttemptID: attemptID, State: api.ExecutionFailed, FailureCause: cause}))
		assert.Equal(t, jobMasterID, gotID)
		assert.Equal(t, attemptID, got.AttemptID)
		assert.Equal(t, api.ExecutionFailed, got.State)
		assert.EqualError(t, got.FailureCause, cause.Error())
		assert.ErrorIs(t, got.FailureCause, gateway.ErrTaskSubmission)
	},
	"JobMasterGateway.DisconnectTaskManager": func(t *testing.T) {
		var got []any
		var gotCause error
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			DisconnectTaskManagerFunc: func(_ context.Context, id api.JobMasterID, tm api.ResourceID, cause error) error {
				got, gotCause = []any{id, tm}, cause
				return nil
			},
		})
		require.NoError(t, g.DisconnectTaskManager(testContext(t), jobMasterID, tmID, heartbeatTimeout))
		assert.Equal(t, []any{jobMasterID, tmID}, got)
		assertTimeoutCause(t, gotCause)
	},
	"JobMasterGateway.NotifyNotEnoughResourcesAvailable": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			NotifyNotEnoughResourcesAvailableFunc: func(_ context.Context, id api.JobMasterID, acquired int) error {
				got = []any{id, acquired}
				return nil
			},
		})
		require.NoError(t, g.NotifyNotEnoughResourcesAvailable(testContext(t), jobMasterID, 3))
		assert.Equal(t, []any{jobMasterID, 3}, got)
	},
	"JobMasterGateway.RequestJobStatus": func(t *testing.T) {
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			RequestJobStatusFunc: func(context.Context) (api.JobStatus, error) { return api.JobRestarting, nil },
		})
		status, err := g.RequestJobStatus(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, api.JobRestarting, status)
	},
	"JobMasterGateway.RequestJob": func(t *testing.T) {
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			RequestJobFunc: func(context.Context) (*gateway.ArchivedExecutionGraph, error) { return archived, nil },
		})
		graph, err := g.RequestJob(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, archived, graph)
	},
	"JobMasterGateway.Cancel": func(t *testing.T) {
		cancelled := false
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			CancelFunc: func(context.Context) error { cancelled = true; return nil },
		})
		require.NoError(t, g.Cancel(testContext(t)))
		assert.True(t, cancelled)
	},
	"JobMasterGateway.RequestJobResourceRequirements": func(t *testing.T) {
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			RequestJobResourceRequirementsFunc: func(context.Context) (jobgraph.JobResourceRequirements, error) { return requirements, nil },
		})
		answer, err := g.RequestJobResourceRequirements(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, requirements, answer)
	},
	"JobMasterGateway.UpdateJobResourceRequirements": func(t *testing.T) {
		var got jobgraph.JobResourceRequirements
		refusal := fmt.Errorf("%w: The DefaultScheduler does not support changing the parallelism without a job restart.", gateway.ErrUnsupportedOperation)
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			UpdateJobResourceRequirementsFunc: func(_ context.Context, r jobgraph.JobResourceRequirements) error { got = r; return refusal },
		})
		err := g.UpdateJobResourceRequirements(testContext(t), requirements)
		assert.Equal(t, requirements, got)
		assert.ErrorIs(t, err, gateway.ErrUnsupportedOperation, "the scheduler's refusal crosses")
		assert.EqualError(t, err, refusal.Error())
	},

	"JobMasterGateway.AcknowledgeCheckpoint": func(t *testing.T) {
		operator := api.OperatorIDFromBytes([16]byte{1, 2, 3})
		want := checkpoint.AcknowledgeCheckpoint{
			JobID: jobID, TaskExecutionID: attemptID, CheckpointID: 7,
			Metrics: checkpoint.CheckpointMetrics{AlignmentDurationNanos: 1500, SyncDurationMillis: 2},
			SubtaskState: &checkpoint.TaskStateSnapshot{SubtaskStateMappings: map[api.OperatorID]checkpoint.OperatorSubtaskState{
				operator: {
					ManagedKeyedState: []state.KeyGroupsStateHandle{{
						KeyGroupRange: state.KeyGroupRange{StartKeyGroup: 0, EndKeyGroup: 1}, Offsets: []int64{0, 3}, End: 5,
						Delegate: state.StreamStateHandle{FilePath: "/checkpoints/job/chk-7/f00", StateSize: 5},
					}},
					ManagedOperatorState: []state.OperatorStateHandle{{
						StateNameToPartitionOffsets: map[string]state.StateMetaInfo{"source-position": {Offsets: []int64{0}, DistributionMode: state.Union}},
						Delegate:                    state.StreamStateHandle{Data: []byte{3, 0, 2, 8}, StateSize: 4},
					}},
				},
			}},
		}
		var got checkpoint.AcknowledgeCheckpoint
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			AcknowledgeCheckpointFunc: func(_ context.Context, ack checkpoint.AcknowledgeCheckpoint) error { got = ack; return nil },
		})
		require.NoError(t, g.AcknowledgeCheckpoint(testContext(t), want))
		assert.Equal(t, want, got, "the state's handles, by OperatorID, cross whole")
	},
	"JobMasterGateway.DeclineCheckpoint": func(t *testing.T) {
		want := checkpoint.DeclineCheckpoint{JobID: jobID, TaskExecutionID: attemptID, CheckpointID: 3,
			Reason: checkpoint.CheckpointDeclinedTaskNotReady.Name, Message: "Checkpoint was declined (tasks not ready)"}
		var got checkpoint.DeclineCheckpoint
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			DeclineCheckpointFunc: func(_ context.Context, d checkpoint.DeclineCheckpoint) error { got = d; return nil },
		})
		require.NoError(t, g.DeclineCheckpoint(testContext(t), want))
		assert.Equal(t, want, got)
	},

	"JobMasterGateway.TriggerSavepoint": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			TriggerSavepointFunc: func(_ context.Context, dir string, cancelJob bool) (string, error) {
				got = []any{dir, cancelJob}
				return savepointPath, nil
			},
		})
		path, err := g.TriggerSavepoint(testContext(t), "/savepoints", true)
		require.NoError(t, err)
		assert.Equal(t, savepointPath, path)
		assert.Equal(t, []any{"/savepoints", true}, got)
	},
	"JobMasterGateway.StopWithSavepoint": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			StopWithSavepointFunc: func(_ context.Context, dir string, terminate bool) (string, error) {
				got = []any{dir, terminate}
				return "", gateway.ErrCheckpointingDisabled
			},
		})
		_, err := g.StopWithSavepoint(testContext(t), "/savepoints", true)
		assert.ErrorIs(t, err, gateway.ErrCheckpointingDisabled, "the refusal crosses")
		assert.Equal(t, []any{"/savepoints", true}, got)
	},
	"JobMasterGateway.RequestCheckpointStats": func(t *testing.T) {
		g := overTCP[gateway.JobMasterGateway](t, &gatewaytest.JobMasterGateway{
			RequestCheckpointStatsFunc: func(context.Context) (*checkpoint.CheckpointStatsSnapshot, error) { return checkpointStats, nil },
		})
		stats, err := g.RequestCheckpointStats(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, checkpointStats, stats)
	},

	// JobMasterHeartbeatGateway

	"JobMasterHeartbeatGateway.HeartbeatFromTaskManager": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.JobMasterHeartbeatGateway](t, &gatewaytest.JobMasterGateway{
			HeartbeatFromTaskManagerFunc: func(_ context.Context, id api.ResourceID, payload gateway.TaskExecutorToJobManagerHeartbeatPayload) error {
				got = []any{id, payload}
				return nil
			},
		})
		require.NoError(t, g.HeartbeatFromTaskManager(testContext(t), tmID, gateway.TaskExecutorToJobManagerHeartbeatPayload{}))
		assert.Equal(t, []any{tmID, gateway.TaskExecutorToJobManagerHeartbeatPayload{}}, got)
	},
	"JobMasterHeartbeatGateway.HeartbeatFromResourceManager": func(t *testing.T) {
		var got api.ResourceID
		g := overTCP[gateway.JobMasterHeartbeatGateway](t, &gatewaytest.JobMasterGateway{
			HeartbeatFromResourceManagerFunc: func(_ context.Context, id api.ResourceID) error { got = id; return nil },
		})
		require.NoError(t, g.HeartbeatFromResourceManager(testContext(t), rmResourceID))
		assert.Equal(t, rmResourceID, got)
	},

	// ResourceManagerGateway

	"ResourceManagerGateway.RegisterJobMaster": func(t *testing.T) {
		success := gateway.JobMasterRegistrationSuccess{ResourceManagerID: rmID, ResourceManagerResourceID: rmResourceID}
		var got []any
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			RegisterJobMasterFunc: func(_ context.Context, rm api.ResourceManagerID, jm api.JobMasterID, jmRes api.ResourceID,
				address string, job api.JobID) (gateway.JobMasterRegistrationSuccess, error) {
				got = []any{rm, jm, jmRes, address, job}
				return success, nil
			},
		})
		answer, err := g.RegisterJobMaster(testContext(t), rmID, jobMasterID, jmResourceID, jmAddress, jobID)
		require.NoError(t, err)
		assert.Equal(t, success, answer)
		assert.Equal(t, []any{rmID, jobMasterID, jmResourceID, jmAddress, jobID}, got)
	},
	"ResourceManagerGateway.DeclareRequiredResources": func(t *testing.T) {
		requirements := gateway.ResourceRequirements{JobID: jobID, TargetAddress: jmAddress, Requirements: []gateway.ResourceRequirement{
			{ResourceProfile: api.UnknownResourceProfile, NumberOfRequiredSlots: 4},
			{ResourceProfile: profile, NumberOfRequiredSlots: 1},
		}}
		var got []any
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			DeclareRequiredResourcesFunc: func(_ context.Context, rm api.ResourceManagerID, jm api.JobMasterID, r gateway.ResourceRequirements) error {
				got = []any{rm, jm, r}
				return nil
			},
		})
		require.NoError(t, g.DeclareRequiredResources(testContext(t), rmID, jobMasterID, requirements))
		assert.Equal(t, []any{rmID, jobMasterID, requirements}, got)
	},
	"ResourceManagerGateway.DisconnectJobManager": func(t *testing.T) {
		var got []any
		var gotCause error
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			DisconnectJobManagerFunc: func(_ context.Context, rm api.ResourceManagerID, job api.JobID, status api.JobStatus, cause error) error {
				got, gotCause = []any{rm, job, status}, cause
				return nil
			},
		})
		require.NoError(t, g.DisconnectJobManager(testContext(t), rmID, jobID, api.JobFinished, nil))
		assert.Equal(t, []any{rmID, jobID, api.JobFinished}, got)
		assert.NoError(t, gotCause, "a nil cause stays nil")
	},
	"ResourceManagerGateway.RegisterTaskExecutor": func(t *testing.T) {
		registration := gateway.TaskExecutorRegistration{ResourceID: tmID, TaskExecutorAddress: tmAddress, NumberOfSlots: 2, DefaultSlotResourceProfile: profile}
		success := gateway.TaskExecutorRegistrationSuccess{RegistrationID: instanceID, ResourceManagerResourceID: rmResourceID}
		var got []any
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			RegisterTaskExecutorFunc: func(_ context.Context, rm api.ResourceManagerID, r gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
				got = []any{rm, r}
				return success, nil
			},
		})
		answer, err := g.RegisterTaskExecutor(testContext(t), rmID, registration)
		require.NoError(t, err)
		assert.Equal(t, success, answer)
		assert.Equal(t, []any{rmID, registration}, got)
	},
	"ResourceManagerGateway.SendSlotReport": func(t *testing.T) {
		report := gateway.SlotReport{
			{SlotID: slotID, ResourceProfile: profile, AllocationID: allocationID, JobID: jobID},
			{SlotID: api.SlotID{ResourceID: tmID, SlotNumber: 4}, ResourceProfile: profile}, // free
		}
		var got []any
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			SendSlotReportFunc: func(_ context.Context, rm api.ResourceManagerID, tm api.ResourceID, instance api.InstanceID, r gateway.SlotReport) error {
				got = []any{rm, tm, instance, r}
				return nil
			},
		})
		require.NoError(t, g.SendSlotReport(testContext(t), rmID, tmID, instanceID, report))
		assert.Equal(t, []any{rmID, tmID, instanceID, report}, got)
	},
	"ResourceManagerGateway.NotifySlotAvailable": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			NotifySlotAvailableFunc: func(_ context.Context, rm api.ResourceManagerID, instance api.InstanceID, slot api.SlotID, allocation api.AllocationID) error {
				got = []any{rm, instance, slot, allocation}
				return nil
			},
		})
		require.NoError(t, g.NotifySlotAvailable(testContext(t), rmID, instanceID, slotID, allocationID))
		assert.Equal(t, []any{rmID, instanceID, slotID, allocationID}, got)
	},
	"ResourceManagerGateway.DisconnectTaskManager": func(t *testing.T) {
		var got []any
		var gotCause error
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			DisconnectTaskManagerFunc: func(_ context.Context, rm api.ResourceManagerID, tm api.ResourceID, cause error) error {
				got, gotCause = []any{rm, tm}, cause
				return nil
			},
		})
		require.NoError(t, g.DisconnectTaskManager(testContext(t), rmID, tmID, heartbeatTimeout))
		assert.Equal(t, []any{rmID, tmID}, got)
		assertTimeoutCause(t, gotCause)
	},
	"ResourceManagerGateway.HeartbeatFromTaskManager": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			HeartbeatFromTaskManagerFunc: func(_ context.Context, id api.ResourceID, payload gateway.TaskExecutorHeartbeatPayload) error {
				got = []any{id, payload}
				return nil
			},
		})
		require.NoError(t, g.HeartbeatFromTaskManager(testContext(t), tmID, gateway.TaskExecutorHeartbeatPayload{}))
		assert.Equal(t, []any{tmID, gateway.TaskExecutorHeartbeatPayload{}}, got)
	},
	"ResourceManagerGateway.HeartbeatFromJobManager": func(t *testing.T) {
		var got api.ResourceID
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			HeartbeatFromJobManagerFunc: func(_ context.Context, id api.ResourceID) error { got = id; return nil },
		})
		require.NoError(t, g.HeartbeatFromJobManager(testContext(t), jmResourceID))
		assert.Equal(t, jmResourceID, got)
	},
	"ResourceManagerGateway.RequestResourceOverview": func(t *testing.T) {
		want := gateway.ResourceOverview{NumberTaskManagers: 2, NumberRegisteredSlots: 4, NumberFreeSlots: 3}
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			RequestResourceOverviewFunc: func(context.Context) (gateway.ResourceOverview, error) { return want, nil },
		})
		got, err := g.RequestResourceOverview(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, want, got)
	},
	"ResourceManagerGateway.RequestTaskManagerInfo": func(t *testing.T) {
		want := []gateway.TaskManagerInfo{{ResourceID: tmID, Address: tmAddress, InstanceID: instanceID, NumberSlots: 4, NumberFreeSlots: 1}}
		g := overTCP[gateway.ResourceManagerGateway](t, &gatewaytest.ResourceManagerGateway{
			RequestTaskManagerInfoFunc: func(context.Context) ([]gateway.TaskManagerInfo, error) { return want, nil },
		})
		got, err := g.RequestTaskManagerInfo(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, want, got)
	},

	// TaskExecutorGateway

	"TaskExecutorGateway.RequestSlot": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			RequestSlotFunc: func(_ context.Context, slot api.SlotID, job api.JobID, allocation api.AllocationID,
				p api.ResourceProfile, address string, rm api.ResourceManagerID) error {
				got = []any{slot, job, allocation, p, address, rm}
				return nil
			},
		})
		require.NoError(t, g.RequestSlot(testContext(t), slotID, jobID, allocationID, profile, jmAddress, rmID))
		assert.Equal(t, []any{slotID, jobID, allocationID, profile, jmAddress, rmID}, got)
	},
	"TaskExecutorGateway.SubmitTask": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			SubmitTaskFunc: func(_ context.Context, d gateway.TaskDeploymentDescriptor, jm api.JobMasterID) error {
				got = []any{d, jm}
				return nil
			},
		})
		require.NoError(t, g.SubmitTask(testContext(t), tdd, jobMasterID))
		assert.Equal(t, []any{tdd, jobMasterID}, got)
	},
	"TaskExecutorGateway.CancelTask": func(t *testing.T) {
		var got api.ExecutionAttemptID
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			CancelTaskFunc: func(_ context.Context, id api.ExecutionAttemptID) error { got = id; return nil },
		})
		require.NoError(t, g.CancelTask(testContext(t), attemptID))
		assert.Equal(t, attemptID, got)
	},
	"TaskExecutorGateway.FreeSlot": func(t *testing.T) {
		cause := errors.New("Stopping JobMaster for job 'WordCount'.")
		var got api.AllocationID
		var gotCause error
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			FreeSlotFunc: func(_ context.Context, id api.AllocationID, _ api.JobMasterID, c error) error {
				got, gotCause = id, c
				return nil
			},
		})
		require.NoError(t, g.FreeSlot(testContext(t), allocationID, api.NewJobMasterID(), cause))
		assert.Equal(t, allocationID, got)
		assert.EqualError(t, gotCause, cause.Error())
	},
	"TaskExecutorGateway.DisconnectJobManager": func(t *testing.T) {
		var got api.JobID
		var gotCause error
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			DisconnectJobManagerFunc: func(_ context.Context, id api.JobID, _ api.JobMasterID, c error) error {
				got, gotCause = id, c
				return nil
			},
		})
		require.NoError(t, g.DisconnectJobManager(testContext(t), jobID, api.NewJobMasterID(), heartbeatTimeout))
		assert.Equal(t, jobID, got)
		assertTimeoutCause(t, gotCause)
	},
	"TaskExecutorGateway.ReleasePartitions": func(t *testing.T) {
		other := api.ResultPartitionID{
			PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID(), PartitionNum: 0},
			ProducerID:  attemptID,
		}
		var got []any
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			ReleasePartitionsFunc: func(_ context.Context, job api.JobID, ids []api.ResultPartitionID) error {
				got = []any{job, ids}
				return nil
			},
		})
		require.NoError(t, g.ReleasePartitions(testContext(t), jobID, []api.ResultPartitionID{partitionID, other}))
		assert.Equal(t, []any{jobID, []api.ResultPartitionID{partitionID, other}}, got)
	},
	"TaskExecutorGateway.TriggerCheckpoint": func(t *testing.T) {
		options := checkpoint.CheckpointOptions{CheckpointType: checkpoint.Checkpoint,
			TargetLocation: state.CheckpointStorageLocation{Directory: "/checkpoints/job/chk-4"}, AlignmentType: checkpoint.Aligned}
		var got []any
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			TriggerCheckpointFunc: func(_ context.Context, id api.ExecutionAttemptID, checkpointID, timestamp int64, o checkpoint.CheckpointOptions) error {
				got = []any{id, checkpointID, timestamp, o}
				return nil
			},
		})
		require.NoError(t, g.TriggerCheckpoint(testContext(t), attemptID, 4, 1700000000000, options))
		assert.Equal(t, []any{attemptID, int64(4), int64(1700000000000), options}, got)
	},
	"TaskExecutorGateway.ConfirmCheckpoint": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			ConfirmCheckpointFunc: func(_ context.Context, id api.ExecutionAttemptID, checkpointID, timestamp int64) error {
				got = []any{id, checkpointID, timestamp}
				return nil
			},
		})
		require.NoError(t, g.ConfirmCheckpoint(testContext(t), attemptID, 4, 1700000000000))
		assert.Equal(t, []any{attemptID, int64(4), int64(1700000000000)}, got)
	},
	"TaskExecutorGateway.AbortCheckpoint": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			AbortCheckpointFunc: func(_ context.Context, id api.ExecutionAttemptID, checkpointID, latest, timestamp int64) error {
				got = []any{id, checkpointID, latest, timestamp}
				return nil
			},
		})
		require.NoError(t, g.AbortCheckpoint(testContext(t), attemptID, 5, 4, 1700000000000))
		assert.Equal(t, []any{attemptID, int64(5), int64(4), int64(1700000000000)}, got)
	},
	"TaskExecutorGateway.HeartbeatFromJobManager": func(t *testing.T) {
		var got []any
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			HeartbeatFromJobManagerFunc: func(_ context.Context, id api.ResourceID, payload gateway.AllocatedSlotReport) error {
				got = []any{id, payload}
				return nil
			},
		})
		require.NoError(t, g.HeartbeatFromJobManager(testContext(t), jmResourceID, gateway.AllocatedSlotReport{}))
		assert.Equal(t, []any{jmResourceID, gateway.AllocatedSlotReport{}}, got)
	},
	"TaskExecutorGateway.HeartbeatFromResourceManager": func(t *testing.T) {
		var got api.ResourceID
		g := overTCP[gateway.TaskExecutorGateway](t, &gatewaytest.TaskExecutorGateway{
			HeartbeatFromResourceManagerFunc: func(_ context.Context, id api.ResourceID) error { got = id; return nil },
		})
		require.NoError(t, g.HeartbeatFromResourceManager(testContext(t), rmResourceID))
		assert.Equal(t, rmResourceID, got)
	},
}

func TestEveryGatewayMethodRoundTripsOverTCP(t *testing.T) {
	// The table covers every method of every gateway, and nothing else.
	var methods []string
	for _, g := range []reflect.Type{
		reflect.TypeFor[gateway.DispatcherGateway](),
		reflect.TypeFor[gateway.JobMasterGateway](),
		reflect.TypeFor[gateway.JobMasterHeartbeatGateway](),
		reflect.TypeFor[gateway.ResourceManagerGateway](),
		reflect.TypeFor[gateway.TaskExecutorGateway](),
	} {
		for i := range g.NumMethod() {
			methods = append(methods, g.Name()+"."+g.Method(i).Name)
		}
	}
	var tested []string
	for name := range roundTrips {
		tested = append(tested, name)
	}
	slices.Sort(methods)
	slices.Sort(tested)
	require.Equal(t, methods, tested)

	for _, name := range tested {
		t.Run(name, roundTrips[name])
	}
}

// A component may connect through an interface of its own that joins two
// gateways (the ResourceManager and the TaskExecutor hold their JobMasters
// that way); it gets the one stub that implements both.
func TestAComposedGatewayGetsTheStubThatImplementsIt(t *testing.T) {
	type jobMasterGateway interface {
		gateway.JobMasterGateway
		gateway.JobMasterHeartbeatGateway
	}
	heartbeats := 0
	g := overTCP[jobMasterGateway](t, &gatewaytest.JobMasterGateway{
		HeartbeatFromResourceManagerFunc: func(context.Context, api.ResourceID) error { heartbeats++; return nil },
	})
	require.NoError(t, g.HeartbeatFromResourceManager(testContext(t), rmResourceID))
	status, err := g.RequestJobStatus(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, api.JobRunning, status)
	assert.Equal(t, 1, heartbeats)
}

// A TaskExecutor's address connected to as a JobMaster is refused at
// Connect, as Flink's handshake refuses a gateway the endpoint does not
// implement.
func TestConnectingToTheWrongComponentFails(t *testing.T) {
	server, client := newService(t), newService(t)
	address := server.Address("taskmanager_0")
	require.NoError(t, server.Register(address, &gatewaytest.TaskExecutorGateway{}))
	_, err := rpc.Connect[gateway.JobMasterGateway](testContext(t), client, address)
	assert.ErrorIs(t, err, rpc.ErrRecipientUnreachable)
	assert.ErrorContains(t, err, "does not support the gateway gateway.JobMasterGateway")
}
