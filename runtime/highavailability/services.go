package highavailability

import (
	"sync"

	"flinklab/runtime/api"
)

// Services bundles the leader elections, leader retrievals and stores of a
// cluster (Flink's HighAvailabilityServices).
type Services interface {
	ResourceManagerLeaderElection() LeaderElection
	ResourceManagerLeaderRetriever() LeaderRetrievalService
	DispatcherLeaderElection() LeaderElection
	DispatcherLeaderRetriever() LeaderRetrievalService
	JobManagerLeaderElection(jobID api.JobID) LeaderElection
	JobManagerLeaderRetriever(jobID api.JobID) LeaderRetrievalService
	JobResultStore() JobResultStore
	// CheckpointRecoveryFactory makes the jobs' completed checkpoint
	// stores and checkpoint ID counters (Flink:
	// HighAvailabilityServices#getCheckpointRecoveryFactory).
	CheckpointRecoveryFactory() CheckpointRecoveryFactory
}

// EmbeddedHaServices keeps every election in this process (Flink's
// EmbeddedHaServices, the MiniCluster's default).
type EmbeddedHaServices struct {
	resourceManager *EmbeddedLeaderService
	dispatcher      *EmbeddedLeaderService
	jobResultStore  JobResultStore

	mu          sync.Mutex
	jobManagers map[api.JobID]*EmbeddedLeaderService
}

var _ Services = (*EmbeddedHaServices)(nil)

// NewEmbeddedHaServices returns embedded services with an in-memory
// JobResultStore.
func NewEmbeddedHaServices() *EmbeddedHaServices {
	return &EmbeddedHaServices{
		resourceManager: NewEmbeddedLeaderService(),
		dispatcher:      NewEmbeddedLeaderService(),
		jobResultStore:  NewEmbeddedJobResultStore(),
		jobManagers:     make(map[api.JobID]*EmbeddedLeaderService),
	}
}

// ResourceManagerLeaderElection returns a handle on the ResourceManager's election.
func (h *EmbeddedHaServices) ResourceManagerLeaderElection() LeaderElection {
	return h.resourceManager.NewLeaderElection()
}

// ResourceManagerLeaderRetriever tells who leads the ResourceManager.
func (h *EmbeddedHaServices) ResourceManagerLeaderRetriever() LeaderRetrievalService {
	return h.resourceManager.NewLeaderRetrieval()
}

// DispatcherLeaderElection returns a handle on the Dispatcher's election.
func (h *EmbeddedHaServices) DispatcherLeaderElection() LeaderElection {
	return h.dispatcher.NewLeaderElection()
}

// DispatcherLeaderRetriever tells who leads the Dispatcher.
func (h *EmbeddedHaServices) DispatcherLeaderRetriever() LeaderRetrievalService {
	return h.dispatcher.NewLeaderRetrieval()
}

// JobManagerLeaderElection returns a handle on the election of one job's JobMaster.
func (h *EmbeddedHaServices) JobManagerLeaderElection(jobID api.JobID) LeaderElection {
	return h.jobManager(jobID).NewLeaderElection()
}

// JobManagerLeaderRetriever tells who leads one job (used by TaskExecutors).
func (h *EmbeddedHaServices) JobManagerLeaderRetriever(jobID api.JobID) LeaderRetrievalService {
	return h.jobManager(jobID).NewLeaderRetrieval()
}

// JobResultStore returns the cluster's JobResultStore.
func (h *EmbeddedHaServices) JobResultStore() JobResultStore { return h.jobResultStore }

// CheckpointRecoveryFactory keeps the checkpoints in memory (Flink's
// EmbeddedHaServices, like all non-HA services, hands out a
// StandaloneCheckpointRecoveryFactory).
func (h *EmbeddedHaServices) CheckpointRecoveryFactory() CheckpointRecoveryFactory {
	return StandaloneCheckpointRecoveryFactory{}
}

func (h *EmbeddedHaServices) jobManager(jobID api.JobID) *EmbeddedLeaderService {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.jobManagers[jobID]
	if !ok {
		s = NewEmbeddedLeaderService()
		h.jobManagers[jobID] = s
	}
	return s
}
