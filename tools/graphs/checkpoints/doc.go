// Package checkpoints reads one checkpoint out of a job's trace: who did
// which of its seven steps, k1 to k7 (runtime/checkpoint's package doc),
// in what order and how long after the trigger. It is the reading half of
// `go run ./tools/graphs -checkpoint`; package dot draws what it reads.
//
//	go run ./tools/graphs -checkpoint                 # the ticker, bounded, at parallelism 2
//	go run ./tools/graphs -checkpoint -m localhost:8081 -job JOBID
//
// # What the trace says
//
// The runtime records each step of a checkpoint as a trace.Event, from
// the component that takes it. The events carry no checkpoint ID of their
// own: it is in their messages, which are Flink's log lines, and Read
// takes it from there:
//
//	k1  CheckpointCoordinator → CheckpointCoordinator  "Triggering checkpoint 2 (type=…) @ 1700000000200 for job …."
//	k2  CheckpointCoordinator → TaskExecutor           "Trigger checkpoint 2@1700000000200 for Source: sensor-events (1/2)#0."
//	k3  source subtask → downstream                    "Source: sensor-events (1/2)#0 sent checkpoint barrier 2 to 1 outputs."
//	k4  subtask → itself                               "… (1/2)#0 received barrier 2 on all 2 input channels (aligned in 0 ms)."
//	k5  subtask → CheckpointCoordinator                "Received acknowledge message for checkpoint 2 from task … at taskexecutor-0 @ …."
//	k6  CheckpointCoordinator → CheckpointCoordinator  "Completed checkpoint 2 for job … (241 bytes, checkpointDuration=1 ms, …)."
//	k7  CheckpointCoordinator → subtask                "notifyCheckpointComplete for checkpoint 2"
//
// A subtask is named as Flink's logs name it, "NAME (i/p)#attempt". A
// source has k2, k3, k5 and k7; a subtask with inputs has k4, k5 and k7
// (k4 is its k3 as well: it sends the barrier on as it snapshots). k6 comes
// after the last k5, and every k7 after k6.
//
// # Which checkpoint
//
// NthCompleted finds the n-th checkpoint that completed, once the trace
// has its notifications too. The drawings take the second: the first is
// triggered after a random delay (CheckpointCoordinator's initial delay,
// between the min pause and the interval), soon after the tasks started,
// and the second is the first one of the steady rhythm, one interval
// later, with records flowing ahead of its barrier.
//
// # The shape of the job
//
// The trace names subtasks but not the channels between them. Job holds
// them: the subtasks vertex by vertex from the sources down, and one
// Exchange per producer and consumer subtask (package regions, which
// builds the ExecutionGraph as the JobMaster does). An aligned checkpoint
// (EXACTLY_ONCE, the default) is acknowledged by a subtask only once the
// barrier has come on all its input channels, so every channel into a
// subtask that acknowledged carried the barrier: that is how the drawing
// knows where the barrier went, even from a trace without k3 and k4.
//
// # Measured or canonical
//
// A run's own order and times change from run to run: two sources take
// the trigger in either order, and milliseconds are milliseconds.
// Canonical puts the events in step order (k1, every k2, every k3, …),
// each step's events by subtask, and forgets the times, the alignments,
// the state size and the order of the acknowledgements. That is one order
// the checkpoint may take, and the committed diagrams draw it; the
// command draws the run's own.
//
// Flink has no such view: its web UI's Checkpoints tab shows, per
// checkpoint and subtask, when the acknowledgement came and how long the
// alignment took, as a table.
package checkpoints
