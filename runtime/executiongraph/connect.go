package executiongraph

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// This file mirrors Flink's EdgeManagerBuildUtil: it connects the subtasks
// of a consumer job vertex to the partitions of a result it reads, by
// creating ConsumedPartitionGroups (what each subtask reads) and
// ConsumerVertexGroups (who reads each partition).
//
// Differs from Flink: Flink keeps both kinds of group in an EdgeManager,
// keyed by vertex and partition ID. Here each subtask holds its consumed
// groups and each partition its consumer groups directly.

// connectVertexToResult connects every subtask of consumer to result,
// according to the edge's distribution pattern.
func connectVertexToResult(consumer *ExecutionJobVertex, result *IntermediateResult, pattern jobgraph.DistributionPattern) {
	switch pattern {
	case jobgraph.AllToAll:
		connectAllToAll(consumer.taskVertices, result)
	case jobgraph.Pointwise:
		connectPointwise(consumer.taskVertices, result)
	default:
		// jobgraph.Validate rejects unknown patterns before we get here.
		panic(fmt.Sprintf("executiongraph: unknown distribution pattern %s", pattern))
	}
}

// connectAllToAll makes every consumer subtask read every partition.
//
// A naive graph would hold one edge per (producer, consumer) pair: for two
// vertices of parallelism 10,000 that is 100,000,000 edges (Flink 1.12's
// ExecutionEdges). Since all consumers read the same partitions, one
// ConsumedPartitionGroup with all partitions is shared by all consumers,
// and one ConsumerVertexGroup with all consumers is shared by all
// partitions: 2 groups and 2n pointers instead of n² edges.
func connectAllToAll(taskVertices []*ExecutionVertex, result *IntermediateResult) {
	partitionIDs := make([]api.IntermediateResultPartitionID, len(result.partitions))
	for i, partition := range result.partitions {
		partitionIDs[i] = partition.id
	}
	consumedPartitions := newConsumedPartitionGroup(result, partitionIDs)
	for _, ev := range taskVertices {
		ev.addConsumedPartitionGroup(consumedPartitions)
	}

	vertexIDs := make([]api.ExecutionVertexID, len(taskVertices))
	for i, ev := range taskVertices {
		vertexIDs[i] = ev.id
	}
	consumers := newConsumerVertexGroup(vertexIDs)
	for _, partition := range result.partitions {
		partition.addConsumers(consumers)
	}

	pairGroups(consumedPartitions, consumers)
}

// connectPointwise connects each consumer subtask to a contiguous range of
// partitions, spreading the work as evenly as integer division allows.
// With sourceCount partitions and targetCount consumer subtasks:
//
//   - sourceCount == targetCount: consumer i reads partition i.
//
//   - sourceCount > targetCount (fan-in): consumer i reads partitions
//     [i*sourceCount/targetCount, (i+1)*sourceCount/targetCount).
//     4 → 2: consumer 0 reads partitions 0,1 and consumer 1 reads 2,3.
//
//   - sourceCount < targetCount (fan-out): partition i is read by consumers
//     [ceil(i*targetCount/sourceCount), ceil((i+1)*targetCount/sourceCount)).
//     2 → 4: partition 0 is read by consumers 0,1 and partition 1 by 2,3;
//     3 → 7: partition 0 by 0,1,2; partition 1 by 3,4; partition 2 by 5,6.
//
// Every range gets one ConsumedPartitionGroup and one ConsumerVertexGroup,
// paired with each other.
//
// Step m4: the JobMaster builds the ExecutionGraph; this decides which
// partitions each subtask of a POINTWISE edge reads.
func connectPointwise(taskVertices []*ExecutionVertex, result *IntermediateResult) {
	sourceCount := len(result.partitions)
	targetCount := len(taskVertices)

	switch {
	case sourceCount == targetCount:
		for i := range targetCount {
			connectRange(result, i, i+1, taskVertices[i:i+1])
		}

	case sourceCount > targetCount:
		for index := range targetCount {
			start := index * sourceCount / targetCount
			end := (index + 1) * sourceCount / targetCount
			connectRange(result, start, end, taskVertices[index:index+1])
		}

	default: // sourceCount < targetCount
		for partitionNum := range sourceCount {
			// (a + b - 1) / b is ceil(a / b) in integer arithmetic.
			start := (partitionNum*targetCount + sourceCount - 1) / sourceCount
			end := ((partitionNum+1)*targetCount + sourceCount - 1) / sourceCount
			connectRange(result, partitionNum, partitionNum+1, taskVertices[start:end])
		}
	}
}

// connectRange makes every subtask in consumers read the partitions
// [start, end) of result, through one pair of groups.
func connectRange(result *IntermediateResult, start, end int, consumers []*ExecutionVertex) {
	partitionIDs := make([]api.IntermediateResultPartitionID, 0, end-start)
	for _, partition := range result.partitions[start:end] {
		partitionIDs = append(partitionIDs, partition.id)
	}
	consumedPartitions := newConsumedPartitionGroup(result, partitionIDs)

	vertexIDs := make([]api.ExecutionVertexID, 0, len(consumers))
	for _, ev := range consumers {
		vertexIDs = append(vertexIDs, ev.id)
		ev.addConsumedPartitionGroup(consumedPartitions)
	}
	consumerVertices := newConsumerVertexGroup(vertexIDs)
	for _, partition := range result.partitions[start:end] {
		partition.addConsumers(consumerVertices)
	}

	pairGroups(consumedPartitions, consumerVertices)
}
