package tasks

import (
	"fmt"
	"time"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/fault"
	"flinklab/runtime/network"
	"flinklab/runtime/trace"
)

// checkpointBarrierHandler sees every barrier and every end of partition
// the task's input channels deliver, over all of its gates, and decides
// when the task takes its checkpoint: once the barrier has arrived on
// every channel still open. It mirrors Flink's
// SingleCheckpointBarrierHandler (aligned barriers, exactly-once) and
// CheckpointBarrierTracker (at-least-once), which Flink picks by the
// checkpointing mode; here the barrier's options pick.
//
// Aligned: a channel that delivered the barrier is blocked (its producer's
// subpartition stopped after the barrier), so the records behind it wait
// until the barrier has come on every channel. The snapshot then reflects
// exactly the records before the barrier. The task resumes the channels
// once it has sent the barrier on. The wait is the alignment, and a slow
// channel makes the others back up: that is the price of exactly-once.
//
// At least once: nothing is blocked; records behind an early barrier are
// processed before the snapshot, and so processed again after a restore.
//
// What backpressure does to it: a barrier is a buffer among the others, so
// it reaches the task only after every buffer queued before it on its
// channel. Under backpressure the queues are full and the barrier of the
// slowest channel comes late; meanwhile the channels that delivered
// theirs are blocked, which slows the job down further. When that takes
// longer than execution.checkpointing.timeout the checkpoint expires, as
// with step k4's fault, barrier-lost, whose barrier never comes at all
// (barrierLost). Flink's answers are unaligned checkpoints (the barrier
// overtakes the buffers, which are stored with the checkpoint) and buffer
// debloating (fewer buffers in flight); flinklab has neither.
//
// It runs on the task's goroutine, called from inside the gates' Next.
type checkpointBarrierHandler struct {
	task  *StreamTask
	gates []*network.InputGate

	numOpenChannels int
	closedChannels  map[network.InputChannelInfo]bool

	// The checkpoint being aligned: its ID (-1 for none), the channels
	// its barrier arrived on, and when the first one did.
	currentCheckpointID int64
	arrived             map[network.InputChannelInfo]bool
	startOfAlignment    time.Time
	// latestCheckpointID is the newest checkpoint the task took or gave up.
	latestCheckpointID int64
}

func newCheckpointBarrierHandler(task *StreamTask, gates []*network.InputGate) *checkpointBarrierHandler {
	h := &checkpointBarrierHandler{
		task:                task,
		gates:               gates,
		closedChannels:      make(map[network.InputChannelInfo]bool),
		currentCheckpointID: -1,
		latestCheckpointID:  -1,
		arrived:             make(map[network.InputChannelInfo]bool),
	}
	for _, g := range gates {
		h.numOpenChannels += g.NumberOfInputChannels()
	}
	return h
}

// ProcessBarrier takes the barrier of checkpoint barrier.ID from channel:
// the gates hand every barrier here (network.CheckpointBarrierHandler).
// Step k4's fault may lose it on the way; otherwise processBarrier
// decides what it means.
func (h *checkpointBarrierHandler) ProcessBarrier(barrier network.CheckpointBarrier, channel network.InputChannelInfo) error {
	aligned := barrier.Options.NeedsAlignment()
	if h.barrierLost(barrier, channel, aligned) {
		return nil
	}
	return h.processBarrier(barrier, channel, aligned)
}

// processBarrier counts the barrier of checkpoint barrier.ID, which
// channel delivered, towards its checkpoint, and takes the checkpoint
// once the barrier has come on every open channel (Flink:
// SingleCheckpointBarrierHandler#processBarrier). aligned says that the
// channel is blocked now (EXACTLY_ONCE): it sends nothing more until the
// task resumes it.
func (h *checkpointBarrierHandler) processBarrier(barrier network.CheckpointBarrier, channel network.InputChannelInfo, aligned bool) error {
	switch {
	case barrier.ID <= h.latestCheckpointID || barrier.ID < h.currentCheckpointID:
		// A barrier of a checkpoint the task already took or gave up, or
		// one older than the checkpoint aligning (given up upstream, it
		// never started here): let its channel go on at once.
		return h.resume(channel, aligned)
	case barrier.ID > h.currentCheckpointID:
		if h.currentCheckpointID >= 0 {
			// A newer checkpoint overtakes one still aligning: give the old
			// one up (Flink: "Received checkpoint barrier for checkpoint {}
			// before completing current checkpoint {}. Skipping current
			// checkpoint.").
			h.task.logger.Warn(fmt.Sprintf("%s: Received checkpoint barrier for checkpoint %d before completing current checkpoint %d. Skipping current checkpoint.",
				h.task.taskNameWithSubtask(), barrier.ID, h.currentCheckpointID))
			if err := h.abortCurrent(checkpoint.CheckpointDeclinedSubsumed, aligned); err != nil {
				return err
			}
		}
		h.currentCheckpointID = barrier.ID
		h.startOfAlignment = time.Now()
	}
	h.arrived[channel] = true
	if len(h.arrived) < h.numOpenChannels {
		return nil // the barrier has not come on every open channel yet
	}
	// Step k4: the barrier has come on every open channel: take the
	// checkpoint; then none is aligning, and the blocked channels go on.
	if err := h.triggerCheckpoint(barrier); err != nil {
		return err
	}
	h.latestCheckpointID = barrier.ID
	h.currentCheckpointID = -1
	return h.resumeAll(aligned)
}

