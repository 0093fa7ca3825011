// Package shapes holds two small bounded jobs whose shape is the point:
// they show, between them, every decision Flink makes on the way from a
// program to its StreamGraph, JobGraph and ExecutionGraph (lesson 02).
// WordCount (runtime/examples/wordcount) is the third program of the
// lesson.
//
// # chains: every reason not to chain
//
//	Source: numbers → double ─► multiples-of-4 ─► square ─► label → Sink: print-sink
//	                  startNewChain()   disableChaining()  slotSharingGroup("output")
//
// All operators run at the job's parallelism p and are joined by FORWARD
// edges, so only the chaining strategies and the slot sharing groups
// decide (StreamingJobGraphGenerator#isChainable):
//
//	Source: numbers → double      chained: a source is HEAD, double is ALWAYS
//	double → multiples-of-4       not chained: multiples-of-4 is HEAD (startNewChain)
//	multiples-of-4 → square       not chained: square is NEVER (disableChaining)
//	square → label                not chained: slot sharing group "default" ≠ "output"
//	label → Sink: print-sink      chained: the sink inherits the group "output"
//
// Four JobVertices, 4p subtasks, and 2p slots: p for each slot sharing
// group, since a slot holds one subtask of every vertex of its group.
//
// # fanout: the distribution patterns, and a union
//
//	Source: readings (4) ─RESCALE─► compact (2) ─RESCALE─► widen (4) ─BROADCAST─┐
//	                                                                             ├─► audit (3) → Sink: print-sink (3)
//	Source: late-readings (3) ─────────────────────FORWARD──────────────────────┘   (a union)
//
// The parallelism changes at every edge of the first line, so nothing
// chains there. The audit reads the union of two streams, so it chains to
// neither, not even to the late readings' FORWARD edge of equal
// parallelism: a union is read through the network (isChainable wants one
// input). RESCALE makes POINTWISE JobEdges, BROADCAST an ALL_TO_ALL one
// (EdgeManagerBuildUtil):
//
//	readings → compact        4 → 2: each compact subtask reads two partitions (0, 1 and 2, 3)
//	compact → widen           2 → 4: each compact partition is read by two widen subtasks
//	widen → audit             ALL_TO_ALL: one ConsumedPartitionGroup of the 4 partitions, shared by all 3 audit subtasks
//	late-readings → audit     POINTWISE 3 → 3: each audit subtask reads its own partition
//
// Each audit subtask reads two input gates, one per stream of the union,
// as one (network.UnionInputGate). The job needs 4 slots, the largest
// parallelism in its one slot sharing group, and is one pipelined region:
// the BROADCAST edge joins everything.
//
// Both programs take --output print (the default) or --output collect,
// which appends the sink's records to Results.
package shapes
