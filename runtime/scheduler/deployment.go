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
			PartitionType:         p.IntermediateResult().ResultType(),
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

// forgetPartitionsOf forgets the shuffle descriptors that name a partition
// of ev: after a restart its producer is a new attempt, with new
// ResultPartitionIDs.
func (f *tddFactory) forgetPartitionsOf(ev *executiongraph.ExecutionVertex) {
	for _, p := range ev.ProducedPartitions() {
		for _, consumers := range p.ConsumerVertexGroups() {
			delete(f.cache, consumers.ConsumedPartitionGroup())
		}
	}
}

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
			DataAddress:       slot.TaskManagerLocation.DataAddress,
		})
	}
	f.cache[group] = descriptors
	return descriptors
}

func (f *tddFactory) partition(id api.IntermediateResultPartitionID) *executiongraph.IntermediateResultPartition {
	return f.graph.ResultPartition(id)
}

func resultPartitionID(p *executiongraph.IntermediateResultPartition) api.ResultPartitionID {
	return api.ResultPartitionID{PartitionID: p.ID(), ProducerID: p.Producer().CurrentExecution().AttemptID()}
}
