package diagrams

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// TestRunAdaptive runs the ticker on the AdaptiveScheduler as RunAdaptive
// tells, and reads from its log the path the package doc of
// runtime/scheduler/adaptive describes: it waits out the stabilization
// timeout with the 2 slots there are and runs at parallelism 2; a second
// TaskManager's slots make it restart at 4; cancelled, it ends CANCELED.
//
// It runs in a synctest bubble: the cluster's clock moves only when every
// goroutine waits, so the new TaskManager's two slots have always arrived
// before scaling-interval.min is over, however loaded the machine.
func TestRunAdaptive(t *testing.T) {
	synctest.Test(t, testRunAdaptive)
}

func testRunAdaptive(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := RunAdaptive(ctx)
	require.NoError(t, err)

	var path []string
	for _, tr := range run.Transitions {
		path = append(path, tr.From+" → "+tr.To)
	}
	assert.Equal(t, []string{
		"Created → WaitingForResources",
		"WaitingForResources → CreatingExecutionGraph",
		"CreatingExecutionGraph → Executing",
		"Executing → Restarting",
		"Restarting → WaitingForResources",
		"WaitingForResources → CreatingExecutionGraph",
		"CreatingExecutionGraph → Executing",
		"Executing → Canceling",
		"Canceling → Finished",
	}, path)
	assert.Equal(t, []int{2, 4}, run.Parallelism)
	assert.Equal(t, api.JobCanceled, run.Final)
	waited := run.Transitions[1].At.Sub(run.Transitions[0].At)
	assert.GreaterOrEqual(t, waited, AdaptiveSettings().ResourceStabilizationTimeout, "it waited for more slots before it ran with 2")

	files := run.Files()
	assert.Contains(t, string(files[AdaptiveFile+".dot"]), "ran at 2 then 4, CANCELED")
	assert.True(t, strings.HasPrefix(string(files[AdaptiveFile+".mmd"]), "stateDiagram-v2\n"))
}
