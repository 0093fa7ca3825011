package scheduler

import (
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
)

// executionSlotSharingGroup is one shared slot: the execution vertices that
// run in it (Flink's ExecutionSlotSharingGroup). It holds at most one
// subtask of each JobVertex, all of one slot sharing group.
type executionSlotSharingGroup struct {
	// slotSharingGroup names the logical group; a vertex without one is
	// alone in a group of its own, named after its vertex ID (Flink gives
	// such a vertex a new SlotSharingGroup, JobVertex#getSlotSharingGroup).
	slotSharingGroup string
	// index is the shared slot's place among its group's shared slots, in
	// the order they were made.
	index    int
	vertices []api.ExecutionVertexID
}

// sharedSlotSet is a set of shared slots that keeps the order they were
// added in, with the first one at hand (Flink uses a LinkedHashSet). Every
// operation is O(1), amortized. The map in is the set; order is only the
// order: a removed slot stays in it until first steps over it, and a slot
// added again after its removal is appended once more.
type sharedSlotSet struct {
	order []*executionSlotSharingGroup
	in    map[*executionSlotSharingGroup]bool
	head  int // order[:head] has been removed
}

func newSharedSlotSet() *sharedSlotSet {
	return &sharedSlotSet{in: make(map[*executionSlotSharingGroup]bool)}
}

func (s *sharedSlotSet) add(g *executionSlotSharingGroup) {
	if !s.in[g] {
		s.in[g] = true
		s.order = append(s.order, g)
	}
}

func (s *sharedSlotSet) remove(g *executionSlotSharingGroup) { delete(s.in, g) }

func (s *sharedSlotSet) contains(g *executionSlotSharingGroup) bool { return s.in[g] }

// first returns the oldest shared slot still in the set, or nil.
func (s *sharedSlotSet) first() *executionSlotSharingGroup {
	for ; s.head < len(s.order); s.head++ {
		if g := s.order[s.head]; s.in[g] {
			return g
		}
	}
	return nil
}

// slotSharingStrategy knows the shared slot of every execution vertex of a
// job (Flink's LocalInputPreferredSlotSharingStrategy). It is built once,
// for the whole graph, when the scheduler is created; a restart reuses
// the same shared slots.
type slotSharingStrategy struct {
	groupOf map[api.ExecutionVertexID]*executionSlotSharingGroup
}

func newSlotSharingStrategy(graph *executiongraph.ExecutionGraph) *slotSharingStrategy {
	return &slotSharingStrategy{groupOf: buildExecutionSlotSharingGroups(graph)}
}

// slotSharingGroupOf names the logical slot sharing group of a vertex.
func slotSharingGroupOf(ev *executiongraph.ExecutionVertex) string {
	return slotSharingGroupOfJobVertex(ev.JobVertex())
}

// slotSharingGroupOfJobVertex names the logical slot sharing group of a
// JobVertex.
func slotSharingGroupOfJobVertex(ejv *executiongraph.ExecutionJobVertex) string {
	return SlotSharingGroupName(ejv.JobVertex())
}

// SlotSharingGroupName names the slot sharing group a JobVertex runs in:
// its own, or, for a vertex without one, a group of its own named after
// its ID (Flink gives such a vertex a new SlotSharingGroup,
// JobVertex#getSlotSharingGroup). Both schedulers group slots by it.
func SlotSharingGroupName(v *jobgraph.JobVertex) string {
	if v.SlotSharingGroup != "" {
		return v.SlotSharingGroup
	}
	return "vertex-" + v.ID.String()
}

// coLocationConstraint is Flink's CoLocationConstraint: subtask i of every
// vertex of one co-location group runs in the same slot.
type coLocationConstraint struct {
	coLocationGroup string
	subtaskIndex    int
}

// coLocationConstraintOf returns the constraint a vertex is under, if its
// JobVertex is in a co-location group.
func coLocationConstraintOf(ev *executiongraph.ExecutionVertex) (coLocationConstraint, bool) {
	group := ev.JobVertex().JobVertex().CoLocationGroup
	return coLocationConstraint{coLocationGroup: group, subtaskIndex: ev.SubtaskIndex()}, group != ""
}

