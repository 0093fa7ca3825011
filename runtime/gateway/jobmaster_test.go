package gateway_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

func TestTaskExecutionStateKeepsItsFailureCauseInJSON(t *testing.T) {
	attempt := api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID(), SubtaskIndex: 1},
	}
	cause := fmt.Errorf("%w: Could not send message", rpc.ErrRecipientUnreachable)
	data, err := json.Marshal(gateway.TaskExecutionState{AttemptID: attempt, State: api.ExecutionFailed, FailureCause: cause})
	require.NoError(t, err)

	var got gateway.TaskExecutionState
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, attempt, got.AttemptID)
	assert.Equal(t, api.ExecutionFailed, got.State)
	assert.EqualError(t, got.FailureCause, cause.Error())
	assert.ErrorIs(t, got.FailureCause, rpc.ErrRecipientUnreachable)

	// A state without a cause has none after the trip either.
	data, err = json.Marshal(gateway.TaskExecutionState{AttemptID: attempt, State: api.ExecutionRunning})
	require.NoError(t, err)
	assert.NotContains(t, string(data), "failureCause")
	got = gateway.TaskExecutionState{}
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, gateway.TaskExecutionState{AttemptID: attempt, State: api.ExecutionRunning}, got)
}
