package zookeeper

import (
	"log/slog"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/highavailability"
)

// jobsPath is where the jobs' checkpoints and counters are, one node per
// job: jobs/<jobid>/checkpoints and jobs/<jobid>/checkpoint_id_counter
// (Flink: ZooKeeperUtils#getJobsPath).
const jobsPath = "jobs"

// CheckpointRecoveryFactory makes the ZooKeeper-backed completed
// checkpoint stores and checkpoint ID counters of the jobs of a cluster
// (Flink's ZooKeeperCheckpointRecoveryFactory, which the
// ZooKeeperLeaderElectionHaServices hand out), under
// /<root>/<cluster-id>/jobs/<jobid>, their files in
// <high-availability.storageDir>/<cluster-id>.
type CheckpointRecoveryFactory struct {
	client     *Client
	storageDir string
	log        *slog.Logger
}

var _ highavailability.CheckpointRecoveryFactory = (*CheckpointRecoveryFactory)(nil)

// NewCheckpointRecoveryFactory returns the factory of the cluster client
// is in; storageDir is <high-availability.storageDir>/<cluster-id>.
func NewCheckpointRecoveryFactory(client *Client, storageDir string, logger *slog.Logger) *CheckpointRecoveryFactory {
	if logger == nil {
		logger = slog.Default()
	}
	return &CheckpointRecoveryFactory{client: client, storageDir: storageDir, log: logger}
}

// CreateRecoveredCompletedCheckpointStore returns the job's store, with
// the checkpoints ZooKeeper holds for it (NewCompletedCheckpointStore).
func (f *CheckpointRecoveryFactory) CreateRecoveredCompletedCheckpointStore(jobID api.JobID, maxNumberOfCheckpointsToRetain int) (
	checkpoint.CompletedCheckpointStore, error) {
	return NewCompletedCheckpointStore(f.client, f.storageDir, jobID, maxNumberOfCheckpointsToRetain, f.log)
}

// CreateCheckpointIDCounter returns the job's counter (NewCheckpointIDCounter).
func (f *CheckpointRecoveryFactory) CreateCheckpointIDCounter(jobID api.JobID) (checkpoint.CheckpointIDCounter, error) {
	return NewCheckpointIDCounter(f.client, jobID, f.log), nil
}
