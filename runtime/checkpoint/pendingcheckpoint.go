package checkpoint

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// TaskAcknowledgeResult is what PendingCheckpoint.AcknowledgeTask made of
// an acknowledgement (Flink's PendingCheckpoint.TaskAcknowledgeResult).
type TaskAcknowledgeResult int

const (
	// TaskAcknowledgeSuccess: the task's state is now part of the checkpoint.
	TaskAcknowledgeSuccess TaskAcknowledgeResult = iota
	// TaskAcknowledgeDuplicate: the task had acknowledged already.
	TaskAcknowledgeDuplicate
	// TaskAcknowledgeUnknown: the task takes no part in the checkpoint
	// (an older attempt, for instance).
	TaskAcknowledgeUnknown
	// TaskAcknowledgeDiscarded: the checkpoint was aborted already.
	TaskAcknowledgeDiscarded
)

func (r TaskAcknowledgeResult) String() string {
	return [...]string{"SUCCESS", "DUPLICATE", "UNKNOWN", "DISCARDED"}[r]
}

// PendingCheckpoint is a checkpoint that was triggered and waits for its
// tasks' acknowledgements (Flink's PendingCheckpoint). Each
// acknowledgement adds the task's state, operator by operator; once every
// task of the plan acknowledged, the coordinator finalizes it into a
// CompletedCheckpoint. Aborting it deletes the state it collected and its
// directory.
//
//	triggered ──AcknowledgeTask──► … ──last ack──► finalizeCheckpoint ──► disposed (state kept, now the CompletedCheckpoint's)
//	     └──────── abort (expired, declined, subsumed, …) ──────────────► disposed (state deleted)
type PendingCheckpoint struct {
	jobID               api.JobID
	checkpointID        int64
	checkpointTimestamp int64
	plan                CheckpointPlan
	props               CheckpointProperties

	notYetAcknowledgedTasks map[api.ExecutionAttemptID]TaskToCheckpoint
	acknowledgedTasks       map[api.ExecutionAttemptID]bool
	operatorStates          map[api.OperatorID]*OperatorState
	targetLocation          state.CheckpointStorageLocation

	cancellerHandle func() // cancels the timeout canceller
	disposed        bool
	failureCause    *CheckpointException
	onCompletion    func(*CompletedCheckpoint, error) // the trigger request's caller; nil for periodic checkpoints
	stats           *checkpointStats
}

func newPendingCheckpoint(jobID api.JobID, checkpointID, timestamp int64, plan CheckpointPlan, props CheckpointProperties,
	onCompletion func(*CompletedCheckpoint, error), stats *checkpointStats) *PendingCheckpoint {
	p := &PendingCheckpoint{
		jobID: jobID, checkpointID: checkpointID, checkpointTimestamp: timestamp, plan: plan, props: props,
		notYetAcknowledgedTasks: make(map[api.ExecutionAttemptID]TaskToCheckpoint, len(plan.TasksToWaitFor)),
		acknowledgedTasks:       make(map[api.ExecutionAttemptID]bool, len(plan.TasksToWaitFor)),
		operatorStates:          make(map[api.OperatorID]*OperatorState),
		onCompletion:            onCompletion,
		stats:                   stats,
	}
	for _, t := range plan.TasksToWaitFor {
		p.notYetAcknowledgedTasks[t.AttemptID] = t
	}
	return p
}

// CheckpointID returns the checkpoint's ID.
func (p *PendingCheckpoint) CheckpointID() int64 { return p.checkpointID }

// CheckpointTimestamp returns when the checkpoint was triggered, in ms.
func (p *PendingCheckpoint) CheckpointTimestamp() int64 { return p.checkpointTimestamp }

// Props returns the checkpoint's properties.
func (p *PendingCheckpoint) Props() CheckpointProperties { return p.props }

// IsDisposed reports whether the checkpoint was finalized or aborted.
func (p *PendingCheckpoint) IsDisposed() bool { return p.disposed }

// IsFullyAcknowledged reports whether every task acknowledged.
func (p *PendingCheckpoint) IsFullyAcknowledged() bool {
	return len(p.notYetAcknowledgedTasks) == 0 && !p.disposed
}

// IsAcknowledgedBy reports whether the task acknowledged.
func (p *PendingCheckpoint) IsAcknowledgedBy(attemptID api.ExecutionAttemptID) bool {
	return p.acknowledgedTasks[attemptID]
}

// NumberOfAcknowledgedTasks returns how many tasks acknowledged.
func (p *PendingCheckpoint) NumberOfAcknowledgedTasks() int { return len(p.acknowledgedTasks) }

// NumberOfNonAcknowledgedTasks returns how many tasks have yet to.
func (p *PendingCheckpoint) NumberOfNonAcknowledgedTasks() int { return len(p.notYetAcknowledgedTasks) }

// CanBeSubsumed reports whether a newer completed checkpoint may abort
// this one: savepoints must complete.
func (p *PendingCheckpoint) CanBeSubsumed() bool { return !p.props.IsSavepoint() }

// String prints the checkpoint as Flink's toString does.
func (p *PendingCheckpoint) String() string {
	return fmt.Sprintf("Pending Checkpoint %d @ %d - confirmed=%d, pending=%d",
		p.checkpointID, p.checkpointTimestamp, p.NumberOfAcknowledgedTasks(), p.NumberOfNonAcknowledgedTasks())
}

