package states_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/scheduler/adaptive"
	"flinklab/tools/graphs/states"
)

// The recorder keeps the DEBUG transition lines, through loggers made
// With attributes as the runtime makes them, and nothing else.
func TestRecorderKeepsTheTransitionLines(t *testing.T) {
	recorder := states.NewRecorder()
	log := slog.New(recorder).With("logger", "AdaptiveScheduler")
	log.Debug("Transition from state Created to WaitingForResources.")
	log.Info("Transition from state Executing to Canceling.") // not Flink's level: not its line
	log.Debug("Successfully reserved and assigned the required slots for the ExecutionGraph.")
	log.WithGroup("job").Debug("Transition from state WaitingForResources to CreatingExecutionGraph.")

	var got []string
	for _, tr := range recorder.Transitions() {
		got = append(got, tr.From+" → "+tr.To)
		assert.False(t, tr.At.IsZero())
	}
	assert.Equal(t, []string{"Created → WaitingForResources", "WaitingForResources → CreatingExecutionGraph"}, got)
	assert.Equal(t, 1, states.Entered(recorder.Transitions(), "CreatingExecutionGraph"))
}

func TestRecorderAwait(t *testing.T) {
	recorder := states.NewRecorder()
	log := slog.New(recorder)
	executing := func(ts []adaptive.Transition) bool { return states.Entered(ts, "Executing") > 0 }

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error)
	go func() { done <- recorder.Await(ctx, executing) }()
	log.Debug("Transition from state Created to WaitingForResources.")
	log.Debug("Transition from state CreatingExecutionGraph to Executing.")
	require.NoError(t, <-done)

	short, cancelShort := context.WithCancel(context.Background())
	cancelShort()
	assert.ErrorIs(t, recorder.Await(short, func(ts []adaptive.Transition) bool { return len(ts) > 2 }), context.Canceled)
}
