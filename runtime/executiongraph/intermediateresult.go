package executiongraph

import (
	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// IntermediateResult is a JobGraph data set inside the ExecutionGraph: the
// output of one job vertex, split into one partition per producer subtask.
// It mirrors Flink's
// org.apache.flink.runtime.executiongraph.IntermediateResult.
type IntermediateResult struct {
	dataSet    *jobgraph.IntermediateDataSet
	id         api.IntermediateDataSetID
	producer   *ExecutionJobVertex
	partitions []*IntermediateResultPartition // by producer subtask index
}

func newIntermediateResult(dataSet *jobgraph.IntermediateDataSet, producer *ExecutionJobVertex) *IntermediateResult {
	return &IntermediateResult{dataSet: dataSet, id: dataSet.ID, producer: producer}
}

// ID returns the ID of the data set.
func (r *IntermediateResult) ID() api.IntermediateDataSetID { return r.id }

// Producer returns the job vertex that produces the result.
func (r *IntermediateResult) Producer() *ExecutionJobVertex { return r.producer }

// Partitions returns the partitions, one per producer subtask, by subtask
// index. The slice belongs to the graph; do not modify it.
func (r *IntermediateResult) Partitions() []*IntermediateResultPartition { return r.partitions }

// ResultType returns whether the result is pipelined or blocking.
func (r *IntermediateResult) ResultType() jobgraph.ResultPartitionType { return r.dataSet.ResultType }

// ConsumerParallelism returns the parallelism of the job vertex that reads
// the result, or 0 if no vertex reads it. It mirrors Flink's
// IntermediateResult.getConsumersParallelism.
func (r *IntermediateResult) ConsumerParallelism() int {
	consumers := r.dataSet.Consumers()
	if len(consumers) == 0 {
		return 0
	}
	return r.producer.graph.JobVertex(consumers[0].Target.ID).Parallelism()
}

// IntermediateResultPartition is the part of a result that one producer
// subtask writes. At run time the partition is split once more into
// subpartitions, one per consumer subtask that reads it. It mirrors
// Flink's org.apache.flink.runtime.executiongraph.IntermediateResultPartition.
type IntermediateResultPartition struct {
	id                   api.IntermediateResultPartitionID
	result               *IntermediateResult
	producer             *ExecutionVertex
	consumerVertexGroups []*ConsumerVertexGroup
	// dataAllProduced: the producer finished writing a BLOCKING partition
	// (Flink's dataAllProduced); it stays so until the producer restarts.
	dataAllProduced bool
}

func newIntermediateResultPartition(result *IntermediateResult, producer *ExecutionVertex) *IntermediateResultPartition {
	return &IntermediateResultPartition{
		id: api.IntermediateResultPartitionID{
			IntermediateDataSetID: result.id,
			PartitionNum:          producer.SubtaskIndex(),
		},
		result:   result,
		producer: producer,
	}
}

// ID returns the partition's ID: its data set and the producer's subtask
// index.
func (p *IntermediateResultPartition) ID() api.IntermediateResultPartitionID { return p.id }

// Producer returns the subtask that writes the partition.
func (p *IntermediateResultPartition) Producer() *ExecutionVertex { return p.producer }

// IntermediateResult returns the result the partition is part of.
func (p *IntermediateResultPartition) IntermediateResult() *IntermediateResult { return p.result }

// ConsumerVertexGroups returns the groups of subtasks that read the
// partition: none if nobody reads the result, else one. For an ALL_TO_ALL
// edge the group is the very same object for every partition of the
// result. The slice belongs to the graph; do not modify it.
func (p *IntermediateResultPartition) ConsumerVertexGroups() []*ConsumerVertexGroup {
	return p.consumerVertexGroups
}

// IsConsumable reports whether a BLOCKING partition can be read: its
// producer has finished writing it (Flink: ResultPartitionState.CONSUMABLE).
// A PIPELINED partition is never consumable this way.
func (p *IntermediateResultPartition) IsConsumable() bool { return p.dataAllProduced }

// markFinished records that the producer finished a BLOCKING partition
// (Flink: IntermediateResultPartition#markFinished): its groups count one
// unfinished partition less.
func (p *IntermediateResultPartition) markFinished() {
	if p.result.ResultType().IsPipelined() || p.dataAllProduced {
		return
	}
	p.dataAllProduced = true
	for _, consumers := range p.consumerVertexGroups {
		consumers.ConsumedPartitionGroup().unfinishedPartitions--
	}
}

// resetForNewExecution undoes markFinished when the producer restarts: the
// partition will be written again, by a new attempt.
func (p *IntermediateResultPartition) resetForNewExecution() {
	if !p.dataAllProduced {
		return
	}
	p.dataAllProduced = false
	for _, consumers := range p.consumerVertexGroups {
		consumers.ConsumedPartitionGroup().unfinishedPartitions++
	}
}

func (p *IntermediateResultPartition) addConsumers(group *ConsumerVertexGroup) {
	p.consumerVertexGroups = append(p.consumerVertexGroups, group)
}

// NumberOfSubpartitions returns how many subpartitions the producer writes:
// one per consumer subtask that reads this partition. That is the consumer
// parallelism for ALL_TO_ALL and the size of the partition's consumer run
// for POINTWISE. A partition nobody reads has one subpartition, as in
// Flink.
func (p *IntermediateResultPartition) NumberOfSubpartitions() int {
	if len(p.consumerVertexGroups) == 0 {
		return 1
	}
	return p.consumerVertexGroups[0].Size()
}