// executionSlotSharingGroupBuilder holds what buildExecutionSlotSharingGroups
// has decided so far (Flink's ExecutionSlotSharingGroupBuilder).
type executionSlotSharingGroupBuilder struct {
	graph *executiongraph.ExecutionGraph
	// groupOf is the shared slot of each vertex placed so far.
	groupOf map[api.ExecutionVertexID]*executionSlotSharingGroup
	// jobVerticesOf lists the JobVertices of each logical group.
	jobVerticesOf map[string][]api.JobVertexID
	// made counts each logical group's shared slots.
	made map[string]int
	// available holds, per JobVertex, the shared slots of its group that
	// hold no subtask of it yet, in the order they were made (Flink's
	// availableGroupsForJobVertex).
	available map[api.JobVertexID]*sharedSlotSet
	// candidates holds, per ConsumedPartitionGroup, the shared slots of
	// its producers its consumers have not tried yet (Flink's
	// candidateGroupsForConsumedPartitionGroup).
	candidates map[*executiongraph.ConsumedPartitionGroup]*sharedSlotSet
	// coLocated is the shared slot of each co-location constraint, once a
	// vertex under it has been placed.
	coLocated map[coLocationConstraint]*executionSlotSharingGroup
}

func newExecutionSlotSharingGroupBuilder(graph *executiongraph.ExecutionGraph) *executionSlotSharingGroupBuilder {
	b := &executionSlotSharingGroupBuilder{
		graph:         graph,
		groupOf:       make(map[api.ExecutionVertexID]*executionSlotSharingGroup),
		jobVerticesOf: make(map[string][]api.JobVertexID),
		made:          make(map[string]int),
		available:     make(map[api.JobVertexID]*sharedSlotSet),
		candidates:    make(map[*executiongraph.ConsumedPartitionGroup]*sharedSlotSet),
		coLocated:     make(map[coLocationConstraint]*executionSlotSharingGroup),
	}
	for _, ejv := range graph.VerticesTopologically() {
		group := slotSharingGroupOfJobVertex(ejv)
		b.jobVerticesOf[group] = append(b.jobVerticesOf[group], ejv.ID())
		b.available[ejv.ID()] = newSharedSlotSet()
	}
	return b
}

// isAvailableFor reports whether a shared slot holds no subtask of the
// vertex's JobVertex yet, in the vertex's slot sharing group (Flink's
// isExecutionSlotSharingGroupAvailableForVertex).
func (b *executionSlotSharingGroupBuilder) isAvailableFor(group *executionSlotSharingGroup, ev *executiongraph.ExecutionVertex) bool {
	return b.available[ev.JobVertex().ID()].contains(group)
}

// add places a vertex in a shared slot, which is then no longer available
// to the vertex's JobVertex.
func (b *executionSlotSharingGroupBuilder) add(ev *executiongraph.ExecutionVertex, group *executionSlotSharingGroup) {
	group.vertices = append(group.vertices, ev.ID())
	b.groupOf[ev.ID()] = group
	b.available[ev.JobVertex().ID()].remove(group)
}

// firstAvailableSharedSlot returns the oldest shared slot of the vertex's
// slot sharing group that holds no subtask of its JobVertex yet, or nil
// (Flink's tryFindAvailableExecutionSlotSharingGroupFor).
func (b *executionSlotSharingGroupBuilder) firstAvailableSharedSlot(ev *executiongraph.ExecutionVertex) *executionSlotSharingGroup {
	return b.available[ev.JobVertex().ID()].first()
}

// newSharedSlot makes a new, empty shared slot of the vertex's slot
// sharing group, available to every JobVertex of the group (Flink's
// createNewExecutionSlotSharingGroup).
func (b *executionSlotSharingGroupBuilder) newSharedSlot(ev *executiongraph.ExecutionVertex) *executionSlotSharingGroup {
	slotSharingGroup := slotSharingGroupOf(ev)
	group := &executionSlotSharingGroup{slotSharingGroup: slotSharingGroup, index: b.made[slotSharingGroup]}
	b.made[slotSharingGroup]++
	for _, jobVertex := range b.jobVerticesOf[slotSharingGroup] {
		b.available[jobVertex].add(group)
	}
	return group
}

