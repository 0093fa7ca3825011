package gateway

import (
	"context"
	"errors"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/jobgraph"
)

// TaskExecutorGateway is what the ResourceManager and JobMasters may ask of
// a TaskExecutor (Flink's TaskExecutorGateway).
type TaskExecutorGateway interface {
	// RequestSlot allocates a free slot for a job (step m7). The
	// TaskExecutor then connects to the JobMaster at jobMasterAddress and
	// offers the slot there (step m8). rmID is the sender's fencing token.
	RequestSlot(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
		profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error
	// SubmitTask deploys a task into an allocated slot (step m9).
	// jobMasterID is the sender's fencing token.
	SubmitTask(ctx context.Context, tdd TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error
	// CancelTask cancels a running task; the result arrives later as
	// UpdateTaskExecutionState(CANCELED).
	CancelTask(ctx context.Context, attemptID api.ExecutionAttemptID) error
	// FreeSlot returns a slot; its tasks are failed first. The TaskExecutor
	// then tells the ResourceManager that the slot is free.
	// The JobMaster of jobMasterID frees it: a slot the TaskExecutor has
	// offered to another JobMaster of the job since, a newer leader's, is
	// not freed (Flink's freeSlot names no JobMasterID).
	FreeSlot(ctx context.Context, allocationID api.AllocationID, jobMasterID api.JobMasterID, cause error) error
	// DisconnectJobManager tells the TaskExecutor that the job's JobMaster
	// of jobMasterID is gone. The TaskExecutor ignores it if it is
	// connected to another JobMaster of the job, a newer leader's.
	//
	// Differs from Flink: Flink's disconnectJobManager(JobID, Exception)
	// names no JobMasterID, and an old leader that wakes from a pause and
	// lets its TaskExecutors go would disconnect them from the new one.
	DisconnectJobManager(ctx context.Context, jobID api.JobID, jobMasterID api.JobMasterID, cause error) error
	// ReleasePartitions releases the job's BLOCKING partitions of the
	// given IDs, which the TaskExecutor keeps after their producers
	// finished until it is told that no consumer needs them any more.
	// Unknown IDs are ignored. Flink's TaskExecutorGateway#releasePartitions.
	ReleasePartitions(ctx context.Context, jobID api.JobID, partitionIDs []api.ResultPartitionID) error

	// TriggerCheckpoint asks a source task to take checkpoint checkpointID
	// and send its barrier downstream (step k2; Flink's
	// TaskExecutorGateway#triggerCheckpoint). The answer only says the
	// request arrived: the task acknowledges or declines later, through
	// JobMasterGateway.AcknowledgeCheckpoint or DeclineCheckpoint.
	TriggerCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64,
		options checkpoint.CheckpointOptions) error
	// ConfirmCheckpoint tells a task that checkpoint checkpointID completed
	// (step k7; Flink's confirmCheckpoint, which calls the operators'
	// notifyCheckpointComplete): a transactional sink commits now.
	ConfirmCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, timestamp int64) error
	// AbortCheckpoint tells a task that checkpoint checkpointID will not
	// complete (Flink's abortCheckpoint): the task drops what it holds for
	// it.
	AbortCheckpoint(ctx context.Context, attemptID api.ExecutionAttemptID, checkpointID, latestCompletedCheckpointID, timestamp int64) error

	// HeartbeatFromJobManager is a JobMaster's heartbeat request: it
	// restarts the JobMaster's heartbeat timeout at the TaskExecutor, which
	// answers with JobMasterHeartbeatGateway.HeartbeatFromTaskManager.
	// resourceID is the JobMaster's.
	HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID, payload AllocatedSlotReport) error
	// HeartbeatFromResourceManager is the ResourceManager's heartbeat
	// request; the TaskExecutor answers with
	// ResourceManagerGateway.HeartbeatFromTaskManager.
	HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error
}

// Errors the TaskExecutor's gateway methods answer with, named after
// Flink's exceptions (org.apache.flink.runtime.taskexecutor.exceptions).
// Each is wrapped with Flink's message; test with errors.Is. They may
// cross processes (errors.go).
var (
	// ErrTaskSubmission: SubmitTask refused the task (Flink's
	// TaskSubmissionException).
	ErrTaskSubmission = errors.New("TaskSubmissionException")
	// ErrTaskManager: the TaskExecutor cannot serve the request, e.g. a
	// RequestSlot from a ResourceManager it is not connected to (Flink's
	// TaskManagerException).
	ErrTaskManager = errors.New("TaskManagerException")
	// ErrTask: a request about a task failed, e.g. CancelTask of an
	// unknown attempt (Flink's TaskException).
	ErrTask = errors.New("TaskException")
	// ErrNoDataAddress: SubmitTask refused a task that would read a
	// partition produced on another TaskManager without knowing where
	// that TaskManager serves it (a TaskManager in a process of its own;
	// see package entrypoint).
	ErrNoDataAddress = errors.New("the partition is produced on another TaskManager, and its shuffle descriptor names no data address " +
		"(the producer's TaskManagerLocation.DataAddress, which the JobMaster copies into the descriptors it deploys)")
)

