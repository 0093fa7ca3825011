package resourcemanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/resourcemanager/slotmanager"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// Defaults, as in Flink.
const (
	// DefaultRPCTimeout is pekko.ask.timeout: how long the ResourceManager
	// waits for a TaskExecutor to answer requestSlot.
	DefaultRPCTimeout = 10 * time.Second
	// DefaultRequirementCheckDelay is slotmanager.requirement-check.delay.
	DefaultRequirementCheckDelay = slotmanager.DefaultRequirementCheckDelay
	// DefaultStartUpPeriod is Flink's default for
	// resourcemanager.standalone.start-up-time: slot.request.timeout, 5 min.
	DefaultStartUpPeriod = 5 * time.Minute
)

// EndpointName is the name the ResourceManager registers under in its
// rpc.Service; its address is RPC.Address(EndpointName).
const EndpointName = "resourcemanager_0"

// Config configures a ResourceManager. Zero fields take the defaults.
type Config struct {
	// ResourceID names this ResourceManager's process; empty means a
	// random one ("resourcemanager-3f2a9c").
	ResourceID api.ResourceID
	// RPCTimeout bounds the ResourceManager's calls to other components.
	RPCTimeout time.Duration
	// RequirementCheckDelay is passed to the SlotManager.
	RequirementCheckDelay time.Duration
	// Heartbeat holds the heartbeat.* options with which the
	// ResourceManager watches the TaskExecutors and JobMasters registered
	// at it. Zero fields take Flink's defaults (10 s, 50 s, 2); New rejects
	// invalid ones.
	Heartbeat heartbeat.HeartbeatServices
	// StartUpPeriod is how long a new leader waits for TaskManagers to
	// register before it tells jobs that their requirements cannot be met
	// (Flink: resourcemanager.standalone.start-up-time, which defaults to
	// slot.request.timeout, 5 min). Zero means DefaultStartUpPeriod; a
	// negative value means none: jobs are told at once.
	StartUpPeriod time.Duration
	// ClusterInformation is where the JobManager's BlobServer listens;
	// every TaskExecutor that registers is told (zero: it does not listen).
	ClusterInformation gateway.ClusterInformation
	// Logger is the base logger; nil means slog.Default().
	Logger *slog.Logger
}

// Deps are the ResourceManager's collaborators.
type Deps struct {
	// RPC is where the ResourceManager serves its gateway and where it
	// finds JobMasters and TaskExecutors.
	RPC rpc.Service
	// Faults may break step m7 (through the SlotManager); nil injects
	// nothing.
	Faults *fault.Injector
	// HA runs the ResourceManager's leader election.
	HA highavailability.Services
	// Trace records steps m5, m6 and (through the SlotManager) m7; nil
	// records nothing.
	Trace *trace.Recorder
}

// ResourceManager is a standalone ResourceManager (Flink's
// StandaloneResourceManager and its base class ResourceManager): it
// registers JobMasters and TaskExecutors, and its SlotManager hands the
// TaskExecutors' slots to the jobs that declare a need for them.
//
// Its exported gateway methods may be called from any goroutine; each runs
// on the ResourceManager's main thread after its fencing token (the
// ResourceManagerID of the current leadership) has been checked. Every
// field below the line is touched only on the main thread.
type ResourceManager struct {
	*rpc.FencedEndpoint[api.ResourceManagerID]

	cfg  Config
	deps Deps
	log  *slog.Logger
	// serviceLog logs the lines of Flink's ResourceManagerServiceImpl, the
	// leader contender that starts and stops the ResourceManager as
	// leadership comes and goes (its logger name is that class's).
	serviceLog *slog.Logger
	address    string
	election   highavailability.LeaderElection
	// registered is set once the ResourceManager serves at address.
	registered atomic.Bool
	// running is Flink's ResourceManagerServiceImpl.running: set by Start,
	// cleared by Close. A revocation that arrives when it is clear (Close
	// leaving the election revokes the leader) is ignored, as in Flink.
	running  atomic.Bool
	stopOnce sync.Once

	// ---- main thread only ----
	slotManager *slotmanager.FineGrainedSlotManager
	// jobManagerRegistrations holds the registered JobMaster of each job.
	jobManagerRegistrations map[api.JobID]*jobManagerRegistration
	// taskExecutors holds the registered TaskExecutors by ResourceID.
	taskExecutors map[api.ResourceID]*workerRegistration
	// The heartbeat managers: the ResourceManager asks every registered
	// TaskExecutor and JobMaster for heartbeats. They exist while it leads
	// (no-ops otherwise), as in Flink, which starts them with the
	// leadership.
	taskManagerHeartbeatManager heartbeat.HeartbeatManager[gateway.TaskExecutorHeartbeatPayload, struct{}]
	jobManagerHeartbeatManager  heartbeat.HeartbeatManager[struct{}, struct{}]
}

var (
	_ gateway.ResourceManagerGateway   = (*ResourceManager)(nil)
	_ highavailability.LeaderContender = (*ResourceManager)(nil)
)