// coLocatedSharedSlot returns the shared slot the vertex must run in
// because of its co-location constraint: the slot of the constraint's
// vertices placed before it. It returns nil for a vertex under no
// constraint, or whose constraint has no slot yet (Flink's
// tryFindAvailableCoLocatedExecutionSlotSharingGroupFor).
func (b *executionSlotSharingGroupBuilder) coLocatedSharedSlot(ev *executiongraph.ExecutionVertex) *executionSlotSharingGroup {
	constraint, ok := coLocationConstraintOf(ev)
	if !ok {
		return nil
	}
	return b.coLocated[constraint]
}

// updateCoLocatedSharedSlots makes the shared slot of each placed vertex
// under a co-location constraint the slot of that constraint, so that
// the constraint's vertices of later JobVertices follow it (Flink's
// updateConstraintToExecutionSlotSharingGroupMap).
func (b *executionSlotSharingGroupBuilder) updateCoLocatedSharedSlots(vertices []*executiongraph.ExecutionVertex) {
	for _, ev := range vertices {
		if constraint, ok := coLocationConstraintOf(ev); ok {
			b.coLocated[constraint] = b.groupOf[ev.ID()]
		}
	}
}

// producersSharedSlot returns a shared slot of the vertex's producers that
// holds no subtask of its JobVertex yet, or nil (Flink's
// tryFindAvailableProducerExecutionSlotSharingGroupFor). It tries its
// inputs in order; for each, the shared slots of the producers of the
// input's ConsumedPartitionGroup, in partition order, which all the
// group's consumers try in turn: a slot tried once, taken or not, is not
// tried again.
func (b *executionSlotSharingGroupBuilder) producersSharedSlot(ev *executiongraph.ExecutionVertex) *executionSlotSharingGroup {
	for _, consumed := range ev.ConsumedPartitionGroups() {
		candidates, computed := b.candidates[consumed]
		if !computed {
			candidates = b.producersSharedSlots(ev, consumed)
			b.candidates[consumed] = candidates
		}
		for group := candidates.first(); group != nil; group = candidates.first() {
			candidates.remove(group)
			if b.isAvailableFor(group, ev) {
				return group
			}
		}
	}
	return nil
}

// producersSharedSlots returns the shared slots of the producers of a
// ConsumedPartitionGroup, in partition order, if they are in the
// consumer's slot sharing group, and an empty set otherwise (Flink's
// computeAllCandidateGroupsForConsumedPartitionGroup). It is computed once
// per group, however many consumers read it: O(n) for an all-to-all edge.
func (b *executionSlotSharingGroupBuilder) producersSharedSlots(consumer *executiongraph.ExecutionVertex,
	consumed *executiongraph.ConsumedPartitionGroup) *sharedSlotSet {
	candidates := newSharedSlotSet()
	if slotSharingGroupOf(b.graph.ResultPartition(consumed.First()).Producer()) != slotSharingGroupOf(consumer) {
		return candidates
	}
	for _, partition := range consumed.Partitions() {
		candidates.add(b.groupOf[b.graph.ResultPartition(partition).Producer().ID()])
	}
	return candidates
}

