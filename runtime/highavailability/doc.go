// Package highavailability holds the services that decide who leads and
// what survives a leader: leader election, leader retrieval, the
// JobResultStore and the jobs' completed checkpoints.
//
// It mirrors Flink's org.apache.flink.runtime.highavailability
// (HighAvailabilityServices, EmbeddedHaServices, JobResultStore), its
// CheckpointRecoveryFactory, and
// org.apache.flink.runtime.leaderelection / leaderretrieval.
//
// # Leader election
//
// Every leading component (the Dispatcher, the ResourceManager, and one
// JobMaster per job through its JobManagerRunner) is a LeaderContender. It
// starts an election; the service grants it leadership with a fresh
// LeaderSessionID; the contender turns that ID into its fencing token,
// starts leading and confirms its leadership with the address it serves on.
// Only then do leader retrieval listeners learn the leader's address and
// session ID, which is how a JobMaster finds the ResourceManager and how a
// TaskExecutor finds a job's JobMaster.
//
// EmbeddedLeaderService runs all of this in one process (Flink's
// EmbeddedLeaderService, used by the MiniCluster): the first contender wins
// at once. A ZooKeeper- or Kubernetes-backed election would implement the
// same interfaces.
//
// Contenders and listeners are called synchronously and must not block:
// the runtime's components hand each notification to their main thread.
//
// # What a job's checkpoints survive in
//
// The services' CheckpointRecoveryFactory makes each JobMaster's
// CompletedCheckpointStore and CheckpointIDCounter (Flink's
// HighAvailabilityServices#getCheckpointRecoveryFactory). The standalone
// and embedded services hand out the StandaloneCheckpointRecoveryFactory:
// the checkpoints live in the JobMaster's memory, and a JobMaster that
// takes over a job starts it from nothing. The ZooKeeper services'
// factory (package zookeeper) keeps them where the next leader's
// JobMaster finds them and resumes from the latest.
//
// # The JobResultStore
//
// When a job reaches a globally terminal state its result is written here
// before anything is cleaned up. A submission of the same JobID is then
// rejected as globally terminated, even after the job's other data is gone.
// Entries start "dirty" (cleanup pending) and become "clean".
package highavailability
