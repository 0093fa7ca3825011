package network

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
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
	// (DefaultBuffersPerSubpartition).
	BuffersPerSubpartition int
}

// ShuffleEnvironment is a TaskExecutor's data plane: it creates the
// ResultPartitions its tasks write and the InputGates they read. It mirrors
// Flink's NettyShuffleEnvironment, minus the Netty server, client and
// network buffer pool.
//
// All methods are safe for concurrent use.
type ShuffleEnvironment struct {
	cfg Config
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
	return &ShuffleEnvironment{cfg: cfg}, nil
}

// PartitionManager returns the registry the environment uses.
func (e *ShuffleEnvironment) PartitionManager() *ResultPartitionManager {
	return e.cfg.PartitionManager
}

// CreateResultPartition creates a partition with one subpartition per
// consumer subtask and registers it, so that consumers can find it. It
// fails with ErrDuplicatePartition if the id is registered already.
// Flink: NettyShuffleEnvironment.createResultPartitionWriters, plus the
// ResultPartition.setup that registers it.
func (e *ShuffleEnvironment) CreateResultPartition(id api.ResultPartitionID, numberOfSubpartitions int) (*ResultPartition, error) {
	if numberOfSubpartitions < 1 {
		return nil, fmt.Errorf("create partition %s: need at least one subpartition, got %d", id, numberOfSubpartitions)
	}
	partition := newResultPartition(id, numberOfSubpartitions, e.cfg)
	if err := e.cfg.PartitionManager.registerResultPartition(partition); err != nil {
		return nil, err
	}
	return partition, nil
}

// CreateInputGate creates the gate a deployment descriptor describes: it
// reads subpartition gdd.ConsumedSubpartitionIndex of each partition in
// gdd.ShuffleDescriptors, one input channel per partition, in that order.
// The gate keeps gdd.ShuffleDescriptors, which the caller must not change.
// Nothing is requested, and no channel made, until the gate's first Next
// (or RequestPartitions). Flink: NettyShuffleEnvironment.createInputGates
// → SingleInputGateFactory.create.
func (e *ShuffleEnvironment) CreateInputGate(gdd gateway.InputGateDeploymentDescriptor) *InputGate {
	return newInputGate(e.cfg.PartitionManager, gdd)
}

// ReleasePartitionsLocally releases the given partitions if they are
// registered, whether or not they were consumed; unknown IDs are ignored.
// The JobMaster asks for this when a failover makes a partition useless.
// Flink: ShuffleEnvironment.releasePartitionsLocally.
func (e *ShuffleEnvironment) ReleasePartitionsLocally(ids ...api.ResultPartitionID) {
	for _, id := range ids {
		e.cfg.PartitionManager.releasePartition(id)
	}
}
