package entrypoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/configuration"
	"flinklab/runtime/entrypoint/component"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	_ "flinklab/runtime/gateway/remote" // the gateways' stubs: this process talks RPC over TCP
	"flinklab/runtime/highavailability"
	"flinklab/runtime/rest"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// ClusterEntrypoint is a JobManager process (Flink's ClusterEntrypoint):
// the RPC service, the HA services, the BlobServer (listening for the
// TaskManagers' downloads), the ResourceManager, the Dispatcher with a
// JobMaster per job, and the REST endpoint, started in that order and
// stopped in the reverse one.
//
// It comes in two kinds, as in Flink: a session cluster
// (NewStandaloneSessionClusterEntrypoint) runs the jobs clients submit,
// until it is stopped; an application cluster
// (NewStandaloneApplicationClusterEntryPoint) runs the one job of its
// application and then asks to be shut down (Done).
//
// Start and Close are called once each, from the process's main
// goroutine; the other methods may be called from anywhere.
type ClusterEntrypoint struct {
	name       string // Flink's class name, e.g. "StandaloneSessionClusterEntrypoint"
	cfg        Config
	log        *slog.Logger
	app        *Application // nil in a session cluster
	trace      *trace.Recorder
	ownWorkDir bool

	// What the configuration says (Config.Configuration), read by Start:
	// the options of the ResourceManager and of every JobMaster.
	componentConfig component.Config
	// The REST endpoint's options (restoptions.go), read by Start;
	// clusterComponentConfig adds where the endpoint listens and keeps its files.
	restOptions rest.Config

	rpcService       *rpc.TCPService
	ha               highavailability.Services
	closeHA          func() // ends the HA services' session, if they have one
	blobServer       *blob.BlobServer
	clusterComponent *component.DispatcherResourceManagerComponent // the ResourceManager, the Dispatcher, the REST endpoint

	// The application's job: watched until it ends, then shutDown closes.
	stopWatching context.CancelFunc
	watcher      sync.WaitGroup
	shutDown     chan struct{}

	mu          sync.Mutex
	status      api.ApplicationStatus // how the cluster ends; UNKNOWN until it knows
	diagnostics string
	startFailed bool
	closeOnce   sync.Once
}

// NewStandaloneSessionClusterEntrypoint returns a session cluster that is
// not started (Flink's StandaloneSessionClusterEntrypoint, what
// start-cluster.sh and jobmanager.sh start).
func NewStandaloneSessionClusterEntrypoint(cfg Config) *ClusterEntrypoint {
	return newClusterEntrypoint("StandaloneSessionClusterEntrypoint", cfg, nil)
}

func newClusterEntrypoint(name string, cfg Config, app *Application) *ClusterEntrypoint {
	cfg = cfg.withDefaults()
	return &ClusterEntrypoint{
		name:     name,
		cfg:      cfg,
		log:      cfg.Logger.With("logger", name),
		app:      app,
		trace:    trace.NewRecorder(),
		shutDown: make(chan struct{}),
		status:   api.ApplicationUnknown,
	}
}

// Start brings the cluster up and returns once every component serves.
// On an error, what was started is stopped again, and the error says what
// could not start (Flink: "Could not start cluster entrypoint …").
func (e *ClusterEntrypoint) Start() error {
	logEnvironmentInfo(e.log, e.name, "")
	e.log.Info(fmt.Sprintf("Starting %s.", e.name))
	if err := e.start(); err != nil {
		e.log.Error(fmt.Sprintf("Could not start cluster entrypoint %s.", e.name), "cause", err.Error())
		e.mu.Lock()
		e.startFailed, e.diagnostics = true, err.Error()
		e.mu.Unlock()
		return errors.Join(fmt.Errorf("could not start cluster entrypoint %s: %w", e.name, err), e.Close())
	}
	return nil
}

