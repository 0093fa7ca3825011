package network

import "errors"

// The sentinel errors of the data plane. Errors returned by this package
// wrap one of them with the partition or channel they concern, so callers
// test with errors.Is.
var (
	// ErrDuplicatePartition is returned by CreateResultPartition when a
	// partition with the same ResultPartitionID is already registered. A
	// restarted producer writes under a new ID (a new ExecutionAttemptID),
	// so a duplicate is always a bug in the caller.
	ErrDuplicatePartition = errors.New("result partition already registered")

	// ErrProducerFailed is what a consumer reads when the producer called
	// Fail. The error also wraps the producer's cause. Flink: ProducerFailedException.
	ErrProducerFailed = errors.New("the producer failed")

	// ErrPartitionReleased is what producers and consumers get from a
	// partition that was released: by Release (a cancelled producer), by a
	// ShuffleEnvironment that releases it, or because every subpartition was
	// consumed or abandoned.
	ErrPartitionReleased = errors.New("result partition released")

	// ErrPartitionFinished is returned by EmitRecord, BroadcastRecord, Flush
	// and Finish once Finish has succeeded: a finished partition takes no
	// more data. Flink: "Partition already finished." from checkInProduceState.
	ErrPartitionFinished = errors.New("result partition already finished")

	// ErrInputGateClosed is returned by Next and RequestPartitions after
	// Close.
	ErrInputGateClosed = errors.New("input gate closed")
)
