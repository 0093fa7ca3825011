package component

import (
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"flinklab/runtime/blob"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/registration"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/rest"
	"flinklab/runtime/rpc"
	"flinklab/runtime/scheduler/adaptive"
	"flinklab/runtime/trace"
)

// Config is what the cluster's configuration says the JobManager's
// components are to be: the part of Flink's Configuration that
// DispatcherResourceManagerComponentFactory#create reads, already parsed
// and checked by the caller. Zero fields take the defaults of the
// component that reads them.
type Config struct {
	// WorkingDir holds the JobGraphStore (WorkingDir/jobgraphs).
	WorkingDir string
	// RPCTimeout is pekko.ask.timeout, of the ResourceManager and of every
	// JobMaster.
	RPCTimeout time.Duration
	// Heartbeat holds the heartbeat.* options with which the
	// ResourceManager and every JobMaster watch their peers (Flink passes
	// the HeartbeatServices to create).
	Heartbeat heartbeat.HeartbeatServices
	// Registration is how every JobMaster retries its registration at the
	// ResourceManager (cluster.registration.*).
	Registration registration.Config
	// RequirementCheckDelay is the SlotManager's
	// slotmanager.requirement-check.delay.
	RequirementCheckDelay time.Duration
	// StartUpPeriod is the ResourceManager's
	// resourcemanager.standalone.start-up-time.
	StartUpPeriod time.Duration
	// RestartStrategy holds the restart-strategy.* options of every job.
	RestartStrategy failover.Config
	// Checkpointing holds the execution.checkpointing.* and state.*
	// options of every job; no interval runs jobs without checkpoints.
	Checkpointing checkpoint.CheckpointCoordinatorConfiguration
	// FailoverStrategy is jobmanager.execution.failover-strategy of every
	// job: "region" (the default, also when empty) or "full".
	FailoverStrategy string
	// SchedulerType is jobmanager.scheduler of every job, and
	// AdaptiveScheduler the AdaptiveScheduler's options.
	SchedulerType     string
	AdaptiveScheduler adaptive.Settings
	// SlotRequestTimeout is slot.request.timeout of every job.
	SlotRequestTimeout time.Duration
	// JobStore holds the jobstore.* options: where the Dispatcher keeps
	// the graphs of the jobs that ended. The zero value keeps them all
	// in memory (Flink's MiniCluster); an empty Dir means WorkingDir.
	JobStore dispatcher.JobStoreConfig
	// REST configures the REST endpoint; nil means the component has
	// none (a MiniCluster that is driven through its Go API only). A nil
	// REST.Logger means Logger.
	REST *rest.Config
	// Configuration is what GET /jobmanager/config lists: the options the
	// cluster was started with, under Flink's keys.
	Configuration map[string]string
	// Logger receives the log lines of every component; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Deps are the cluster services the component is built from: what Flink's
// ClusterEntrypoint#initializeServices (or the MiniCluster's start) has
// made before it calls create, and which outlive the component.
type Deps struct {
	// RPC is where the ResourceManager, the Dispatcher and every JobMaster
	// serve: an rpc.LocalService in the MiniCluster, an rpc.TCPService in a
	// JobManager process.
	RPC rpc.Service
	// HA runs the leader elections of the ResourceManager and of every
	// job, and holds the JobResultStore.
	HA highavailability.Services
	// BlobServer is where the REST endpoint stores the jars.
	BlobServer *blob.BlobServer
	// Trace records the steps the components take; nil records nothing.
	Trace *trace.Recorder
	// Faults is handed to every component, which breaks its steps with
	// it; nil injects nothing (a JobManager process: its faults could not
	// reach the steps that run in the TaskManager processes).
	Faults *fault.Injector
	// RESTDispatcherGateway is what the REST endpoint sees of the
	// Dispatcher. Nil means the Dispatcher itself, as in a session cluster
	// (Flink's SessionRestEndpointFactory); an application cluster gives
	// one that refuses every submission (where Flink uses its
	// JobRestEndpointFactory and a MiniDispatcher).
	RESTDispatcherGateway func(gateway.DispatcherGateway) gateway.DispatcherGateway
}

// Create builds and starts the JobManager's components, as Flink's
// DefaultDispatcherResourceManagerComponentFactory#create does: the
// ResourceManager, then the Dispatcher with its JobGraphStore and the
// factory of its JobManagerRunners, then the REST endpoint (see the
// package documentation for why in this order). On an error, what was
// started is stopped again.
func Create(cfg Config, deps Deps) (*DispatcherResourceManagerComponent, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	c := &DispatcherResourceManagerComponent{}
	if err := c.start(cfg, deps); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

func (c *DispatcherResourceManagerComponent) start(cfg Config, deps Deps) error {
	rm, err := resourcemanager.New(resourcemanager.Config{
		RPCTimeout:            cfg.RPCTimeout,
		RequirementCheckDelay: cfg.RequirementCheckDelay,
		Heartbeat:             cfg.Heartbeat,
		StartUpPeriod:         cfg.StartUpPeriod,
		ClusterInformation:    clusterInformation(deps.BlobServer),
		Logger:                cfg.Logger,
	}, resourcemanager.Deps{RPC: deps.RPC, HA: deps.HA, Trace: deps.Trace, Faults: deps.Faults})
	if err != nil {
		return err
	}
	c.resourceManager = rm
	if err := rm.Start(); err != nil {
		return err
	}

	dispatcherConfig := dispatcher.Config{Logger: cfg.Logger, JobStore: cfg.JobStore}
	if dispatcherConfig.JobStore.Dir == "" {
		dispatcherConfig.JobStore.Dir = cfg.WorkingDir
	}
	dispatcherDeps := dispatcher.Deps{
		RPC:                    deps.RPC,
		JobResultStore:         deps.HA.JobResultStore(),
		CreateJobManagerRunner: jobManagerRunnerFactory(cfg, deps),
		BlobServer:             blobServerOf(deps),
		Trace:                  deps.Trace,
		Faults:                 deps.Faults,
	}
	if ha, ok := deps.HA.(highlyAvailable); ok {
		// Flink: HaServicesJobGraphStoreFactory and a DefaultDispatcherRunner:
		// the JobGraphs are where every JobManager of the cluster finds
		// them, and a Dispatcher runs only while this process leads.
		if c.jobGraphStore, err = ha.JobGraphStore(); err != nil {
			return err
		}
		dispatcherDeps.JobGraphStore = c.jobGraphStore
		c.dispatcherRunner = dispatcher.NewRunner(dispatcherConfig, dispatcherDeps, deps.HA.DispatcherLeaderElection())
		if err := c.dispatcherRunner.Start(); err != nil {
			return err
		}
	} else {
		// Without HA the jobs are persisted in the working directory, and
		// the only JobManager runs the only Dispatcher.
		if c.jobGraphStore, err = jobmanager.NewFileJobGraphStore(filepath.Join(cfg.WorkingDir, "jobgraphs")); err != nil {
			return err
		}
		dispatcherDeps.JobGraphStore = c.jobGraphStore
		d, err := dispatcher.New(dispatcherConfig, dispatcherDeps)
		if err != nil {
			return err
		}
		if err := d.Start(); err != nil {
			return err
		}
		c.dispatcher = d
	}

	if cfg.REST == nil {
		return nil
	}
	return c.startRESTEndpoint(cfg, deps)
}

// highlyAvailable are HA services that keep the cluster's JobGraphs where
// every JobManager finds them (ZooKeeper's): with them the Dispatcher is
// elected.
// clusterInformation is where the BlobServer listens, which the
// ResourceManager tells every TaskExecutor that registers; zero when it
// does not listen (the MiniCluster's, whose TaskExecutors call it in the
// same process).
func clusterInformation(blobServer *blob.BlobServer) gateway.ClusterInformation {
	if blobServer == nil {
		return gateway.ClusterInformation{}
	}
	host, port, err := net.SplitHostPort(blobServer.Address())
	if err != nil {
		return gateway.ClusterInformation{}
	}
	portNumber, err := strconv.Atoi(port)
	if err != nil {
		return gateway.ClusterInformation{}
	}
	return gateway.ClusterInformation{BlobServerHostname: host, BlobServerPort: portNumber}
}

// blobServerOf is deps.BlobServer for the Dispatcher's cleanup; a nil
// interface when there is none.
func blobServerOf(deps Deps) dispatcher.BlobServer {
	if deps.BlobServer == nil {
		return nil
	}
	return deps.BlobServer
}

type highlyAvailable interface {
	JobGraphStore() (jobmanager.JobGraphStore, error)
}

// startRESTEndpoint starts Flink's DispatcherRestEndpoint in front of the
// Dispatcher and the ResourceManager.
func (c *DispatcherResourceManagerComponent) startRESTEndpoint(cfg Config, deps Deps) error {
	restCfg := *cfg.REST
	if restCfg.Logger == nil {
		restCfg.Logger = cfg.Logger
	}
	var restDispatcher gateway.DispatcherGateway = c.dispatcher
	var restResourceManager rest.ResourceManagerGateway = c.resourceManager
	if c.dispatcherRunner != nil {
		// Flink's LeaderRetrievalHandler: whichever Dispatcher and
		// ResourceManager lead now, in this JobManager or in another.
		leader, err := dispatcher.NewLeaderGateway(deps.RPC, deps.HA.DispatcherLeaderRetriever())
		if err != nil {
			return err
		}
		c.leaderGateway, restDispatcher = leader, leader
		rm, err := newLeaderResourceManager(deps.RPC, deps.HA.ResourceManagerLeaderRetriever())
		if err != nil {
			return err
		}
		c.leaderResourceManager, restResourceManager = rm, rm
	}
	if deps.RESTDispatcherGateway != nil {
		restDispatcher = deps.RESTDispatcherGateway(c.dispatcher)
	}
	server, err := rest.NewServer(restCfg, rest.Deps{
		Dispatcher:      restDispatcher,
		ResourceManager: restResourceManager,
		BlobServer:      deps.BlobServer,
		Programs:        client.StreamingProgramRunner{},
		Trace:           deps.Trace,
		Faults:          deps.Faults,
		Configuration:   cfg.Configuration,
	})
	if err != nil {
		return err
	}
	c.restServer = server
	return server.Start()
}

// jobManagerRunnerFactory returns the Dispatcher's JobManagerRunnerFactory:
// a runner per submitted job whose JobMasters serve in the component's RPC
// service, win the job's election in its HA services, and run with the
// options of cfg (jobmaster.CreateJobManagerRunner). This is where every
// JobMaster of either kind of cluster is given its options.
func jobManagerRunnerFactory(cfg Config, deps Deps) func(*jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
	jobMasterConfig := jobmaster.Config{
		RPCTimeout:         cfg.RPCTimeout,
		Registration:       cfg.Registration,
		RestartStrategy:    cfg.RestartStrategy,
		Checkpointing:      cfg.Checkpointing,
		FailoverStrategy:   cfg.FailoverStrategy,
		SchedulerType:      cfg.SchedulerType,
		AdaptiveScheduler:  cfg.AdaptiveScheduler,
		Heartbeat:          cfg.Heartbeat,
		SlotRequestTimeout: cfg.SlotRequestTimeout,
		Logger:             cfg.Logger,
	}
	jobMasterDeps := jobmaster.Deps{RPC: deps.RPC, HA: deps.HA, Trace: deps.Trace, Faults: deps.Faults}
	return func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
		return jobmaster.CreateJobManagerRunner(g, jobMasterConfig, jobMasterDeps)
	}
}
