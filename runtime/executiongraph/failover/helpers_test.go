package failover_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
)

// t0 is the time of the first failure in every test; steps give times as
// offsets from it.
var t0 = time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC)

var errBoom = errors.New("boom")

// failure is one failure fed to a restart strategy and what the strategy
// should answer right after it.
type failure struct {
	at          time.Duration // since t0
	wantNew     bool          // NotifyFailure's answer
	wantRestart bool          // CanRestart
	wantBackoff time.Duration // BackoffTime
}

// notifyAll feeds the failures to s in order, checking each answer.
func notifyAll(t *testing.T, s failover.RestartBackoffTimeStrategy, failures []failure) {
	t.Helper()
	for i, f := range failures {
		gotNew := s.NotifyFailure(errBoom, t0.Add(f.at))
		assert.Equal(t, f.wantNew, gotNew, "failure %d at +%v: NotifyFailure", i+1, f.at)
		assert.Equal(t, f.wantRestart, s.CanRestart(), "failure %d at +%v: CanRestart", i+1, f.at)
		assert.Equal(t, f.wantBackoff, s.BackoffTime(), "failure %d at +%v: BackoffTime", i+1, f.at)
	}
}

// restartEvery is failures that each may restart after the same backoff.
func restartEvery(backoff time.Duration, at ...time.Duration) []failure {
	fs := make([]failure, len(at))
	for i, a := range at {
		fs[i] = failure{at: a, wantNew: true, wantRestart: true, wantBackoff: backoff}
	}
	return fs
}

// constRandom is a random source that always returns r.
func constRandom(r float64) func() float64 { return func() float64 { return r } }

// subtasks returns n subtasks of a new JobVertex.
func subtasks(n int) []api.ExecutionVertexID {
	jv := api.NewJobVertexID()
	ids := make([]api.ExecutionVertexID, n)
	for i := range ids {
		ids[i] = api.ExecutionVertexID{JobVertexID: jv, SubtaskIndex: i}
	}
	return ids
}

func mustFixedDelay(t *testing.T, attempts int, delay time.Duration) *failover.FixedDelayRestartBackoffTimeStrategy {
	t.Helper()
	s, err := failover.NewFixedDelayRestartBackoffTimeStrategy(failover.FixedDelayConfig{Attempts: attempts, Delay: delay})
	require.NoError(t, err)
	return s
}

// exponentialConfig is Flink's exponential-delay default without jitter.
func exponentialConfig() failover.ExponentialDelayConfig {
	c := failover.DefaultConfig().ExponentialDelay
	c.JitterFactor = 0
	return c
}

func mustExponentialDelay(t *testing.T, c failover.ExponentialDelayConfig, random func() float64) *failover.ExponentialDelayRestartBackoffTimeStrategy {
	t.Helper()
	s, err := failover.NewExponentialDelayRestartBackoffTimeStrategy(c, random)
	require.NoError(t, err)
	return s
}
