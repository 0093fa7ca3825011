package tasks

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/fault"
	"flinklab/runtime/network"
	"flinklab/runtime/state"
	"flinklab/runtime/streaming"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

// A StreamTask takes part in checkpoints (Flink's StreamTask implements
// CheckpointableTask). Requests from other goroutines go through the
// task's mailbox; barriers from the inputs arrive on the task's goroutine
// already (see checkpointBarrierHandler).
var _ taskmanager.CheckpointableTask = (*StreamTask)(nil)

// TriggerCheckpointAsync asks a source task to take a checkpoint: the
// source runs it between two records (Flink's
// StreamTask#triggerCheckpointAsync).
func (t *StreamTask) TriggerCheckpointAsync(checkpointID, timestamp int64, options checkpoint.CheckpointOptions) bool {
	if t.chain == nil {
		return false
	}
	return t.chain.mailbox.put(func() error {
		return t.performCheckpoint(checkpointID, timestamp, options, checkpoint.CheckpointMetrics{})
	})
}

// NotifyCheckpointCompleteAsync tells the task's operators, on the task's
// goroutine, that a checkpoint completed.
func (t *StreamTask) NotifyCheckpointCompleteAsync(checkpointID int64) {
	if t.chain == nil {
		return
	}
	t.chain.mailbox.put(func() error {
		// Step k7: the task hears that the checkpoint completed; a
		// transactional sink commits what it wrote before the barrier.
		t.logger.Debug(fmt.Sprintf("Notify checkpoint %d complete on task %s.", checkpointID, t.taskNameWithSubtask()))
		for i, op := range t.chain.operators {
			if listener, ok := op.(checkpointListener); ok {
				if err := listener.notifyCheckpointComplete(checkpointID); err != nil {
					return fmt.Errorf("%v: notifyCheckpointComplete(%d): %w", t.chain.nodes[i], checkpointID, err)
				}
			}
		}
		return nil
	})
}

// NotifyCheckpointAbortAsync tells the task's operators that a checkpoint
// will not complete.
func (t *StreamTask) NotifyCheckpointAbortAsync(checkpointID, latestCompletedCheckpointID int64) {
	if t.chain == nil {
		return
	}
	t.chain.mailbox.put(func() error {
		for i, op := range t.chain.operators {
			if listener, ok := op.(checkpointListener); ok {
				if err := listener.notifyCheckpointAborted(checkpointID); err != nil {
					return fmt.Errorf("%v: notifyCheckpointAborted(%d): %w", t.chain.nodes[i], checkpointID, err)
				}
			}
		}
		return nil
	})
}

// performCheckpoint takes the task's part of a checkpoint, on the task's
// goroutine, between two records (Flink: StreamTask#performCheckpoint and
// SubtaskCheckpointCoordinatorImpl#checkpointState):
//
//  1. the barrier goes out on every output first, so that the tasks
//     downstream can start aligning while this one snapshots;
//  2. each operator copies its state (the synchronous part);
//  3. a goroutine of the task writes the copies to the checkpoint's
//     storage and acknowledges the checkpoint with their handles (the
//     asynchronous part, Flink's AsyncCheckpointRunnable), while the task
//     goes on with its records.
func (t *StreamTask) performCheckpoint(checkpointID, timestamp int64, options checkpoint.CheckpointOptions, metrics checkpoint.CheckpointMetrics) error {
	barrier := network.CheckpointBarrier{ID: checkpointID, Timestamp: timestamp, Options: options}
	for _, w := range t.chain.writers {
		if err := w.partition.BroadcastEvent(t.chain.ctx, barrier); err != nil {
			return err
		}
	}
	if t.chain.source != nil {
		// Step k3: the source's barrier is on its way, behind every
		// record the source emitted before it.
		t.env.Trace.Emit(trace.K3, t.taskNameWithSubtask(), "downstream", t.env.JobID,
			"%s sent checkpoint barrier %d to %d outputs.", t.taskNameWithSubtask(), checkpointID, len(t.chain.writers))
	}

	started := time.Now()
	snapshots := make(map[api.OperatorID]operatorSnapshot)
	for i, op := range t.chain.operators {
		checkpointed, ok := op.(checkpointedOperator)
		if !ok {
			continue
		}
		snapshot, err := checkpointed.snapshotState(checkpointID)
		if err != nil {
			t.logger.Warn(fmt.Sprintf("Could not perform checkpoint %d for operator %v.", checkpointID, t.chain.nodes[i]), "cause", err.Error())
			t.decline(checkpointID, checkpoint.NewCheckpointException(checkpoint.TaskCheckpointFailure, err))
			return nil
		}
		snapshots[t.operatorIDs[i]] = snapshot
	}
	metrics.SyncDurationMillis = time.Since(started).Milliseconds()

	t.asyncCheckpoints.Go(func() { t.finishCheckpoint(checkpointID, options.TargetLocation, snapshots, metrics) })
	return nil
}

