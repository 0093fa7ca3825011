package zookeeper

import (
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobmanager"
)

// HaServices are the high-availability services of a process of a
// cluster with high-availability.type: zookeeper (Flink's
// ZooKeeperLeaderElectionHaServices): every election of the process goes
// through one LeaderElectionService, entered only when the first
// contender registers, so that a TaskManager, which only retrieves
// leaders, never takes part; every retrieval watches its component's
// node; the JobResultStore, the JobGraphStore and the jobs' completed
// checkpoints keep their state in the storage directory,
// <high-availability.storageDir>/<cluster-id>.
type HaServices struct {
	client     *Client
	cfg        Config
	storageDir string
	log        *slog.Logger

	jobResultStore *highavailability.FileSystemJobResultStore

	mu            sync.Mutex
	election      *LeaderElectionService
	electionErr   error
	jobGraphStore *JobGraphStore
}

var _ highavailability.Services = (*HaServices)(nil)

// NewHaServices connects to cfg's quorum. storageDir is
// high-availability.storageDir, which HA needs: it is where what must
// survive a JobManager is kept.
func NewHaServices(cfg Config, storageDir string, logger *slog.Logger) (*HaServices, error) {
	if storageDir == "" {
		return nil, errors.New("Configuration is missing the mandatory parameter: " + KeyStorageDir)
	}
	if logger == nil {
		logger = slog.Default()
	}
	clusterStorage := filepath.Join(storageDir, strings.Trim(cfg.ClusterID, "/"))
	jobResultStore, err := highavailability.NewFileSystemJobResultStore(
		highavailability.DefaultJobResultStorePath(storageDir, cfg.ClusterID), true)
	if err != nil {
		return nil, err
	}
	client, err := Connect(cfg, logger)
	if err != nil {
		return nil, err
	}
	return &HaServices{client: client, cfg: cfg, storageDir: clusterStorage, log: logger, jobResultStore: jobResultStore}, nil
}

// Client is the services' connection to ZooKeeper.
func (h *HaServices) Client() *Client { return h.client }

// leaderElection returns the handle of component's contender, entering
// the process into the election the first time.
func (h *HaServices) leaderElection(component string) highavailability.LeaderElection {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.election == nil && h.electionErr == nil {
		h.election, h.electionErr = NewLeaderElectionService(h.client, h.cfg.TolerateSuspendedConnections, h.log)
	}
	if h.electionErr != nil {
		return failedElection{h.electionErr}
	}
	return h.election.NewLeaderElection(component)
}

func (h *HaServices) retriever(component string) highavailability.LeaderRetrievalService {
	return NewLeaderRetriever(h.client, component, h.cfg.TolerateSuspendedConnections, h.log)
}

// ResourceManagerLeaderElection is the ResourceManager's contender.
func (h *HaServices) ResourceManagerLeaderElection() highavailability.LeaderElection {
	return h.leaderElection(ComponentResourceManager)
}

// ResourceManagerLeaderRetriever follows the ResourceManager's leader.
func (h *HaServices) ResourceManagerLeaderRetriever() highavailability.LeaderRetrievalService {
	return h.retriever(ComponentResourceManager)
}

// DispatcherLeaderElection is the Dispatcher's contender.
func (h *HaServices) DispatcherLeaderElection() highavailability.LeaderElection {
	return h.leaderElection(ComponentDispatcher)
}

// DispatcherLeaderRetriever follows the Dispatcher's leader.
func (h *HaServices) DispatcherLeaderRetriever() highavailability.LeaderRetrievalService {
	return h.retriever(ComponentDispatcher)
}

// JobManagerLeaderElection is the contender of one job's JobMaster.
func (h *HaServices) JobManagerLeaderElection(jobID api.JobID) highavailability.LeaderElection {
	return h.leaderElection(ComponentJob(jobID))
}

// JobManagerLeaderRetriever follows one job's JobMaster.
func (h *HaServices) JobManagerLeaderRetriever(jobID api.JobID) highavailability.LeaderRetrievalService {
	return h.retriever(ComponentJob(jobID))
}

// JobResultStore is the FileSystemJobResultStore under the storage
// directory (job-result-store/<cluster-id>).
func (h *HaServices) JobResultStore() highavailability.JobResultStore { return h.jobResultStore }

// CheckpointRecoveryFactory makes the jobs' completed checkpoint stores
// and checkpoint ID counters in ZooKeeper, under jobs/<jobid>, with their
// files in the storage directory.
func (h *HaServices) CheckpointRecoveryFactory() highavailability.CheckpointRecoveryFactory {
	return NewCheckpointRecoveryFactory(h.client, h.storageDir, h.log)
}

// JobGraphStore is the cluster's JobGraphStore, made on first use.
func (h *HaServices) JobGraphStore() (jobmanager.JobGraphStore, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.jobGraphStore == nil {
		store, err := NewJobGraphStore(h.client, h.storageDir, h.log)
		if err != nil {
			return nil, err
		}
		h.jobGraphStore = store
	}
	return h.jobGraphStore, nil
}

// Close leaves the election, if the process entered it, and ends the
// session: its ephemeral nodes go at once.
func (h *HaServices) Close() {
	h.mu.Lock()
	election := h.election
	h.mu.Unlock()
	if election != nil {
		election.Close()
	}
	h.client.Close()
}

// failedElection is the election of a process that could not enter it.
type failedElection struct{ err error }

func (f failedElection) StartLeaderElection(highavailability.LeaderContender) error { return f.err }
func (f failedElection) ConfirmLeadership(api.LeaderSessionID, string)              {}
func (f failedElection) HasLeadership(api.LeaderSessionID) bool                     { return false }
func (f failedElection) Close() error                                               { return nil }
