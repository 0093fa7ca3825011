package checkpoint

import (
	"maps"
	"slices"

	"flinklab/runtime/state"
)

// repartitionOperatorState splits the operator state of an operator's old
// subtasks (previous[i] are the handles of old subtask i) among
// newParallelism subtasks (Flink's RoundRobinOperatorStateRepartitioner):
//
//   - each SPLIT_DISTRIBUTE list (getListState) is cut into runs of
//     consecutive elements, ⌈n/p⌉ or ⌊n/p⌋ long, one per new subtask; the
//     subtask that gets the first run of a list moves on by one per list,
//     so that the longer runs do not all land on subtask 0;
//   - each UNION list (getUnionListState) goes whole, the elements of every
//     old subtask, to every new subtask.
//
// At the same parallelism, every subtask keeps its own handles, plus the
// UNION lists of the others. No state is read: a new handle shares the
// old one's bytes and names a part of its offsets.
func repartitionOperatorState(previous [][]state.OperatorStateHandle, newParallelism int) [][]state.OperatorStateHandle {
	split, union := groupByStateMode(previous)
	if newParallelism == len(previous) {
		if len(union) == 0 {
			return previous
		}
		merged := initMergeMapList(previous)
		repartitionUnionState(union, merged)
		return handlesOf(merged)
	}
	merged := make([]*mergeMap, newParallelism)
	for i := range merged {
		merged[i] = &mergeMap{previous: previous}
	}
	repartitionSplitState(split, merged)
	repartitionUnionState(union, merged)
	return handlesOf(merged)
}

// handleRef names an old handle: handle index of old subtask subtask.
type handleRef struct{ subtask, index int }

// partitionOffsets are the elements of one named list in one old handle.
type partitionOffsets struct {
	ref  handleRef
	info state.StateMetaInfo
}

// groupByStateMode collects, per list name, the old handles' elements of
// each mode, in the order of the old subtasks.
func groupByStateMode(previous [][]state.OperatorStateHandle) (split, union map[string][]partitionOffsets) {
	split, union = make(map[string][]partitionOffsets), make(map[string][]partitionOffsets)
	for subtask, handles := range previous {
		for index, h := range handles {
			for _, name := range slices.Sorted(maps.Keys(h.StateNameToPartitionOffsets)) {
				info := h.StateNameToPartitionOffsets[name]
				target := split
				if info.DistributionMode == state.Union {
					target = union
				}
				target[name] = append(target[name], partitionOffsets{handleRef{subtask, index}, info})
			}
		}
	}
	return split, union
}

// repartitionSplitState cuts each SPLIT_DISTRIBUTE list into runs, one
// per new subtask (Flink: RoundRobinOperatorStateRepartitioner#repartition).
func repartitionSplitState(split map[string][]partitionOffsets, merged []*mergeMap) {
	newParallelism := len(merged)
	startParallelOp := 0
	for _, name := range slices.Sorted(maps.Keys(split)) {
		current := split[name]
		totalPartitions := 0
		for _, p := range current {
			totalPartitions += len(p.info.Offsets)
		}
		listIndex, offsetIndex := 0, 0
		baseFraction, remainder := totalPartitions/newParallelism, totalPartitions%newParallelism
		newStartParallelOp := startParallelOp
		for i := range newParallelism {
			parallelOpIdx := (i + startParallelOp) % newParallelism
			numberOfPartitionsToAssign := baseFraction
			if remainder > 0 {
				numberOfPartitionsToAssign++ // hand out the odd elements, one each
				remainder--
			} else if remainder == 0 {
				newStartParallelOp = parallelOpIdx // the next list starts here
				remainder--
			}
			for numberOfPartitionsToAssign > 0 {
				p := current[listIndex]
				remaining := len(p.info.Offsets) - offsetIndex
				var offsets []int64
				if remaining > numberOfPartitionsToAssign {
					offsets = p.info.Offsets[offsetIndex : offsetIndex+numberOfPartitionsToAssign]
					offsetIndex += numberOfPartitionsToAssign
				} else {
					offsets = p.info.Offsets[offsetIndex:]
					offsetIndex, listIndex = 0, listIndex+1
				}
				numberOfPartitionsToAssign -= remaining
				merged[parallelOpIdx].handle(p.ref).StateNameToPartitionOffsets[name] = state.StateMetaInfo{
					Offsets: slices.Clone(offsets), DistributionMode: state.SplitDistribute}
			}
		}
		startParallelOp = newStartParallelOp
	}
}

// repartitionUnionState gives every new subtask all elements of each
// UNION list.
func repartitionUnionState(union map[string][]partitionOffsets, merged []*mergeMap) {
	for _, m := range merged {
		for _, name := range slices.Sorted(maps.Keys(union)) {
			for _, p := range union[name] {
				m.handle(p.ref).StateNameToPartitionOffsets[name] = state.StateMetaInfo{
					Offsets: slices.Clone(p.info.Offsets), DistributionMode: state.Union}
			}
		}
	}
}

// mergeMap collects a new subtask's handles: one per old handle it gets
// elements of, in the order it first got them.
type mergeMap struct {
	previous [][]state.OperatorStateHandle
	order    []handleRef
	handles  map[handleRef]*state.OperatorStateHandle
}

// handle returns the new handle for the old handle ref, creating it empty.
func (m *mergeMap) handle(ref handleRef) *state.OperatorStateHandle {
	if h, ok := m.handles[ref]; ok {
		return h
	}
	if m.handles == nil {
		m.handles = make(map[handleRef]*state.OperatorStateHandle)
	}
	h := &state.OperatorStateHandle{StateNameToPartitionOffsets: make(map[string]state.StateMetaInfo),
		Delegate: m.previous[ref.subtask][ref.index].Delegate}
	m.handles[ref], m.order = h, append(m.order, ref)
	return h
}

// initMergeMapList starts each subtask with its own handles.
func initMergeMapList(previous [][]state.OperatorStateHandle) []*mergeMap {
	merged := make([]*mergeMap, len(previous))
	for subtask, handles := range previous {
		merged[subtask] = &mergeMap{previous: previous}
		for index, h := range handles {
			maps.Copy(merged[subtask].handle(handleRef{subtask, index}).StateNameToPartitionOffsets, h.StateNameToPartitionOffsets)
		}
	}
	return merged
}

func handlesOf(merged []*mergeMap) [][]state.OperatorStateHandle {
	result := make([][]state.OperatorStateHandle, len(merged))
	for i, m := range merged {
		for _, ref := range m.order {
			result[i] = append(result[i], *m.handles[ref])
		}
	}
	return result
}
