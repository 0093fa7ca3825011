package executiongraph

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// mapSubtask returns subtask index of the Map vertex of a fresh pipeline.
func mapSubtask(t *testing.T, index int, opts ...Option) (*ExecutionGraph, *ExecutionVertex) {
	t.Helper()
	p, g := buildPipeline(t, opts...)
	return g, g.JobVertex(p.map_.ID).TaskVertices()[index]
}

func someSlot() AssignedSlot {
	return AssignedSlot{
		AllocationID:        api.NewAllocationID(),
		TaskManagerLocation: TaskManagerLocation{ResourceID: "taskexecutor-1", Address: "localhost:6122"},
	}
}

func TestNumExecutionStatesMatchesAPI(t *testing.T) {
	assert.Equal(t, len(api.ExecutionStates()), numExecutionStates)
}

func TestTaskNameWithSubtaskIndex(t *testing.T) {
	p, g := buildPipeline(t)
	tests := []struct {
		ev   *ExecutionVertex
		want string
	}{
		{g.JobVertex(p.map_.ID).TaskVertices()[0], "Map (1/4)"},
		{g.JobVertex(p.map_.ID).TaskVertices()[1], "Map (2/4)"},
		{g.JobVertex(p.map_.ID).TaskVertices()[3], "Map (4/4)"},
		{g.JobVertex(p.sink.ID).TaskVertices()[1], "Sink (2/2)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.ev.TaskNameWithSubtaskIndex())
	}
}

func TestExecutionAttemptID(t *testing.T) {
	g, ev := mapSubtask(t, 1)
	e := ev.CurrentExecution()

	want := api.ExecutionAttemptID{ExecutionGraphID: g.GraphID(), ExecutionVertexID: ev.ID(), AttemptNumber: 0}
	assert.Equal(t, want, e.AttemptID())
	assert.Equal(t, fmt.Sprintf("%s_%s_1_0", g.GraphID(), ev.ID().JobVertexID), e.AttemptID().String())
	assert.Equal(t, "Map (2/4)#0", e.VertexWithAttempt())
	assert.Equal(t, "Map (2/4)#0 ("+e.AttemptID().String()+")", e.String())

	// Two graphs of the same job give the same subtask different attempt IDs.
	p := newPipeline()
	g1, err := BuildGraph(p.jg)
	require.NoError(t, err)
	g2, err := BuildGraph(p.jg)
	require.NoError(t, err)
	id1 := g1.JobVertex(p.map_.ID).TaskVertices()[0].CurrentExecution().AttemptID()
	id2 := g2.JobVertex(p.map_.ID).TaskVertices()[0].CurrentExecution().AttemptID()
	assert.Equal(t, id1.ExecutionVertexID, id2.ExecutionVertexID)
	assert.NotEqual(t, id1, id2)
}

func TestExecutionTransitionState(t *testing.T) {
	clock := newFakeClock()
	_, ev := mapSubtask(t, 0, WithClock(clock.Now))
	e := ev.CurrentExecution()
	start := clock.Now()
	assert.Equal(t, start, e.StateTimestamp(api.ExecutionCreated))

	// The deployment path, one second per step.
	path := []api.ExecutionState{
		api.ExecutionScheduled, api.ExecutionDeploying, api.ExecutionInitializing,
		api.ExecutionRunning, api.ExecutionFinished,
	}
	for i, to := range path {
		clock.Advance(time.Second)
		require.NoError(t, e.TransitionState(to))
		assert.Equal(t, to, e.State())
		assert.Equal(t, to, ev.ExecutionState())
		assert.Equal(t, start.Add(time.Duration(i+1)*time.Second), e.StateTimestamp(to), "%s", to)
	}
	assert.True(t, e.StateTimestamp(api.ExecutionFailed).IsZero())
	assert.True(t, e.StateTimestamp(api.ExecutionState(42)).IsZero())
}

func TestExecutionTransitionStateRejectsIllegalMoves(t *testing.T) {
	tests := []struct {
		name string
		path []api.ExecutionState // moves made first, from CREATED
		to   api.ExecutionState
	}{
		{"skip scheduling", nil, api.ExecutionRunning},
		{"deploy without a slot request", nil, api.ExecutionDeploying},
		{"back to created", []api.ExecutionState{api.ExecutionScheduled}, api.ExecutionCreated},
		{"cancel a created attempt without CANCELING", nil, api.ExecutionCanceled},
		{"finish a scheduled attempt", []api.ExecutionState{api.ExecutionScheduled}, api.ExecutionFinished},
		{"leave FAILED", []api.ExecutionState{api.ExecutionFailed}, api.ExecutionRunning},
		{"fail twice", []api.ExecutionState{api.ExecutionFailed}, api.ExecutionFailed},
		{"leave FINISHED", []api.ExecutionState{
			api.ExecutionScheduled, api.ExecutionDeploying, api.ExecutionInitializing,
			api.ExecutionRunning, api.ExecutionFinished,
		}, api.ExecutionCanceling},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ev := mapSubtask(t, 1)
			e := ev.CurrentExecution()
			for _, to := range tt.path {
				require.NoError(t, e.TransitionState(to))
			}
			before := e.State()

			err := e.TransitionState(tt.to)

			require.ErrorIs(t, err, api.ErrIllegalTransition)
			assert.Contains(t, err.Error(), "Map (2/4)#0", "the error names the attempt")
			assert.Equal(t, before, e.State(), "a rejected move changes nothing")
		})
	}
}

