package taskmanagerrunner

import (
	"errors"
	"log/slog"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/fault"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/network"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/trace"
)

// Config is a TaskManager's configuration, already parsed and checked by
// the caller (Flink's TaskManagerConfiguration and
// TaskManagerServicesConfiguration). Zero fields take the TaskExecutor's
// defaults.
type Config struct {
	// ResourceID names the TaskManager (taskmanager.resource-id).
	ResourceID api.ResourceID
	// ProcessSpec is the TaskManager's CPU cores, memory and number of
	// slots (taskmanager.numberOfTaskSlots), computed from its
	// configuration by ProcessSpec. Required.
	ProcessSpec clusterframework.TaskExecutorProcessSpec
	// DataAddress is where other processes read this TaskManager's
	// partitions; "" when every reader is in this process.
	DataAddress string
	// RPCTimeout is pekko.ask.timeout.
	RPCTimeout time.Duration
	// Registration is how the TaskExecutor retries its registrations
	// (cluster.registration.*).
	Registration registration.Config
	// Heartbeat holds the heartbeat.* options with which the TaskExecutor
	// watches the ResourceManager and its JobMasters.
	Heartbeat heartbeat.HeartbeatServices
	// BlobStorageDir is where the BlobCache keeps the jars it downloaded.
	BlobStorageDir string
	// Logger receives the TaskManager's log lines; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Deps are the services the TaskManager is built from, made by its caller
// and outliving it (Flink passes the same to startTaskManager).
type Deps struct {
	// RPC is where the TaskExecutor serves its gateway.
	RPC rpc.Service
	// HA tells who leads the ResourceManager and each job.
	HA highavailability.Services
	// BlobSource is what the BlobCache downloads from: the BlobServer
	// itself in one process, a blob.TCPSource from another process.
	BlobSource blob.Source
	// BlobServerAddress names the BlobServer in log lines and errors.
	BlobServerAddress string
	// BlobClient is how the BlobCache connects to each BlobServer the
	// ResourceManager names: TLS and timeouts (blob.CacheConfig.TCPSource).
	BlobClient blob.TCPSourceConfig
	// FixedBlobServer keeps the BlobCache on BlobSource, whatever
	// BlobServer the ResourceManager names when the TaskExecutor
	// registers (see taskexecutor.Config.FixedBlobServer).
	FixedBlobServer bool
	// Shuffle is the data plane of the TaskManager's tasks.
	Shuffle *network.ShuffleEnvironment
	// Trace records steps m9 to m11; nil records nothing.
	Trace *trace.Recorder
	// Faults may break steps m9 to m11; nil injects nothing.
	Faults *fault.Injector
}

// TaskManager is what StartTaskManager started: the TaskExecutor and the
// BlobCache it fetches the jobs' jars with.
type TaskManager struct {
	TaskExecutor *taskexecutor.TaskExecutor
	BlobCache    *blob.PermanentBlobCache
}

// StartTaskManager builds a TaskManager's TaskExecutor and the services
// only it uses, and starts it (Flink's static
// TaskManagerRunner#startTaskManager): the BlobCache, then the
// TaskExecutor, which registers at the ResourceManager on its own. On an
// error, what was made is closed again.
//
// Differs from Flink: Flink's startTaskManager only creates the
// TaskExecutor, and each caller starts it; both of ours start it at once.
func StartTaskManager(cfg Config, deps Deps) (*TaskManager, error) {
	spec := cfg.ProcessSpec
	if spec.NumSlots <= 0 {
		return nil, errors.New("start TaskManager: Config.ProcessSpec is not set (see ProcessSpec)")
	}
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{
		StorageDir:    cfg.BlobStorageDir,
		Source:        deps.BlobSource,
		TCPSource:     deps.BlobClient,
		ServerAddress: deps.BlobServerAddress,
		Logger:        cfg.Logger,
		Faults:        deps.Faults,
	})
	if err != nil {
		return nil, err
	}
	// Flink: TaskManagerServices and TaskManagerConfiguration, made from
	// the TaskExecutorResourceSpec: the total the slots share, and each
	// static slot's share of it.
	te, err := taskexecutor.New(taskexecutor.Config{
		ResourceID:           cfg.ResourceID,
		NumberOfSlots:        spec.NumSlots,
		TotalResourceProfile: clusterframework.TotalResourceProfile(spec),
		DefaultSlotProfile:   clusterframework.DefaultSlotResourceProfile(clusterframework.TotalResourceProfile(spec), spec.NumSlots),
		MemoryConfiguration:  clusterframework.NewTaskExecutorMemoryConfiguration(spec),
		Hardware:             hardwareDescription(spec),
		DataAddress:          cfg.DataAddress,
		RPCTimeout:           cfg.RPCTimeout,
		Registration:         cfg.Registration,
		Heartbeat:            cfg.Heartbeat,
		FixedBlobServer:      deps.FixedBlobServer,
		Logger:               cfg.Logger,
	}, taskexecutor.Deps{
		RPC:       deps.RPC,
		HA:        deps.HA,
		BlobCache: cache,
		Shuffle:   deps.Shuffle,
		Trace:     deps.Trace,
		Faults:    deps.Faults,
	})
	if err != nil {
		return nil, errors.Join(err, cache.Close())
	}
	tm := &TaskManager{TaskExecutor: te, BlobCache: cache}
	if err := te.Start(); err != nil {
		return nil, errors.Join(err, tm.Close())
	}
	return tm, nil
}

// Close stops the TaskExecutor, which leaves actively (its tasks fail, and
// the ResourceManager and its JobMasters are told it is going), then the
// BlobCache.
func (tm *TaskManager) Close() error {
	return errors.Join(tm.TaskExecutor.Close(), tm.BlobCache.Close())
}
