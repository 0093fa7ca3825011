package explain_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/shapes"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/explain"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The decisions for the lesson's three programs are Flink's for the same
// programs; each golden file is read against the package doc of its
// program, which gives Flink's reasoning (runtime/examples/shapes,
// runtime/examples/wordcount):
//
//   - wordcount: the source chains to the tokenizer, keyBy's HASH edge
//     ends the chain, the sink chains to the counter; two vertices, one
//     ALL_TO_ALL edge through one ConsumedPartitionGroup shared by every
//     consumer; one pipelined region, as for every streaming job with an
//     ALL_TO_ALL edge;
//   - chains: HEAD (startNewChain), NEVER (disableChaining) and another
//     slot sharing group each end a chain; two groups need 2p slots; its
//     edges are all FORWARD, so each subtask index is a region of its own;
//   - fanout: RESCALE 4 → 2 gives each consumer two partitions, 2 → 4
//     gives each partition two consumers, BROADCAST is ALL_TO_ALL and
//     makes the whole job one region.
func TestExplainGivesFlinksDecisions(t *testing.T) {
	for _, tt := range []struct {
		program     string
		parallelism int
	}{
		{wordcount.ProgramClass, 2},
		{shapes.ChainsProgramClass, 2},
		{shapes.FanOutProgramClass, 0}, // its own parallelisms
	} {
		t.Run(tt.program, func(t *testing.T) {
			streamGraph, err := streaming.PlanProgram(tt.program, nil, tt.parallelism)
			require.NoError(t, err)
			jobGraph, err := streamGraph.JobGraph()
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, explain.Write(&out, streamGraph, jobGraph))

			golden := filepath.Join("testdata", tt.program+".txt")
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./tools/graphs/explain -update writes it")
			assert.Equal(t, string(want), out.String())
		})
	}
}

// A JobGraph that does not come from the StreamGraph beside it cannot be
// explained by it: Write says so instead of guessing.
func TestExplainRefusesAJobGraphOfAnotherProgram(t *testing.T) {
	chains, err := streaming.PlanProgram(shapes.ChainsProgramClass, nil, 2)
	require.NoError(t, err)
	fanout, err := streaming.PlanProgram(shapes.FanOutProgramClass, nil, 0)
	require.NoError(t, err)
	jobGraph, err := fanout.JobGraph()
	require.NoError(t, err)
	err = explain.Write(&bytes.Buffer{}, chains, jobGraph)
	assert.ErrorContains(t, err, "the StreamGraph has no edge")
}