// finishCheckpoint is the asynchronous part: it writes the snapshots and
// acknowledges the checkpoint, or declines it if a write fails.
func (t *StreamTask) finishCheckpoint(checkpointID int64, location state.CheckpointStorageLocation,
	snapshots map[api.OperatorID]operatorSnapshot, metrics checkpoint.CheckpointMetrics) {
	started := time.Now()
	taskState := &checkpoint.TaskStateSnapshot{SubtaskStateMappings: make(map[api.OperatorID]checkpoint.OperatorSubtaskState, len(snapshots))}
	if err := t.injectedStorageWriteFailure(location, snapshots); err != nil {
		// Step k5 (fault): storage-write-fails: the state cannot be
		// written to the checkpoint's directory; the task declines, as
		// for a real I/O error.
		t.asyncCheckpointFailed(checkpointID, err)
		return
	}
	for id, snapshot := range snapshots {
		subtaskState, err := writeSnapshot(location, snapshot)
		if err != nil {
			taskState.DiscardState()
			t.asyncCheckpointFailed(checkpointID, err)
			return
		}
		taskState.SubtaskStateMappings[id] = subtaskState
	}
	metrics.AsyncDurationMillis = time.Since(started).Milliseconds()
	if t.env.CheckpointResponder == nil {
		return
	}
	// Step k5: the task acknowledges the checkpoint with the handles of
	// its state (the coordinator records the step when the answer
	// arrives).
	t.env.CheckpointResponder.AcknowledgeCheckpoint(checkpoint.AcknowledgeCheckpoint{
		JobID:           t.env.JobID,
		TaskExecutionID: t.env.AttemptID,
		CheckpointID:    checkpointID,
		Metrics:         metrics,
		SubtaskState:    taskState,
	})
}

// asyncCheckpointFailed ends an asynchronous part that could not write the
// task's state, as Flink's AsyncCheckpointRunnable does: it logs the
// failure and declines the checkpoint with CHECKPOINT_ASYNC_EXCEPTION,
// which the CheckpointFailureManager counts against
// execution.checkpointing.tolerable-failed-checkpoints.
func (t *StreamTask) asyncCheckpointFailed(checkpointID int64, err error) {
	name := t.taskNameWithSubtask()
	t.logger.With("logger", "AsyncCheckpointRunnable").Info(
		fmt.Sprintf("%s - asynchronous part of checkpoint %d could not be completed.", name, checkpointID), "cause", err.Error())
	materialize := fmt.Errorf("Could not materialize checkpoint %d for operator %s. Caused by: %w", checkpointID, name, err)
	t.decline(checkpointID, checkpoint.NewCheckpointException(checkpoint.CheckpointAsyncException, materialize))
}

// injectedStorageWriteFailure is step k5's fault storage-write-fails: the
// file system of state.checkpoints.dir refuses the task's state (full,
// read-only, its permissions or quota changed), and the error is the one
// Flink's FsCheckpointStateOutputStream throws then. It is asked only of a
// task that has state to write into a checkpoint's directory; with
// JobManagerCheckpointStorage the state travels in the acknowledgement,
// nothing is written, and the fault stays armed.
func (t *StreamTask) injectedStorageWriteFailure(location state.CheckpointStorageLocation, snapshots map[api.OperatorID]operatorSnapshot) error {
	if location.Directory == "" || len(snapshots) == 0 ||
		!t.env.Faults.FireKind(trace.K5, t.env.JobID, fault.StorageWriteFails) {
		return nil
	}
	var name [16]byte
	_, _ = rand.Read(name[:])
	return fmt.Errorf("Could not flush to file and close the file system output stream to %s in order to obtain the stream state handle: %w",
		filepath.Join(location.Directory, hex.EncodeToString(name[:])), fault.Injected(trace.K5, fault.StorageWriteFails))
}

