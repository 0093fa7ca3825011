package gateway

import (
	"context"
	"encoding/json"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
)

// JobMasterGateway is what TaskExecutors and the job's JobManagerRunner may
// ask of a JobMaster (Flink's JobMasterGateway). The TaskExecutor-facing
// methods are fenced by the JobMaster's api.JobMasterID.
type JobMasterGateway interface {
	// RegisterTaskManager connects a TaskExecutor that holds (or will hold)
	// slots for this job. Only registered TaskExecutors may offer slots.
	RegisterTaskManager(ctx context.Context, jobMasterID api.JobMasterID, jobID api.JobID, tm TaskManagerLocation) (JMTMRegistrationSuccess, error)
	// OfferSlots offers slots that the ResourceManager allocated for this
	// job (step m8). It returns the offers the JobMaster accepted; the
	// TaskExecutor frees the others.
	OfferSlots(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID, offers []SlotOffer) ([]SlotOffer, error)
	// UpdateTaskExecutionState reports a task's state change (m11 reports
	// INITIALIZING and RUNNING; the end reports FINISHED, FAILED or CANCELED).
	UpdateTaskExecutionState(ctx context.Context, jobMasterID api.JobMasterID, state TaskExecutionState) error
	// DisconnectTaskManager tells the JobMaster that a TaskExecutor is gone;
	// its slots and the tasks in them are lost.
	DisconnectTaskManager(ctx context.Context, jobMasterID api.JobMasterID, taskManager api.ResourceID, cause error) error
	// NotifyNotEnoughResourcesAvailable tells the JobMaster that the
	// ResourceManager cannot meet the job's requirements (after a
	// standalone ResourceManager's start-up period): its waiting slot
	// requests fail with "Could not acquire the minimum required
	// resources." acquired counts the slots the job holds.
	NotifyNotEnoughResourcesAvailable(ctx context.Context, jobMasterID api.JobMasterID, acquired int) error

	// RequestJobStatus returns the job's status.
	RequestJobStatus(ctx context.Context) (api.JobStatus, error)
	// RequestJob returns a snapshot of the ExecutionGraph.
	RequestJob(ctx context.Context) (*ArchivedExecutionGraph, error)
	// Cancel cancels the job: CANCELLING, then CANCELED once every task
	// has stopped.
	Cancel(ctx context.Context) error
	// RequestJobResourceRequirements returns the parallelism bounds of the
	// job's vertices, as its scheduler has them.
	RequestJobResourceRequirements(ctx context.Context) (jobgraph.JobResourceRequirements, error)
	// UpdateJobResourceRequirements hands the scheduler new parallelism
	// bounds for the job's vertices. A scheduler that cannot rescale a
	// running job refuses with ErrUnsupportedOperation. The caller has
	// validated the requirements (the Dispatcher does).
	UpdateJobResourceRequirements(ctx context.Context, requirements jobgraph.JobResourceRequirements) error

	// AcknowledgeCheckpoint hands the CheckpointCoordinator a task's
	// snapshot of a checkpoint (step k5). Flink's
	// CheckpointCoordinatorGateway#acknowledgeCheckpoint.
	AcknowledgeCheckpoint(ctx context.Context, ack checkpoint.AcknowledgeCheckpoint) error
	// DeclineCheckpoint tells the CheckpointCoordinator that a task cannot
	// take a checkpoint: the checkpoint is aborted. Flink's
	// CheckpointCoordinatorGateway#declineCheckpoint.
	DeclineCheckpoint(ctx context.Context, decline checkpoint.DeclineCheckpoint) error

	// TriggerSavepoint takes a savepoint of the job into targetDirectory,
	// or state.savepoints.dir when it is empty, and returns its path once
	// it completed (Flink's triggerSavepoint). With cancelJob the job is
	// cancelled after the savepoint. It fails with
	// checkpoint.ErrNoSavepointDirectory without a directory, with
	// ErrCheckpointingDisabled for a job that is not checkpointed, and with
	// the checkpoint's failure when the savepoint does not complete. The
	// ctx deadline bounds the wait for the savepoint, not the savepoint.
	TriggerSavepoint(ctx context.Context, targetDirectory string, cancelJob bool) (string, error)
	// StopWithSavepoint stops the job with a savepoint (Flink's
	// stopWithSavepoint): the periodic checkpoints stop, the savepoint is
	// taken, and the job's tasks end; the path is returned once the job is
	// FINISHED. terminate drains the job first (flink stop --drain). If
	// the savepoint fails, the job runs on, and its periodic checkpoints
	// with it. It fails as TriggerSavepoint does.
	StopWithSavepoint(ctx context.Context, targetDirectory string, terminate bool) (string, error)
	// RequestCheckpointStats returns the statistics of the job's
	// checkpoints (Flink's requestCheckpointStats): nil, and no error, for
	// a job that is not checkpointed.
	RequestCheckpointStats(ctx context.Context) (*checkpoint.CheckpointStatsSnapshot, error)
}

