package explain_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/pipelines"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/explain"
	"flinklab/tools/graphs/regions"
)

// The regions and failovers the diagrams draw, each read against the
// package doc of package regions:
//
//   - pipelines at parallelism 4: forward exchanges only, so 4 regions of
//     one pipeline each; a failed "work" subtask restarts its own
//     pipeline, and the other three keep running;
//   - wordcount in BATCH at parallelism 2: the keyBy exchange is
//     BLOCKING, so every subtask is a region; a failed source subtask
//     restarts itself and both counters, which read its result, while the
//     other source keeps its finished result;
//   - wordcount streaming at parallelism 2, nothing failed: one region.
func TestExplainRegions(t *testing.T) {
	for _, tt := range []struct {
		golden  string
		program string
		args    []string
		p       int
		failed  string
	}{
		{"pipelines-regions.txt", pipelines.ProgramClass, nil, 4, "work -> Sink: print-sink (2/4)"},
		{"wordcount-batch-regions.txt", wordcount.ProgramClass, []string{"--execution-mode", "BATCH"}, 2, "Source: file-input -> tokenizer (1/2)"},
		{"wordcount-regions.txt", wordcount.ProgramClass, nil, 2, ""},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			streamGraph, err := streaming.PlanProgram(tt.program, tt.args, tt.p)
			require.NoError(t, err)
			jobGraph, err := streamGraph.JobGraph()
			require.NoError(t, err)
			job, err := regions.Of(jobGraph)
			if tt.failed != "" {
				job, err = regions.Fail(jobGraph, tt.failed)
			}
			require.NoError(t, err)
			var out bytes.Buffer
			explain.WriteRegions(&out, job)

			golden := filepath.Join("testdata", tt.golden)
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./tools/graphs/explain -update writes it")
			assert.Equal(t, string(want), out.String())
		})
	}
}