// AcknowledgeTask adds a task's acknowledgement, received at ackTimestamp
// (ms): the state of each operator of its chain goes into that operator's
// OperatorState, at the task's subtask index.
func (p *PendingCheckpoint) AcknowledgeTask(attemptID api.ExecutionAttemptID, snapshot *TaskStateSnapshot,
	metrics CheckpointMetrics, ackTimestamp int64) TaskAcknowledgeResult {
	if p.disposed {
		return TaskAcknowledgeDiscarded
	}
	task, ok := p.notYetAcknowledgedTasks[attemptID]
	if !ok {
		if p.acknowledgedTasks[attemptID] {
			return TaskAcknowledgeDuplicate
		}
		return TaskAcknowledgeUnknown
	}
	delete(p.notYetAcknowledgedTasks, attemptID)
	p.acknowledgedTasks[attemptID] = true

	// Step k5: the task's state joins the checkpoint: every operator of
	// its chain has an OperatorState, which holds the task's share at its
	// subtask index.
	subtaskIndex := attemptID.ExecutionVertexID.SubtaskIndex
	for _, operatorID := range operatorsOf(task, snapshot) {
		operatorState, ok := p.operatorStates[operatorID]
		if !ok {
			operatorState = NewOperatorState(operatorID, task.Parallelism, task.MaxParallelism)
			p.operatorStates[operatorID] = operatorState
		}
		if snapshot != nil {
			if subtaskState, ok := snapshot.SubtaskStateMappings[operatorID]; ok {
				operatorState.PutState(subtaskIndex, subtaskState)
			}
		}
	}
	p.stats.reportSubtaskStats(task.JobVertexID, ackTimestamp, snapshot.StateSize(), metrics)
	return TaskAcknowledgeSuccess
}

// operatorsOf returns the operators of the task's chain; those of its
// snapshot when the plan does not name them.
func operatorsOf(task TaskToCheckpoint, snapshot *TaskStateSnapshot) []api.OperatorID {
	if len(task.OperatorIDs) > 0 || snapshot == nil {
		return task.OperatorIDs
	}
	ids := make([]api.OperatorID, 0, len(snapshot.SubtaskStateMappings))
	for id := range snapshot.SubtaskStateMappings {
		ids = append(ids, id)
	}
	return ids
}

// taskToWaitFor returns the plan's task of the attempt, if any.
func (p *PendingCheckpoint) taskToWaitFor(attemptID api.ExecutionAttemptID) (TaskToCheckpoint, bool) {
	for _, t := range p.plan.TasksToWaitFor {
		if t.AttemptID == attemptID {
			return t, true
		}
	}
	return TaskToCheckpoint{}, false
}

// setCancellerHandle keeps the handle of the timeout canceller; false if
// the checkpoint is already disposed, and the caller must cancel it.
func (p *PendingCheckpoint) setCancellerHandle(cancel func()) bool {
	if p.disposed {
		return false
	}
	p.cancellerHandle = cancel
	return true
}

// finalizeCheckpoint writes the checkpoint's _metadata and turns it into a
// CompletedCheckpoint, completed once the _metadata is written, at
// nowMillis() (ms): so the log's checkpointDuration includes the write.
// The pending checkpoint is disposed, its state now the completed one's
// (Flink: PendingCheckpoint#finalizeCheckpoint).
func (p *PendingCheckpoint) finalizeCheckpoint(nowMillis func() int64) (*CompletedCheckpoint, error) {
	metadata := newCheckpointMetadata(p.jobID, p.checkpointID, p.props.CheckpointType, p.checkpointTimestamp, p.operatorStates)
	data, err := StoreCheckpointMetadata(metadata)
	if err != nil {
		return nil, err
	}
	externalPointer, err := p.targetLocation.WriteMetadata(data)
	if err != nil {
		return nil, err
	}
	completed := &CompletedCheckpoint{
		JobID:               p.jobID,
		CheckpointID:        p.checkpointID,
		Timestamp:           p.checkpointTimestamp,
		CompletionTimestamp: nowMillis(),
		Type:                p.props.CheckpointType,
		Properties:          p.props,
		OperatorStates:      p.operatorStates,
		ExternalPointer:     externalPointer,
		StateSize:           operatorStatesSize(p.operatorStates),
	}
	p.dispose(false)
	return completed, nil
}

// abort disposes the checkpoint and deletes what it collected, and tells
// the trigger request's caller why (Flink: PendingCheckpoint#abort).
func (p *PendingCheckpoint) abort(exception *CheckpointException) {
	p.failureCause = exception
	p.complete(nil, exception)
	p.dispose(true)
}

// complete hands the trigger request's caller the outcome, once.
func (p *PendingCheckpoint) complete(completed *CompletedCheckpoint, err error) {
	if p.onCompletion != nil {
		done := p.onCompletion
		p.onCompletion = nil
		done(completed, err)
	}
}

// dispose marks the checkpoint done and stops its timeout canceller; with
// releaseState it also deletes the state the tasks wrote and the
// checkpoint's directory.
func (p *PendingCheckpoint) dispose(releaseState bool) {
	if p.disposed {
		return
	}
	p.disposed = true
	if releaseState {
		for _, s := range p.operatorStates {
			s.DiscardState()
		}
		_ = p.targetLocation.DisposeOnFailure()
	}
	clear(p.notYetAcknowledgedTasks)
	if p.cancellerHandle != nil {
		p.cancellerHandle()
	}
}
