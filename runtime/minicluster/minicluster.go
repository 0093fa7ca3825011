package minicluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/entrypoint/component"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/network"
	"flinklab/runtime/registration"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/rest"
	"flinklab/runtime/rpc"
	"flinklab/runtime/scheduler/adaptive"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/taskexecutor/taskmanagerrunner"
	"flinklab/runtime/trace"
)

// Config describes the cluster.
type Config struct {
	NumTaskManagers        int // default 1
	NumSlotsPerTaskManager int // default 1 (Flink's taskmanager.numberOfTaskSlots)
	// Configuration holds the TaskManagers' options under Flink's keys,
	// as `-D key=value` gives them: taskmanager.memory.* and
	// taskmanager.cpu.cores (taskmanager.numberOfTaskSlots is
	// NumSlotsPerTaskManager's). Each TaskManager's memory is computed
	// from it as a TaskManager process computes its own
	// (taskmanagerrunner.ProcessSpec): without any memory size,
	// taskmanager.memory.process.size is the distribution's 1728m. New
	// refuses a configuration that cannot work, with Flink's message.
	Configuration map[string]string
	// WorkingDir holds the JobGraphStore, the BlobServer's storage and
	// each TaskExecutor's BLOB cache. Empty: a temporary directory that
	// Close removes.
	WorkingDir string
	// RPCTimeout bounds every RPC (Flink's pekko.ask.timeout); default 10 s.
	RPCTimeout time.Duration
	// RequirementCheckDelay is how long the SlotManager waits after a
	// change before it matches requirements to slots (Flink's
	// slotmanager.requirement-check.delay, 50 ms).
	RequirementCheckDelay time.Duration
	Registration          registration.Config
	// Heartbeat holds the heartbeat.* options of every component: how
	// often the JobMasters and the ResourceManager ask for heartbeats, and
	// after how long a silent peer is declared lost. Zero fields take
	// Flink's defaults (interval 10 s, timeout 50 s, rpc-failure-threshold
	// 2); New rejects invalid ones.
	Heartbeat heartbeat.HeartbeatServices
	// RestartStrategy holds the restart-strategy.* options every JobMaster
	// gets; the zero value is Flink's default without checkpointing: no
	// restarts. Start from failover.DefaultConfig() to choose one: the
	// zero value of a strategy's fields is not its default.
	RestartStrategy failover.Config
	// Checkpointing holds the execution.checkpointing.* and state.*
	// options of every job (checkpoint.FromMap reads them); the zero value
	// runs jobs without checkpoints.
	Checkpointing checkpoint.CheckpointCoordinatorConfiguration
	// FailoverStrategy is jobmanager.execution.failover-strategy of every
	// job: "region" (Flink's default, also when empty) restarts the
	// pipelined regions a failure touches, "full" every task.
	FailoverStrategy string
	// SchedulerType is jobmanager.scheduler of every job: "Default" (also
	// when empty) or "Adaptive"; AdaptiveScheduler holds the
	// AdaptiveScheduler's options: zero means adaptive.DefaultSettings();
	// otherwise start from DefaultSettings or ReactiveSettings, whose
	// fields' zero values are not their defaults.
	SchedulerType     string
	AdaptiveScheduler adaptive.Settings
	// SlotRequestTimeout is how long the slot requests of a job's
	// scheduling round may stay unfulfillable before they fail with
	// NoResourceAvailableException (slot.request.timeout; zero: Flink's
	// 5 min).
	SlotRequestTimeout time.Duration
	// StartUpPeriod is how long the ResourceManager lets TaskManagers
	// register before it tells jobs their requirements cannot be met
	// (resourcemanager.standalone.start-up-time; zero: SlotRequestTimeout,
	// as in Flink, so 5 min when neither is set; negative: none).
	StartUpPeriod time.Duration
	// JobStore is where the Dispatcher keeps the graphs of the jobs that
	// ended. The zero value is what Flink's MiniCluster uses (new
	// MemoryExecutionGraphInfoStore()): every job in memory, forever.
	// Differs from Flink: Flink's MiniCluster reads no jobstore.*
	// option; here a test or a benchmark may choose another store, such
	// as a session cluster's (dispatcher.DefaultJobStoreConfig, in
	// WorkingDir unless JobStore.Dir says otherwise).
	JobStore dispatcher.JobStoreConfig
	// REST, when set, starts the cluster's REST endpoint (Flink's
	// DispatcherRestEndpoint) with this configuration; its Address
	// defaults to a free loopback port.
	REST   *rest.Config
	Logger *slog.Logger
	// TaskManagerLogger, when set, gives each TaskManager a log of its
	// own, as if it ran in a process of its own: every line of the
	// TaskExecutor, its slots, its BlobCache and its tasks goes there.
	// Nil writes the TaskManagers' lines to Logger, in the one log of the
	// whole cluster, as Flink's MiniCluster does.
	TaskManagerLogger func(resourceID api.ResourceID) *slog.Logger
}

