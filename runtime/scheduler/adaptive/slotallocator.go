package adaptive

import (
	"cmp"
	"slices"

	"flinklab/runtime/api"
)

// VertexInformation is what the slot allocator knows of a JobVertex: its
// slot sharing group and the bounds of its parallelism (Flink's
// JobInformation.VertexInformation; the bounds are its
// JobVertexResourceRequirements).
type VertexInformation struct {
	JobVertexID      api.JobVertexID
	SlotSharingGroup string
	// LowerBound is the least parallelism the job may run with (1 unless
	// set with PUT /jobs/{jobid}/resource-requirements); UpperBound the
	// most (the vertex's parallelism in the JobGraph, or its max
	// parallelism in reactive mode).
	LowerBound, UpperBound int
}

// slotSharingGroupMetaInfo sums up the vertices of one slot sharing group
// (Flink's SlotSharingSlotAllocator.SlotSharingGroupMetaInfo). A shared
// slot holds one subtask of each vertex of the group, so the group needs as
// many slots as its widest vertex: at least maxLowerBound, at most
// maxUpperBound.
type slotSharingGroupMetaInfo struct {
	name          string
	maxLowerBound int
	maxUpperBound int
}

// maxLowerUpperBoundRange is how many slots beyond its minimum the group
// can use.
func (m slotSharingGroupMetaInfo) maxLowerUpperBoundRange() int {
	return m.maxUpperBound - m.maxLowerBound
}

// slotSharingGroupMetaInfos groups the vertices by slot sharing group, in
// the order the groups first occur.
func slotSharingGroupMetaInfos(vertices []VertexInformation) []slotSharingGroupMetaInfo {
	var groups []slotSharingGroupMetaInfo
	index := make(map[string]int)
	for _, v := range vertices {
		i, ok := index[v.SlotSharingGroup]
		if !ok {
			i = len(groups)
			index[v.SlotSharingGroup] = i
			groups = append(groups, slotSharingGroupMetaInfo{name: v.SlotSharingGroup})
		}
		groups[i].maxLowerBound = max(groups[i].maxLowerBound, v.LowerBound)
		groups[i].maxUpperBound = max(groups[i].maxUpperBound, v.UpperBound)
	}
	return groups
}

// CalculateRequiredSlots is how many slots the job asks the
// ResourceManager for: enough for every vertex at its upper bound, one
// slot per subtask of each slot sharing group's widest vertex (Flink:
// SlotSharingSlotAllocator#calculateRequiredSlots). These are the desired
// resources.
func CalculateRequiredSlots(vertices []VertexInformation) int {
	n := 0
	for _, group := range slotSharingGroupMetaInfos(vertices) {
		n += group.maxUpperBound
	}
	return n
}

// MinimumRequiredSlots is the fewest slots the job can run with: every
// vertex at its lower bound (Flink: AllocatorUtil#getMinimumRequiredSlots).
func MinimumRequiredSlots(vertices []VertexInformation) int {
	n := 0
	for _, group := range slotSharingGroupMetaInfos(vertices) {
		n += group.maxLowerBound
	}
	return n
}

// DetermineParallelism decides the parallelism of every vertex for the
// number of free slots, or reports false when they are fewer than the
// minimum (Flink: SlotSharingSlotAllocator#determineParallelism):
//
//  1. Each slot sharing group gets its minimum, maxLowerBound slots.
//  2. The slots left over are shared out among the groups evenly, the
//     group with the narrowest range first: a group that cannot use its
//     share leaves the rest to the groups after it.
//  3. Each vertex runs with as many subtasks as its group got slots, but
//     no more than its upper bound.
func DetermineParallelism(vertices []VertexInformation, freeSlots int) (map[api.JobVertexID]int, bool) {
	groups := slotSharingGroupMetaInfos(vertices)
	minimumRequired := 0
	for _, group := range groups {
		minimumRequired += group.maxLowerBound
	}
	if minimumRequired > freeSlots {
		return nil, false
	}
	slots := determineSlotsPerSharingGroup(groups, freeSlots, minimumRequired)
	parallelism := make(map[api.JobVertexID]int, len(vertices))
	for _, v := range vertices {
		parallelism[v.JobVertexID] = min(v.UpperBound, slots[v.SlotSharingGroup])
	}
	return parallelism, true
}

// determineSlotsPerSharingGroup is Flink's method of the same name: "Slots
// are distributed as evenly as possible. If a group requires less than an
// even share of slots the remainder is distributed over the remaining
// groups."
func determineSlotsPerSharingGroup(groups []slotSharingGroupMetaInfo, freeSlots, minimumRequired int) map[string]int {
	sorted := slices.Clone(groups)
	slices.SortStableFunc(sorted, func(a, b slotSharingGroupMetaInfo) int {
		return cmp.Compare(a.maxLowerUpperBoundRange(), b.maxLowerUpperBoundRange())
	})
	unassignedSlots := freeSlots
	unassignedGroups := len(sorted)
	minimumOfRemainingGroups := minimumRequired
	slots := make(map[string]int, len(sorted))
	for _, group := range sorted {
		// The minimums of all groups are reserved; only the optional
		// slots beyond them are shared out.
		maxOptionalSlots := group.maxUpperBound - group.maxLowerBound
		freeOptionalSlots := unassignedSlots - minimumOfRemainingGroups
		optionalSlotShare := freeOptionalSlots / unassignedGroups
		groupParallelism := group.maxLowerBound + min(maxOptionalSlots, optionalSlotShare)
		slots[group.name] = groupParallelism

		minimumOfRemainingGroups -= group.maxLowerBound
		unassignedSlots -= groupParallelism
		unassignedGroups--
	}
	return slots
}
