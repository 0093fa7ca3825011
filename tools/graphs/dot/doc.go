// Package dot draws flinklab's three graphs and its submission sequence as
// text: Graphviz DOT for the graphs, a Mermaid sequenceDiagram for the
// sequence; and, the same way, where subtasks run, pipelined regions, the
// AdaptiveScheduler's states and one checkpoint. It is plain Go with no dependencies
// beyond the runtime packages it draws, so golden files under testdata
// test it; turning DOT into SVG is the job of the tools/graphs command,
// which alone imports go-graphviz (see
// ../shared/notes/tooling.md).
//
// A Flink job is described three times on its way to running, and each
// function here draws one of the descriptions:
//
//	program ──► StreamGraph ──► JobGraph ──► ExecutionGraph ──► running tasks
//	            (client)        (client)     (JobMaster)
//
// StreamGraph draws the program as written: one node per operator (source,
// map, keyed aggregation, sink) with its parallelism, and one edge per
// StreamEdge labelled with its partitioner. FORWARD edges are the ones that
// may be chained; HASH (a KeyBy), REBALANCE, RESCALE and BROADCAST edges
// always cross the network. For WordCount:
//
//	Source: file-input ─FORWARD─► tokenizer ─HASH─► counter ─FORWARD─► Sink: print-sink
//
// JobGraph draws what the client submits (step m3): operators chained
// together into JobVertices, each listing its operators one per line, since
// a chained vertex is named "Source: file-input -> tokenizer". This is the
// picture Flink's web UI shows as a job's plan (the "Overview" tab, built
// from /jobs/{jobid}/plan): one box per vertex with its parallelism, and the
// ship strategy (HASH, FORWARD, REBALANCE) on each edge. We also write the
// distribution pattern (ALL_TO_ALL or POINTWISE), which decides how the
// ExecutionGraph wires subtasks, and draw each slot sharing group as a
// dashed box: vertices in one group may share a slot, which is why
// WordCount at parallelism 2 needs 2 slots and not 4.
//
// ExecutionGraph draws the JobMaster's parallel view from an
// ArchivedExecutionGraph: each JobVertex becomes a box of its subtasks
// ("1/2 #0 RUNNING": subtask index, attempt number, state), coloured by
// state much as the web UI's subtask list is. The archived graph keeps no
// edges, so the caller passes them in (EdgesOf a JobGraph, or those of a
// plan fetched over REST). A vertex of parallelism above SummaryThreshold is
// drawn as one summary node instead, "Map: 1000 subtasks: 998 RUNNING, 2
// DEPLOYING", as the web UI shows a vertex's state counts rather than every
// subtask: a job of parallelism 10,000 is still a readable diagram.
//
// SequenceDiagram draws a job's trace (package trace): the steps m1–m11
// from the jar upload to the first task reporting RUNNING, between Client,
// REST, Dispatcher, JobManagerRunner, JobMaster, ResourceManager,
// SlotManager, TaskExecutor, BlobServer and Task. GitHub renders the
// Mermaid text in a markdown code block marked "mermaid". Steps repeated
// once per subtask (m9 submitTask, m11 updateTaskExecutionState) collapse
// into one arrow "m9 ×12". Flink has no such view; it is the sequence its
// documentation describes in prose. The diagram ends where the trace ends,
// so for a submission that broke off, its last arrow shows how far it got.
//
// SlotPlan draws where a job's subtasks run, from a plan of package slots:
// one box per TaskManager (tm-1, tm-2, …) with its total and free
// resources, one box per slot cut out of it with its profile in short
// (cpu, task heap, managed memory; the whole ResourceProfile in the
// tooltip), and in each slot the subtasks that share it, coloured by slot
// sharing group; shared slots no TaskManager has room for are drawn
// outside, "waiting: no TaskManager can fit ResourceProfile{…}".
// RunningSlots draws the same for a running job from what REST says, which
// places subtasks on TaskManagers but not in slots, so it lists them per
// TaskManager. This is the picture of Flink's web UI's TaskManager page,
// with the slots of the job drawn in.
//
// Regions draws a job's pipelined regions, from package regions: one box
// per region with its subtasks, a solid arrow for each pipelined exchange
// between two subtasks and a dashed one for each BLOCKING exchange; after
// a failure, the failed subtask's region red, the regions region failover
// restarts with it orange, and the others green. Flink's web UI has no
// such view; its scheduler logs the regions it restarts.
//
// StateMachine draws a scheduler's states and transitions, from package
// states, with the path a real job took in green and the numbers of its
// moves on the transitions it took; StateMachineMermaid draws the same as
// a Mermaid stateDiagram-v2.
//
// Checkpoint draws one checkpoint, read from a job's trace by package
// checkpoints, on the job's ExecutionGraph: the CheckpointCoordinator on
// the left, the subtasks in their vertices' boxes, each listing the steps
// it took (k2 trigger received, k3 barrier sent, k4 barrier on all inputs,
// k5 acknowledged, k7 notified), each with its number among the
// checkpoint's events and, for a measured run, its milliseconds since the
// trigger (k1). The barrier is orange on every channel it crossed, the
// trigger blue, the acknowledgements green, ranked "1st", "2nd", … so that
// "which subtask acknowledged when" reads off the drawing. Flink's web UI
// shows the same per subtask as a table (the Checkpoints tab's details).
// CheckpointSequence and CheckpointSequenceDOT draw the same checkpoint as
// a sequence, CheckpointCoordinator, TaskExecutor, sources, subtasks
// downstream, one arrow per event (a source's k3 one per channel) and a
// participant's own step (k1, k4, k6) as a box on its lifeline.
//
// Every function returns the same bytes for the same graph: nodes are named
// by position (v0, v1, … or a StreamNode's ID, never by random
// JobVertexIDs), in the order the graph keeps them, and maps are never
// iterated unsorted. Labels are escaped for DOT (quote) and Mermaid
// (mermaidText), so operator and job names may hold quotes, backslashes,
// newlines, ';' or '#'.
//
// Differences from Flink: the ExecutionGraph diagram shows vertices and
// subtasks but not IntermediateResultPartitions or ConsumedPartitionGroups,
// which the archived graph does not carry; and edges join vertex boxes, not
// individual subtasks, which for ALL_TO_ALL would be n² lines.
package dot
