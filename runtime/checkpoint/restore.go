package checkpoint

import (
	"errors"
	"fmt"

	"flinklab/runtime/api"
)

// VertexToRestore is one ExecutionJobVertex of the job that restores a
// checkpoint, at the parallelism it runs with now, which may differ from
// the checkpoint's.
type VertexToRestore struct {
	JobVertexID    api.JobVertexID
	Name           string
	Parallelism    int
	MaxParallelism int
	// OperatorIDs are the operators of the vertex's chain, head first.
	OperatorIDs []api.OperatorID
}

// RestoreLatestCheckpointedStateToSubtasks hands each subtask of vertices
// its share of the latest completed checkpoint, for a restart after a
// failure (Flink: restoreLatestCheckpointedStateToSubtasks). ok is false
// when there is no checkpoint: the subtasks start empty. Only subtasks
// with state get a JobManagerTaskRestore.
//
// As in Flink, state of operators that are not among vertices is allowed
// (a regional failover restores only some vertices). It is an error when a
// vertex's max parallelism differs from the checkpoint's, or is lower than
// its parallelism.
func (c *CheckpointCoordinator) RestoreLatestCheckpointedStateToSubtasks(vertices []VertexToRestore) (
	restores map[api.ExecutionVertexID]*JobManagerTaskRestore, ok bool, err error) {
	return c.restoreLatestCheckpointedStateInternal(vertices, false, true)
}

// RestoreLatestCheckpointedStateToAll is
// RestoreLatestCheckpointedStateToSubtasks for a global restore: unless
// allowNonRestoredState, state of an operator that is not among vertices
// is an error (Flink: restoreLatestCheckpointedStateToAll).
func (c *CheckpointCoordinator) RestoreLatestCheckpointedStateToAll(vertices []VertexToRestore, allowNonRestoredState bool) (
	restores map[api.ExecutionVertexID]*JobManagerTaskRestore, ok bool, err error) {
	return c.restoreLatestCheckpointedStateInternal(vertices, false, allowNonRestoredState)
}

// RestoreSavepoint starts the job from a savepoint or a retained
// checkpoint (Flink: restoreSavepoint): it reads path's _metadata (path
// is the snapshot's directory or its _metadata file), checks that its
// state fits the job, adds it to the store as the latest checkpoint, sets
// the next checkpoint ID past its ID, and restores it like
// RestoreLatestCheckpointedStateToSubtasks. The job does not own the
// snapshot: it is never deleted (RecoveryClaimMode NO_CLAIM).
func (c *CheckpointCoordinator) RestoreSavepoint(path string, allowNonRestoredState bool, vertices []VertexToRestore) (
	map[api.ExecutionVertexID]*JobManagerTaskRestore, error) {
	allowing := ""
	if allowNonRestoredState {
		allowing = "allowing non restored state"
	}
	c.log.Info(fmt.Sprintf("Starting job %s from savepoint %s (%s)", c.job, path, allowing))

	savepoint, err := c.loadAndValidateCheckpoint(path, vertices, allowNonRestoredState)
	if err != nil {
		return nil, err
	}
	subsumed, err := c.store.AddCheckpointAndSubsumeOldestOne(savepoint)
	if err != nil {
		return nil, err
	}
	for _, s := range subsumed {
		if s.Properties.DiscardSubsumed {
			c.discardCompletedCheckpoint(s)
		}
	}
	nextCheckpointID := savepoint.CheckpointID + 1
	if err := c.checkpointIDCounter.SetCount(nextCheckpointID); err != nil {
		return nil, err
	}
	c.log.Info(fmt.Sprintf("Reset the checkpoint ID of job %s to %d.", c.job, nextCheckpointID))

	restores, _, err := c.restoreLatestCheckpointedStateInternal(vertices, true, allowNonRestoredState)
	return restores, err
}

// restoreLatestCheckpointedStateInternal restores the latest checkpoint
// to vertices.
func (c *CheckpointCoordinator) restoreLatestCheckpointedStateInternal(vertices []VertexToRestore, errorIfNoCheckpoint,
	allowNonRestoredState bool) (map[api.ExecutionVertexID]*JobManagerTaskRestore, bool, error) {
	if c.shutdown {
		return nil, false, errors.New("CheckpointCoordinator is shut down")
	}
	latest := c.store.GetLatestCheckpoint()
	if latest == nil {
		c.log.Info("No checkpoint found during restore.")
		if errorIfNoCheckpoint {
			return nil, false, errors.New("No completed checkpoint available")
		}
		return nil, false, nil
	}
	c.log.Info(fmt.Sprintf("Restoring job %s from %s.", c.job, latest))

	assignment := &stateAssignmentOperation{restoreCheckpointID: latest.CheckpointID, tasks: vertices,
		operatorStates: latest.OperatorStates, allowNonRestoredState: allowNonRestoredState, log: c.restoreLog}
	restores, err := assignment.assignStates()
	if err != nil {
		return nil, false, err
	}
	c.statsTracker.reportRestoredCheckpoint(latest, c.nowMillis())
	return restores, true, nil
}

// loadAndValidateCheckpoint reads a snapshot's _metadata and keeps the
// state of the operators the job has (Flink: Checkpoints#loadAndValidateCheckpoint).
// The state of an operator the job lacks is an error, unless
// allowNonRestoredState or the operator had no state.
func (c *CheckpointCoordinator) loadAndValidateCheckpoint(path string, vertices []VertexToRestore,
	allowNonRestoredState bool) (*CompletedCheckpoint, error) {
	metadata, err := LoadCheckpointMetadata(path)
	if err != nil {
		return nil, err
	}
	_, checkpointDir, _ := resolveCheckpointPointer(path)

	vertexOf := make(map[api.OperatorID]VertexToRestore)
	for _, v := range vertices {
		for _, id := range v.OperatorIDs {
			vertexOf[id] = v
		}
	}
	operatorStates := make(map[api.OperatorID]*OperatorState)
	for _, s := range metadata.OperatorStates {
		vertex, ok := vertexOf[s.OperatorID]
		switch {
		case ok && vertex.MaxParallelism == s.MaxParallelism:
			operatorStates[s.OperatorID] = s
		case ok:
			return nil, fmt.Errorf("Failed to rollback to checkpoint/savepoint %s. Max parallelism mismatch between "+
				"checkpoint/savepoint state and new program. Cannot map operator %s with max parallelism %d to new "+
				"program with max parallelism %d. This indicates that the program has been changed in a non-compatible "+
				"way after the checkpoint/savepoint.", path, s.OperatorID, s.MaxParallelism, vertex.MaxParallelism)
		case allowNonRestoredState:
			c.checkpointLog.Info(fmt.Sprintf("Skipping savepoint state for operator %s.", s.OperatorID))
		case s.HasState():
			return nil, fmt.Errorf("Failed to rollback to checkpoint/savepoint %s. Cannot map checkpoint/savepoint "+
				"state for operator %s to the new program, because the operator is not available in the new program. "+
				"If you want to allow to skip this, you can set the --allowNonRestoredState option on the CLI.",
				path, s.OperatorID)
		default:
			c.checkpointLog.Info(fmt.Sprintf("Skipping empty savepoint state for operator %s.", s.OperatorID))
		}
	}
	props := PropertiesForUnclaimedSnapshot()
	return &CompletedCheckpoint{
		JobID: c.job, CheckpointID: metadata.CheckpointID, Type: props.CheckpointType, Properties: props,
		OperatorStates: operatorStates, ExternalPointer: checkpointDir, StateSize: operatorStatesSize(operatorStates),
	}, nil
}
