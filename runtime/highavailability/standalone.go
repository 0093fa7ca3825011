package highavailability

import (
	"errors"
	"sync"

	"flinklab/runtime/api"
)

// DefaultLeaderID is the leader session, and so the fencing token, of every
// leader under StandaloneHaServices: the ResourceManager's
// ResourceManagerID, the Dispatcher's DispatcherID and every JobMaster's
// JobMasterID (Flink's HighAvailabilityServices.DEFAULT_LEADER_ID).
//
// Differs from Flink: Flink's DEFAULT_LEADER_ID is the UUID 0 (all
// zeros). Here the zero ID means "no leader" throughout the runtime (a
// ResourceManager whose fencing token is zero is not leading, a
// TaskExecutor takes a zero JobMasterID for "no JobMaster"), so the
// default is the ID whose last bit is 1: 00000000000000000000000000000001.
var DefaultLeaderID = mustParseLeaderSessionID("00000000000000000000000000000001")

func mustParseLeaderSessionID(s string) api.LeaderSessionID {
	var id api.LeaderSessionID
	if err := id.UnmarshalText([]byte(s)); err != nil {
		panic(err)
	}
	return id
}

// StandaloneHaServices are the HA services of a cluster without high
// availability (Flink's StandaloneHaServices), the services of
// start-cluster: one JobManager process whose leaders are known in
// advance.
//
// Nothing is elected. Every election grants DefaultLeaderID to its
// contender at once, and the ResourceManager and the Dispatcher are found
// at fixed addresses, given to NewStandaloneHaServices: the JobManager
// process serves them at its RPC address (jobmanager.rpc.address and
// jobmanager.rpc.port), and a TaskManager process knows that address
// from its configuration. A JobManager that dies is not replaced.
//
// # Where a job's JobMaster is
//
// A JobMaster's address is not fixed: each job gets a JobMaster of its
// own, with a name of its own, inside the JobManager process. Flink's
// StandaloneHaServices does not know it either. Its
// getJobManagerLeaderRetriever(jobID, defaultJobManagerAddress) simply
// announces the address it is handed, with DEFAULT_LEADER_ID, and the
// TaskExecutor hands it the targetAddress of the ResourceManager's
// requestSlot: the ResourceManager learnt it when the JobMaster
// registered (step m5) and sends it with every slot request (step m7),
// so the TaskExecutor knows where to offer the slot (step m8).
//
// Here that address reaches the services through PublishJobManagerAddress,
// and JobManagerLeaderRetriever(jobID) announces whatever was published
// for the job, now or as soon as it is:
//
//   - in the JobManager process, the job's JobManagerRunner publishes its
//     JobMaster's address when it confirms its leadership
//     (JobManagerLeaderElection(jobID).ConfirmLeadership), and withdraws
//     it when it leaves the election;
//   - in a TaskManager process, the TaskManagerRunner publishes the
//     JobMaster address that each slot request carries before the
//     TaskExecutor handles the request (see package entrypoint).
//
// JobResultStore is in memory, as in Flink's non-HA services: it lasts as
// long as the JobManager process.
// So are the completed checkpoints (StandaloneCheckpointRecoveryFactory):
// they last as long as the job's JobMaster.
type StandaloneHaServices struct {
	resourceManagerAddress string
	dispatcherAddress      string
	jobResultStore         JobResultStore

	mu          sync.Mutex
	jobManagers map[api.JobID]*standaloneJobManager
}

// standaloneJobManager is what the services know of one job's JobMaster:
// its published address ("" while none is) and who listens for it.
type standaloneJobManager struct {
	address   string
	listeners map[*jobManagerRetrieval]struct{}
}

var _ Services = (*StandaloneHaServices)(nil)

// NewStandaloneHaServices returns the services of a cluster whose
// ResourceManager and Dispatcher serve at the given RPC addresses.
func NewStandaloneHaServices(resourceManagerAddress, dispatcherAddress string) *StandaloneHaServices {
	return &StandaloneHaServices{
		resourceManagerAddress: resourceManagerAddress,
		dispatcherAddress:      dispatcherAddress,
		jobResultStore:         NewEmbeddedJobResultStore(),
		jobManagers:            make(map[api.JobID]*standaloneJobManager),
	}
}

