package pipelines_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/pipelines"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
)

// TestPlan: two vertices joined by a forward (POINTWISE, pipelined)
// exchange, so p regions of two subtasks each.
func TestPlan(t *testing.T) {
	sg, err := streaming.PlanProgram(pipelines.ProgramClass, nil, 4)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	require.NoError(t, jg.Validate())
	assert.Equal(t, pipelines.JobName, jg.Name)
	vertices := jg.Vertices()
	require.Len(t, vertices, 2)
	assert.Equal(t, "Source: numbers", vertices[0].Name)
	assert.Equal(t, "work -> Sink: print-sink", vertices[1].Name)
	edge := vertices[1].Inputs()[0]
	assert.Equal(t, jobgraph.Pointwise, edge.DistributionPattern)
	assert.Equal(t, "FORWARD", edge.ShipStrategyName)
	assert.True(t, edge.Source.ResultType.IsPipelined())

	graph, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	regions := graph.PipelinedRegions()
	require.Len(t, regions, 4)
	for i, region := range regions {
		require.Len(t, region.Vertices, 2)
		for _, ev := range region.Vertices {
			assert.Equal(t, i, ev.SubtaskIndex(), "region %d holds pipeline %d", i, i)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{"--rate", "-1"}, {"--count", "0"}, {"--output", "file"}, {"stray"}, {"--unknown"}} {
		_, err := streaming.PlanProgram(pipelines.ProgramClass, args, 1)
		assert.Error(t, err, "%q", args)
	}
}
