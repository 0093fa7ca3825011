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

	"flinklab/runtime/api"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
	"flinklab/runtime/gateway"
	_ "flinklab/runtime/gateway/remote" // the gateways' stubs: this process talks RPC over TCP
	"flinklab/runtime/highavailability"
	"flinklab/runtime/rpc"
	"flinklab/runtime/taskexecutor/taskmanagerrunner"
)

// TaskManagerConfig configures a TaskManager process. Zero values take
// Flink's defaults.
type TaskManagerConfig struct {
	// JobManagerAddress is the host:port of the JobManager's RPC service
	// (jobmanager.rpc.address and jobmanager.rpc.port): where the
	// ResourceManager is. Required.
	JobManagerAddress string
	// RPCAddress is the host:port this TaskManager's RPC service listens
	// on (taskmanager.host and taskmanager.rpc.port), reachable by the
	// JobManager. "" means DefaultTaskManagerRPCAddress, a free port.
	RPCAddress string
	// NumberOfSlots is taskmanager.numberOfTaskSlots. 0 takes it from
	// Configuration (default 1); set, it wins over Configuration's.
	NumberOfSlots int
	// ResourceID is taskmanager.resource-id; "" means Flink's default, the
	// RPC service's host:port and six random hex digits
	// ("localhost:40531-3f2a9c").
	ResourceID api.ResourceID
	// BlobServerAddress is the host:port of the JobManager's BlobServer,
	// where the BlobCache downloads the jobs' jars; given, it is kept
	// whatever the ResourceManager says. "" means the BlobServer the
	// ResourceManager names when the TaskExecutor registers (Flink's
	// ClusterInformation, after a failover the new leader's), and until
	// then the JobManager's host and DefaultBlobServerPort
	// (blob.server.port), or none under ZooKeeper HA.
	BlobServerAddress string
	// WorkingDir holds the BlobCache's copies of the jars. "" means a
	// temporary directory that Close removes.
	WorkingDir string
	// Configuration holds Flink's configuration options as key → value
	// (config.yaml, `-D key=value`). The TaskManager reads heartbeat.*
	// (how it watches the ResourceManager and its JobMasters, which should
	// be what the JobManager was given), pekko.ask.timeout (its RPC
	// timeout), cluster.registration.* (how it retries its
	// registrations), and taskmanager.memory.*, taskmanager.cpu.cores and
	// taskmanager.numberOfTaskSlots (its memory, CPU cores and slots; see
	// ProcessSpec). nil means Flink's defaults, and the distribution's
	// taskmanager.memory.process.size: 1728m.
	Configuration map[string]string
	// Logger receives the log lines of every component; nil means
	// slog.Default().
	Logger *slog.Logger
}

// TaskManagerRunner is a TaskManager process (Flink's TaskManagerRunner):
// an RPC service of its own, the standalone HA services pointing at the
// JobManager, a BlobCache that downloads from the JobManager's
// BlobServer, a data plane with a server of its own, and one
// TaskExecutor, which registers at the ResourceManager and offers its
// slots.
//
// Start and Close are called once each, from the process's main
// goroutine.
type TaskManagerRunner struct {
	cfg        TaskManagerConfig
	log        *slog.Logger
	ownWorkDir bool

	rpcService  *rpc.TCPService
	ha          highavailability.Services
	closeHA     func() // ends the HA services' session, if they have one
	dataPlane   *dataPlane
	taskManager *taskmanagerrunner.TaskManager // the TaskExecutor and its BlobCache
	closeOnce   sync.Once
}

