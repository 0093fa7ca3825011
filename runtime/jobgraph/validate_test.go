package jobgraph

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
)

// validGraph returns source(4) →ALL_TO_ALL→ map(4) →POINTWISE→ sink(2).
func validGraph() (g *JobGraph, source, mapper, sink *JobVertex) {
	source, mapper, sink = vertex("Source", 4), vertex("Map", 4), vertex("Sink", 2)
	mapper.ConnectNewDataSetAsInput(source, AllToAll, PipelinedBounded).ShipStrategyName = "HASH"
	sink.ConnectNewDataSetAsInput(mapper, Pointwise, Blocking).ShipStrategyName = "RESCALE"
	return graphOf(source, mapper, sink), source, mapper, sink
}

// coLocatedGraph is validGraph with the source and the map in the slot
// sharing group "default" and the sink in "output".
func coLocatedGraph() (g *JobGraph, source, mapper, sink *JobVertex) {
	g, source, mapper, sink = validGraph()
	source.SlotSharingGroup, mapper.SlotSharingGroup, sink.SlotSharingGroup = "default", "default", "output"
	return g, source, mapper, sink
}

// resources returns a profile of cpu cores and the memory amounts in MiB.
func resources(cpu float64, heapMiB, offHeapMiB, managedMiB, networkMiB int64) api.ResourceProfile {
	return api.NewResourceProfile(cpu, configuration.OfMebiBytes(heapMiB), configuration.OfMebiBytes(offHeapMiB),
		configuration.OfMebiBytes(managedMiB), configuration.OfMebiBytes(networkMiB))
}

// withOutputResources builds coLocatedGraph with profile as the resources
// of "output".
func withOutputResources(profile api.ResourceProfile) func() *JobGraph {
	return func() *JobGraph {
		g, _, _, _ := coLocatedGraph()
		g.SlotSharingGroupResources = map[string]api.ResourceProfile{"output": profile}
		return g
	}
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
		{
			name: "co-location group within a slot sharing group",
			build: func() *JobGraph {
				g, source, mapper, _ := coLocatedGraph()
				source.CoLocationGroup, mapper.CoLocationGroup = "pair", "pair"
				return g
			},
		},
		{
			name: "co-location group without a slot sharing group",
			build: func() *JobGraph {
				g, _, _, sink := coLocatedGraph()
				sink.SlotSharingGroup, sink.CoLocationGroup = "", "alone"
				return g
			},
			want: `in co-location group "alone": Cannot use a co-location constraint without a slot sharing group`,
		},
		{
			name: "co-location group across slot sharing groups",
			build: func() *JobGraph {
				g, _, mapper, sink := coLocatedGraph()
				mapper.CoLocationGroup, sink.CoLocationGroup = "pair", "pair"
				return g
			},
			want: `co-location group "pair": Cannot co-locate operators from different slot sharing groups: vertex Map (`,
		},
		{
			name: "resources of a slot sharing group",
			build: func() *JobGraph {
				g, _, _, _ := coLocatedGraph()
				g.SlotSharingGroupResources = map[string]api.ResourceProfile{"output": resources(0.25, 64, 0, 32, 0)}
				return g
			},
		},
		{
			name: "unknown resources of a slot sharing group",
			build: func() *JobGraph {
				g, _, _, _ := coLocatedGraph()
				g.SlotSharingGroupResources = map[string]api.ResourceProfile{"default": api.UnknownResourceProfile}
				return g
			},
		},
		{
			name: "resources of a group no vertex is in",
			build: func() *JobGraph {
				g, _, _, _ := coLocatedGraph()
				g.SlotSharingGroupResources = map[string]api.ResourceProfile{"output": resources(1, 64, 0, 0, 0), "ghost": resources(1, 64, 0, 0, 0)}
				return g
			},
			want: `slot sharing group "ghost" has resources ` + resources(1, 64, 0, 0, 0).String() + `, but no vertex is in it`,
		},
		{
			name: "resources of the empty group name",
			build: func() *JobGraph {
				g, _, _, _ := validGraph()
				g.SlotSharingGroupResources = map[string]api.ResourceProfile{"": resources(1, 64, 0, 0, 0)}
				return g
			},
			want: `slot sharing group "" has resources`,
		},
		{
			name:  "resources without cpu cores",
			build: withOutputResources(resources(0, 64, 0, 0, 0)),
			want:  `slot sharing group "output" has resources ` + resources(0, 64, 0, 0, 0).String() + `: The cpu cores should be positive.`,
		},
		{
			name:  "zero resources",
			build: withOutputResources(api.ZeroResourceProfile),
			want:  "The cpu cores should be positive.",
		},
		{
			name:  "negative cpu cores",
			build: withOutputResources(resources(-1, 64, 0, 0, 0)),
			want:  "The cpu cores should be positive.",
		},
		{
			name:  "resources without task heap",
			build: withOutputResources(resources(1, 0, 0, 32, 0)),
			want:  "The task heap memory should be positive.",
		},
		{
			name:  "negative task off-heap memory",
			build: withOutputResources(resources(1, 64, -1, 0, 0)),
			want:  "The task off-heap memory should not be negative.",
		},
		{
			name:  "negative managed memory",
			build: withOutputResources(resources(1, 64, 0, -1, 0)),
			want:  "The managed memory should not be negative.",
		},
		{
			name:  "negative network memory",
			build: withOutputResources(resources(1, 64, 0, 0, -1)),
			want:  "The network memory should not be negative.",
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

// A group's resource profile is what the program gave it, and UNKNOWN
// (any slot will do) for a group without resources and for the empty name.
func TestSlotSharingGroupResourceProfile(t *testing.T) {
	g, _, _, _ := coLocatedGraph()
	assert.Equal(t, api.UnknownResourceProfile, g.SlotSharingGroupResourceProfile("output"), "no resources at all")

	g.SlotSharingGroupResources = map[string]api.ResourceProfile{"output": resources(0.25, 64, 0, 32, 0), "": resources(1, 1, 0, 0, 0)}

	assert.Equal(t, resources(0.25, 64, 0, 32, 0), g.SlotSharingGroupResourceProfile("output"))
	assert.Equal(t, api.UnknownResourceProfile, g.SlotSharingGroupResourceProfile("default"))
	assert.Equal(t, api.UnknownResourceProfile, g.SlotSharingGroupResourceProfile(""), "a vertex alone in its own group")
}
