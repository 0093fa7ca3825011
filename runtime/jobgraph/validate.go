package jobgraph

import (
	"errors"
	"fmt"

	"flinklab/runtime/api"
)

// ErrInvalidJobGraph is wrapped by every error Validate and Decode return.
// The Dispatcher rejects a submission that fails with it (step m3), the
// way Flink answers with a JobSubmissionException. It may cross processes
// (package gateway registers it for the wire).
var ErrInvalidJobGraph = errors.New("invalid job graph")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidJobGraph}, args...)...)
}

// Validate checks that the graph can be turned into an ExecutionGraph and
// returns the first problem, wrapping ErrInvalidJobGraph, in Flink's words
// where Flink has some. It checks, in this order:
//
//   - the graph has at least one vertex ("The given job is empty");
//   - no two vertices share an ID, and no two data sets share an ID;
//   - every vertex has an invokable class, a parallelism of at least one,
//     and a max parallelism (if set) between 1 and 32768;
//   - the vertices of a co-location group share a slot sharing group, and
//     each group's resources are used and well formed (validateSlotSharing);
//   - every edge is whole and known: a source data set with a producer, a
//     target, a known pattern and result type, and both vertices in this
//     graph (an edge to or from a vertex never added is "dangling");
//   - every data set has at most one consumer;
//   - the graph has no cycle ("The job graph is cyclic.").
//
// In Flink these checks are spread over the Dispatcher, the JobVertex
// setters, JobMaster creation and DefaultExecutionGraphBuilder; here they
// run once, so a learner finds them together, all but a parallelism above
// the max parallelism: as in Flink, only the ExecutionGraph refuses it.
func (g *JobGraph) Validate() error {
	if g.IsEmpty() {
		return invalid("The given job is empty")
	}
	if err := g.validateIDs(); err != nil {
		return err
	}
	for _, v := range g.vertices {
		if err := validateVertex(v); err != nil {
			return err
		}
	}
	if err := g.validateSlotSharing(); err != nil {
		return err
	}
	for _, v := range g.vertices {
		if err := g.validateInputs(v); err != nil {
			return err
		}
	}
	for _, v := range g.vertices {
		if err := g.validateProducedDataSets(v); err != nil {
			return err
		}
	}
	if _, err := g.VerticesSortedTopologicallyFromSources(); err != nil {
		return err
	}
	return nil
}

// validateIDs rejects reused vertex or data set IDs.
func (g *JobGraph) validateIDs() error {
	vertices := make(map[api.JobVertexID]*JobVertex, len(g.vertices))
	producers := make(map[api.IntermediateDataSetID]*JobVertex)
	for _, v := range g.vertices {
		if first, taken := vertices[v.ID]; taken {
			return invalid("The JobGraph already contains a vertex with that id: %q and %q both have ID %s.", first.Name, v.Name, v.ID)
		}
		vertices[v.ID] = v
		for _, ds := range v.producedDataSets {
			if first, taken := producers[ds.ID]; taken {
				return invalid("The intermediate data sets produced by %q and %q both have ID %s.", first.Name, v.Name, ds.ID)
			}
			producers[ds.ID] = v
		}
	}
	return nil
}

// validateVertex checks the settings of one vertex. A parallelism above the
// max parallelism is the ExecutionGraph's to refuse: as in Flink, the
// client and the Dispatcher accept such a job, and the JobMaster fails to
// build it (failover.JobException, Flink's JobException), so the
// job ends FAILED during initialization.
func validateVertex(v *JobVertex) error {
	if v.InvokableClassName == "" {
		return invalid("The vertex %s (%s) has no invokable class.", v.ID, v.Name)
	}
	if v.Parallelism < 1 {
		return invalid("vertex %s: The parallelism must be at least one, found %d.", v, v.Parallelism)
	}
	if v.MaxParallelism != 0 && (v.MaxParallelism < 1 || v.MaxParallelism > UpperBoundMaxParallelism) {
		return invalid("vertex %s: Maximum parallelism must be between 1 and %d. Found: %d",
			v, UpperBoundMaxParallelism, v.MaxParallelism)
	}
	return nil
}

// validateInputs checks the edges v reads.
func (g *JobGraph) validateInputs(v *JobVertex) error {
	for i, edge := range v.inputs {
		if edge.Source == nil || edge.Source.Producer == nil {
			return invalid("input %d of vertex %s has no source data set with a producer", i, v)
		}
		if edge.Target != v {
			return invalid("input %d of vertex %s has another target vertex: %v", i, v, edge.Target)
		}
		if err := g.validateEdge(edge); err != nil {
			return err
		}
	}
	return nil
}

// validateProducedDataSets checks the data sets v produces and the edges
// that read them.
func (g *JobGraph) validateProducedDataSets(v *JobVertex) error {
	for _, ds := range v.producedDataSets {
		if ds.Producer != v {
			return invalid("vertex %s lists data set %s, which names another producer: %v", v, ds.ID, ds.Producer)
		}
		if !ds.ResultType.isKnown() {
			return invalid("data set %s of vertex %s has an unknown result type %s", ds.ID, v, ds.ResultType)
		}
		if len(ds.consumers) > 1 {
			return invalid("data set %s of vertex %s has %d consumers; a data set may have at most one", ds.ID, v, len(ds.consumers))
		}
		for _, edge := range ds.consumers {
			if edge.Source != ds || edge.Target == nil {
				return invalid("a consumer of data set %s of vertex %s does not read it or has no target", ds.ID, v)
			}
			if err := g.validateEdge(edge); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateEdge checks that both vertices of a whole edge belong to the graph
// and that its pattern is known.
func (g *JobGraph) validateEdge(edge *JobEdge) error {
	source, target := edge.Source.Producer, edge.Target
	if !g.contains(source) {
		return invalid("The edge %s is dangling: its source vertex %s is not part of the job graph.", edge, source)
	}
	if !g.contains(target) {
		return invalid("The edge %s is dangling: its target vertex %s is not part of the job graph.", edge, target)
	}
	if !edge.DistributionPattern.isKnown() {
		return invalid("The edge %s has an unknown distribution pattern.", edge)
	}
	return nil
}
