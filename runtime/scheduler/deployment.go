package scheduler

import (
	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// tddFactory builds TaskDeploymentDescriptors (Flink's
// TaskDeploymentDescriptorFactory). The shuffle descriptors of an
// all-to-all input are the same for every consumer, so they are built once
// per ConsumedPartitionGroup and shared: deploying n consumers of n
// producers costs O(n) descriptors, not O(n²) (Flink caches them the same
// way since 1.14).
//
// Each shuffle descriptor names where its partition is produced: the
// producer's TaskExecutor (ProducerLocation) and, when that TaskExecutor
// serves its partitions over TCP, its data address (DataAddress, Flink's
// ConnectionID), which a consumer in another process connects to.
type tddFactory struct {
	graph    *executiongraph.ExecutionGraph
	jobGraph *jobgraph.JobGraph
	cache    map[*executiongraph.ConsumedPartitionGroup][]gateway.ShuffleDescriptor
	// dataAddressOf returns the data address of the TaskExecutor that
	// holds a slot (gateway.TaskManagerLocation.DataAddress); "" means its
	// partitions are read in-process. The ExecutionGraph's slots do not
	// carry it, the scheduler's do: NewDefaultScheduler sets this to
	// DefaultScheduler.dataAddressOf. Nil leaves every DataAddress empty,
	// as in the embedded cluster.
	dataAddressOf func(api.AllocationID) string
}

func newTDDFactory(graph *executiongraph.ExecutionGraph, jobGraph *jobgraph.JobGraph) *tddFactory {
	return &tddFactory{
		graph:    graph,
		jobGraph: jobGraph,
		cache:    make(map[*executiongraph.ConsumedPartitionGroup][]gateway.ShuffleDescriptor),
	}
}

// create describes the current Execution of ev, which must have a slot.
func (f *tddFactory) create(ev *executiongraph.ExecutionVertex) gateway.TaskDeploymentDescriptor {
	e := ev.CurrentExecution()
	slot, _ := e.AssignedSlot()
	ejv := ev.JobVertex()
	jv := ejv.JobVertex()
	tdd := gateway.TaskDeploymentDescriptor{
		JobID:              f.graph.JobID(),
		JobName:            f.graph.JobName(),
		ExecutionAttemptID: e.AttemptID(),
		AllocationID:       slot.AllocationID,
		TaskInfo: gateway.TaskInformation{
			JobVertexID:         ejv.ID(),
			TaskName:            ejv.Name(),
			NumberOfSubtasks:    ejv.Parallelism(),
			MaxNumberOfSubtasks: ejv.MaxParallelism(),
			InvokableClassName:  jv.InvokableClassName,
			TaskConfiguration:   jv.Configuration,
		},
		UserJarBlobKeys: f.jobGraph.UserJarBlobKeys,
	}
	for _, p := range ev.ProducedPartitions() {
		tdd.ProducedPartitions = append(tdd.ProducedPartitions, gateway.ResultPartitionDeploymentDescriptor{
			PartitionID:           resultPartitionID(p),
			NumberOfSubpartitions: p.NumberOfSubpartitions(),
		})
	}
	for _, group := range ev.ConsumedPartitionGroups() {
		first := f.partition(group.Partitions()[0])
		tdd.InputGates = append(tdd.InputGates, gateway.InputGateDeploymentDescriptor{
			ConsumedResultID:          group.IntermediateDataSetID(),
			ConsumedSubpartitionIndex: ev.ConsumedSubpartitionIndex(first),
			ShuffleDescriptors:        f.shuffleDescriptors(group),
		})
	}
	return tdd
}

// reset forgets the shuffle descriptors built so far: after a restart the
// producers are new attempts, with new ResultPartitionIDs.
func (f *tddFactory) reset() { clear(f.cache) }

func (f *tddFactory) shuffleDescriptors(group *executiongraph.ConsumedPartitionGroup) []gateway.ShuffleDescriptor {
	if cached, ok := f.cache[group]; ok {
		return cached
	}
	descriptors := make([]gateway.ShuffleDescriptor, 0, group.Size())
	for _, id := range group.Partitions() {
		p := f.partition(id)
		producer := p.Producer().CurrentExecution()
		slot, _ := producer.AssignedSlot()
		descriptors = append(descriptors, gateway.ShuffleDescriptor{
			ResultPartitionID: resultPartitionID(p),
			ProducerLocation:  slot.TaskManagerLocation.ResourceID,
			DataAddress:       f.dataAddress(slot.AllocationID),
		})
	}
	f.cache[group] = descriptors
	return descriptors
}

// dataAddress returns the data address of the TaskExecutor holding the
// slot, or "" when there is no way to know it.
func (f *tddFactory) dataAddress(allocationID api.AllocationID) string {
	if f.dataAddressOf == nil {
		return ""
	}
	return f.dataAddressOf(allocationID)
}

// dataAddressOf returns the data address its TaskExecutor advertised when
// it registered (gateway.TaskManagerLocation.DataAddress) for a slot the
// job's slot pool holds, and "" for a TaskExecutor that advertised none or
// a slot the pool does not hold. Every producer's slot is in the pool when
// the scheduler deploys, so the lookup finds it. It is the tddFactory's
// dataAddressOf.
func (s *DefaultScheduler) dataAddressOf(allocationID api.AllocationID) string {
	slot, _ := s.deps.SlotPool.Slot(allocationID)
	return slot.TaskManager.DataAddress
}

func (f *tddFactory) partition(id api.IntermediateResultPartitionID) *executiongraph.IntermediateResultPartition {
	return f.graph.ResultPartition(id)
}

func resultPartitionID(p *executiongraph.IntermediateResultPartition) api.ResultPartitionID {
	return api.ResultPartitionID{PartitionID: p.ID(), ProducerID: p.Producer().CurrentExecution().AttemptID()}
}