// barrierLost is step k4's fault, barrier-lost: the barrier of one input
// channel never reaches the handler. It is asked only where a lost barrier
// stalls the alignment: an aligned barrier of a checkpoint the task has
// not taken yet, at a task with more than one open input channel.
//
// What follows is what a stuck alignment does in Flink. The channel stays
// blocked: its producer stopped the subpartition after handing out the
// barrier, and only a ResumeConsumption, which never comes, lets it go on.
// The barrier arrives on the other channels, which block too, waiting for
// the one that is missing. The task reads nothing more; the records behind
// the barriers fill their subpartitions' queues, and their producers block
// in EmitRecord: backpressure, up to the sources. The task never
// snapshots, never acknowledges, and the checkpoint expires after
// execution.checkpointing.timeout.
func (h *checkpointBarrierHandler) barrierLost(barrier network.CheckpointBarrier, channel network.InputChannelInfo, aligned bool) bool {
	if !aligned || barrier.ID <= h.latestCheckpointID || h.numOpenChannels < 2 {
		return false
	}
	t := h.task
	kind, ok := t.env.Faults.Fire(trace.K4, t.env.JobID)
	if !ok {
		return false
	}
	// Step k4 (fault): the barrier is lost; the alignment waits for it
	// for ever.
	t.env.Trace.EmitFailure(trace.K4, "upstream", t.taskNameWithSubtask(), t.env.JobID,
		"barrier %d on input channel %d of gate %d lost; the channel stays blocked: %v",
		barrier.ID, channel.InputChannelIdx, channel.GateIdx, fault.Injected(trace.K4, kind))
	return true
}

// ProcessEndOfPartition takes the end of a channel. A checkpoint still
// aligning cannot get its barrier from that channel any more: it is given
// up (Flink: CHECKPOINT_DECLINED_INPUT_END_OF_STREAM).
func (h *checkpointBarrierHandler) ProcessEndOfPartition(channel network.InputChannelInfo) error {
	if h.closedChannels[channel] {
		return nil
	}
	h.closedChannels[channel] = true
	h.numOpenChannels--
	if h.currentCheckpointID >= 0 {
		return h.abortCurrent(checkpoint.CheckpointDeclinedInputEnd, true)
	}
	return nil
}

// triggerCheckpoint takes the checkpoint whose barrier has come on every
// open channel: the task sends the barrier on and snapshots its state
// (performCheckpoint). What the alignment waited for is the caller's to
// release.
func (h *checkpointBarrierHandler) triggerCheckpoint(barrier network.CheckpointBarrier) error {
	metrics := checkpoint.CheckpointMetrics{AlignmentDurationNanos: time.Since(h.startOfAlignment).Nanoseconds()}
	// Step k4: the barrier has arrived on every input channel: the task
	// snapshots its state and sends the barrier on.
	t := h.task
	t.env.Trace.Emit(trace.K4, t.taskNameWithSubtask(), t.taskNameWithSubtask(), t.env.JobID,
		"%s received barrier %d on all %d input channels (aligned in %d ms).",
		t.taskNameWithSubtask(), barrier.ID, h.numOpenChannels, metrics.AlignmentDurationNanos/int64(time.Millisecond))
	return t.performCheckpoint(barrier.ID, barrier.Timestamp, barrier.Options, metrics)
}

// abortCurrent gives up the checkpoint being aligned: the coordinator is
// told, and the blocked channels go on.
func (h *checkpointBarrierHandler) abortCurrent(reason checkpoint.CheckpointFailureReason, aligned bool) error {
	h.task.decline(h.currentCheckpointID, checkpoint.NewCheckpointException(reason, nil))
	h.latestCheckpointID = h.currentCheckpointID
	h.currentCheckpointID = -1
	return h.resumeAll(aligned)
}

func (h *checkpointBarrierHandler) resumeAll(aligned bool) error {
	for channel := range h.arrived {
		if err := h.resume(channel, aligned); err != nil {
			return err
		}
		delete(h.arrived, channel)
	}
	return nil
}

// resume unblocks a channel that delivered an aligned barrier.
func (h *checkpointBarrierHandler) resume(channel network.InputChannelInfo, aligned bool) error {
	if !aligned || h.closedChannels[channel] {
		return nil
	}
	return h.gates[channel.GateIdx].ResumeConsumption(channel.InputChannelIdx)
}