// TaskManagerLocation says where a TaskExecutor is: its ResourceID, the
// RPC address of its TaskExecutorGateway, and the address of its data
// plane.
type TaskManagerLocation struct {
	ResourceID api.ResourceID `json:"resourceId"`
	Address    string         `json:"address"`
	// DataAddress is the host:port of the TaskExecutor's
	// network.PartitionRequestServer, where consumers in other processes
	// read the partitions its tasks produce (Flink: the TaskManagerLocation's
	// dataPort). Empty when its partitions are read in-process only, as in
	// the embedded cluster.
	DataAddress string `json:"dataAddress,omitempty"`
}

func (l TaskManagerLocation) String() string { return string(l.ResourceID) + " @ " + l.Address }

// JMTMRegistrationSuccess answers a successful RegisterTaskManager: the
// JobMaster's ResourceID, which the TaskExecutor monitors.
type JMTMRegistrationSuccess struct {
	JobManagerResourceID api.ResourceID `json:"resourceId"`
}

// SlotOffer is one slot a TaskExecutor offers to a JobMaster.
type SlotOffer struct {
	AllocationID    api.AllocationID    `json:"allocationId"`
	SlotIndex       int                 `json:"slotIndex"`
	ResourceProfile api.ResourceProfile `json:"resourceProfile"`
}

// TaskExecutionState reports that a task reached a state. FailureCause is
// set when the state is FAILED.
type TaskExecutionState struct {
	AttemptID    api.ExecutionAttemptID
	State        api.ExecutionState
	FailureCause error
}

// taskExecutionStateJSON is the JSON form of a TaskExecutionState.
type taskExecutionStateJSON struct {
	AttemptID    api.ExecutionAttemptID `json:"executionId"`
	State        api.ExecutionState     `json:"executionState"`
	FailureCause json.RawMessage        `json:"failureCause,omitempty"`
}

// MarshalJSON writes the state with its failure cause in the RPC layer's
// form for errors (rpc.MarshalError): the cause's text, and the registered
// errors in it, which errors.Is and errors.As find again after
// UnmarshalJSON. So a TaskExecutor in another process tells the JobMaster
// why a task failed.
func (s TaskExecutionState) MarshalJSON() ([]byte, error) {
	doc := taskExecutionStateJSON{AttemptID: s.AttemptID, State: s.State}
	if s.FailureCause != nil {
		cause, err := rpc.MarshalError(s.FailureCause)
		if err != nil {
			return nil, err
		}
		doc.FailureCause = cause
	}
	return json.Marshal(doc)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *TaskExecutionState) UnmarshalJSON(data []byte) error {
	var doc taskExecutionStateJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	*s = TaskExecutionState{AttemptID: doc.AttemptID, State: doc.State}
	if len(doc.FailureCause) > 0 {
		cause, err := rpc.UnmarshalError(doc.FailureCause)
		if err != nil {
			return err
		}
		s.FailureCause = cause
	}
	return nil
}