func (e *ClusterEntrypoint) start() error {
	if err := checkHostPort("jobmanager.rpc.address", e.cfg.RPCAddress); err != nil {
		return err
	}
	if err := checkHostPort("rest.address", e.cfg.RESTAddress); err != nil {
		return err
	}
	if err := readRESTOptions(e.cfg.Configuration, &e.restOptions); err != nil {
		return err
	}
	if err := checkHostPort("blob.server.port", e.cfg.BlobServerAddress); err != nil {
		return err
	}
	if err := e.readConfiguration(); err != nil {
		return err
	}
	listeners, err := readListenerOptions(e.cfg.Configuration)
	if err != nil {
		return err
	}
	if e.cfg.WorkingDir == "" {
		dir, err := os.MkdirTemp("", "flinklab-jobmanager-")
		if err != nil {
			return err
		}
		e.cfg.WorkingDir, e.ownWorkDir = dir, true
	}

	// Flink's ClusterEntrypoint#initializeServices: the RPC service, the
	// HA services and the BlobServer, which every component below uses.
	e.log.Info("Initializing cluster services.")
	rpcService, err := rpc.NewTCPService(listeners.rpcConfig(e.cfg.RPCAddress, e.cfg.Logger))
	if err != nil {
		return err
	}
	e.rpcService = rpcService
	if e.ha, e.closeHA, err = createHaServices(e.cfg.Configuration, rpcService, e.cfg.Logger); err != nil {
		return err
	}
	blobStore, err := createBlobStore(e.cfg.Configuration)
	if err != nil {
		return err
	}
	if e.blobServer, err = blob.NewBlobServer(listeners.withBlobServerLimits(blob.ServerConfig{
		StorageDir:    filepath.Join(e.cfg.WorkingDir, "blobStorage"),
		ListenAddress: e.cfg.BlobServerAddress, // the TaskManagers download over TCP
		BlobStore:     blobStore,
		Logger:        e.cfg.Logger,
	})); err != nil {
		return err
	}

	// Flink's DispatcherResourceManagerComponentFactory#create: the
	// ResourceManager, the Dispatcher and the REST endpoint, built as in
	// the MiniCluster.
	if e.clusterComponent, err = component.Create(e.clusterComponentConfig(), e.clusterComponentDeps()); err != nil {
		return err
	}

	if e.app != nil {
		return e.runApplication()
	}
	return nil
}

// clusterComponentConfig is the configuration of the ResourceManager, the
// Dispatcher and the REST endpoint: the options readConfiguration and
// readRESTOptions read, the working directory, and where the REST
// endpoint listens.
func (e *ClusterEntrypoint) clusterComponentConfig() component.Config {
	cfg := e.componentConfig
	cfg.WorkingDir = e.cfg.WorkingDir
	restConfig := e.restOptions // a copy: start read them (restoptions.go)
	restConfig.Address = e.cfg.RESTAddress
	restConfig.UploadDir = filepath.Join(e.cfg.WorkingDir, "web-upload")
	restConfig.LogDir = e.cfg.LogDir
	restConfig.Logger = e.cfg.Logger
	cfg.REST = &restConfig
	host, port, _ := net.SplitHostPort(e.rpcService.HostPort())
	_, blobPort, _ := net.SplitHostPort(e.blobServer.Address())
	cfg.Configuration = e.restConfiguration(map[string]string{
		"jobmanager.rpc.address": host,
		"jobmanager.rpc.port":    port,
		"high-availability.type": haType(e.cfg.Configuration),
		"blob.storage.directory": filepath.Join(e.cfg.WorkingDir, "blobStorage"),
		"blob.server.port":       blobPort,
	})
	return cfg
}

// clusterComponentDeps are the cluster services the components are built
// from. No Faults: a fault armed here could not reach the steps that run
// in the TaskManager processes (m9 to m11), so /cluster/faults answers
// that injection is not enabled. The MiniCluster, all in one process,
// has it.
func (e *ClusterEntrypoint) clusterComponentDeps() component.Deps {
	deps := component.Deps{RPC: e.rpcService, HA: e.ha, BlobServer: e.blobServer, Trace: e.trace}
	if e.app != nil {
		deps.RESTDispatcherGateway = func(d gateway.DispatcherGateway) gateway.DispatcherGateway {
			return applicationDispatcher{d} // the Dispatcher runs the application's job only
		}
	}
	return deps
}

