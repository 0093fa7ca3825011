package tasks

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
)

const sparseOutputProgram = "tasks-test.sparse-output"

// The sparse-output job: an endless sequence → a Filter that keeps one
// record in sparseKeepEvery, each record costing it sparseWorkPerRecord
// of (fake) time → a sink in another task. Its argument says where the
// filter runs: "chained" into the source's task, or "own task" behind a
// Rebalance, in a OneInputStreamTask.
//
// The filter is busy all the time: the source runs ahead of it until
// backpressure stops it, so its input never runs dry. Its output is
// sparse: at 8 bytes a record, a 32 KiB buffer fills after about 3,600
// kept records, that is after six minutes.
const (
	sparseKeepEvery     = 100
	sparseWorkPerRecord = time.Millisecond
)

// sparseTimes records when the filter kept each record and when the sink
// got it, in the bubble's fake time.
var sparseTimes struct {
	mu       sync.Mutex
	kept     map[int64]time.Time
	received map[int64]time.Time
}

func init() { streaming.RegisterProgram(sparseOutputProgram, sparseOutputMain) }

func sparseOutputMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	numbers := env.GenerateSequence(0, math.MaxInt64)
	if args[0] == "own task" {
		numbers = numbers.Rebalance()
	}
	kept := numbers.Filter(func(x int64) bool {
		time.Sleep(sparseWorkPerRecord) // fake time: the work a record costs
		if x%sparseKeepEvery != 0 {
			return false
		}
		sparseTimes.mu.Lock()
		defer sparseTimes.mu.Unlock()
		sparseTimes.kept[x] = time.Now()
		return true
	})
	kept.Rebalance().AddSink(func(x int64) error {
		sparseTimes.mu.Lock()
		defer sparseTimes.mu.Unlock()
		sparseTimes.received[x] = time.Now()
		return nil
	}).Name("sink")
	return env.Execute("sparse output")
}

// A busy task whose output is sparse still hands each record on within
// about a buffer timeout, in a SourceStreamTask as in a OneInputStreamTask:
// the output flusher's flush does not wait for the task to be idle, nor
// for the buffer to fill.
func TestABusyTaskFlushesSparseOutputWithinTheBufferTimeout(t *testing.T) {
	for _, tt := range []struct{ name, where string }{
		{"filter chained to the source, in a SourceStreamTask", "chained"},
		{"filter behind a Rebalance, in a OneInputStreamTask", "own task"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sparseTimes.kept = map[int64]time.Time{}
				sparseTimes.received = map[int64]time.Time{}
				args := []string{tt.where}
				jg := planJobGraph(t, sparseOutputProgram, args, 1)
				job := deployLocally(t, jg, writeJar(t, sparseOutputProgram, nil), network.Config{})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- job.run(ctx) }()

				const runFor = 2 * time.Second
				time.Sleep(runFor) // fake time: the filter handles ~2,000 records, keeps ~20
				synctest.Wait()
				end := time.Now()
				cancel()
				require.True(t, errors.Is(<-done, context.Canceled))

				sparseTimes.mu.Lock()
				defer sparseTimes.mu.Unlock()
				// A kept record waits for the flusher's next tick, then for
				// the end of the record the task is working on.
				maxLatency := DefaultBufferTimeout + sparseWorkPerRecord
				due, late := 0, map[int64]time.Duration{}
				for x, kept := range sparseTimes.kept {
					if end.Sub(kept) <= maxLatency {
						continue // not due yet
					}
					due++
					received, ok := sparseTimes.received[x]
					if !ok {
						late[x] = end.Sub(kept) // and still waiting
					} else if latency := received.Sub(kept); latency > maxLatency {
						late[x] = latency
					}
				}
				assert.Greater(t, due, 10)
				assert.Empty(t, late, "records that took longer than %v to reach the sink", maxLatency)
			})
		})
	}
}
