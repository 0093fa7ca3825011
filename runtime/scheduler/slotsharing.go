package scheduler

import (
	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
)

// sharedSlotKey names one shared slot: subtask i of every vertex in one
// slot sharing group runs in the same slot. A vertex without a group is
// alone in a group of its own, named by its vertex ID.
type sharedSlotKey struct {
	group        string
	subtaskIndex int
}

// slotSharingKeyOf returns the shared slot an ExecutionVertex runs in
// (the pure core of Flink's SlotSharingExecutionSlotAllocator).
func slotSharingKeyOf(ev *executiongraph.ExecutionVertex) sharedSlotKey {
	group := ev.JobVertex().SlotSharingGroup()
	if group == "" {
		group = "vertex-" + ev.JobVertex().ID().String()
	}
	return sharedSlotKey{group: group, subtaskIndex: ev.SubtaskIndex()}
}

// groupBySharedSlot groups executions by the shared slot they run in, in
// the order the slots are first needed.
func groupBySharedSlot(vertices []*executiongraph.ExecutionVertex) ([]sharedSlotKey, map[sharedSlotKey][]api.ExecutionVertexID) {
	var keys []sharedSlotKey
	members := make(map[sharedSlotKey][]api.ExecutionVertexID)
	for _, ev := range vertices {
		key := slotSharingKeyOf(ev)
		if _, seen := members[key]; !seen {
			keys = append(keys, key)
		}
		members[key] = append(members[key], ev.ID())
	}
	return keys, members
}