// New returns a ResourceManager that is not started yet.
func New(cfg Config, deps Deps) (*ResourceManager, error) {
	if deps.RPC == nil || deps.HA == nil {
		return nil, errors.New("resource manager: Deps.RPC and Deps.HA are required")
	}
	if cfg.RPCTimeout < 0 || cfg.RequirementCheckDelay < 0 {
		return nil, errors.New("resource manager: delays and timeouts must not be negative")
	}
	if cfg.ResourceID == "" {
		cfg.ResourceID = api.NewResourceID("resourcemanager")
	}
	if cfg.RPCTimeout == 0 {
		cfg.RPCTimeout = DefaultRPCTimeout
	}
	if cfg.RequirementCheckDelay == 0 {
		cfg.RequirementCheckDelay = DefaultRequirementCheckDelay
	}
	cfg.Heartbeat = cfg.Heartbeat.WithDefaults()
	if err := cfg.Heartbeat.Validate(); err != nil {
		return nil, fmt.Errorf("resource manager: %w", err)
	}
	base := cfg.Logger
	if base == nil {
		base = slog.Default()
	}
	if cfg.StartUpPeriod == 0 {
		cfg.StartUpPeriod = DefaultStartUpPeriod
	}
	rm := &ResourceManager{
		FencedEndpoint:          rpc.NewFencedEndpoint("StandaloneResourceManager", api.ResourceManagerID{}),
		cfg:                     cfg,
		deps:                    deps,
		log:                     base.With("logger", "StandaloneResourceManager"),
		serviceLog:              base.With("logger", "ResourceManagerServiceImpl"),
		address:                 deps.RPC.Address(EndpointName),
		election:                deps.HA.ResourceManagerLeaderElection(),
		jobManagerRegistrations: make(map[api.JobID]*jobManagerRegistration),
		taskExecutors:           make(map[api.ResourceID]*workerRegistration),

		taskManagerHeartbeatManager: heartbeat.NoOpHeartbeatManager[gateway.TaskExecutorHeartbeatPayload, struct{}]{},
		jobManagerHeartbeatManager:  heartbeat.NoOpHeartbeatManager[struct{}, struct{}]{},
	}
	sm, err := slotmanager.New(slotmanager.Config{
		RequirementCheckDelay:     cfg.RequirementCheckDelay,
		TaskManagerRequestTimeout: cfg.RPCTimeout,
		Logger:                    base,
	}, slotmanager.Deps{Trace: deps.Trace, Faults: deps.Faults, NotEnoughResources: rm.notEnoughResourceAvailable})
	if err != nil {
		return nil, fmt.Errorf("resource manager: %w", err)
	}
	rm.slotManager = sm
	rm.SetLogger(base)
	return rm, nil
}

// Address returns the RPC address the ResourceManager serves at, e.g.
// "pekko://flink/user/rpc/resourcemanager_0".
func (rm *ResourceManager) Address() string { return rm.address }

// ResourceID returns the ResourceManager's ResourceID.
func (rm *ResourceManager) ResourceID() api.ResourceID { return rm.cfg.ResourceID }

// Start makes the ResourceManager reachable at Address, starts its main
// thread and enters the leader election. It leads (and its gateway methods
// accept calls) once leadership is granted; JobMasters and TaskExecutors
// learn its address and ResourceManagerID from leader retrieval.
func (rm *ResourceManager) Start() error {
	rm.running.Store(true)
	rm.serviceLog.Info("Starting resource manager service.")
	if err := rm.deps.RPC.Register(rm.address, rm); err != nil {
		return fmt.Errorf("start resource manager: %w", err)
	}
	rm.registered.Store(true)
	rm.Endpoint.Start(nil)
	if err := rm.election.StartLeaderElection(rm); err != nil {
		return fmt.Errorf("start resource manager leader election: %w", err)
	}
	return nil
}

// Close leaves the leader election, stops serving and returns when the
// main thread has finished. RPCs the ResourceManager still has in flight
// are cancelled (their ctx ends with the endpoint) and their answers
// dropped.
func (rm *ResourceManager) Close() {
	rm.stopOnce.Do(func() {
		if rm.running.Swap(false) {
			rm.serviceLog.Info("Stopping resource manager service.")
		}
		if err := rm.election.Close(); err != nil {
			rm.log.Warn("Could not properly close the leader election.", "error", err)
		}
		if rm.registered.Load() {
			rm.deps.RPC.Unregister(rm.address)
		}
		rm.Endpoint.Close(func() {
			rm.stopHeartbeatServices()
			rm.slotManager.Close()
		})
	})
}

// GrantLeadership is called by the leader election (Flink's
// LeaderContender#grantLeadership). It must not block, so it hands the work
// to the main thread.
func (rm *ResourceManager) GrantLeadership(sessionID api.LeaderSessionID) {
	rm.RunAsync(func() { rm.startNewLeadership(sessionID) })
}