// writeSnapshot writes one operator's snapshot to the checkpoint's storage
// and returns its handles.
func writeSnapshot(location state.CheckpointStorageLocation, snapshot operatorSnapshot) (checkpoint.OperatorSubtaskState, error) {
	var written checkpoint.OperatorSubtaskState
	if k := snapshot.keyed; k != nil {
		handle, err := location.WriteState(k.data)
		if err != nil {
			return written, err
		}
		written.ManagedKeyedState = []state.KeyGroupsStateHandle{{
			KeyGroupRange: k.keyGroupRange, Offsets: k.offsets, Delegate: handle, End: int64(len(k.data)),
		}}
	}
	if len(snapshot.lists) > 0 {
		var data []byte
		infos := make(map[string]state.StateMetaInfo, len(snapshot.lists))
		for name, list := range snapshot.lists {
			info := state.StateMetaInfo{DistributionMode: list.mode}
			for _, element := range list.elements {
				var offset int64
				data, offset = state.AppendElement(data, element)
				info.Offsets = append(info.Offsets, offset)
			}
			infos[name] = info
		}
		handle, err := location.WriteState(data)
		if err != nil {
			for _, h := range written.ManagedKeyedState {
				_ = h.DiscardState()
			}
			return written, err
		}
		written.ManagedOperatorState = []state.OperatorStateHandle{{StateNameToPartitionOffsets: infos, Delegate: handle}}
	}
	return written, nil
}

// decline tells the coordinator that the task cannot take the checkpoint.
func (t *StreamTask) decline(checkpointID int64, cause *checkpoint.CheckpointException) {
	if t.env.CheckpointResponder == nil {
		return
	}
	t.env.CheckpointResponder.DeclineCheckpoint(checkpoint.DeclineCheckpoint{
		JobID:           t.env.JobID,
		TaskExecutionID: t.env.AttemptID,
		CheckpointID:    checkpointID,
		Reason:          cause.Reason.Name,
		Message:         cause.Error(),
	})
}

// initializeState hands each operator its share of the checkpoint the
// task is deployed from, before the operators open (Flink:
// StreamTask#restoreStateAndGates → initializeStateAndOpenOperators).
func (t *StreamTask) initializeState() error {
	t.operatorIDs = make([]api.OperatorID, len(t.chain.nodes))
	for i, node := range t.chain.nodes {
		t.operatorIDs[i] = streaming.OperatorIDOf(node)
	}
	restore := t.env.TaskRestore
	if restore == nil {
		return nil
	}
	for i, op := range t.chain.operators {
		checkpointed, ok := op.(checkpointedOperator)
		if !ok {
			continue
		}
		subtaskState := restore.TaskStateSnapshot.SubtaskStateMappings[t.operatorIDs[i]]
		if err := checkpointed.initializeState(restore.RestoreCheckpointID, subtaskState); err != nil {
			return fmt.Errorf("%v: restoring checkpoint %d: %w", t.chain.nodes[i], restore.RestoreCheckpointID, err)
		}
	}
	t.logger.Debug(fmt.Sprintf("Restored %s from checkpoint %d.", t.taskNameWithSubtask(), restore.RestoreCheckpointID))
	return nil
}

// taskNameWithSubtask names the task as Flink's logs do: "Map (2/4)#0".
func (t *StreamTask) taskNameWithSubtask() string {
	return fmt.Sprintf("%s (%d/%d)#%d", t.env.TaskInfo.TaskName, t.env.SubtaskIndex+1, t.env.TaskInfo.NumberOfSubtasks, t.env.AttemptNumber)
}

// stopCheckpointing ends the task's part in checkpoints: no more mails,
// and the snapshots being written are done before the task ends.
func (t *StreamTask) stopCheckpointing() {
	t.chain.mailbox.close()
	t.asyncCheckpoints.Wait()
}