func TestMarkFailed(t *testing.T) {
	_, ev := mapSubtask(t, 0)
	e := ev.CurrentExecution()
	require.NoError(t, e.TransitionState(api.ExecutionScheduled))
	assert.NoError(t, e.FailureCause())

	assert.Error(t, e.MarkFailed(nil), "a failure needs a cause")
	assert.Equal(t, api.ExecutionScheduled, e.State())

	cause := errors.New("open() threw: connection refused")
	require.NoError(t, e.MarkFailed(cause))
	assert.Equal(t, api.ExecutionFailed, e.State())
	assert.Same(t, cause, e.FailureCause())

	err := e.MarkFailed(errors.New("again"))
	assert.ErrorIs(t, err, api.ErrIllegalTransition)
	assert.Same(t, cause, e.FailureCause(), "the first cause stays")
}

func TestTryAssignResource(t *testing.T) {
	tests := []struct {
		name    string
		path    []api.ExecutionState
		preSlot bool
		wantErr error
	}{
		{"scheduled without slot", []api.ExecutionState{api.ExecutionScheduled}, false, nil},
		{"still created", nil, false, ErrUnexpectedState},
		{"already deploying", []api.ExecutionState{api.ExecutionScheduled, api.ExecutionDeploying}, false, ErrUnexpectedState},
		{"canceled", []api.ExecutionState{api.ExecutionCanceling, api.ExecutionCanceled}, false, ErrUnexpectedState},
		{"slot already assigned", []api.ExecutionState{api.ExecutionScheduled}, true, ErrSlotAlreadyAssigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ev := mapSubtask(t, 2)
			e := ev.CurrentExecution()
			for _, to := range tt.path {
				require.NoError(t, e.TransitionState(to))
			}
			var first AssignedSlot
			if tt.preSlot {
				first = someSlot()
				require.NoError(t, e.TryAssignResource(first))
			}
			slot := someSlot()

			err := e.TryAssignResource(slot)

			got, ok := e.AssignedSlot()
			switch {
			case tt.wantErr == nil:
				require.NoError(t, err)
				assert.True(t, ok)
				assert.Equal(t, slot, got)
			case tt.preSlot:
				require.ErrorIs(t, err, tt.wantErr)
				assert.Equal(t, first, got, "the first slot stays")
				assert.Contains(t, err.Error(), "taskexecutor-1 @ localhost:6122")
			default:
				require.ErrorIs(t, err, tt.wantErr)
				assert.False(t, ok)
				assert.Equal(t, AssignedSlot{}, got)
			}
		})
	}
}

func TestLocationInformationIsFlinks(t *testing.T) {
	_, ev := mapSubtask(t, 2)
	e := ev.CurrentExecution()
	assert.Equal(t, "[unassigned resource]", e.LocationInformation(), "Flink's Execution#getLocationInformation without a slot")

	require.NoError(t, e.TransitionState(api.ExecutionScheduled))
	require.NoError(t, e.TryAssignResource(someSlot()))
	assert.Equal(t, "taskexecutor-1 @ localhost:6122", e.LocationInformation())
}

func TestResetForNewExecution(t *testing.T) {
	clock := newFakeClock()
	g, ev := mapSubtask(t, 3, WithClock(clock.Now))
	first := ev.CurrentExecution()

	// A running attempt cannot be replaced.
	require.NoError(t, first.TransitionState(api.ExecutionScheduled))
	require.NoError(t, first.TryAssignResource(someSlot()))
	_, err := ev.ResetForNewExecution()
	require.ErrorIs(t, err, ErrUnexpectedState)
	assert.Contains(t, err.Error(), "Cannot reset a vertex that is in non-terminal state SCHEDULED")
	assert.Same(t, first, ev.CurrentExecution())

	// Once it failed, a restart makes attempt 1.
	require.NoError(t, first.MarkFailed(errors.New("TaskManager lost")))
	clock.Advance(10 * time.Second)
	second, err := ev.ResetForNewExecution()
	require.NoError(t, err)

	assert.Same(t, second, ev.CurrentExecution())
	assert.Equal(t, 1, second.AttemptNumber())
	assert.Equal(t, api.ExecutionCreated, second.State())
	assert.Equal(t, clock.Now(), second.StateTimestamp(api.ExecutionCreated))
	assert.Equal(t, api.ExecutionAttemptID{ExecutionGraphID: g.GraphID(), ExecutionVertexID: ev.ID(), AttemptNumber: 1}, second.AttemptID())
	assert.Equal(t, "Map (4/4)#1", second.VertexWithAttempt())
	_, hasSlot := second.AssignedSlot()
	assert.False(t, hasSlot, "the new attempt needs a new slot")
	assert.NoError(t, second.FailureCause())

	// The graph knows the new attempt and has forgotten the old one.
	found, ok := g.Execution(second.AttemptID())
	assert.True(t, ok)
	assert.Same(t, second, found)
	_, ok = g.Execution(first.AttemptID())
	assert.False(t, ok)

	// Every terminal state allows a reset; attempt numbers keep counting.
	require.NoError(t, second.TransitionState(api.ExecutionCanceling))
	require.NoError(t, second.TransitionState(api.ExecutionCanceled))
	third, err := ev.ResetForNewExecution()
	require.NoError(t, err)
	assert.Equal(t, 2, third.AttemptNumber())
}
