package highavailability

import (
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
)

// CheckpointRecoveryFactory makes what a job's checkpoints survive in: the
// store of its completed checkpoints and its checkpoint ID counter (Flink's
// CheckpointRecoveryFactory, which the HA services hand out through
// HighAvailabilityServices#getCheckpointRecoveryFactory).
//
// A JobMaster asks for both when it is created, once per leadership
// session (Flink: SchedulerUtils#createCompletedCheckpointStoreIfCheckpointingIsEnabled
// and createCheckpointIDCounterIfCheckpointingIsEnabled). What the store
// holds when it is made is what the job restarts from: nothing without high
// availability (StandaloneCheckpointRecoveryFactory), the checkpoints the
// previous leader completed with it (the ZooKeeper services' factory).
type CheckpointRecoveryFactory interface {
	// CreateRecoveredCompletedCheckpointStore returns the store of jobID's
	// completed checkpoints, keeping at most maxNumberOfCheckpointsToRetain,
	// with the checkpoints it recovered already in it.
	CreateRecoveredCompletedCheckpointStore(jobID api.JobID, maxNumberOfCheckpointsToRetain int) (checkpoint.CompletedCheckpointStore, error)
	// CreateCheckpointIDCounter returns jobID's checkpoint ID counter.
	CreateCheckpointIDCounter(jobID api.JobID) (checkpoint.CheckpointIDCounter, error)
}

// StandaloneCheckpointRecoveryFactory keeps every job's checkpoints in the
// JobMaster's memory (Flink's StandaloneCheckpointRecoveryFactory, the
// factory of the standalone and embedded services): a new JobMaster of the
// job starts with an empty store and counts from checkpoint 1 again.
type StandaloneCheckpointRecoveryFactory struct{}

var _ CheckpointRecoveryFactory = StandaloneCheckpointRecoveryFactory{}

// CreateRecoveredCompletedCheckpointStore returns an empty
// StandaloneCompletedCheckpointStore: there is nothing to recover.
func (StandaloneCheckpointRecoveryFactory) CreateRecoveredCompletedCheckpointStore(_ api.JobID, maxNumberOfCheckpointsToRetain int) (
	checkpoint.CompletedCheckpointStore, error) {
	return checkpoint.NewStandaloneCompletedCheckpointStore(maxNumberOfCheckpointsToRetain), nil
}

// CreateCheckpointIDCounter returns a StandaloneCheckpointIDCounter.
func (StandaloneCheckpointRecoveryFactory) CreateCheckpointIDCounter(api.JobID) (checkpoint.CheckpointIDCounter, error) {
	return checkpoint.NewStandaloneCheckpointIDCounter(), nil
}
