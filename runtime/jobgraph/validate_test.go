package jobgraph

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validGraph returns source(4) →ALL_TO_ALL→ map(4) →POINTWISE→ sink(2).
func validGraph() (g *JobGraph, source, mapper, sink *JobVertex) {
	source, mapper, sink = vertex("Source", 4), vertex("Map", 4), vertex("Sink", 2)
	mapper.ConnectNewDataSetAsInput(source, AllToAll, PipelinedBounded).ShipStrategyName = "HASH"
	sink.ConnectNewDataSetAsInput(mapper, Pointwise, Blocking).ShipStrategyName = "RESCALE"
	return graphOf(source, mapper, sink), source, mapper, sink
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		build func() *JobGraph
		want  string // a fragment of the message; "" for a valid graph
	}{
		{
			name:  "valid graph",
			build: func() *JobGraph { g, _, _, _ := validGraph(); return g },
		},
		{
			name: "max parallelism equal to parallelism",
			build: func() *JobGraph {
				g, source, _, _ := validGraph()
				source.MaxParallelism = 4
				return g
			},
		},
		{
			name: "max parallelism at the upper bound",
			build: func() *JobGraph {
				g, source, _, _ := validGraph()
				source.MaxParallelism = UpperBoundMaxParallelism
				return g
			},
		},
		{
			name:  "empty graph",
			build: func() *JobGraph { return New("empty") },
			want:  "The given job is empty",
		},
		{
			name: "vertex without invokable",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.InvokableClassName = ""
				return g
			},
			want: "has no invokable class.",
		},
		{
			name: "parallelism zero",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.Parallelism = 0
				return g
			},
			want: "The parallelism must be at least one, found 0.",
		},
		{
			name: "negative parallelism",
			build: func() *JobGraph {
				g, _, _, sink := validGraph()
				sink.Parallelism = -1
				return g
			},
			want: "The parallelism must be at least one, found -1.",
		},
		{
			// As in Flink, the client and the Dispatcher accept it; the
			// JobMaster fails to build the ExecutionGraph (see
			// failover.JobException).
			name: "parallelism above the max parallelism",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.MaxParallelism = 2
				return g
			},
		},
		{
			name: "parallelism above the default max parallelism",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.Parallelism = UpperBoundMaxParallelism + 1
				return g
			},
		},
		{
			name: "max parallelism above the upper bound",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.MaxParallelism = UpperBoundMaxParallelism + 1
				return g
			},
			want: "Maximum parallelism must be between 1 and 32768. Found: 32769",
		},
		{
			name: "negative max parallelism",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.MaxParallelism = -5
				return g
			},
			want: "Maximum parallelism must be between 1 and 32768. Found: -5",
		},
		{
			name: "edge from a vertex outside the graph",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				outsider := vertex("Outsider", 1)
				mapper.ConnectNewDataSetAsInput(outsider, Pointwise, PipelinedBounded)
				return g
			},
			want: "The edge Outsider -> Map (POINTWISE) is dangling: its source vertex Outsider (",
		},
		{
			name: "edge to a vertex outside the graph",
			build: func() *JobGraph {
				g, _, _, sink := validGraph()
				outsider := vertex("Outsider", 1)
				outsider.ConnectNewDataSetAsInput(sink, AllToAll, PipelinedBounded)
				return g
			},
			want: "The edge Sink -> Outsider (ALL_TO_ALL) is dangling: its target vertex Outsider (",
		},
		{
			name: "edge to a copy of a vertex with the same ID",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				impostor := *mapper
				impostor.ConnectNewDataSetAsInput(mapper, Pointwise, PipelinedBounded)
				return g
			},
			want: "is dangling: its target vertex Map (",
		},
		{
			name: "edge without a source",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.Inputs()[0].Source = nil
				return g
			},
			want: "input 0 of vertex Map (",
		},
		{
			name: "unknown distribution pattern",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				mapper.Inputs()[0].DistributionPattern = DistributionPattern(9)
				return g
			},
			want: "The edge Source -> Map (DistributionPattern(9)) has an unknown distribution pattern.",
		},
		{
			name: "unknown result type",
			build: func() *JobGraph {
				g, source, _, _ := validGraph()
				source.ProducedDataSets()[0].ResultType = ResultPartitionType(5)
				return g
			},
			want: "has an unknown result type ResultPartitionType(5)",
		},
		{
			name: "cycle",
			build: func() *JobGraph {
				g, source, _, sink := validGraph()
				source.ConnectNewDataSetAsInput(sink, Pointwise, PipelinedBounded)
				return g
			},
			want: "The job graph is cyclic.",
		},
		{
			name: "two vertices with the same ID",
			build: func() *JobGraph {
				g, _, mapper, _ := validGraph()
				twin := vertex("Twin", 1)
				twin.ID = mapper.ID
				g.AddVertex(twin)
				return g
			},
			want: `The JobGraph already contains a vertex with that id: "Map" and "Twin" both have ID`,
		},
		{
			name: "two data sets with the same ID",
			build: func() *JobGraph {
				g, source, mapper, _ := validGraph()
				mapper.ProducedDataSets()[0].ID = source.ProducedDataSets()[0].ID
				return g
			},
			want: `The intermediate data sets produced by "Source" and "Map" both have ID`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.build().Validate()

			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidJobGraph), "got %v, want it to wrap ErrInvalidJobGraph", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestValidateNamesTheVertexWithoutInvokable(t *testing.T) {
	g, _, mapper, _ := validGraph()
	mapper.InvokableClassName = ""

	err := g.Validate()

	want := "invalid job graph: The vertex " + mapper.ID.String() + " (Map) has no invokable class."
	assert.EqualError(t, err, want)
}

func TestValidateRejectsSecondConsumerOfADataSet(t *testing.T) {
	g, source, _, _ := validGraph()
	other := vertex("Other", 4)
	g.AddVertex(other)
	// Only a hand-made or decoded graph can do this; ConnectNewDataSetAsInput
	// always makes a new data set.
	other.addInput(&JobEdge{Source: source.ProducedDataSets()[0], Target: other, DistributionPattern: AllToAll})

	err := g.Validate()

	require.ErrorIs(t, err, ErrInvalidJobGraph)
	assert.Contains(t, err.Error(), "has 2 consumers; a data set may have at most one")
}
