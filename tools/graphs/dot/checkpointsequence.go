package dot

import (
	"fmt"
	"strings"

	"flinklab/runtime/trace"
	"flinklab/tools/graphs/checkpoints"
)

// CheckpointSequence returns one checkpoint as a Mermaid sequenceDiagram:
// the CheckpointCoordinator (in the JobMaster), the TaskExecutor, the
// sources and the subtasks downstream, from left to right, and one arrow
// per event, in the checkpoint's order:
//
//	k1  CheckpointCoordinator → itself       triggers
//	k2  CheckpointCoordinator → TaskExecutor  triggerCheckpoint, once per source
//	k3  source → each subtask it feeds        the barrier, one arrow per channel
//	k4  subtask → itself                      the barrier on all inputs: snapshot, barrier sent on
//	k5  subtask → CheckpointCoordinator       acknowledgeCheckpoint
//	k6  CheckpointCoordinator → itself        completed
//	k7  CheckpointCoordinator → subtask       notifyCheckpointComplete
//
// The messages are the trace's, without the subtask's name where it
// starts them (the arrow starts at that subtask); a source's k3 reads
// "checkpoint barrier 2" on each of its channels. When the checkpoint is
// Measured, each message starts with the milliseconds since the trigger.
func CheckpointSequence(c *checkpoints.Checkpoint) []byte {
	return sequenceMermaid(checkpointEvents(c), checkpointStyle(c))
}

// CheckpointSequenceDOT draws the same as CheckpointSequence in DOT, for
// Graphviz to render as SVG (see SequenceDOT).
func CheckpointSequenceDOT(c *checkpoints.Checkpoint) []byte {
	return sequenceDOT(checkpointEvents(c), checkpointStyle(c))
}

// checkpointMessageRunes is how long an arrow's text of a checkpoint may
// be: long enough for a trigger and an alignment, "k4: +1.500 ms received barrier 2 on
// all 2 input channels (aligned in 1 ms).".
const checkpointMessageRunes = 90

// checkpointStyle draws the coordinator, the TaskExecutor, then the
// subtasks in the job's order, sources first, every event an arrow.
func checkpointStyle(c *checkpoints.Checkpoint) sequenceStyle {
	order := []string{"CheckpointCoordinator", "TaskExecutor"}
	for _, t := range c.Tasks {
		order = append(order, taskName(t))
	}
	title := fmt.Sprintf("%s: checkpoint %d", c.Job.Name, c.ID)
	if c.Measured {
		title += "\n(times since the trigger, k1)"
	} else {
		title += "\n(in step order: one order a checkpoint may take)"
	}
	return sequenceStyle{title: title, subject: "checkpoint", order: order, apart: true, width: checkpointMessageRunes}
}

// checkpointEvents are the arrows of a checkpoint as events: each
// source's k3 once per channel, and the messages shortened and timed.
func checkpointEvents(c *checkpoints.Checkpoint) []trace.Event {
	var out []trace.Event
	for _, e := range c.Events {
		prefix := ""
		if c.Measured {
			prefix = sinceTrigger(e.Time.Sub(c.Events[0].Time)) + " "
		}
		e.Message = prefix + strings.TrimPrefix(e.Message, e.From+" ")
		source, ok := c.TaskNamed(e.From)
		consumers := c.Job.Consumers(source.Subtask)
		if e.Step != trace.K3 || !ok || len(consumers) == 0 {
			out = append(out, e)
			continue
		}
		for _, consumer := range consumers {
			barrier := e
			barrier.To = consumer.String()
			if t, ok := c.TaskOf(consumer); ok {
				barrier.To = taskName(t)
			}
			barrier.Message = prefix + fmt.Sprintf("checkpoint barrier %d", c.ID)
			out = append(out, barrier)
		}
	}
	return out
}

// taskName is a subtask as the trace names it, or as Flink prints it when
// the trace does not name it.
func taskName(t checkpoints.Task) string {
	if t.Name != "" {
		return t.Name
	}
	return t.Subtask.String()
}
