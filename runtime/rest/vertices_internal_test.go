package rest

import (
	"slices"
	"testing"

	"flinklab/runtime/api"
)

// TestLifecycleGoesForward: leftAt finds when an attempt left a state by
// looking forward in lifecycle, which holds only if every move an attempt
// may make goes forward in it.
func TestLifecycleGoesForward(t *testing.T) {
	if len(lifecycle) != len(api.ExecutionStates()) {
		t.Fatalf("lifecycle has %d states, want all %d", len(lifecycle), len(api.ExecutionStates()))
	}
	for _, from := range api.ExecutionStates() {
		for _, to := range api.ExecutionStates() {
			if api.CheckExecutionTransition(from, to) == nil && slices.Index(lifecycle, to) <= slices.Index(lifecycle, from) {
				t.Errorf("%s → %s is allowed but goes backward in lifecycle", from, to)
			}
		}
	}
}