// NewTaskManagerRunner returns a TaskManager that is not started.
func NewTaskManagerRunner(cfg TaskManagerConfig) *TaskManagerRunner {
	if cfg.RPCAddress == "" {
		cfg.RPCAddress = DefaultTaskManagerRPCAddress
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &TaskManagerRunner{cfg: cfg, log: cfg.Logger.With("logger", "TaskManagerRunner")}
}

// ProcessSpec computes the TaskManager's CPU cores, memory and slots from
// its Configuration and NumberOfSlots (taskmanagerrunner.ProcessSpec: the
// distribution's taskmanager.memory.process.size of 1728m unless the
// memory is sized otherwise). An illegal configuration is Flink's
// IllegalConfigurationException, "TaskManager memory configuration
// failed: ...". It is what Flink's start script computes before it starts
// the TaskManager's JVM (BashJavaUtils GET_TM_RESOURCE_PARAMS); Start
// computes it first, and `flink start-cluster` checks it before it starts
// any process.
func (c TaskManagerConfig) ProcessSpec() (clusterframework.TaskExecutorProcessSpec, error) {
	conf := maps.Clone(c.Configuration)
	if c.NumberOfSlots > 0 {
		if conf == nil {
			conf = map[string]string{}
		}
		conf[configuration.NumTaskSlots.Key()] = strconv.Itoa(c.NumberOfSlots)
	}
	return taskmanagerrunner.ProcessSpec(conf)
}

// Start brings the TaskManager up. It returns once the TaskExecutor runs;
// its registration at the ResourceManager goes on in the background, and
// is retried while the JobManager cannot be reached (Flink's
// cluster.registration.* options: first after 100 ms, after an error
// every 10 s).
//
// The TaskManager's memory comes first, as in Flink, where the start
// script computes it before the JVM starts and hands the TaskManager its
// log (FLINK_INHERITED_LOGS), which the TaskManager prints as
// "Preconfiguration:" above its banner (see preconfiguration). A
// configuration that cannot work stops the start with Flink's message.
func (r *TaskManagerRunner) Start() error {
	spec, err := r.cfg.ProcessSpec()
	if err != nil {
		logEnvironmentInfo(r.log, "TaskManager", "")
		return r.failStart(err)
	}
	logEnvironmentInfo(r.log, "TaskManager", preconfiguration(spec))
	if err := r.start(spec); err != nil {
		return r.failStart(err)
	}
	return nil
}

// failStart logs why the TaskManager could not start, closes what was
// started, and returns the error.
func (r *TaskManagerRunner) failStart(err error) error {
	r.log.Error("Could not start the TaskManager.", "cause", err.Error())
	return errors.Join(fmt.Errorf("could not start the TaskManager: %w", err), r.Close())
}

func (r *TaskManagerRunner) start(spec clusterframework.TaskExecutorProcessSpec) error {
	highlyAvailable := haType(r.cfg.Configuration) != "NONE"
	if !highlyAvailable || r.cfg.JobManagerAddress != "" {
		if err := checkHostPort("jobmanager.rpc.address", r.cfg.JobManagerAddress); err != nil {
			return err
		}
	}
	if err := checkHostPort("taskmanager.host", r.cfg.RPCAddress); err != nil {
		return err
	}
	fixedBlobServer := r.cfg.BlobServerAddress != ""
	switch {
	case r.cfg.BlobServerAddress == "" && highlyAvailable:
		// The BlobServer is the leader's, which the TaskExecutor learns
		// when it registers at the ResourceManager (ClusterInformation).
	case r.cfg.BlobServerAddress == "":
		jobManagerHost, _, _ := net.SplitHostPort(r.cfg.JobManagerAddress)
		r.cfg.BlobServerAddress = net.JoinHostPort(jobManagerHost, DefaultBlobServerPort)
		fallthrough
	default:
		if err := checkHostPort("blob.server.port", r.cfg.BlobServerAddress); err != nil {
			return err
		}
	}
	heartbeats, err := heartbeatServices(r.cfg.Configuration)
	if err != nil {
		return err
	}
	rpcTimeout, err := askTimeout(r.cfg.Configuration)
	if err != nil {
		return err
	}
	registrationRetries, err := registrationConfig(r.cfg.Configuration)
	if err != nil {
		return err
	}
	listeners, err := readListenerOptions(r.cfg.Configuration)
	if err != nil {
		return err
	}
	if r.cfg.WorkingDir == "" {
		dir, err := os.MkdirTemp("", "flinklab-taskmanager-")
		if err != nil {
			return err
		}
		r.cfg.WorkingDir, r.ownWorkDir = dir, true
	}

	rpcService, err := rpc.NewTCPService(listeners.rpcConfig(r.cfg.RPCAddress, r.cfg.Logger))
	if err != nil {
		return err
	}
	r.rpcService = rpcService
	if r.cfg.ResourceID == "" {
		r.cfg.ResourceID = api.NewResourceID(rpcService.HostPort())
	}
	// Without HA, the ResourceManager and the Dispatcher are where the
	// JobManager's configuration says, and a job's JobMaster is where its
	// slot requests say (see taskExecutorGateway below). With ZooKeeper
	// HA, every leader is where ZooKeeper says, as it changes.
	var publisher jobManagerAddressPublisher
	if highlyAvailable {
		if r.ha, r.closeHA, err = createHaServices(r.cfg.Configuration, rpcService, r.cfg.Logger); err != nil {
			return err
		}
	} else {
		standalone := highavailability.NewStandaloneHaServices(
			resourceManagerURL(r.cfg.JobManagerAddress), dispatcherURL(r.cfg.JobManagerAddress))
		r.ha, publisher = standalone, standalone
	}

	host, _, _ := net.SplitHostPort(rpcService.HostPort())
	shuffleDir := filepath.Join(r.cfg.WorkingDir, "flink-netty-shuffle")
	if err := os.MkdirAll(shuffleDir, 0o700); err != nil {
		return err
	}
	if r.dataPlane, err = newDataPlane(host, shuffleDir, listeners, r.cfg.Logger); err != nil {
		return err
	}

	// Flink's TaskManagerRunner#startTaskManager, which the MiniCluster
	// calls for each of its TaskManagers too: the BlobCache, downloading
	// from the JobManager's BlobServer, and the TaskExecutor.
	r.taskManager, err = taskmanagerrunner.StartTaskManager(taskmanagerrunner.Config{
		ResourceID:     r.cfg.ResourceID,
		ProcessSpec:    spec,
		DataAddress:    r.dataPlane.address(),
		RPCTimeout:     rpcTimeout,
		Registration:   registrationRetries,
		Heartbeat:      heartbeats,
		BlobStorageDir: filepath.Join(r.cfg.WorkingDir, "blobStorage"),
		Logger:         r.cfg.Logger,
	}, taskmanagerrunner.Deps{
		RPC:               taskManagerRPCService{TCPService: rpcService, publisher: publisher, resourceID: r.cfg.ResourceID},
		HA:                r.ha,
		BlobSource:        newBlobSource(r.cfg.BlobServerAddress, listeners.blobClient), // until a ResourceManager names its JobManager's
		BlobServerAddress: r.cfg.BlobServerAddress,
		BlobClient:        listeners.blobClient, // for each BlobServer a ResourceManager names
		FixedBlobServer:   fixedBlobServer,
		Shuffle:           r.dataPlane.shuffle,
	})
	return err
}

// ResourceID returns the TaskExecutor's ResourceID, once started.
func (r *TaskManagerRunner) ResourceID() api.ResourceID { return r.cfg.ResourceID }

// RPCAddress returns the host:port of the TaskManager's RPC service, once
// started.
func (r *TaskManagerRunner) RPCAddress() string {
	if r.rpcService == nil {
		return ""
	}
	return r.rpcService.HostPort()
}

// Close stops the TaskManager. The TaskExecutor leaves actively: it fails
// its tasks and tells the ResourceManager and every JobMaster it is
// connected to that it is going (DisconnectTaskManager), so they release
// its slots at once instead of waiting for its heartbeat to time out.
// Then the BlobCache, the data plane and the RPC service stop, and the
// working directory it created is removed. Closing twice does nothing.
func (r *TaskManagerRunner) Close() error {
	var errs []error
	r.closeOnce.Do(func() {
		if r.taskManager != nil {
			errs = append(errs, r.taskManager.Close())
		}
		if r.dataPlane != nil {
			errs = append(errs, r.dataPlane.close())
		}
		if r.closeHA != nil {
			r.closeHA()
		}
		if r.rpcService != nil {
			errs = append(errs, r.rpcService.Close())
		}
		if r.ownWorkDir {
			errs = append(errs, os.RemoveAll(r.cfg.WorkingDir))
		}
		r.log.Info("Terminating TaskManagerRunner.")
	})
	return errors.Join(errs...)
}

// taskManagerRPCService is the TaskManager's TCPService, except that the
// TaskExecutor registered with it is served as a taskExecutorGateway.
type taskManagerRPCService struct {
	*rpc.TCPService
	publisher  jobManagerAddressPublisher // nil: the HA services find JobMasters themselves
	resourceID api.ResourceID
}

// jobManagerAddressPublisher is the StandaloneHaServices, told where a
// job's JobMaster is.
type jobManagerAddressPublisher interface {
	PublishJobManagerAddress(jobID api.JobID, address string)
}

func (s taskManagerRPCService) Register(address string, endpoint any) error {
	if te, ok := endpoint.(gateway.TaskExecutorGateway); ok {
		endpoint = taskExecutorGateway{TaskExecutorGateway: te, publisher: s.publisher, resourceID: s.resourceID}
	}
	return s.TCPService.Register(address, endpoint)
}

// taskExecutorGateway is the TaskExecutor as the JobManager's components
// reach it. Two calls are looked at on their way in:
//
//   - RequestSlot (step m7) names the job's JobMaster. Flink's
//     TaskExecutor#requestSlot passes that address to its
//     JobLeaderService, which asks StandaloneHaServices for the job's
//     leader retriever with it (getJobManagerLeaderRetriever(jobId,
//     targetAddress)). Our TaskExecutor asks the HA services by JobID
//     alone, so the address is published to them here, before the
//     TaskExecutor handles the request and looks for the job's leader.
//   - SubmitTask (step m9) is refused for a task that could not reach
//     one of its inputs (checkInputsReachable, crossprocess.go).
type taskExecutorGateway struct {
	gateway.TaskExecutorGateway
	publisher  jobManagerAddressPublisher
	resourceID api.ResourceID
}

func (g taskExecutorGateway) RequestSlot(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
	profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
	if jobMasterAddress != "" && g.publisher != nil {
		g.publisher.PublishJobManagerAddress(jobID, jobMasterAddress)
	}
	return g.TaskExecutorGateway.RequestSlot(ctx, slotID, jobID, allocationID, profile, jobMasterAddress, rmID)
}

func (g taskExecutorGateway) SubmitTask(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	if err := checkInputsReachable(tdd, g.resourceID); err != nil {
		return err
	}
	return g.TaskExecutorGateway.SubmitTask(ctx, tdd, jobMasterID)
}

var (
	_ rpc.Service                 = taskManagerRPCService{}
	_ gateway.TaskExecutorGateway = taskExecutorGateway{}
)