// Errors of the TaskExecutor's TaskSlotTable that RequestSlot and
// SubmitTask answer with. Each is wrapped with Flink's message; test with
// errors.Is. They may cross processes (errors.go).
var (
	// ErrSlotAllocation: the slot cannot be allocated (Flink's
	// SlotAllocationException).
	ErrSlotAllocation = errors.New("SlotAllocationException")
	// ErrSlotOccupied: the slot is allocated to another job or allocation
	// (Flink's SlotOccupiedException).
	ErrSlotOccupied = errors.New("SlotOccupiedException")
	// ErrSlotNotFound: no slot holds the allocation (Flink's
	// SlotNotFoundException).
	ErrSlotNotFound = errors.New("SlotNotFoundException")
	// ErrSlotNotActive: a task was added to a slot that is not ACTIVE for
	// its job (Flink's SlotNotActiveException).
	ErrSlotNotActive = errors.New("SlotNotActiveException")
)

// TaskDeploymentDescriptor is everything a TaskExecutor needs to run one
// attempt of one subtask (Flink's TaskDeploymentDescriptor).
type TaskDeploymentDescriptor struct {
	JobID              api.JobID              `json:"jobId"`
	JobName            string                 `json:"jobName"`
	ExecutionAttemptID api.ExecutionAttemptID `json:"executionAttemptId"`
	AllocationID       api.AllocationID       `json:"allocationId"`
	TaskInfo           TaskInformation        `json:"taskInformation"`
	// UserJarBlobKeys name the job's jars on the BlobServer; the
	// TaskExecutor fetches them through its BlobCache (step m10).
	UserJarBlobKeys    []blob.PermanentBlobKey               `json:"userJarBlobKeys"`
	ProducedPartitions []ResultPartitionDeploymentDescriptor `json:"producedPartitions"`
	InputGates         []InputGateDeploymentDescriptor       `json:"inputGates"`
	// TaskRestore is the state the task starts from: its share of the
	// checkpoint the job restores after a failover, or of a savepoint.
	// Nil starts the task empty.
	TaskRestore *checkpoint.JobManagerTaskRestore `json:"taskRestore,omitempty"`
}

// SubtaskIndex returns the index of the subtask this attempt runs.
func (tdd TaskDeploymentDescriptor) SubtaskIndex() int {
	return tdd.ExecutionAttemptID.ExecutionVertexID.SubtaskIndex
}

// AttemptNumber returns the attempt number (0 for the first attempt).
func (tdd TaskDeploymentDescriptor) AttemptNumber() int {
	return tdd.ExecutionAttemptID.AttemptNumber
}

// TaskInformation describes the JobVertex the task belongs to.
type TaskInformation struct {
	JobVertexID         api.JobVertexID   `json:"jobVertexId"`
	TaskName            string            `json:"taskName"`
	NumberOfSubtasks    int               `json:"numberOfSubtasks"`
	MaxNumberOfSubtasks int               `json:"maxNumberOfSubtasks"`
	InvokableClassName  string            `json:"invokableClassName"`
	TaskConfiguration   map[string]string `json:"taskConfiguration"`
}

// ResultPartitionDeploymentDescriptor describes one partition the task
// writes: one subpartition per consumer channel (Flink's
// ResultPartitionDeploymentDescriptor).
type ResultPartitionDeploymentDescriptor struct {
	PartitionID           api.ResultPartitionID `json:"partitionId"`
	NumberOfSubpartitions int                   `json:"numberOfSubpartitions"`
	// PartitionType says how the partition is produced and consumed: the
	// zero value, jobgraph.PipelinedBounded, streams it to its consumers
	// while it is written; jobgraph.Blocking writes it completely to disk
	// first, and it may be read any number of times until the JobMaster
	// releases it (ReleasePartitions). It is the type of the
	// IntermediateDataSet the partition belongs to.
	PartitionType jobgraph.ResultPartitionType `json:"partitionType"`
}

// InputGateDeploymentDescriptor describes one input of the task: which
// subpartition it reads from each partition of the consumed data set.
type InputGateDeploymentDescriptor struct {
	ConsumedResultID          api.IntermediateDataSetID `json:"consumedResultId"`
	ConsumedSubpartitionIndex int                       `json:"consumedSubpartitionIndex"`
	ShuffleDescriptors        []ShuffleDescriptor       `json:"shuffleDescriptors"`
}

// ShuffleDescriptor says where a consumed partition is produced (Flink's
// NettyShuffleDescriptor).
type ShuffleDescriptor struct {
	ResultPartitionID api.ResultPartitionID `json:"resultPartitionId"`
	ProducerLocation  api.ResourceID        `json:"producerLocation"`
	// DataAddress is the host:port of the PartitionRequestServer of the
	// producer's TaskExecutor (its TaskManagerLocation.DataAddress), which
	// a consumer in another process connects to (Flink: the descriptor's
	// ConnectionID). Empty means the partition is read in-process, as
	// every partition is in the embedded cluster.
	DataAddress string `json:"dataAddress,omitempty"`
}