// ResourceManagerLeaderElection grants DefaultLeaderID to the
// ResourceManager as soon as it enters.
func (h *StandaloneHaServices) ResourceManagerLeaderElection() LeaderElection {
	return &standaloneLeaderElection{}
}

// ResourceManagerLeaderRetriever announces the fixed ResourceManager
// address with DefaultLeaderID.
func (h *StandaloneHaServices) ResourceManagerLeaderRetriever() LeaderRetrievalService {
	return &fixedLeaderRetrieval{address: h.resourceManagerAddress}
}

// DispatcherLeaderElection grants DefaultLeaderID to the Dispatcher as
// soon as it enters.
func (h *StandaloneHaServices) DispatcherLeaderElection() LeaderElection {
	return &standaloneLeaderElection{}
}

// DispatcherLeaderRetriever announces the fixed Dispatcher address with
// DefaultLeaderID.
func (h *StandaloneHaServices) DispatcherLeaderRetriever() LeaderRetrievalService {
	return &fixedLeaderRetrieval{address: h.dispatcherAddress}
}

// JobManagerLeaderElection grants DefaultLeaderID to the job's
// JobManagerRunner as soon as it enters. Its confirmation publishes the
// JobMaster's address for the job; closing the election withdraws it.
func (h *StandaloneHaServices) JobManagerLeaderElection(jobID api.JobID) LeaderElection {
	return &standaloneLeaderElection{
		onConfirm: func(address string) { h.PublishJobManagerAddress(jobID, address) },
		onClose:   func() { h.PublishJobManagerAddress(jobID, "") },
	}
}

// JobManagerLeaderRetriever announces the address published for the job
// (see PublishJobManagerAddress) with DefaultLeaderID: at Start if there
// is one, and again whenever it changes.
func (h *StandaloneHaServices) JobManagerLeaderRetriever(jobID api.JobID) LeaderRetrievalService {
	return &jobManagerRetrieval{services: h, jobID: jobID}
}

// PublishJobManagerAddress records where the JobMaster of jobID serves, and
// tells every retrieval listening for the job. An empty address withdraws
// it: the listeners hear that the job has no leader.
//
// It is Flink's defaultJobManagerAddress, the second argument of
// StandaloneHaServices#getJobManagerLeaderRetriever: the one place where a
// standalone cluster learns an address it could not know in advance.
// Publishing the address a job already has changes nothing. The services
// keep the address of every job they were told of until it is withdrawn.
func (h *StandaloneHaServices) PublishJobManagerAddress(jobID api.JobID, address string) {
	h.mu.Lock()
	jm := h.jobManagerLocked(jobID)
	if jm.address == address {
		h.mu.Unlock()
		return
	}
	jm.address = address
	listeners := make([]LeaderRetrievalListener, 0, len(jm.listeners))
	for r := range jm.listeners {
		listeners = append(listeners, r.listener)
	}
	h.forgetIfUnusedLocked(jobID)
	h.mu.Unlock()

	session := DefaultLeaderID
	if address == "" {
		session = api.LeaderSessionID{}
	}
	for _, l := range listeners {
		l.NotifyLeaderAddress(address, session)
	}
}

// JobResultStore returns the cluster's JobResultStore, in memory.
func (h *StandaloneHaServices) JobResultStore() JobResultStore { return h.jobResultStore }

// CheckpointRecoveryFactory keeps the checkpoints in the JobMaster's
// memory: a JobManager that dies takes them along.
func (h *StandaloneHaServices) CheckpointRecoveryFactory() CheckpointRecoveryFactory {
	return StandaloneCheckpointRecoveryFactory{}
}

