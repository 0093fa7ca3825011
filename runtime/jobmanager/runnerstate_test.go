package jobmanager

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/jobgraph"
)

var allRunnerStates = []runnerState{runnerRunning, runnerStopped, runnerJobCompleted}

func TestRunnerStateNamesAndOrderAreFlinks(t *testing.T) {
	want := []string{"RUNNING", "STOPPED", "JOB_COMPLETED"}
	for i, s := range allRunnerStates {
		assert.Equal(t, i, int(s), "%s is declared at position %d in Flink", want[i], i)
		assert.Equal(t, want[i], s.String())
		assert.Equal(t, s == runnerStopped, s.IsTerminal(), "%s", s)
	}
	assert.Equal(t, "runnerState(7)", runnerState(7).String())
}

// Every pair of states is either a legal move, made by what is named
// here, or refused with a panic: an illegal move is a broken invariant.
func TestRunnerTransitions(t *testing.T) {
	allowed := map[[2]runnerState]string{
		{runnerRunning, runnerJobCompleted}: "the first result (complete)",
		{runnerRunning, runnerStopped}:      "Close before any result",
		{runnerJobCompleted, runnerStopped}: "Close after the result",
	}
	for _, from := range allRunnerStates {
		for _, to := range allRunnerStates {
			by, legal := allowed[[2]runnerState{from, to}]
			t.Run(fmt.Sprintf("%s→%s", from, to), func(t *testing.T) {
				r := &JobMasterServiceLeadershipRunner{cfg: RunnerConfig{JobGraph: jobgraph.New("WordCount")}, state: from}
				if !legal {
					assert.PanicsWithValue(t,
						fmt.Sprintf("JobMasterServiceLeadershipRunner for job %s may not switch from state %s to %s", r.JobID(), from, to),
						func() { r.transitionToLocked(to) })
					assert.Equal(t, from, r.state, "a refused move changes nothing")
					return
				}
				assert.NotPanics(t, func() { r.transitionToLocked(to) }, "made by %s", by)
				assert.Equal(t, to, r.state)
			})
		}
	}
}
