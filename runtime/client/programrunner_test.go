package client

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
)

func init() {
	streaming.RegisterProgram("client-test.identity", func(env *streaming.StreamExecutionEnvironment, _ []string) error {
		streaming.FromElements(env, 1, 2, 3).Print()
		return env.Execute("identity")
	})
	// rebalance reads its runtime mode from its one argument.
	streaming.RegisterProgram("client-test.rebalance", func(env *streaming.StreamExecutionEnvironment, args []string) error {
		mode, err := streaming.ParseRuntimeExecutionMode(args[0])
		if err != nil {
			return err
		}
		env.SetRuntimeMode(mode)
		streaming.FromElements(env, 1, 2, 3).Rebalance().Print()
		return env.Execute("rebalance")
	})
}

func TestStreamingProgramRunnerPlansTheJarsProgram(t *testing.T) {
	var jar bytes.Buffer
	require.NoError(t, WriteJar(&jar, "client-test.identity", nil))
	program, err := ReadPackagedProgram(jar.Bytes())
	require.NoError(t, err)

	g, err := StreamingProgramRunner{}.JobGraph(program, "", nil, 3)
	require.NoError(t, err)
	require.NoError(t, g.Validate())
	assert.Equal(t, 3, g.Vertices()[0].Parallelism)

	_, err = StreamingProgramRunner{}.JobGraph(program, "client-test.identity", nil, ParallelismDefault)
	assert.NoError(t, err, "naming the jar's own program is fine")

	_, err = StreamingProgramRunner{}.JobGraph(program, "wordcount", nil, ParallelismDefault)
	assert.True(t, errors.Is(err, streaming.ErrClassNotFound), "another program than the jar's: %v", err)
}

// The runner takes no execution.runtime-mode of its own, but a program
// that chooses BATCH gets its BLOCKING exchange through the jar-run path.
func TestStreamingProgramRunnerKeepsTheProgramsRuntimeMode(t *testing.T) {
	var jar bytes.Buffer
	require.NoError(t, WriteJar(&jar, "client-test.rebalance", nil))
	program, err := ReadPackagedProgram(jar.Bytes())
	require.NoError(t, err)

	for mode, want := range map[string]jobgraph.ResultPartitionType{
		"streaming": jobgraph.PipelinedBounded,
		"batch":     jobgraph.Blocking,
		"automatic": jobgraph.Blocking,
	} {
		g, err := StreamingProgramRunner{}.JobGraph(program, "", []string{mode}, 2)
		require.NoError(t, err, mode)
		require.Equal(t, 2, g.NumberOfVertices(), mode)
		assert.Equal(t, want, g.Vertices()[1].Inputs()[0].Source.ResultType, mode)
	}

	_, err = StreamingProgramRunner{}.JobGraph(program, "", []string{"bacth"}, 2)
	assert.ErrorIs(t, err, streaming.ErrUnknownRuntimeExecutionMode)
}
