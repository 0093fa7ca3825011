package streaming

import (
	"fmt"
	"slices"
	"sync"
)

// DataStreamSink is the end of a stream: a sink operator. It has the
// per-operator settings of a DataStream but yields no stream. It mirrors
// Flink's DataStreamSink; its node is shown as "Sink: <name>".
type DataStreamSink struct {
	env *StreamExecutionEnvironment
	t   *transformation
}

// Print writes every record to standard output (Flink: DataStream.print,
// sink name "Print to Std. Out"). When the sink runs in more than one
// subtask, Flink prefixes each line with the subtask's index + 1: "3> (to,2)".
func (ds *DataStream[T]) Print() *DataStreamSink {
	return addSink(ds, "Print to Std. Out", Operator{Kind: PrintSink}, false)
}

// AddSink hands every record to sinkFunction (Flink: DataStream.addSink
// with a SinkFunction, default sink name "Unnamed"). An error fails the
// task.
func (ds *DataStream[T]) AddSink(sinkFunction func(T) error) *DataStreamSink {
	op := Operator{Kind: FunctionSink, UserFunction: sinkFunction}
	if sinkFunction != nil {
		op.Invoke = func(record any) error { return sinkFunction(record.(T)) }
	}
	return addSink(ds, "Unnamed", op, sinkFunction == nil)
}

// CollectAsync adds a sink that appends every record to into, where the
// program (or a test) reads them once the job ended (Flink:
// DataStream.collectAsync, sink name "Data stream collect sink").
//
// The runtime runs the program again to find the sink (see PlanProgram),
// so into must be the same object on every run: a package-level variable,
// not one the program's main creates. With subtasks in other processes
// (a real cluster) each process collects its own share.
func (ds *DataStream[T]) CollectAsync(into *CollectSink[T]) *DataStreamSink {
	op := Operator{Kind: FunctionSink, UserFunction: into}
	if into != nil {
		op.Invoke = func(record any) error { return into.Invoke(record.(T)) }
	}
	return addSink(ds, "Data stream collect sink", op, into == nil)
}

// SinkToTransactionalFiles writes every record, as fmt.Sprint prints it,
// on a line of its own into part files under dir, exactly once: a part
// file becomes visible in dir only when a checkpoint that covers its
// records completes, so a failover that replays records since that
// checkpoint never shows them twice. In Flink the same sink reads
//
//	FileSink<String> sink = FileSink
//	    .forRowFormat(new Path(dir), new SimpleStringEncoder<String>())
//	    .build();
//	stream.sinkTo(sink);
//
// with the two-phase commit of a TwoPhaseCommitSinkFunction (sink name
// "File sink"). Each subtask writes its own part files; the runtime's
// transactionalFileSink documents their names and the commit protocol.
//
// Exactly once needs checkpoints (the cluster's
// execution.checkpointing.interval; Flink's env.enableCheckpointing):
// without them nothing becomes visible before the input ends, as in
// Flink. dir must be a path
// every TaskManager reaches (a shared file system in a cluster of
// several machines), and belongs to the sink: it deletes the files
// there that a failed attempt left unfinished.
func (ds *DataStream[T]) SinkToTransactionalFiles(dir string) *DataStreamSink {
	s := addSink(ds, "File sink", Operator{Kind: TransactionalFileSink, Path: dir}, false)
	if dir == "" {
		ds.env.fail(fmt.Errorf("%s: the directory of the part files must not be empty", s.t.describe()))
	}
	return s
}

// addSink adds a sink transformation (Flink: DataStreamSink.forSinkFunction).
func addSink[T any](ds *DataStream[T], name string, op Operator, nilFunction bool) *DataStreamSink {
	t := ds.env.addTransformation(&transformation{
		kind:             sinkTransformation,
		name:             name,
		input:            ds.t,
		operator:         op,
		chainingStrategy: Always,
	})
	if nilFunction {
		ds.env.fail(fmt.Errorf("%s: the sink function must not be nil", t.describe()))
	}
	return &DataStreamSink{env: ds.env, t: t}
}

// SetParallelism sets how many parallel subtasks run the sink.
func (s *DataStreamSink) SetParallelism(parallelism int) *DataStreamSink {
	setParallelism(s.env, s.t, parallelism)
	return s
}

// Name sets the sink's name; the node is shown as "Sink: <name>".
func (s *DataStreamSink) Name(name string) *DataStreamSink {
	setName(s.env, s.t, name)
	return s
}

// Uid sets the sink's stable, user-given ID.
func (s *DataStreamSink) Uid(uid string) *DataStreamSink {
	setUid(s.env, s.t, uid)
	return s
}

// SlotSharingGroup puts the sink in the named slot sharing group.
func (s *DataStreamSink) SlotSharingGroup(slotSharingGroup string) *DataStreamSink {
	setSlotSharingGroup(s.env, s.t, SlotSharingGroup{name: slotSharingGroup}, "SlotSharingGroup")
	return s
}

// SetSlotSharingGroup puts the sink in slotSharingGroup and gives the group
// the resources it carries, if any (Flink:
// DataStreamSink#slotSharingGroup(SlotSharingGroup)); see
// DataStream.SetSlotSharingGroup.
func (s *DataStreamSink) SetSlotSharingGroup(slotSharingGroup SlotSharingGroup) *DataStreamSink {
	setSlotSharingGroup(s.env, s.t, slotSharingGroup, "SetSlotSharingGroup")
	return s
}

// DisableChaining keeps the sink out of its input's chain (strategy NEVER).
func (s *DataStreamSink) DisableChaining() *DataStreamSink {
	setChainingStrategy(s.env, s.t, Never, "DisableChaining")
	return s
}

// CollectSink gathers the records a CollectAsync sink receives. It is safe
// for concurrent use, since several subtasks append at once.
type CollectSink[T any] struct {
	mu     sync.Mutex
	values []T
}

// Invoke appends one record; it is the sink function.
func (s *CollectSink[T]) Invoke(record T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = append(s.values, record)
	return nil
}

// Values returns a copy of the records collected so far, in arrival order.
func (s *CollectSink[T]) Values() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.values)
}

// Len returns how many records were collected.
func (s *CollectSink[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.values)
}

// Clear forgets the collected records, e.g. before a job runs again.
func (s *CollectSink[T]) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = nil
}
