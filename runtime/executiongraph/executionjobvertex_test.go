package executiongraph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

func TestAggregateState(t *testing.T) {
	const (
		created      = api.ExecutionCreated
		scheduled    = api.ExecutionScheduled
		deploying    = api.ExecutionDeploying
		initializing = api.ExecutionInitializing
		running      = api.ExecutionRunning
		finished     = api.ExecutionFinished
		canceling    = api.ExecutionCanceling
		canceled     = api.ExecutionCanceled
		failed       = api.ExecutionFailed
	)
	tests := []struct {
		name   string
		states [4]api.ExecutionState // of the four Map subtasks
		want   api.ExecutionState
	}{
		{"all created", [4]api.ExecutionState{created, created, created, created}, created},
		{"scheduling collapses into created", [4]api.ExecutionState{scheduled, deploying, created, created}, created},
		{"one initializing", [4]api.ExecutionState{deploying, initializing, scheduled, created}, initializing},
		{"initializing beats running", [4]api.ExecutionState{running, deploying, created, initializing}, initializing},
		{"running beats deploying", [4]api.ExecutionState{running, deploying, running, scheduled}, running},
		{"some finished", [4]api.ExecutionState{finished, finished, created, finished}, running},
		{"all finished", [4]api.ExecutionState{finished, finished, finished, finished}, finished},
		{"one canceled", [4]api.ExecutionState{running, canceled, running, finished}, canceled},
		{"canceling beats canceled", [4]api.ExecutionState{canceled, canceling, running, running}, canceling},
		{"failed beats everything", [4]api.ExecutionState{canceling, canceled, failed, finished}, failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, g := buildPipeline(t)
			ejv := g.JobVertex(p.map_.ID)
			for i, ev := range ejv.TaskVertices() {
				driveTo(t, ev.CurrentExecution(), tt.states[i])
			}

			assert.Equal(t, tt.want, ejv.AggregateState())
		})
	}
}

// driveTo moves a fresh attempt to state along a legal path.
func driveTo(t *testing.T, e *Execution, state api.ExecutionState) {
	t.Helper()
	paths := map[api.ExecutionState][]api.ExecutionState{
		api.ExecutionCreated:      {},
		api.ExecutionScheduled:    {api.ExecutionScheduled},
		api.ExecutionDeploying:    {api.ExecutionScheduled, api.ExecutionDeploying},
		api.ExecutionInitializing: {api.ExecutionScheduled, api.ExecutionDeploying, api.ExecutionInitializing},
		api.ExecutionRunning:      {api.ExecutionScheduled, api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning},
		api.ExecutionFinished:     {api.ExecutionScheduled, api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished},
		api.ExecutionCanceling:    {api.ExecutionScheduled, api.ExecutionDeploying, api.ExecutionCanceling},
		api.ExecutionCanceled:     {api.ExecutionCanceling, api.ExecutionCanceled},
		api.ExecutionFailed:       {api.ExecutionFailed},
	}
	path, ok := paths[state]
	require.True(t, ok, "no path to %s", state)
	for _, to := range path {
		require.NoError(t, e.TransitionState(to))
	}
}

func TestSlotSharingGroup(t *testing.T) {
	p := newPipeline()
	p.source.SlotSharingGroup = "default"
	p.map_.SlotSharingGroup = "default"

	g, err := BuildGraph(p.jg)
	require.NoError(t, err)

	assert.Equal(t, "default", g.JobVertex(p.source.ID).SlotSharingGroup())
	assert.Equal(t, "default", g.JobVertex(p.map_.ID).SlotSharingGroup())
	assert.Equal(t, "", g.JobVertex(p.sink.ID).SlotSharingGroup(), "a group of its own")
}
