package checkpoint

import (
	"sync/atomic"

	"flinklab/runtime/api"
)

// InitialCheckpointID is the ID of a job's first checkpoint (Flink:
// CheckpointIDCounter.INITIAL_CHECKPOINT_ID).
const InitialCheckpointID = 1

// CheckpointIDCounter hands out checkpoint IDs, each larger than the last,
// also across JobManager failovers when it is highly available (Flink's
// CheckpointIDCounter; ZooKeeper keeps it at
// /jobs/<job id>/checkpoint_id_counter). A restore from a savepoint sets it
// past the savepoint's ID.
type CheckpointIDCounter interface {
	Start() error
	// GetAndIncrement returns the next ID and counts it.
	GetAndIncrement() (int64, error)
	// Get returns the next ID without counting it.
	Get() (int64, error)
	// SetCount makes newID the next ID.
	SetCount(newID int64) error
	// Shutdown stops the counter once its job ended in jobStatus; a highly
	// available counter is removed only when jobStatus is globally terminal.
	Shutdown(jobStatus api.JobStatus) error
}

// StandaloneCheckpointIDCounter counts in memory (Flink's
// StandaloneCheckpointIDCounter, for a JobManager without high
// availability).
type StandaloneCheckpointIDCounter struct {
	checkpointIDCounter atomic.Int64
}

var _ CheckpointIDCounter = (*StandaloneCheckpointIDCounter)(nil)

// NewStandaloneCheckpointIDCounter returns a counter whose first ID is
// InitialCheckpointID.
func NewStandaloneCheckpointIDCounter() CheckpointIDCounter {
	c := &StandaloneCheckpointIDCounter{}
	c.checkpointIDCounter.Store(InitialCheckpointID)
	return c
}

// Start does nothing.
func (c *StandaloneCheckpointIDCounter) Start() error { return nil }

// GetAndIncrement returns the next ID and counts it.
func (c *StandaloneCheckpointIDCounter) GetAndIncrement() (int64, error) {
	return c.checkpointIDCounter.Add(1) - 1, nil
}

// Get returns the next ID.
func (c *StandaloneCheckpointIDCounter) Get() (int64, error) {
	return c.checkpointIDCounter.Load(), nil
}

// SetCount makes newID the next ID.
func (c *StandaloneCheckpointIDCounter) SetCount(newID int64) error {
	c.checkpointIDCounter.Store(newID)
	return nil
}

// Shutdown does nothing.
func (c *StandaloneCheckpointIDCounter) Shutdown(api.JobStatus) error { return nil }