// readConfiguration reads the options of Config.Configuration that the
// JobManager's components take, and refuses the ones that are wrong
// before anything starts, as Flink's ClusterEntrypoint fails on a bad
// configuration: the RPC timeout and the heartbeats of the
// ResourceManager and of every JobMaster, how a JobMaster retries its
// registration, the SlotManager's requirement check delay, and the
// restart strategy, failover strategy and slot request timeout of every
// job.
func (e *ClusterEntrypoint) readConfiguration() error {
	conf := e.cfg.Configuration
	c := &e.componentConfig
	c.Logger = e.cfg.Logger
	var err error
	if c.RPCTimeout, err = askTimeout(conf); err != nil {
		return err
	}
	if c.Heartbeat, err = heartbeatServices(conf); err != nil {
		return err
	}
	if c.RequirementCheckDelay, err = durationOption(conf, KeyRequirementCheckDelay, 0); err != nil {
		return err
	}
	if _, set := conf[KeyRequirementCheckDelay]; set && c.RequirementCheckDelay == 0 {
		// 0 means no delay; the ResourceManager's Config takes a zero
		// delay for "the default", so the shortest one stands for it.
		c.RequirementCheckDelay = time.Nanosecond
	}
	if c.Registration, err = registrationConfig(conf); err != nil {
		return err
	}
	if c.RestartStrategy, err = restartStrategy(conf); err != nil {
		return err
	}
	// execution.checkpointing.* and state.*: Flink reads them on the
	// client into each job; here they are the cluster's, for every job.
	if c.Checkpointing, err = checkpoint.FromMap(conf); err != nil {
		return err
	}
	// Flink reads it when each job's scheduler is made, and fails the job;
	// here a wrong value stops the JobManager before any job runs.
	if c.FailoverStrategy, err = failover.LoadFailoverStrategy(conf[failover.KeyFailoverStrategy]); err != nil {
		return err
	}
	if c.SchedulerType, c.AdaptiveScheduler, err = schedulerOptions(conf); err != nil {
		return err
	}
	if c.AdaptiveScheduler.Reactive && e.app == nil {
		// Flink's ClusterEntrypoint refuses it for a session cluster:
		// reactive mode scales the one job of the cluster to its slots.
		return configuration.NewIllegalConfigurationError("Reactive mode is configured for an unsupported cluster type. At the moment, reactive mode is only supported by standalone application clusters (bin/standalone-job.sh).", nil)
	}
	if c.SlotRequestTimeout, err = slotRequestTimeout(conf); err != nil {
		return err
	}
	// Flink's SessionClusterEntrypoint makes the job store jobstore.*
	// describe, the File store by default; an application cluster keeps
	// its job in memory (ApplicationClusterEntryPoint: new
	// MemoryExecutionGraphInfoStore()), so there the options are only
	// checked.
	jobStore, err := jobStoreOptions(conf)
	if err != nil {
		return err
	}
	if e.app == nil {
		c.JobStore = jobStore
	}
	c.StartUpPeriod, err = standaloneStartUpPeriod(conf, c.SlotRequestTimeout)
	return err
}

// restConfiguration is what GET /jobmanager/config lists: the options the
// JobManager was given, the heartbeat options it runs with (in ms, as
// Flink writes them), and where it listens.
func (e *ClusterEntrypoint) restConfiguration(listening map[string]string) map[string]string {
	conf := maps.Clone(e.cfg.Configuration)
	if conf == nil {
		conf = map[string]string{}
	}
	heartbeats := e.componentConfig.Heartbeat
	conf[KeyHeartbeatInterval] = strconv.FormatInt(heartbeats.Interval.Milliseconds(), 10)
	conf[KeyHeartbeatTimeout] = strconv.FormatInt(heartbeats.Timeout.Milliseconds(), 10)
	conf[KeyHeartbeatRPCFailureThreshold] = strconv.Itoa(heartbeats.RPCFailureThreshold)
	maps.Copy(conf, listening)
	return conf
}

