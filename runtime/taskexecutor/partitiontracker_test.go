package taskexecutor

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/api"
)

// newPartitionID returns a fresh ResultPartitionID.
func newPartitionID() api.ResultPartitionID {
	return api.ResultPartitionID{
		PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID()},
		ProducerID:  newAttemptID(0),
	}
}

// sorted returns ids in the tracker's order, by their text.
func sorted(ids ...api.ResultPartitionID) []api.ResultPartitionID {
	return slices.SortedFunc(slices.Values(ids), func(a, b api.ResultPartitionID) int {
		return strings.Compare(a.String(), b.String())
	})
}

// The tracker's book, step by step, with the releases it asks of the data
// plane.
func TestPartitionTracker(t *testing.T) {
	var released []api.ResultPartitionID
	tracker := newPartitionTracker(func(ids ...api.ResultPartitionID) { released = append(released, ids...) },
		slog.New(slog.DiscardHandler))
	job, otherJob := api.NewJobID(), api.NewJobID()
	a, b, c, d := newPartitionID(), newPartitionID(), newPartitionID(), newPartitionID()

	assert.False(t, tracker.isTrackingPartitionsFor(job))
	tracker.startTrackingPartition(job, a)
	tracker.startTrackingPartition(job, b)
	tracker.startTrackingPartition(job, c)
	tracker.startTrackingPartition(otherJob, d)
	assert.True(t, tracker.isTrackingPartitionsFor(job))
	assert.Equal(t, sorted(a, b, c), tracker.partitionsFor(job))

	// A task that failed released a itself: forgotten, not released again.
	assert.Equal(t, []api.ResultPartitionID{a}, tracker.stopTrackingPartitions(job, []api.ResultPartitionID{a}))
	assert.Empty(t, released)

	// The JobMaster releases b, and names d of another job and a, which
	// is gone: only b is released.
	tracker.stopTrackingAndReleaseJobPartitions(job, []api.ResultPartitionID{b, d, a})
	assert.Equal(t, []api.ResultPartitionID{b}, released)
	assert.Equal(t, []api.ResultPartitionID{c}, tracker.partitionsFor(job))

	// The job is released: c goes.
	released = nil
	tracker.stopTrackingAndReleaseJobPartitionsFor(job)
	assert.Equal(t, []api.ResultPartitionID{c}, released)
	assert.False(t, tracker.isTrackingPartitionsFor(job))
	assert.True(t, tracker.isTrackingPartitionsFor(otherJob))

	// The TaskExecutor stops: everything goes.
	released = nil
	tracker.stopTrackingAndReleaseAllPartitions()
	assert.Equal(t, []api.ResultPartitionID{d}, released)
	assert.False(t, tracker.isTrackingPartitionsFor(otherJob))

	released = nil
	tracker.stopTrackingAndReleaseJobPartitionsFor(job)
	assert.Empty(t, released, "nothing to release twice")
}