// RevokeLeadership is called by the leader election when this
// ResourceManager is no longer the leader.
func (rm *ResourceManager) RevokeLeadership() {
	rm.RunAsync(rm.revokeLeadership)
}

// startNewLeadership runs on the main thread when leadership is granted
// (Flink: ResourceManagerServiceImpl#grantLeadership, which starts a new
// ResourceManager whose onStart logs "Starting the resource manager.").
func (rm *ResourceManager) startNewLeadership(sessionID api.LeaderSessionID) {
	if !rm.running.Load() {
		rm.serviceLog.Info(fmt.Sprintf("Resource manager service is not running. Ignore granting leadership with session ID %s.", sessionID))
		return
	}
	rm.serviceLog.Info(fmt.Sprintf("Resource manager service is granted leadership with session id %s.", sessionID))
	rm.stopLeadership() // granted again while leading: start from a clean slate
	rmID := api.ResourceManagerID(sessionID)
	rm.SetFencingToken(rmID)

	rm.log.Info("Starting the resource manager.")
	rm.startHeartbeatServices()
	rm.slotManager.Start(rmID, rm.Endpoint)
	rm.startStartupPeriod(rmID)

	// Publish the leadership only now, so that nobody learns the new
	// ResourceManagerID before the ResourceManager accepts it. Flink
	// confirms on another executor because a ZooKeeper or Kubernetes write
	// may block; rpc.Ask keeps the main thread free the same way.
	rpc.Ask(rm.Endpoint, rm.cfg.RPCTimeout,
		func(context.Context) (struct{}, error) {
			rm.election.ConfirmLeadership(sessionID, rm.address)
			return struct{}{}, nil
		},
		func(struct{}, error) {})
}

// startStartupPeriod gives TaskManagers the start-up period to register:
// until it ends, a job whose requirements cannot be met just waits; after
// it, the job is told (Flink: StandaloneResourceManager#startStartupPeriod).
func (rm *ResourceManager) startStartupPeriod(rmID api.ResourceManagerID) {
	rm.slotManager.SetFailUnfulfillableRequest(false)
	if rm.cfg.StartUpPeriod < 0 {
		rm.slotManager.SetFailUnfulfillableRequest(true)
		return
	}
	rm.ScheduleRunAsync(func() {
		if rm.FencingToken() == rmID { // still the same leadership
			rm.slotManager.SetFailUnfulfillableRequest(true)
		}
	}, rm.cfg.StartUpPeriod)
}

// notEnoughResourceAvailable tells a job's JobMaster that its requirements
// cannot be met (Flink: ResourceManager's ResourceEventListener
// #notEnoughResourceAvailable); the JobMaster's waiting slot requests fail.
func (rm *ResourceManager) notEnoughResourceAvailable(jobID api.JobID, acquired int) {
	registration, ok := rm.jobManagerRegistrations[jobID]
	if !ok {
		return
	}
	jm, jobMasterID := registration.gateway, registration.jobMasterID
	rpc.Ask(rm.Endpoint, rm.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, jm.NotifyNotEnoughResourcesAvailable(ctx, jobMasterID, acquired)
	}, func(_ struct{}, err error) {
		if err != nil {
			rm.log.Debug(fmt.Sprintf("Could not notify the JobMaster of job %s that resources are missing.", jobID), "cause", err.Error())
		}
	})
}

// revokeLeadership runs on the main thread when leadership is revoked
// (Flink: ResourceManagerServiceImpl#revokeLeadership). A standalone
// ResourceManager supports several leader sessions, so it stays up and
// waits to be granted leadership again.
func (rm *ResourceManager) revokeLeadership() {
	if !rm.running.Load() {
		rm.serviceLog.Info("Resource manager service is not running. Ignore revoking leadership.")
		return
	}
	rm.serviceLog.Info(fmt.Sprintf("Resource manager service is revoked leadership with session id %s.",
		leaderSessionIDOrNull(rm.FencingToken())))
	rm.stopLeadership()
}

// leaderSessionIDOrNull prints the session of a leadership as Flink prints
// ResourceManagerServiceImpl's leaderSessionID: "null" when there is none.
func leaderSessionIDOrNull(rmID api.ResourceManagerID) string {
	if rmID.IsZero() {
		return "null"
	}
	return rmID.String()
}

// stopLeadership ends the current leadership, if any (Flink:
// ResourceManagerServiceImpl#stopLeaderResourceManager, which closes the
// leader's ResourceManager): it forgets every registration, since
// JobMasters and TaskExecutors register anew with the next leader, and
// clears the fencing token.
func (rm *ResourceManager) stopLeadership() {
	if rm.FencingToken().IsZero() {
		return
	}
	rm.stopHeartbeatServices()
	rm.slotManager.Suspend()
	clear(rm.jobManagerRegistrations)
	clear(rm.taskExecutors)
	rm.SetFencingToken(api.ResourceManagerID{})
}
