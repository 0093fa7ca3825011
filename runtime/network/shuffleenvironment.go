package network

import (
	"crypto/tls"
	"fmt"
	"os"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// Defaults of Config.
const (
	// DefaultBufferSize is the size of one network buffer: Flink's memory
	// segment size (taskmanager.memory.segment-size, 32 KiB).
	DefaultBufferSize = 32 * 1024
	// DefaultBuffersPerSubpartition is how many buffers a subpartition
	// queue holds before its producer blocks. It plays the part of Flink's
	// taskmanager.network.memory.buffers-per-channel (2).
	DefaultBuffersPerSubpartition = 2
)

// Config configures a ShuffleEnvironment. Zero values take the defaults.
type Config struct {
	// PartitionManager is the registry the environment's partitions are
	// registered in and its gates read from. In the embedded cluster all
	// TaskExecutors share one. If nil, the environment makes its own.
	PartitionManager *ResultPartitionManager
	// BufferSize is the size of a network buffer in bytes (DefaultBufferSize).
	BufferSize int
	// BuffersPerSubpartition bounds each subpartition queue
	// (DefaultBuffersPerSubpartition). It is also a remote input channel's
	// credit: how many buffers it receives ahead of its reader.
	BuffersPerSubpartition int
	// DataAddress is the host:port of this process's
	// PartitionRequestServer, the address its TaskExecutor advertises
	// (gateway.TaskManagerLocation.DataAddress). A gate reads a partition
	// whose shuffle descriptor names no DataAddress, or this one, in-process;
	// any other over TCP. Empty in the embedded cluster, where every
	// partition is local.
	DataAddress string
	// RequestBackoffInitial and RequestBackoffMax are
	// taskmanager.network.request-backoff.initial and .max
	// (DefaultRequestBackoffInitial, DefaultRequestBackoffMax): a remote
	// channel whose partition was not found asks again after the initial
	// backoff, then after twice as long each time, and fails after a wait
	// of the max.
	RequestBackoffInitial time.Duration
	RequestBackoffMax     time.Duration
	// TmpDir is the directory a BLOCKING partition writes its files to,
	// one per subpartition; empty means os.TempDir(). Flink's io.tmp.dirs
	// (a list there; one directory here).
	TmpDir string
	// ConnectTimeout bounds dialling another process's
	// PartitionRequestServer, TLS handshake included
	// (taskmanager.network.netty.client.connectTimeoutSec;
	// DefaultClientConnectTimeout).
	ConnectTimeout time.Duration
	// ClientTLS, when set, is what the environment dials other processes'
	// PartitionRequestServers with: the client side of mutual TLS. Nil
	// means plaintext.
	ClientTLS *tls.Config
}

// DefaultClientConnectTimeout is Flink's default for
// taskmanager.network.netty.client.connectTimeoutSec (120 s).
const DefaultClientConnectTimeout = 120 * time.Second

// ShuffleEnvironment is a TaskExecutor's data plane: it creates the
// ResultPartitions its tasks write and the InputGates they read, and holds
// the connections those gates open to other processes. It mirrors Flink's
// NettyShuffleEnvironment, minus the network buffer pool; the server half
// of Flink's NettyConnectionManager is the PartitionRequestServer, which
// whoever starts the TaskExecutor starts next to it.
//
// All methods are safe for concurrent use.
type ShuffleEnvironment struct {
	cfg     Config
	clients *partitionRequestClientFactory
	// afterFunc runs f after d on a goroutine of its own and returns a
	// function that cancels it: time.AfterFunc, unless a test fires the
	// retries of partition requests by hand. It must not block.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
}

// NewShuffleEnvironment returns an environment for one TaskExecutor. It
// fails if a size in cfg is negative.
func NewShuffleEnvironment(cfg Config) (*ShuffleEnvironment, error) {
	if cfg.BufferSize < 0 {
		return nil, fmt.Errorf("shuffle environment: buffer size must not be negative, got %d", cfg.BufferSize)
	}
	if cfg.BuffersPerSubpartition < 0 {
		return nil, fmt.Errorf("shuffle environment: buffers per subpartition must not be negative, got %d",
			cfg.BuffersPerSubpartition)
	}
	if cfg.PartitionManager == nil {
		cfg.PartitionManager = NewResultPartitionManager()
	}
	if cfg.BufferSize == 0 {
		cfg.BufferSize = DefaultBufferSize
	}
	if cfg.BuffersPerSubpartition == 0 {
		cfg.BuffersPerSubpartition = DefaultBuffersPerSubpartition
	}
	if cfg.RequestBackoffInitial < 0 || cfg.RequestBackoffMax < 0 {
		return nil, fmt.Errorf("shuffle environment: request backoffs must not be negative, got %s and %s",
			cfg.RequestBackoffInitial, cfg.RequestBackoffMax)
	}
	if cfg.RequestBackoffInitial == 0 {
		cfg.RequestBackoffInitial = DefaultRequestBackoffInitial
	}
	if cfg.RequestBackoffMax == 0 {
		cfg.RequestBackoffMax = max(DefaultRequestBackoffMax, cfg.RequestBackoffInitial)
	}
	if cfg.RequestBackoffMax < cfg.RequestBackoffInitial {
		return nil, fmt.Errorf("shuffle environment: the maximum request backoff %s is below the initial one %s",
			cfg.RequestBackoffMax, cfg.RequestBackoffInitial)
	}
	if cfg.TmpDir == "" {
		cfg.TmpDir = os.TempDir()
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultClientConnectTimeout
	}
	return &ShuffleEnvironment{
		cfg:     cfg,
		clients: newPartitionRequestClientFactory(cfg.ConnectTimeout, cfg.ClientTLS),
		afterFunc: func(d time.Duration, f func()) func() bool {
			return time.AfterFunc(d, f).Stop
		},
	}, nil
}

// PartitionManager returns the registry the environment uses.
func (e *ShuffleEnvironment) PartitionManager() *ResultPartitionManager {
	return e.cfg.PartitionManager
}

// CreateResultPartitionWriter creates the partition a deployment
// descriptor describes, of its type (PIPELINED_BOUNDED or BLOCKING), with
// one subpartition per consumer subtask, and registers it, so that
// consumers can find it. It fails with ErrDuplicatePartition if the
// partition's ID is registered already. A blocking partition touches the
// disk only with its first buffer (or Finish), in Config.TmpDir. Flink:
// NettyShuffleEnvironment.createResultPartitionWriters →
// ResultPartitionFactory.create, plus the ResultPartition.setup that
// registers it.
func (e *ShuffleEnvironment) CreateResultPartitionWriter(desc gateway.ResultPartitionDeploymentDescriptor) (*ResultPartition, error) {
	id, numberOfSubpartitions, partitionType := desc.PartitionID, desc.NumberOfSubpartitions, desc.PartitionType
	if numberOfSubpartitions < 1 {
		return nil, fmt.Errorf("create partition %s: need at least one subpartition, got %d", id, numberOfSubpartitions)
	}
	if !partitionType.IsPipelined() && !partitionType.IsBlocking() {
		return nil, fmt.Errorf("create partition %s: unknown partition type %s", id, partitionType)
	}
	partition := newResultPartition(id, numberOfSubpartitions, partitionType, e.cfg)
	if err := e.cfg.PartitionManager.registerResultPartition(partition); err != nil {
		return nil, err
	}
	return partition, nil
}

// CreateResultPartition creates and registers a PIPELINED_BOUNDED
// partition: CreateResultPartitionWriter with a descriptor of the given ID
// and number of subpartitions, and the zero partition type.
func (e *ShuffleEnvironment) CreateResultPartition(id api.ResultPartitionID, numberOfSubpartitions int) (*ResultPartition, error) {
	return e.CreateResultPartitionWriter(gateway.ResultPartitionDeploymentDescriptor{
		PartitionID: id, NumberOfSubpartitions: numberOfSubpartitions, PartitionType: jobgraph.PipelinedBounded,
	})
}

// CreateInputGate creates the gate a deployment descriptor describes: it
// reads subpartition gdd.ConsumedSubpartitionIndex of each partition in
// gdd.ShuffleDescriptors, one input channel per partition, in that order.
// The gate keeps gdd.ShuffleDescriptors, which the caller must not change.
// Nothing is requested, and no channel made, until the gate's first Next
// (or RequestPartitions). Flink: NettyShuffleEnvironment.createInputGates
// → SingleInputGateFactory.create.
func (e *ShuffleEnvironment) CreateInputGate(gdd gateway.InputGateDeploymentDescriptor) *InputGate {
	return newInputGate(e, gdd)
}

// isLocal reports whether a consumed partition lives in this process: its
// descriptor names no data address, or this environment's own. Flink:
// NettyShuffleDescriptor.isLocalTo.
func (e *ShuffleEnvironment) isLocal(d gateway.ShuffleDescriptor) bool {
	return d.DataAddress == "" || d.DataAddress == e.cfg.DataAddress
}

// Close closes the connections the environment's gates opened to other
// processes; channels still reading over them fail. A TaskExecutor process
// calls it when it shuts down, after its tasks have stopped. It does not
// stop a PartitionRequestServer, which has its own Close, nor release
// partitions: the TaskExecutor releases the blocking partitions it keeps
// (with ReleasePartitionsLocally) before. Close may be called more than
// once; gates created afterwards cannot read from other processes.
func (e *ShuffleEnvironment) Close() {
	e.clients.close()
}

// ReleasePartitionsLocally releases the given partitions if they are
// registered, whether or not they were consumed; unknown IDs are ignored.
// It is the only way a finished BLOCKING partition goes, files and all:
// the TaskExecutor calls it when the JobMaster releases the partitions
// (TaskExecutorGateway.ReleasePartitions), or when it releases the
// producing job. Flink: ShuffleEnvironment.releasePartitionsLocally.
func (e *ShuffleEnvironment) ReleasePartitionsLocally(ids ...api.ResultPartitionID) {
	for _, id := range ids {
		e.cfg.PartitionManager.releasePartition(id)
	}
}