// MiniCluster is a whole cluster in one process.
type MiniCluster struct {
	cfg        Config
	log        *slog.Logger
	ownWorkDir bool
	trace      *trace.Recorder
	faults     *fault.Injector

	// spec is every TaskManager's CPU cores, memory and slots, computed
	// by New from the Config.
	spec clusterframework.TaskExecutorProcessSpec

	rpc              *rpc.LocalService
	ha               *highavailability.EmbeddedHaServices
	blobServer       *blob.BlobServer
	partitionManager *network.ResultPartitionManager
	components       *component.DispatcherResourceManagerComponent
	taskManagers     []*taskmanagerrunner.TaskManager
}

// New returns a cluster that is not started.
func New(cfg Config) (*MiniCluster, error) {
	if cfg.NumTaskManagers <= 0 {
		cfg.NumTaskManagers = 1
	}
	if cfg.NumSlotsPerTaskManager <= 0 {
		cfg.NumSlotsPerTaskManager = 1
	}
	if cfg.RPCTimeout <= 0 {
		cfg.RPCTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StartUpPeriod == 0 {
		// Flink: ConfigurationUtils#getStandaloneClusterStartupPeriodTime.
		cfg.StartUpPeriod = cfg.SlotRequestTimeout
	}
	cfg.Heartbeat = cfg.Heartbeat.WithDefaults()
	if err := cfg.Heartbeat.Validate(); err != nil {
		return nil, fmt.Errorf("minicluster: %w", err)
	}
	if _, err := failover.LoadFailoverStrategy(cfg.FailoverStrategy); err != nil {
		return nil, fmt.Errorf("minicluster: %w", err)
	}
	if _, err := adaptive.ParseSchedulerType(cfg.SchedulerType); err != nil {
		return nil, fmt.Errorf("minicluster: %w", err)
	}
	if cfg.AdaptiveScheduler != (adaptive.Settings{}) {
		if err := cfg.AdaptiveScheduler.Validate(); err != nil {
			return nil, fmt.Errorf("minicluster: %w", err)
		}
	}
	// A TaskManager whose memory does not add up does not start (Flink's
	// IllegalConfigurationException); a cluster of them does not either.
	conf := maps.Clone(cfg.Configuration)
	if conf == nil {
		conf = map[string]string{}
	}
	conf[configuration.NumTaskSlots.Key()] = strconv.Itoa(cfg.NumSlotsPerTaskManager)
	spec, err := taskmanagerrunner.ProcessSpec(conf)
	if err != nil {
		return nil, fmt.Errorf("minicluster: %w", err)
	}
	return &MiniCluster{
		spec:   spec,
		cfg:    cfg,
		log:    cfg.Logger.With("logger", "MiniCluster"),
		trace:  trace.NewRecorder(),
		faults: fault.NewInjector(cfg.Logger),
	}, nil
}

// Start brings the cluster up. On an error, what was started is closed.
func (c *MiniCluster) Start() error {
	if err := c.start(); err != nil {
		return errors.Join(err, c.Close())
	}
	return nil
}

func (c *MiniCluster) start() error {
	c.log.Info("Starting Flink Mini Cluster")
	if c.cfg.WorkingDir == "" {
		dir, err := os.MkdirTemp("", "flinklab-minicluster-")
		if err != nil {
			return err
		}
		c.cfg.WorkingDir, c.ownWorkDir = dir, true
	}

	// The cluster services every component uses (Flink's MiniCluster#start
	// makes the same before it builds the components).
	c.rpc = rpc.NewLocalService()
	c.ha = highavailability.NewEmbeddedHaServices()
	c.partitionManager = network.NewResultPartitionManager()
	blobServer, err := blob.NewBlobServer(blob.ServerConfig{
		StorageDir: filepath.Join(c.cfg.WorkingDir, "blobserver"),
		Logger:     c.cfg.Logger,
	})
	if err != nil {
		return err
	}
	c.blobServer = blobServer

	// The ResourceManager, the Dispatcher and the REST endpoint, built as
	// in a JobManager process.
	components, err := component.Create(c.componentConfig(), component.Deps{
		RPC:        c.rpc,
		HA:         c.ha,
		BlobServer: c.blobServer,
		Trace:      c.trace,
		Faults:     c.faults,
	})
	if err != nil {
		return err
	}
	c.components = components

	for i := range c.cfg.NumTaskManagers {
		if err := c.startTaskExecutor(i); err != nil {
			return err
		}
	}
	return nil
}

// componentConfig is what the JobManager's components are made with: the
// cluster's Config, and what GET /jobmanager/config lists of it.
func (c *MiniCluster) componentConfig() component.Config {
	return component.Config{
		WorkingDir:            c.cfg.WorkingDir,
		RPCTimeout:            c.cfg.RPCTimeout,
		Heartbeat:             c.cfg.Heartbeat,
		Registration:          c.cfg.Registration,
		RequirementCheckDelay: c.cfg.RequirementCheckDelay,
		StartUpPeriod:         c.cfg.StartUpPeriod,
		RestartStrategy:       c.cfg.RestartStrategy,
		Checkpointing:         c.cfg.Checkpointing,
		FailoverStrategy:      c.cfg.FailoverStrategy,
		SchedulerType:         c.cfg.SchedulerType,
		AdaptiveScheduler:     c.cfg.AdaptiveScheduler,
		SlotRequestTimeout:    c.cfg.SlotRequestTimeout,
		JobStore:              c.cfg.JobStore,
		REST:                  c.cfg.REST,
		Configuration:         c.configuration(),
		Logger:                c.cfg.Logger,
	}
}

// configuration is what GET /jobmanager/config lists: the TaskManagers'
// options the cluster was given, and the cluster's own under Flink's
// keys, heartbeat.* in ms, as Flink reads them.
func (c *MiniCluster) configuration() map[string]string {
	conf := maps.Clone(c.cfg.Configuration)
	if conf == nil {
		conf = map[string]string{}
	}
	maps.Copy(conf, map[string]string{
		"minicluster.number-of-taskmanagers": fmt.Sprint(c.cfg.NumTaskManagers),
		"taskmanager.numberOfTaskSlots":      fmt.Sprint(c.cfg.NumSlotsPerTaskManager),
		"heartbeat.interval":                 fmt.Sprint(c.cfg.Heartbeat.Interval.Milliseconds()),
		"heartbeat.timeout":                  fmt.Sprint(c.cfg.Heartbeat.Timeout.Milliseconds()),
		"heartbeat.rpc-failure-threshold":    fmt.Sprint(c.cfg.Heartbeat.RPCFailureThreshold),
	})
	return conf
}

// startTaskExecutor starts the i-th TaskManager as a TaskManager process
// starts its one (taskmanagerrunner.StartTaskManager), in this process:
// its BlobCache fetches from the BlobServer directly, and its partitions
// are read in-process.
func (c *MiniCluster) startTaskExecutor(i int) error {
	resourceID := api.ResourceID(fmt.Sprintf("taskexecutor-%d", i))
	shuffle, err := network.NewShuffleEnvironment(network.Config{PartitionManager: c.partitionManager})
	if err != nil {
		return err
	}
	tm, err := taskmanagerrunner.StartTaskManager(taskmanagerrunner.Config{
		ResourceID:     resourceID,
		ProcessSpec:    c.spec,
		RPCTimeout:     c.cfg.RPCTimeout,
		Registration:   c.cfg.Registration,
		Heartbeat:      c.cfg.Heartbeat,
		BlobStorageDir: filepath.Join(c.cfg.WorkingDir, string(resourceID), "blobcache"),
		Logger:         c.taskManagerLogger(resourceID),
	}, taskmanagerrunner.Deps{
		RPC:               c.rpc,
		HA:                c.ha,
		BlobSource:        c.blobServer,
		BlobServerAddress: c.blobServer.Address(),
		Shuffle:           shuffle,
		Trace:             c.trace,
		Faults:            c.faults,
	})
	if err != nil {
		return err
	}
	c.taskManagers = append(c.taskManagers, tm)
	return nil
}

// taskManagerLogger is the logger of TaskManager resourceID.
func (c *MiniCluster) taskManagerLogger(resourceID api.ResourceID) *slog.Logger {
	if c.cfg.TaskManagerLogger != nil {
		return c.cfg.TaskManagerLogger(resourceID)
	}
	return c.cfg.Logger
}

// StartTaskManager starts one more TaskManager (Flink's
// MiniCluster#startTaskManager). It registers at the ResourceManager as
// the first ones did, and its slots go to the jobs that wait for slots.
// Call it from one goroutine at a time, not concurrently with Close.
func (c *MiniCluster) StartTaskManager() error {
	return c.startTaskExecutor(len(c.taskManagers))
}

// Close stops the cluster in the order Flink's MiniCluster does: first the
// REST endpoint and the Dispatcher, which suspends the jobs still running (their JobMasters
// return their slots), then the TaskExecutors, then the ResourceManager and
// the BlobServer. A working directory the cluster created is removed. Close
// returns once every goroutine the cluster started has ended.
func (c *MiniCluster) Close() error {
	var errs []error
	if c.components != nil {
		errs = append(errs, c.components.CloseDispatcher())
	}
	for _, tm := range c.taskManagers {
		errs = append(errs, tm.Close())
	}
	c.taskManagers = nil
	if c.components != nil {
		errs = append(errs, c.components.Close())
	}
	if c.blobServer != nil {
		errs = append(errs, c.blobServer.Close())
		c.blobServer = nil
	}
	if c.ownWorkDir {
		errs = append(errs, os.RemoveAll(c.cfg.WorkingDir))
		c.ownWorkDir = false
	}
	return errors.Join(errs...)
}

// RESTAddress returns the host:port the REST endpoint listens on, or "" when
// the cluster has none.
func (c *MiniCluster) RESTAddress() string {
	if c.components == nil {
		return ""
	}
	return c.components.RESTAddress()
}

// Dispatcher returns the cluster's front door.
func (c *MiniCluster) Dispatcher() gateway.DispatcherGateway { return c.dispatcher() }

// dispatcher is the cluster's Dispatcher; nil before Start and after Close.
func (c *MiniCluster) dispatcher() *dispatcher.Dispatcher {
	if c.components == nil {
		return nil
	}
	return c.components.Dispatcher()
}

// ResourceManager returns the cluster's ResourceManager.
func (c *MiniCluster) ResourceManager() *resourcemanager.ResourceManager {
	if c.components == nil {
		return nil
	}
	return c.components.ResourceManager()
}

// TaskExecutors returns the cluster's TaskExecutors.
func (c *MiniCluster) TaskExecutors() []*taskexecutor.TaskExecutor {
	tes := make([]*taskexecutor.TaskExecutor, len(c.taskManagers))
	for i, tm := range c.taskManagers {
		tes[i] = tm.TaskExecutor
	}
	return tes
}

// KillTaskManager simulates kill -9 of the i-th TaskManager (0 ≤ i <
// len(TaskExecutors())): its TaskExecutor stops answering at once, its tasks
// stop without a word, and nobody is told (TaskExecutor.Kill). The
// JobMasters and the ResourceManager find out through their heartbeat
// timeouts, and the jobs that ran there fail over, if their restart
// strategy allows it. The killed TaskExecutor stays in TaskExecutors;
// Close releases what is left of it.
func (c *MiniCluster) KillTaskManager(i int) {
	te := c.taskManagers[i].TaskExecutor
	c.log.Info(fmt.Sprintf("Killing TaskManager %s.", te.ResourceID()))
	te.Kill()
}

// JobGraphStore returns where the Dispatcher persists submitted jobs.
func (c *MiniCluster) JobGraphStore() jobmanager.JobGraphStore {
	if c.components == nil {
		return nil
	}
	return c.components.JobGraphStore()
}

// BlobServer returns the cluster's BlobServer: the REST endpoint stores a
// job's jar there before it submits the job, and the TaskExecutors fetch it
// from there (step m10).
func (c *MiniCluster) BlobServer() *blob.BlobServer { return c.blobServer }

// Faults returns the cluster's fault injector: faults armed here break the
// steps of the jobs the cluster runs (see package fault).
func (c *MiniCluster) Faults() *fault.Injector { return c.faults }

// Trace returns the submission trace of every job.
func (c *MiniCluster) Trace() *trace.Recorder { return c.trace }

// UploadJar stores a job's jar on the BlobServer and adds its key to the
// JobGraph, as a client does before it submits (the BlobServer half of
// step m1).
func (c *MiniCluster) UploadJar(g *jobgraph.JobGraph, jar []byte) error {
	key, err := c.blobServer.PutPermanentBytes(g.JobID, jar)
	if err != nil {
		return err
	}
	g.UserJarBlobKeys = append(g.UserJarBlobKeys, key)
	return nil
}

// SubmitJob submits a job through the Dispatcher.
func (c *MiniCluster) SubmitJob(ctx context.Context, g *jobgraph.JobGraph) (api.JobID, error) {
	if err := c.dispatcher().SubmitJob(ctx, g); err != nil {
		return api.JobID{}, err
	}
	return g.JobID, nil
}

// RequestJobResult waits until the job is globally terminal.
func (c *MiniCluster) RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error) {
	return c.dispatcher().RequestJobResult(ctx, jobID)
}

// RequestJobStatus returns a job's status.
func (c *MiniCluster) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	return c.dispatcher().RequestJobStatus(ctx, jobID)
}

// CancelJob cancels a job.
func (c *MiniCluster) CancelJob(ctx context.Context, jobID api.JobID) error {
	return c.dispatcher().CancelJob(ctx, jobID)
}
