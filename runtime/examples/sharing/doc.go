// Package sharing is a small bounded job about where subtasks run: a
// WordCount whose counting half runs in a slot sharing group of its own,
// with resources the program names (Flink's fine-grained resource
// management), and whose count and format operators are co-located.
//
//	Source: lines → tokenize ─HASH(word)─► count ─FORWARD─► format → Sink: print-sink
//	└── slot sharing group "default" ──┘   └── slot sharing group "counting" ─────────┘
//	                                        count and format: co-location group "count-and-format"
//
// # How it maps to Flink
//
// Written in Flink, the same job reads:
//
//	Flink                                                       here
//	SlotSharingGroup counting = SlotSharingGroup                streaming.NewSlotSharingGroupBuilder("counting").
//	    .newBuilder("counting").setCpuCores(0.25)                   SetCPUCores(0.25).SetTaskHeapMemoryMB(64).
//	    .setTaskHeapMemoryMB(64).setManagedMemoryMB(32).build();    SetManagedMemoryMB(32).Build()
//	env.fromData(lines).name("lines")                           streaming.FromCollection(env, lines).Name("lines")
//	.flatMap(new Tokenizer()).name("tokenize")                  streaming.FlatMap(text, tokenize).Name("tokenize")
//	.keyBy(value -> value.f0).sum(1).name("count")              streaming.KeyBy(words, word).Sum(1).Name("count")
//	.slotSharingGroup(counting)                                 .SetSlotSharingGroup(counting)
//	counts.getTransformation()                                  .SetCoLocationGroupKey("count-and-format")
//	    .setCoLocationGroupKey("count-and-format");
//	counts.map(t -> t.f0 + "=" + t.f1).name("format")           streaming.Map(counts, format).Name("format")
//	.startNewChain()                                            .StartNewChain()
//	format.getTransformation()                                  .SetCoLocationGroupKey("count-and-format")
//	    .setCoLocationGroupKey("count-and-format");
//	format.print().name("print-sink")                           .Print().Name("print-sink")
//
// Flink's DataStream API has no co-location method: a program reaches
// Transformation#setCoLocationGroupKey through getTransformation(), and
// Flink itself uses it for the head and tail of an iteration.
//
// # The plan
//
// The program makes five operators and a KeyBy (transformations 1–6:
// Source: lines-1, tokenize-2, the KeyBy 3, count-4, format-5, the sink 6).
// Of its four edges two chain (streaming.IsChainable), so it has three
// JobVertices:
//
//	Source: lines → tokenize     chained: a source is HEAD, tokenize ALWAYS, FORWARD edge
//	tokenize → count             not chained: "default" ≠ "counting", and HASH, not FORWARD
//	count → format               not chained: format is HEAD (StartNewChain)
//	format → Sink: print-sink    chained: the sink inherits "counting" and is ALWAYS
//
// So at parallelism p the JobGraph is
//
//	"Source: lines -> tokenize"    p subtasks, slot sharing group "default"
//	"count"                        p subtasks, slot sharing group "counting", co-location group "count-and-format"
//	"format -> Sink: print-sink"   p subtasks, slot sharing group "counting", co-location group "count-and-format"
//
// joined ALL_TO_ALL (HASH) and POINTWISE (FORWARD). The format starts a new
// chain instead of calling DisableChaining: DisableChaining makes an
// operator NEVER, which keeps it out of every chain, the sink's after it
// too (an upstream NEVER breaks rule 4), and the job would have four
// vertices. Either way the format is a JobVertex apart from the count, and
// only then is there something to co-locate: a chain runs in one slot
// anyway.
//
// # The slots
//
// A slot holds one subtask of each vertex of its slot sharing group, so at
// parallelism p the job needs 2p slots (jobgraph.JobGraph.SlotsNeeded):
//
//	p slots for "default"    ResourceProfile{UNKNOWN}: any slot will do
//	p slots for "counting"   ResourceProfile{cpuCores=0.25, taskHeapMemory=64.000mb (67108864 bytes),
//	                           taskOffHeapMemory=0 bytes, managedMemory=32.000mb (33554432 bytes), networkMemory=0 bytes}
//
// The JobGraph carries the counting profile in SlotSharingGroupResources
// (ResourceProfile.fromResourceSpec: the group's CPU cores and task heap,
// off-heap and managed memory, and no network memory); "default" has no
// entry. Slot sharing alone lets subtask i of count and subtask i of format
// share a slot of "counting"; the co-location group makes them: the
// scheduler puts subtask i of every vertex of "count-and-format" in the
// same shared slot. Both vertices of a co-location group must be in one
// slot sharing group, or the client refuses the job ("Cannot co-locate
// operators from different slot sharing groups").
//
// # How to run it
//
// Importing the package registers the program as "sharing" (ProgramClass);
// its text is built in, so its job jar is a manifest only:
//
//	./flink jar sharing -o Sharing.jar
//	./flink run -p 2 Sharing.jar --counting-cpu 0.5 --counting-heap-mb 128
//
// The arguments, in Flink's "--key value" style:
//
//	--output print                print every running count, "word=n" (the default)
//	--output collect              append every running count to Results
//	--counting-cpu <cores>        CPU cores of each slot of "counting" (default 0.25)
//	--counting-heap-mb <MB>       task heap of each slot of "counting" (default 64)
//	--counting-managed-mb <MB>    managed memory of each slot of "counting" (default 32)
//
// Resources the builder refuses (no positive CPU cores or task heap, a
// negative managed memory) fail the program at submission with Flink's
// messages. A slot of the counting profile is cut out of a TaskManager's
// free resources, so the TaskManagers must have room for p of them next to
// the p default slots.
package sharing
