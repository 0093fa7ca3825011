package client

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/streaming"
)

func init() {
	streaming.RegisterProgram("client-test.identity", func(env *streaming.StreamExecutionEnvironment, _ []string) error {
		streaming.FromElements(env, 1, 2, 3).Print()
		return env.Execute("identity")
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
