package checkpoint

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// stateAssignmentOperation hands each subtask of a restarting job its share
// of a checkpoint's state (Flink's StateAssignmentOperation). At the
// checkpoint's parallelism every subtask gets back what it wrote. At
// another parallelism the state is split anew:
//
//   - keyed state by key group: subtask i of parallelism p owns the key
//     groups ComputeKeyGroupRangeForOperatorIndex(maxParallelism, p, i), and
//     gets that part (Intersection) of every old subtask's
//     KeyGroupsStateHandle. No state is read: the handles' offsets say
//     where each key group lies;
//   - operator state by its distribution mode: SPLIT_DISTRIBUTE lists are
//     cut into p runs of consecutive elements, UNION lists go whole to
//     every subtask (see repartitionOperatorState).
type stateAssignmentOperation struct {
	restoreCheckpointID   int64
	tasks                 []VertexToRestore
	operatorStates        map[api.OperatorID]*OperatorState
	allowNonRestoredState bool
	log                   *slog.Logger
}

// assignStates returns the restore of every subtask that gets state.
func (s *stateAssignmentOperation) assignStates() (map[api.ExecutionVertexID]*JobManagerTaskRestore, error) {
	if err := s.checkStateMappingCompleteness(); err != nil {
		return nil, err
	}
	restores := make(map[api.ExecutionVertexID]*JobManagerTaskRestore)
	for _, vertex := range s.tasks {
		if err := s.assignVertex(vertex, restores); err != nil {
			return nil, err
		}
	}
	return restores, nil
}

// assignVertex splits the state of the vertex's operators among its
// subtasks.
func (s *stateAssignmentOperation) assignVertex(vertex VertexToRestore, restores map[api.ExecutionVertexID]*JobManagerTaskRestore) error {
	oldStates := make([]*OperatorState, len(vertex.OperatorIDs))
	hasState := false
	for i, id := range vertex.OperatorIDs {
		st, ok := s.operatorStates[id]
		if !ok {
			st = NewOperatorState(id, vertex.Parallelism, vertex.MaxParallelism)
		}
		oldStates[i], hasState = st, hasState || st.HasState()
	}
	if !hasState {
		return nil
	}
	for _, st := range oldStates {
		if err := checkParallelismPreconditions(st, vertex); err != nil {
			return err
		}
	}

	// newStates[op][subtask] is the state of operator op of the new subtask.
	newStates := make([][]OperatorSubtaskState, len(oldStates))
	for i, st := range oldStates {
		newStates[i] = reDistributeState(st, vertex.Parallelism)
	}
	for subtask := range vertex.Parallelism {
		snapshot := TaskStateSnapshot{SubtaskStateMappings: make(map[api.OperatorID]OperatorSubtaskState, len(oldStates))}
		stateless := true
		for i, id := range vertex.OperatorIDs {
			snapshot.SubtaskStateMappings[id] = newStates[i][subtask]
			stateless = stateless && !newStates[i][subtask].HasState()
		}
		if !stateless {
			restores[api.ExecutionVertexID{JobVertexID: vertex.JobVertexID, SubtaskIndex: subtask}] =
				&JobManagerTaskRestore{RestoreCheckpointID: s.restoreCheckpointID, TaskStateSnapshot: snapshot}
		}
	}
	return nil
}

// reDistributeState splits one operator's state among newParallelism
// subtasks.
func reDistributeState(old *OperatorState, newParallelism int) []OperatorSubtaskState {
	previous := make([][]state.OperatorStateHandle, old.Parallelism)
	for i := range previous {
		previous[i] = old.SubtaskStates[i].ManagedOperatorState
	}
	operatorState := repartitionOperatorState(previous, newParallelism)
	keyedState := reDistributeKeyedStates(old, newParallelism)

	result := make([]OperatorSubtaskState, newParallelism)
	for i := range result {
		result[i] = OperatorSubtaskState{ManagedOperatorState: operatorState[i], ManagedKeyedState: keyedState[i]}
	}
	return result
}

// reDistributeKeyedStates returns the keyed state of each of
// newParallelism subtasks, by subtask index: the part of every old
// subtask's KeyGroupsStateHandle that holds key groups the new subtask
// owns (Flink: StateAssignmentOperation#reDistributeKeyedStates, with
// #getManagedKeyedStateHandles and #extractIntersectingState). Subtask i
// owns the key groups ComputeKeyGroupRangeForOperatorIndex(maxParallelism,
// newParallelism, i), the same ones the keyBy exchange sends it; a
// subtask of the checkpoint's own parallelism gets back what it wrote.
// No state is read: each handle knows where its key groups start.
func reDistributeKeyedStates(old *OperatorState, newParallelism int) [][]state.KeyGroupsStateHandle {
	newKeyedStates := make([][]state.KeyGroupsStateHandle, newParallelism)
	for i := range newParallelism {
		if newParallelism == old.Parallelism {
			newKeyedStates[i] = old.SubtaskStates[i].ManagedKeyedState
			continue
		}
		keyGroups := state.ComputeKeyGroupRangeForOperatorIndex(old.MaxParallelism, newParallelism, i)
		for oldIndex := range old.Parallelism {
			for _, h := range old.SubtaskStates[oldIndex].ManagedKeyedState {
				// An old subtask whose key groups all went elsewhere
				// has nothing for this one.
				if part, ok := h.Intersection(keyGroups); ok {
					newKeyedStates[i] = append(newKeyedStates[i], part)
				}
			}
		}
	}
	return newKeyedStates
}

// checkParallelismPreconditions refuses state whose key groups cannot be
// split among the vertex's subtasks: fewer key groups than subtasks, or a
// different number of key groups than the job has now.
func checkParallelismPreconditions(st *OperatorState, vertex VertexToRestore) error {
	if st.MaxParallelism < vertex.Parallelism {
		return fmt.Errorf("The state for task %s can not be restored. The maximum parallelism (%d) of the restored "+
			"state is lower than the configured parallelism (%d). Please reduce the parallelism of the task to be lower "+
			"or equal to the maximum parallelism.", vertex.JobVertexID, st.MaxParallelism, vertex.Parallelism)
	}
	if st.MaxParallelism != vertex.MaxParallelism {
		return fmt.Errorf("The maximum parallelism (%d) with which the latest checkpoint of the execution job vertex "+
			"%s (%s) has been taken and the current maximum parallelism (%d) changed. This is currently not supported.",
			st.MaxParallelism, vertex.Name, vertex.JobVertexID, vertex.MaxParallelism)
	}
	return nil
}

// checkStateMappingCompleteness refuses state of an operator the job does
// not have, unless allowNonRestoredState.
func (s *stateAssignmentOperation) checkStateMappingCompleteness() error {
	known := make(map[api.OperatorID]bool)
	for _, v := range s.tasks {
		for _, id := range v.OperatorIDs {
			known[id] = true
		}
	}
	ids := make([]api.OperatorID, 0, len(s.operatorStates))
	for id := range s.operatorStates {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b api.OperatorID) int { return strings.Compare(a.String(), b.String()) })
	for _, id := range ids {
		if known[id] {
			continue
		}
		if !s.allowNonRestoredState {
			return fmt.Errorf("There is no operator for the state %s", id)
		}
		s.log.Info(fmt.Sprintf("Skipped checkpoint state for operator %s.", id))
	}
	return nil
}
