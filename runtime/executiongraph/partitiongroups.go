package executiongraph

import (
	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// ConsumedPartitionGroup is a set of partitions of one result that a set of
// subtasks all read. It mirrors Flink's
// org.apache.flink.runtime.scheduler.strategy.ConsumedPartitionGroup.
//
// For an ALL_TO_ALL edge there is exactly one group for the whole edge: it
// holds every partition of the result, and every consumer subtask points to
// that same group. For a POINTWISE edge each range of partitions has its
// own group. Either way the group is paired with the ConsumerVertexGroup
// of the subtasks that read it.
type ConsumedPartitionGroup struct {
	dataSetID           api.IntermediateDataSetID
	resultType          jobgraph.ResultPartitionType
	partitions          []api.IntermediateResultPartitionID
	consumerVertexGroup *ConsumerVertexGroup
	// unfinishedPartitions counts the partitions whose producer has not
	// finished (Flink's numberOfUnfinishedPartitions): a BLOCKING group
	// can be read once it is zero.
	unfinishedPartitions int
}

func newConsumedPartitionGroup(result *IntermediateResult, partitions []api.IntermediateResultPartitionID) *ConsumedPartitionGroup {
	return &ConsumedPartitionGroup{
		dataSetID:  result.id,
		resultType: result.ResultType(),
		partitions: partitions,

		unfinishedPartitions: len(partitions),
	}
}

// AreAllPartitionsFinished reports whether the producers of every
// partition of the group have finished, so that a BLOCKING group can be
// read (Flink: areAllPartitionsFinished). It is counted, not computed: O(1)
// for a group of any size. A PIPELINED group is never finished this way;
// its partitions are read while they are written.
func (g *ConsumedPartitionGroup) AreAllPartitionsFinished() bool { return g.unfinishedPartitions == 0 }

// Partitions returns the IDs of the partitions in the group, by partition
// number. Use ExecutionGraph.ResultPartition to look one up. The slice is
// shared by every subtask that reads the group; do not modify it.
func (g *ConsumedPartitionGroup) Partitions() []api.IntermediateResultPartitionID {
	return g.partitions
}

// First returns the first partition of the group (a group is never empty).
func (g *ConsumedPartitionGroup) First() api.IntermediateResultPartitionID { return g.partitions[0] }

// IntermediateDataSetID returns the data set all partitions belong to.
func (g *ConsumedPartitionGroup) IntermediateDataSetID() api.IntermediateDataSetID {
	return g.dataSetID
}

// ResultPartitionType returns the type of the partitions in the group.
func (g *ConsumedPartitionGroup) ResultPartitionType() jobgraph.ResultPartitionType {
	return g.resultType
}

// Size returns the number of partitions in the group.
func (g *ConsumedPartitionGroup) Size() int { return len(g.partitions) }

// ConsumerVertexGroup returns the group of subtasks that read this group.
func (g *ConsumedPartitionGroup) ConsumerVertexGroup() *ConsumerVertexGroup {
	return g.consumerVertexGroup
}

// ConsumerVertexGroup is a set of subtasks of one job vertex that all read
// the same partitions. It mirrors Flink's
// org.apache.flink.runtime.scheduler.strategy.ConsumerVertexGroup.
//
// For an ALL_TO_ALL edge there is one group holding every consumer subtask,
// shared by every partition of the result. Its members are always
// consecutive subtasks, by subtask index.
type ConsumerVertexGroup struct {
	vertices               []api.ExecutionVertexID
	consumedPartitionGroup *ConsumedPartitionGroup
}

func newConsumerVertexGroup(vertices []api.ExecutionVertexID) *ConsumerVertexGroup {
	return &ConsumerVertexGroup{vertices: vertices}
}

// Vertices returns the IDs of the subtasks in the group, by subtask index.
// Use ExecutionGraph.ExecutionVertex to look one up. The slice is shared by
// every partition the group reads; do not modify it.
func (g *ConsumerVertexGroup) Vertices() []api.ExecutionVertexID { return g.vertices }

// First returns the first subtask of the group (a group is never empty).
func (g *ConsumerVertexGroup) First() api.ExecutionVertexID { return g.vertices[0] }

// Size returns the number of subtasks in the group.
func (g *ConsumerVertexGroup) Size() int { return len(g.vertices) }

// ConsumedPartitionGroup returns the group of partitions these subtasks
// read.
func (g *ConsumerVertexGroup) ConsumedPartitionGroup() *ConsumedPartitionGroup {
	return g.consumedPartitionGroup
}

// pairGroups registers each group on the other, as Flink's
// EdgeManagerBuildUtil does.
func pairGroups(consumed *ConsumedPartitionGroup, consumers *ConsumerVertexGroup) {
	consumed.consumerVertexGroup = consumers
	consumers.consumedPartitionGroup = consumed
}
