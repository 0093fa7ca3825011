package network

import (
	"errors"
	"fmt"

	"flinklab/runtime/api"
)

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

	// ErrPartitionFinished is returned by EmitRecord, BroadcastRecord,
	// BroadcastEvent, Flush and Finish once Finish has succeeded: a
	// finished partition takes no more data. Flink: "Partition already
	// finished." from checkInProduceState.
	ErrPartitionFinished = errors.New("result partition already finished")

	// ErrInputGateClosed is returned by Next and RequestPartitions after
	// Close.
	ErrInputGateClosed = errors.New("input gate closed")

	// ErrPartitionNotFound is what a PartitionRequestServer answers for a
	// partition that is not registered in its process: not yet (its
	// producer is still being deployed), or not any more. A remote input
	// channel retries with backoff and fails with it when the backoff is
	// used up. Flink: PartitionNotFoundException.
	ErrPartitionNotFound = errors.New("partition not found")

	// ErrRemoteTransport is what the channels of a TCP connection to
	// another process read when the connection could not be made or broke:
	// "Lost connection to task manager ...". Flink: RemoteTransportException.
	ErrRemoteTransport = errors.New("remote transport failure")

	// ErrNoCheckpointBarrierHandler is returned by Next when a channel
	// delivers a checkpoint barrier to a gate that has no
	// CheckpointBarrierHandler (SetCheckpointBarrierHandler): the barrier
	// must not be lost, and after an aligned one its channel would stay
	// blocked for ever. The error is final.
	ErrNoCheckpointBarrierHandler = errors.New("received a checkpoint barrier but the task has no CheckpointBarrierHandler")

	// ErrPartitionNotPipelined is returned by BroadcastEvent on a BLOCKING
	// partition: checkpoints are for streaming jobs, whose partitions are
	// pipelined; a batch job recovers by running tasks again, not from
	// checkpoints.
	ErrPartitionNotPipelined = errors.New("checkpoint barriers travel only through pipelined partitions")
)

// partitionNotFound is ErrPartitionNotFound for one partition, in
// Flink's words: what a PartitionRequestServer answers, and what a local
// channel fails with once it has waited as long as a remote one retries.
func partitionNotFound(id api.ResultPartitionID) error {
	return &remoteError{sentinel: ErrPartitionNotFound, message: fmt.Sprintf("PartitionNotFoundException: Partition %s not found.", id)}
}

// remoteError is an error that crossed a process boundary, or happened to
// a connection to one: its text is given, and errors.Is finds its sentinel
// (ErrProducerFailed, ErrPartitionReleased, ErrPartitionNotFound,
// ErrRemoteTransport) and its cause, if any.
type remoteError struct {
	sentinel error // nil when the error has no sentinel
	message  string
	cause    error // nil when there is none
}

func (e *remoteError) Error() string {
	if e.cause != nil {
		return e.message + ": " + e.cause.Error()
	}
	return e.message
}

func (e *remoteError) Unwrap() []error {
	var errs []error
	if e.sentinel != nil {
		errs = append(errs, e.sentinel)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}
