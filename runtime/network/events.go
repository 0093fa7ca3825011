package network

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"flinklab/runtime/checkpoint"
)

// CheckpointBarrier is Flink's CheckpointBarrier event. The sources put it
// into their output streams when the CheckpointCoordinator triggers
// checkpoint ID; every task that has it on all its input channels
// snapshots its state and broadcasts it to its own outputs
// (ResultPartition.BroadcastEvent). The records before the barrier belong
// to the checkpoint, the records after it to the next one. See doc.go,
// "Checkpoint barriers".
type CheckpointBarrier struct {
	ID        int64                        `json:"id"`
	Timestamp int64                        `json:"timestamp"` // ms since epoch
	Options   checkpoint.CheckpointOptions `json:"options"`
}

// String prints the barrier as Flink's CheckpointBarrier.toString does,
// with the options shortened: "CheckpointBarrier 5 @ 1700000000000
// Options: CheckpointOptions {checkpointType = Checkpoint, targetLocation
// = (default), alignment = ALIGNED}". (default) is a checkpoint whose
// state the JobManager keeps, as Flink prints a default
// CheckpointStorageLocationReference.
func (b CheckpointBarrier) String() string {
	target := b.Options.TargetLocation.Directory
	if target == "" {
		target = "(default)"
	}
	return fmt.Sprintf("CheckpointBarrier %d @ %d Options: CheckpointOptions {checkpointType = %s, targetLocation = %s, alignment = %s}",
		b.ID, b.Timestamp, b.Options.CheckpointType.Name(), target, b.Options.AlignmentType)
}

// bufferDataType is the data type a barrier travels as: an
// AlignedCheckpointBarrier, which blocks its subpartition after it, when
// its options need alignment (exactly-once), and a plain EventBuffer,
// which blocks nothing, otherwise (at-least-once). Flink:
// Buffer.DataType.getDataType(event, hasPriority) for a CheckpointBarrier
// without priority.
func (b CheckpointBarrier) bufferDataType() DataType {
	if b.Options.NeedsAlignment() {
		return AlignedCheckpointBarrier
	}
	return EventBuffer
}

// checkpointBarrierEvent starts every serialized barrier: the event's
// type, as Flink's EventSerializer writes it (CHECKPOINT_BARRIER_EVENT).
// An event buffer may then carry other events one day (Flink's
// CancelCheckpointMarker, EndOfData) without changing what a barrier
// looks like.
const checkpointBarrierEvent uint32 = 1

// newCheckpointBarrierBuffer serializes a barrier into an event buffer of
// the barrier's data type. The layout, in memory, on the wire (a
// BufferResponse's bytes) and nowhere else (a blocking partition never
// holds a barrier):
//
//	+-----------------------------+------------------------------------------------------+
//	| event type (4, big-endian): | the barrier as JSON: {"id":5,"timestamp":1700000000000,|
//	| 1, CHECKPOINT_BARRIER_EVENT | "options":{"checkpointType":"CHECKPOINT",...}}        |
//	+-----------------------------+------------------------------------------------------+
//
// JSON rather than Flink's binary layout (id, timestamp, checkpoint type,
// location reference, alignment, aligned checkpoint timeout): a barrier
// is a few hundred bytes once per checkpoint, so its size does not
// matter, and package checkpoint's CheckpointOptions travel with every
// field it has, now and later, without a codec of their own here.
//
// Every subpartition gets the same buffer: its bytes are never written
// again, like a data buffer's.
func newCheckpointBarrierBuffer(barrier CheckpointBarrier) (Buffer, error) {
	body, err := json.Marshal(barrier)
	if err != nil {
		return Buffer{}, fmt.Errorf("serialize %s: %w", barrier, err)
	}
	segment := make([]byte, 0, 4+len(body))
	segment = binary.BigEndian.AppendUint32(segment, checkpointBarrierEvent)
	segment = append(segment, body...)
	return Buffer{dataType: barrier.bufferDataType(), segment: segment}, nil
}

// checkpointBarrier deserializes the barrier an event buffer holds (Flink:
// EventSerializer.fromBuffer). The buffer's data type must be the one the
// barrier's options call for: a stream that says otherwise is broken.
func (b Buffer) checkpointBarrier() (CheckpointBarrier, error) {
	if !b.dataType.isCheckpointBarrier() || len(b.segment) < 4 {
		return CheckpointBarrier{}, fmt.Errorf("an %s of %d bytes holds no checkpoint barrier", b.dataType, len(b.segment))
	}
	if eventType := binary.BigEndian.Uint32(b.segment); eventType != checkpointBarrierEvent {
		return CheckpointBarrier{}, fmt.Errorf("an %s holds event type %d, not a checkpoint barrier (%d)", b.dataType, eventType, checkpointBarrierEvent)
	}
	var barrier CheckpointBarrier
	if err := json.Unmarshal(b.segment[4:], &barrier); err != nil {
		return CheckpointBarrier{}, fmt.Errorf("deserialize the checkpoint barrier in an %s: %w", b.dataType, err)
	}
	if want := barrier.bufferDataType(); want != b.dataType {
		return CheckpointBarrier{}, fmt.Errorf("%s came as an %s, want %s", barrier, b.dataType, want)
	}
	return barrier, nil
}

// InputChannelInfo names one input channel of one of a task's input gates
// (Flink's InputChannelInfo): GateIdx is the gate's index among the task's
// gates, as given to SetCheckpointBarrierHandler, and InputChannelIdx the
// channel's index in its gate, the producer subtask it reads.
type InputChannelInfo struct{ GateIdx, InputChannelIdx int }

// String prints the info as Flink does:
// "InputChannelInfo{gateIdx=0, inputChannelIdx=1}".
func (i InputChannelInfo) String() string {
	return fmt.Sprintf("InputChannelInfo{gateIdx=%d, inputChannelIdx=%d}", i.GateIdx, i.InputChannelIdx)
}

// CheckpointBarrierHandler is the task's side of checkpointing in its
// input: it receives the barriers its gates read, aligns them and
// triggers the snapshot. It mirrors Flink's CheckpointBarrierHandler
// (SingleCheckpointBarrierHandler), which the task's CheckpointedInputGate
// hands every barrier to; here the gate calls it itself.
//
// A gate calls it on its reading goroutine, inside Next (or inside a
// UnionInputGate's Next, by whichever of its gates read the event), with
// no gate lock held, after every record that came before the event on
// that channel has been returned by Next. So it may call back into the
// gate (ResumeConsumption) and into the task's ResultPartitions
// (BroadcastEvent). An error it returns is returned by Next, and is final,
// like a channel's error.
type CheckpointBarrierHandler interface {
	// ProcessBarrier is a barrier read from channel. After an aligned
	// barrier (options.NeedsAlignment) the channel is blocked: its
	// producer sends nothing more until the task calls
	// InputGate.ResumeConsumption for it. An at-least-once barrier blocks
	// nothing.
	ProcessBarrier(barrier CheckpointBarrier, channel InputChannelInfo) error
	// ProcessEndOfPartition is the channel's EndOfPartition event: it
	// will never send a barrier again, so the task no longer waits for
	// one from it.
	ProcessEndOfPartition(channel InputChannelInfo) error
}