// forgetIfUnusedLocked drops what the services know of a job that has no
// address and nobody listening for one.
func (h *StandaloneHaServices) forgetIfUnusedLocked(jobID api.JobID) {
	if jm, ok := h.jobManagers[jobID]; ok && jm.address == "" && len(jm.listeners) == 0 {
		delete(h.jobManagers, jobID)
	}
}

func (h *StandaloneHaServices) jobManagerLocked(jobID api.JobID) *standaloneJobManager {
	jm, ok := h.jobManagers[jobID]
	if !ok {
		jm = &standaloneJobManager{listeners: make(map[*jobManagerRetrieval]struct{})}
		h.jobManagers[jobID] = jm
	}
	return jm
}

// standaloneLeaderElection is Flink's StandaloneLeaderElection: the
// contender leads from the moment it enters until it leaves, always with
// DefaultLeaderID. onConfirm and onClose, if set, publish and withdraw the
// leader's address (a JobMaster's; the other leaders' are fixed).
type standaloneLeaderElection struct {
	onConfirm func(address string)
	onClose   func()

	mu        sync.Mutex
	contender LeaderContender
	closed    bool
}

func (e *standaloneLeaderElection) StartLeaderElection(contender LeaderContender) error {
	e.mu.Lock()
	if e.contender != nil || e.closed {
		e.mu.Unlock()
		return errors.New("leader election already started")
	}
	e.contender = contender
	e.mu.Unlock()
	contender.GrantLeadership(DefaultLeaderID)
	return nil
}

func (e *standaloneLeaderElection) ConfirmLeadership(sessionID api.LeaderSessionID, address string) {
	if !e.HasLeadership(sessionID) || e.onConfirm == nil {
		return
	}
	e.onConfirm(address)
}

func (e *standaloneLeaderElection) HasLeadership(sessionID api.LeaderSessionID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.contender != nil && !e.closed && sessionID == DefaultLeaderID
}

// Close revokes the leadership of the contender that entered, if any, as
// Flink's StandaloneLeaderElection#close does.
func (e *standaloneLeaderElection) Close() error {
	e.mu.Lock()
	contender, wasOpen := e.contender, !e.closed
	e.closed = true
	e.mu.Unlock()
	if contender == nil || !wasOpen {
		return nil
	}
	if e.onClose != nil {
		e.onClose()
	}
	contender.RevokeLeadership()
	return nil
}

// fixedLeaderRetrieval is Flink's StandaloneLeaderRetrievalService: it
// announces one address with DefaultLeaderID, once, when it starts.
type fixedLeaderRetrieval struct {
	address string

	mu      sync.Mutex
	started bool
}

func (r *fixedLeaderRetrieval) Start(listener LeaderRetrievalListener) error {
	r.mu.Lock()
	if r.started {
		r.mu.Unlock()
		return errors.New("leader retrieval already started")
	}
	r.started = true
	r.mu.Unlock()
	listener.NotifyLeaderAddress(r.address, DefaultLeaderID)
	return nil
}

func (r *fixedLeaderRetrieval) Stop() error { return nil }

// jobManagerRetrieval listens for the address published for one job.
type jobManagerRetrieval struct {
	services *StandaloneHaServices
	jobID    api.JobID
	listener LeaderRetrievalListener // set by Start
}

func (r *jobManagerRetrieval) Start(listener LeaderRetrievalListener) error {
	h := r.services
	h.mu.Lock()
	if r.listener != nil {
		h.mu.Unlock()
		return errors.New("leader retrieval already started")
	}
	r.listener = listener
	jm := h.jobManagerLocked(r.jobID)
	jm.listeners[r] = struct{}{}
	address := jm.address
	h.mu.Unlock()
	if address != "" {
		listener.NotifyLeaderAddress(address, DefaultLeaderID)
	}
	return nil
}

func (r *jobManagerRetrieval) Stop() error {
	h := r.services
	h.mu.Lock()
	defer h.mu.Unlock()
	if jm, ok := h.jobManagers[r.jobID]; ok {
		delete(jm.listeners, r)
		h.forgetIfUnusedLocked(r.jobID)
	}
	return nil
}
