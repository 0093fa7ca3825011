package scheduler

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/rpc"
)

// releaseConsumedPartitions releases the BLOCKING inputs of ev's region
// once nobody needs them: when ev's finishing finished its region, and
// every other region that reads the same ConsumedPartitionGroup has
// finished too (Flink's RegionPartitionGroupReleaseStrategy#vertexFinished,
// jobmanager.partition.release-during-job-execution: true). Until then a
// consumer that restarts can read them again.
func (s *DefaultScheduler) releaseConsumedPartitions(ev *executiongraph.ExecutionVertex) {
	strategy := s.schedulingStrategy
	region := strategy.regionOf[ev.ID()]
	if !s.regionFinished(region) {
		return
	}
	for _, group := range strategy.blockingInputs[region] {
		finished := true
		for _, consumer := range strategy.consumerRegions[group] {
			finished = finished && s.regionFinished(consumer)
		}
		if finished {
			s.partitions.stopTrackingAndReleasePartitions(group.Partitions())
		}
	}
}

// regionFinished reports whether every subtask of a region has FINISHED.
func (s *DefaultScheduler) regionFinished(region int) bool {
	for _, ev := range s.schedulingStrategy.regions[region].Vertices {
		if ev.ExecutionState() != api.ExecutionFinished {
			return false
		}
	}
	return true
}

// releaseProducedPartitions asks the TaskExecutor of an execution that
// finished while it was being cancelled to release the BLOCKING partitions
// it wrote, which are not tracked.
func (s *DefaultScheduler) releaseProducedPartitions(e *executiongraph.Execution) {
	var ids []api.ResultPartitionID
	for _, p := range e.Vertex().ProducedPartitions() {
		if !p.IntermediateResult().ResultType().IsPipelined() {
			ids = append(ids, api.ResultPartitionID{PartitionID: p.ID(), ProducerID: e.AttemptID()})
		}
	}
	if len(ids) > 0 {
		s.releasePartitions(assignedResourceID(e), ids)
	}
}

// releasePartitions asks a TaskExecutor to release partitions it holds
// (Flink: TaskExecutorGateway#releasePartitions). Nobody waits for the
// answer: a TaskExecutor that is gone has released them with its files.
func (s *DefaultScheduler) releasePartitions(taskManager api.ResourceID, ids []api.ResultPartitionID) {
	tm, ok := s.deps.TaskExecutor(taskManager)
	if !ok {
		return
	}
	jobID := s.deps.Graph.JobID()
	rpc.Ask(s.deps.MainThread, s.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, tm.ReleasePartitions(ctx, jobID, ids)
	}, func(struct{}, error) {})
}
