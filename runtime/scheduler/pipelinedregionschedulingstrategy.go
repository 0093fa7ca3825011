package scheduler

import (
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
)

// pipelinedRegionSchedulingStrategy decides when each pipelined region of
// the job is scheduled (Flink's PipelinedRegionSchedulingStrategy). A
// region is scheduled as a whole, with one allocateSlotsAndDeploy, when
// its blocking inputs are consumable: every partition of every BLOCKING
// ConsumedPartitionGroup it reads from another region has been finished by
// its producer. A region without such inputs, a source region, is
// scheduled at once.
//
// So a streaming job, one region or many side by side, is deployed
// entirely when scheduling starts; a batch job runs stage after stage: a
// consumer region starts when the last producer of its input has finished.
// A restarted region goes through the same check: if its blocking inputs
// are still there, it is deployed again at once.
type pipelinedRegionSchedulingStrategy struct {
	graph    *executiongraph.ExecutionGraph
	regions  []*executiongraph.PipelinedRegion
	regionOf map[api.ExecutionVertexID]int // an index into regions
	// blockingInputs are, per region, the BLOCKING groups it reads that are
	// produced, at least partly, by other regions (Flink's external and
	// cross-region ConsumedPartitionGroups).
	blockingInputs [][]*executiongraph.ConsumedPartitionGroup
	// consumerRegions are, per such group, the regions that read it.
	consumerRegions map[*executiongraph.ConsumedPartitionGroup][]int
	// crossRegion holds the groups a consumer region partly produces
	// itself (Flink's crossRegionConsumedPartitionGroups): they are never
	// all finished before that region runs, so their producers' finishing
	// is worth a look without waiting for all partitions.
	crossRegion map[*executiongraph.ConsumedPartitionGroup]bool
	scheduled   []bool
	// allocateSlotsAndDeploy is the scheduler's (Flink:
	// SchedulerOperations#allocateSlotsAndDeploy).
	allocateSlotsAndDeploy func([]*executiongraph.ExecutionVertex)
}

func newPipelinedRegionSchedulingStrategy(graph *executiongraph.ExecutionGraph, regions []*executiongraph.PipelinedRegion,
	allocateSlotsAndDeploy func([]*executiongraph.ExecutionVertex)) *pipelinedRegionSchedulingStrategy {
	s := &pipelinedRegionSchedulingStrategy{
		graph:                  graph,
		regions:                regions,
		regionOf:               make(map[api.ExecutionVertexID]int),
		blockingInputs:         make([][]*executiongraph.ConsumedPartitionGroup, len(regions)),
		consumerRegions:        make(map[*executiongraph.ConsumedPartitionGroup][]int),
		crossRegion:            make(map[*executiongraph.ConsumedPartitionGroup]bool),
		scheduled:              make([]bool, len(regions)),
		allocateSlotsAndDeploy: allocateSlotsAndDeploy,
	}
	for i, region := range regions {
		for _, ev := range region.Vertices {
			s.regionOf[ev.ID()] = i
		}
	}
	for i, region := range regions {
		for _, ev := range region.Vertices {
			for _, group := range ev.ConsumedPartitionGroups() {
				if group.ResultPartitionType().IsPipelined() || slices.Contains(s.blockingInputs[i], group) ||
					!s.producedOutside(group, i) {
					continue
				}
				s.blockingInputs[i] = append(s.blockingInputs[i], group)
				s.consumerRegions[group] = append(s.consumerRegions[group], i)
				if s.producedInside(group, i) {
					s.crossRegion[group] = true
				}
			}
		}
	}
	return s
}

// producedOutside reports whether a partition of group is produced by
// another region than region.
func (s *pipelinedRegionSchedulingStrategy) producedOutside(group *executiongraph.ConsumedPartitionGroup, region int) bool {
	for _, id := range group.Partitions() {
		if s.regionOf[s.graph.ResultPartition(id).Producer().ID()] != region {
			return true
		}
	}
	return false
}

// producedInside reports whether a partition of group is produced by
// region itself.
func (s *pipelinedRegionSchedulingStrategy) producedInside(group *executiongraph.ConsumedPartitionGroup, region int) bool {
	for _, id := range group.Partitions() {
		if s.regionOf[s.graph.ResultPartition(id).Producer().ID()] == region {
			return true
		}
	}
	return false
}

// startScheduling schedules the source regions.
func (s *pipelinedRegionSchedulingStrategy) startScheduling() {
	var sources []int
	for i, inputs := range s.blockingInputs {
		if len(inputs) == 0 {
			sources = append(sources, i)
		}
	}
	s.maybeScheduleRegions(sources)
}

// onExecutionFinished schedules the regions that read a result of ev, if
// ev's finishing made all of it consumable, or, for a group its consumer
// partly produces itself, all it waits for (Flink: onExecutionStateChange
// with FINISHED, getBlockingDownstreamRegionsOfVertex).
func (s *pipelinedRegionSchedulingStrategy) onExecutionFinished(ev *executiongraph.ExecutionVertex) {
	var downstream []int
	for _, produced := range ev.ProducedPartitions() {
		for _, consumers := range produced.ConsumerVertexGroups() {
			group := consumers.ConsumedPartitionGroup()
			if group.AreAllPartitionsFinished() || s.crossRegion[group] {
				downstream = append(downstream, s.consumerRegions[group]...)
			}
		}
	}
	s.maybeScheduleRegions(downstream)
}

// restartTasks schedules the regions of restarted subtasks again, as soon
// as their inputs allow (Flink: restartTasks).
func (s *pipelinedRegionSchedulingStrategy) restartTasks(vertices []api.ExecutionVertexID) {
	var regions []int
	for _, id := range vertices {
		i := s.regionOf[id]
		if s.scheduled[i] {
			s.scheduled[i] = false
			regions = append(regions, i)
		}
	}
	s.maybeScheduleRegions(regions)
}

// maybeScheduleRegions schedules those of the regions whose inputs are
// consumable and which are not scheduled yet, in topological order.
func (s *pipelinedRegionSchedulingStrategy) maybeScheduleRegions(regions []int) {
	slices.Sort(regions)
	regions = slices.Compact(regions)
	for _, i := range regions {
		if s.scheduled[i] || !s.areRegionInputsAllConsumable(i) {
			continue
		}
		// Flink checks "BUG: trying to schedule a region which is not in
		// CREATED state"; allocateSlotsAndDeploy panics on it.
		s.scheduled[i] = true
		s.allocateSlotsAndDeploy(s.regions[i].Vertices)
	}
}

// areRegionInputsAllConsumable is Flink's readiness check: every partition
// a region reads from other regions through a BLOCKING exchange has been
// finished by its producer. Partitions the region produces itself (a group
// produced by several regions, this one among them) are not waited for.
func (s *pipelinedRegionSchedulingStrategy) areRegionInputsAllConsumable(region int) bool {
	for _, group := range s.blockingInputs[region] {
		if group.AreAllPartitionsFinished() {
			continue
		}
		for _, id := range group.Partitions() {
			p := s.graph.ResultPartition(id)
			if s.regionOf[p.Producer().ID()] != region && !p.IsConsumable() {
				return false
			}
		}
	}
	return true
}