// Done is closed when the cluster asks to be shut down by itself: an
// application cluster once its job has ended. A session cluster runs
// until it is stopped, and never closes it.
func (e *ClusterEntrypoint) Done() <-chan struct{} { return e.shutDown }

// ApplicationStatus returns how the cluster ends: the application's
// outcome for an application cluster whose job has ended, UNKNOWN while
// it runs and for a session cluster (Flink's ApplicationStatus).
func (e *ClusterEntrypoint) ApplicationStatus() api.ApplicationStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.status
}

// ExitCode is the exit code of the process once the cluster is closed:
// 1 if it could not start (Flink's STARTUP_FAILURE_RETURN_CODE), 0 for a
// session cluster that was stopped, and for an application cluster
// Flink's ApplicationStatus#processExitCode: 0 for an application that
// SUCCEEDED or was CANCELED, 1443 for one that FAILED, 1445 when its
// outcome is UNKNOWN (a POSIX shell sees the low 8 bits: 163 and 165).
func (e *ClusterEntrypoint) ExitCode() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.startFailed:
		return 1
	case e.app == nil:
		return 0
	default:
		return processExitCode(e.status)
	}
}

func processExitCode(status api.ApplicationStatus) int {
	switch status {
	case api.ApplicationSucceeded, api.ApplicationCanceled:
		return 0
	case api.ApplicationFailed:
		return 1443
	default:
		return 1445
	}
}

func (e *ClusterEntrypoint) setOutcome(status api.ApplicationStatus, diagnostics string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.status, e.diagnostics = status, diagnostics
}

// RPCAddress returns the host:port of the RPC service, which TaskManagers
// connect to (taskmanager --jobmanager HOST:PORT), once started.
func (e *ClusterEntrypoint) RPCAddress() string {
	if e.rpcService == nil {
		return ""
	}
	return e.rpcService.HostPort()
}

// BlobServerAddress returns the host:port the BlobServer listens on, which
// TaskManagers download jars from, once started.
func (e *ClusterEntrypoint) BlobServerAddress() string {
	if e.blobServer == nil {
		return ""
	}
	return e.blobServer.Address()
}

// RESTAddress returns the host:port of the REST endpoint (flink run -m
// HOST:PORT), once started.
func (e *ClusterEntrypoint) RESTAddress() string {
	if e.clusterComponent == nil {
		return ""
	}
	return e.clusterComponent.RESTAddress()
}

// Close stops the cluster, as Flink's ClusterEntrypoint#shutDownAsync
// does: the REST endpoint, the Dispatcher (jobs still running are
// suspended; their JobMasters give back their slots), the
// ResourceManager, the BlobServer and the RPC service, and then removes
// the working directory it created. Closing twice does nothing.
func (e *ClusterEntrypoint) Close() error {
	var errs []error
	e.closeOnce.Do(func() {
		e.mu.Lock()
		status, diagnostics := e.status, e.diagnostics
		e.mu.Unlock()
		if status == api.ApplicationUnknown && diagnostics == "" {
			diagnostics = "Cluster entrypoint has been closed externally."
		}
		e.log.Info(fmt.Sprintf("Shutting %s down with application status %s. Diagnostics %s.", e.name, status, diagnostics))

		if e.stopWatching != nil {
			e.stopWatching()
			e.watcher.Wait()
		}
		if e.clusterComponent != nil {
			errs = append(errs, e.clusterComponent.Close())
		}
		if e.closeHA != nil {
			e.closeHA()
		}
		if e.blobServer != nil {
			errs = append(errs, e.blobServer.Close())
		}
		if e.rpcService != nil {
			errs = append(errs, e.rpcService.Close())
		}
		if e.ownWorkDir {
			errs = append(errs, os.RemoveAll(e.cfg.WorkingDir))
		}
		e.log.Info(fmt.Sprintf("Terminating cluster entrypoint process %s with exit code %d.", e.name, e.ExitCode()))
	})
	return errors.Join(errs...)
}
