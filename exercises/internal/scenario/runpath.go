package scenario

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/rpc"
	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/runpath"
)

// RecordRunPaths records, from now until the test ends, the causal stack
// of every hand-over in the process (rpc.RecordCauses). When the test
// ends, it writes to the test's log the ways the run took from the
// reading exercise's first function to its last, one line each
// (runpath.Prefix): `go run ./tools/learn check` accepts a chain only if
// the run took it. The exercise is the one whose exercise.yaml sits in
// the test's folder. Call it before the cluster starts, so that the
// recording sees the cluster's first messages.
func RecordRunPaths(t *testing.T) {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	e, err := exercise.LoadFile(filepath.Join(dir, "..", ".."), filepath.Join(dir, "exercise.yaml"))
	require.NoError(t, err)
	require.NotNil(t, e.Reading, "%s is not a reading exercise", e.ID)

	recording := rpc.RecordCauses()
	t.Cleanup(func() {
		var all []runpath.Path
		for _, stack := range recording.Stop() {
			var p runpath.Path
			for i, f := range stack {
				p.Frames = append(p.Frames, f.Function)
				if f.HandedOver {
					p.Handovers = append(p.Handovers, i)
				}
			}
			all = append(all, p)
		}
		paths := runpath.Between(all, e.Reading.From, e.Reading.To)
		require.NotEmpty(t, paths, "the run never went from %s to %s", e.Reading.From, e.Reading.To)
		for _, p := range paths {
			t.Log(p.Line())
		}
	})
}
