package jobgraph

import "fmt"

// JobEdge connects an IntermediateDataSet to the JobVertex that reads it,
// and says how the two sides' subtasks are wired (DistributionPattern). It
// mirrors Flink's org.apache.flink.runtime.jobgraph.JobEdge.
//
// The edge points from data to consumer. The producing vertex is reached
// through Source.Producer:
//
//	Source.Producer ──► Source (IntermediateDataSet) ──► JobEdge ──► Target
type JobEdge struct {
	// Source is the data set the edge reads.
	Source *IntermediateDataSet
	// Target is the vertex that reads it.
	Target *JobVertex
	// DistributionPattern wires producer subtasks to consumer subtasks.
	DistributionPattern DistributionPattern
	// ShipStrategyName names the partitioner for display only, e.g.
	// "FORWARD", "HASH", "REBALANCE". The runtime does not read it.
	ShipStrategyName string
}

// String describes the edge as "Source -> Target (PATTERN)".
func (e *JobEdge) String() string {
	source := "<nil>"
	if e.Source != nil && e.Source.Producer != nil {
		source = e.Source.Producer.Name
	}
	target := "<nil>"
	if e.Target != nil {
		target = e.Target.Name
	}
	return fmt.Sprintf("%s -> %s (%s)", source, target, e.DistributionPattern)
}
