package zookeeper_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// Two JobManagers count the checkpoints of one job at once, as an old
// leader that does not know yet that it was replaced and the new one do:
// every ID is handed out once, by one of them, because taking an ID is a
// compare-and-set on the counter's node. The node holds the next ID as
// Curator's SharedCount does, 4 bytes, big-endian.
func TestTwoCheckpointIDCountersNeverHandOutTheSameID(t *testing.T) {
	t.Parallel()
	storage := t.TempDir()
	job := api.NewJobID()
	first, second := startJobManager(t, storage), startJobManager(t, storage)
	counters := []interface{ GetAndIncrement() (int64, error) }{first.counter(t, job), second.counter(t, job)}

	const perCounter = 25
	handedOut := make([][]int64, len(counters))
	var wg sync.WaitGroup
	for i, c := range counters {
		wg.Go(func() {
			for range perCounter {
				id, err := c.GetAndIncrement()
				if err != nil {
					t.Error(err)
					return
				}
				handedOut[i] = append(handedOut[i], id)
			}
		})
	}
	wg.Wait()

	all := slices.Concat(handedOut...)
	slices.Sort(all)
	want := make([]int64, 0, 2*perCounter)
	for id := int64(1); id <= 2*perCounter; id++ {
		want = append(want, id)
	}
	assert.Equal(t, want, all, "each ID once, from 1 on")
	for i, ids := range handedOut {
		assert.True(t, slices.IsSorted(ids), "counter %d's IDs rise", i)
	}
	data, _, err := first.ha.Client().Conn().Get(first.node("jobs/" + job.String() + "/checkpoint_id_counter"))
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 0, 0, 2*perCounter + 1}, data, "the next ID")
}

// SetCount on one JobManager's counter (a restore from a savepoint) is
// what the other reads and counts on from; a counter that starts finds
// the node and keeps its value.
func TestSetCountIsSeenByEveryCounterOfTheJob(t *testing.T) {
	t.Parallel()
	storage := t.TempDir()
	job := api.NewJobID()
	first := startJobManager(t, storage)
	c := first.counter(t, job)
	next, err := c.Get()
	require.NoError(t, err)
	assert.Equal(t, int64(1), next, "a new job's first checkpoint is 1")
	require.NoError(t, c.SetCount(42))

	other := startJobManager(t, storage).counter(t, job)
	got, err := other.GetAndIncrement()
	require.NoError(t, err)
	assert.Equal(t, int64(42), got)
	next, err = c.Get()
	require.NoError(t, err)
	assert.Equal(t, int64(43), next)
}
