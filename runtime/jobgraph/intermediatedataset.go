package jobgraph

import "flinklab/runtime/api"

// IntermediateDataSet is the output of a JobVertex as the JobGraph sees it:
// one logical data set, before it is split into one partition per producer
// subtask. It mirrors Flink's
// org.apache.flink.runtime.jobgraph.IntermediateDataSet.
//
// In the ExecutionGraph each data set becomes an IntermediateResult with
// one IntermediateResultPartition per subtask of the producer.
type IntermediateDataSet struct {
	// ID identifies the data set within its job.
	ID api.IntermediateDataSetID
	// Producer is the vertex that writes the data set.
	Producer *JobVertex
	// ResultType says whether consumers read the data set while it is
	// produced (PIPELINED_BOUNDED) or after (BLOCKING).
	ResultType ResultPartitionType

	consumers []*JobEdge
}

// Consumers returns the edges that read this data set. A data set made by
// ConnectNewDataSetAsInput has exactly one; a data set nobody reads has
// none. The slice belongs to the data set; do not modify it.
func (d *IntermediateDataSet) Consumers() []*JobEdge { return d.consumers }