// buildExecutionSlotSharingGroups puts every execution vertex of the graph
// into a shared slot (Flink's ExecutionSlotSharingGroupBuilder#build). It
// goes JobVertex by JobVertex, sources first, and decides for each of
// their subtasks in this order:
//
//  1. a vertex under a co-location constraint goes where the constraint's
//     vertices went before it;
//  2. otherwise into the shared slot of one of its producers (in the same
//     slot sharing group, holding no subtask of its JobVertex yet), so
//     that it reads its input locally;
//
// and only then, for the subtasks that found no place that way:
//
//  3. into the first shared slot of its slot sharing group that holds no
//     subtask of its JobVertex yet;
//  4. into a new shared slot.
//
// A JobVertex's subtasks are placed by rules 1 and 2 before any of them
// takes a free shared slot by rule 3, so that no subtask takes the slot a
// later sibling's producer is in. Once a JobVertex is placed, its
// subtasks' slots become the slots of their co-location constraints.
func buildExecutionSlotSharingGroups(graph *executiongraph.ExecutionGraph) map[api.ExecutionVertexID]*executionSlotSharingGroup {
	b := newExecutionSlotSharingGroupBuilder(graph)
	for _, jobVertex := range graph.VerticesTopologically() {
		var remaining []*executiongraph.ExecutionVertex
		for _, ev := range jobVertex.TaskVertices() {
			group := b.coLocatedSharedSlot(ev)
			if group == nil {
				group = b.producersSharedSlot(ev)
			}
			if group == nil {
				remaining = append(remaining, ev)
				continue
			}
			b.add(ev, group)
		}
		for _, ev := range remaining {
			group := b.firstAvailableSharedSlot(ev)
			if group == nil {
				group = b.newSharedSlot(ev)
			}
			b.add(ev, group)
		}
		b.updateCoLocatedSharedSlots(jobVertex.TaskVertices())
	}
	return b.groupOf
}

// groupBySharedSlot groups the executions of one scheduling round by the
// shared slot they run in, in the order the slots are first needed.
func (s *slotSharingStrategy) groupBySharedSlot(vertices []*executiongraph.ExecutionVertex) ([]*executionSlotSharingGroup, map[*executionSlotSharingGroup][]api.ExecutionVertexID) {
	var order []*executionSlotSharingGroup
	members := make(map[*executionSlotSharingGroup][]api.ExecutionVertexID)
	for _, ev := range vertices {
		group := s.groupOf[ev.ID()]
		if _, seen := members[group]; !seen {
			order = append(order, group)
		}
		members[group] = append(members[group], ev.ID())
	}
	return order, members
}

// sharedSlotProfile is the resource profile a shared slot is requested
// with (Flink's SlotSharingExecutionSlotAllocator#getPhysicalSlotResourceProfile):
// the resources of its slot sharing group where the program gave them;
// otherwise the sum of its vertices' minimum resources, which stays
// UnknownResourceProfile as long as one of them is unknown: any slot will
// do, and the ResourceManager cuts one of the default slot profile.
func sharedSlotProfile(jobGraph *jobgraph.JobGraph, graph *executiongraph.ExecutionGraph, group *executionSlotSharingGroup) api.ResourceProfile {
	if profile := jobGraph.SlotSharingGroupResourceProfile(group.slotSharingGroup); !profile.IsUnknown() {
		return profile
	}
	sum := api.ZeroResourceProfile
	for _, id := range group.vertices {
		sum = sum.Merge(graph.ExecutionVertex(id).JobVertex().JobVertex().MinResources)
	}
	return sum
}

// SharedSlot is one shared slot of a job as the DefaultScheduler requests
// it: the subtasks that will run in it and the profile it is requested
// with. tools/graphs draws them.
type SharedSlot struct {
	SlotSharingGroup string
	Index            int
	Vertices         []api.ExecutionVertexID
	ResourceProfile  api.ResourceProfile
}

// SharedSlots returns the shared slots the DefaultScheduler requests when
// it starts scheduling a job, in the order it requests them.
func SharedSlots(jobGraph *jobgraph.JobGraph, graph *executiongraph.ExecutionGraph) []SharedSlot {
	strategy := newSlotSharingStrategy(graph)
	order, _ := strategy.groupBySharedSlot(slices.Collect(graph.AllExecutionVertices()))
	out := make([]SharedSlot, 0, len(order))
	for _, group := range order {
		out = append(out, SharedSlot{
			SlotSharingGroup: group.slotSharingGroup,
			Index:            group.index,
			Vertices:         slices.Clone(group.vertices),
			ResourceProfile:  sharedSlotProfile(jobGraph, graph, group),
		})
	}
	return out
}
