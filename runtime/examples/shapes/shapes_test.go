package shapes_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/shapes"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// Both programs run to the end on a cluster with the slots they need, and
// their sinks get what their operators make of the numbers 0 … Count-1.
func TestTheProgramsRun(t *testing.T) {
	var chains []string // 2n, kept when a multiple of 4, squared
	for n := range int64(shapes.Count) {
		if 2*n%4 == 0 {
			chains = append(chains, fmt.Sprintf("n=%d", 2*n*2*n))
		}
	}
	var fanout []string // 2n, squared, broadcast to the 3 audit subtasks; and the late readings
	for n := range int64(shapes.Count) {
		for range 3 {
			fanout = append(fanout, fmt.Sprintf("n=%d", 2*n*2*n))
		}
		fanout = append(fanout, fmt.Sprintf("n=%d", n))
	}
	for _, tt := range []struct {
		program string
		want    []string
	}{
		{shapes.ChainsProgramClass, chains},
		{shapes.FanOutProgramClass, fanout},
	} {
		t.Run(tt.program, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plan, err := streaming.PlanProgram(tt.program, []string{"--output", shapes.OutputCollect}, 2)
				require.NoError(t, err)
				job, err := plan.JobGraph()
				require.NoError(t, err)
				slots, _ := job.SlotsNeeded()
				cluster, err := minicluster.New(minicluster.Config{
					NumTaskManagers: 1, NumSlotsPerTaskManager: slots,
					WorkingDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
				})
				require.NoError(t, err)
				require.NoError(t, cluster.Start())
				defer cluster.Close()
				shapes.Results.Clear()
				defer shapes.Results.Clear()

				var jar bytes.Buffer
				require.NoError(t, client.WriteJar(&jar, tt.program, nil))
				require.NoError(t, cluster.UploadJar(job, jar.Bytes()))
				jobID, err := cluster.SubmitJob(context.Background(), job)
				require.NoError(t, err)
				result, err := cluster.RequestJobResult(context.Background(), jobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)

				got := shapes.Results.Values()
				slices.Sort(got)
				want := slices.Clone(tt.want)
				slices.Sort(want)
				assert.Equal(t, want, got)
			})
		})
	}
}

func TestArguments(t *testing.T) {
	for _, program := range []string{shapes.ChainsProgramClass, shapes.FanOutProgramClass} {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"--output", "kafka"}, `--output "kafka": want "print" or "collect"`},
			{[]string{"--count", "3"}, "flag provided but not defined: -count"},
			{[]string{"now"}, `unexpected argument "now"`},
		} {
			_, err := streaming.PlanProgram(program, tt.args, 1)
			assert.ErrorContains(t, err, program+": "+tt.want, "%s %q", program, tt.args)
		}
	}
}
