package tasks

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/jobgraph"
	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
)

// sumByWord is the reduce of WordCount's Sum(1), type-erased as the
// runtime holds it.
func sumByWord(accumulator, record any) any {
	a, r := accumulator.(streaming.Tuple2[string, int]), record.(streaming.Tuple2[string, int])
	return streaming.Tuple2Of(a.F0, a.F1+r.F1)
}

func wordOf(record any) any { return record.(streaming.Tuple2[string, int]).F0 }

// appendOutput collects what an operator emits.
func appendOutput(into *[]any) output {
	return outputFunc(func(record any) error {
		*into = append(*into, record)
		return nil
	})
}

// The same words through the STREAMING and the BATCH reduce: the first
// emits a running count per record, the second nothing until its input
// ends, and then one final count per word, in the order the words first
// arrived, once.
func TestBatchGroupedReduceEmitsOnlyTheFinalResult(t *testing.T) {
	var words []streaming.Tuple2[string, int]
	for _, w := range []string{"to", "be", "or", "not", "to", "be", "that", "is", "to", "know"} {
		words = append(words, streaming.Tuple2Of(w, 1))
	}

	var rolling []any
	streamingReduce := &streamGroupedReduce{
		reduce: sumByWord, keySelector: wordOf,
		state: newHeapKeyedStateBackend(128, 1, 0), out: appendOutput(&rolling),
	}
	var final []any
	batchReduce := &batchGroupedReduce{
		reduce: sumByWord, keySelector: wordOf,
		state: newHeapKeyedStateBackend(128, 1, 0), out: appendOutput(&final),
	}
	for _, w := range words {
		require.NoError(t, streamingReduce.processElement(w))
		require.NoError(t, batchReduce.processElement(w))
	}
	assert.Len(t, rolling, len(words), "STREAMING: a running count after every record")
	assert.Empty(t, final, "BATCH: nothing before the input ends")
	assert.Equal(t, 7, batchReduce.state.numberOfKeys())

	require.NoError(t, batchReduce.endInput())
	assert.Equal(t, []any{
		streaming.Tuple2Of("to", 3), streaming.Tuple2Of("be", 2), streaming.Tuple2Of("or", 1),
		streaming.Tuple2Of("not", 1), streaming.Tuple2Of("that", 1), streaming.Tuple2Of("is", 1),
		streaming.Tuple2Of("know", 1),
	}, final)
	assert.Equal(t, 0, batchReduce.state.numberOfKeys(), "each value is cleared once emitted")

	require.NoError(t, batchReduce.endInput())
	assert.Len(t, final, 7, "a second end emits nothing again")
}

// The BATCH reduce keeps the keyed state's rule: a key of another
// subtask's key group fails the task when it arrives, not at the end.
func TestBatchGroupedReduceRejectsKeysOfOtherKeyGroups(t *testing.T) {
	var final []any
	op := &batchGroupedReduce{
		reduce: sumByWord, keySelector: wordOf,
		state: newHeapKeyedStateBackend(128, 2, 0), out: appendOutput(&final), // key groups 0–63
	}
	// "hello" is in key group 35 (see streaming's ExampleAssignKeyToParallelOperator).
	require.NoError(t, op.processElement(streaming.Tuple2Of("hello", 1)))
	foreign := ""
	for i := 0; foreign == ""; i++ {
		if key := fmt.Sprintf("key-%d", i); streaming.AssignToKeyGroup(key, 128) >= 64 {
			foreign = key
		}
	}
	assert.ErrorContains(t, op.processElement(streaming.Tuple2Of(foreign, 1)), "is not in KeyGroupRange{startKeyGroup=0, endKeyGroup=63}")
	require.NoError(t, op.endInput())
	assert.Equal(t, []any{streaming.Tuple2Of("hello", 1)}, final)
}

// endRecorder is an operator that logs its records and the end of its
// input.
type endRecorder struct {
	name string
	log  *[]string
	out  output
}

func (r *endRecorder) open() error  { return nil }
func (r *endRecorder) close() error { return nil }

func (r *endRecorder) processElement(record any) error {
	*r.log = append(*r.log, fmt.Sprintf("%s(%v)", r.name, record))
	return r.out.collect(record)
}

func (r *endRecorder) endInput() error {
	*r.log = append(*r.log, "endInput "+r.name)
	return nil
}

var _ boundedOneInput = (*endRecorder)(nil)

// The chain ends its operators' input head first: what the BATCH reduce
// emits at its end passes through the operators behind it before their
// own input ends, and nothing reaches the chain's end before that.
func TestEndInputRunsHeadFirst(t *testing.T) {
	var log []string
	sink := &endRecorder{name: "sink", log: &log, out: discardingOutput{}}
	mapper := &streamMap{mapper: func(record any) any { return fmt.Sprint(record) }, out: chainingOutput{sink}}
	head := &batchGroupedReduce{
		reduce: sumByWord, keySelector: wordOf,
		state: newHeapKeyedStateBackend(128, 1, 0), out: chainingOutput{mapper},
	}
	chain := &operatorChain{
		operators: []streamOperator{head, mapper, sink},
		nodes: []*streaming.StreamNode{
			{ID: 4, OperatorName: "Keyed Aggregation"}, {ID: 5, OperatorName: "Map"}, {ID: 6, OperatorName: "Sink: Unnamed"},
		},
		head: head,
	}
	require.NoError(t, chain.openOperators())
	for _, w := range []string{"a", "b", "a"} {
		require.NoError(t, chain.head.processElement(streaming.Tuple2Of(w, 1)))
	}
	assert.Empty(t, log, "nothing leaves the BATCH reduce before the end")

	require.NoError(t, chain.endInput())
	require.NoError(t, chain.closeOperators())
	assert.Equal(t, []string{"sink((a,2))", "sink((b,1))", "endInput sink"}, log)
}

// The runner planned the job in BATCH; the program never said so. Each
// task plans the program again from its configuration and gets the BATCH
// operators: the keyed Sum is a batchGroupedReduce, and no task flushes
// on a buffer timeout. In STREAMING the same tasks get the rolling Sum and
// the timeout. The tasks are only restored, not run: running a BATCH job
// needs BLOCKING partitions.
func TestTasksPlanTheProgramInTheJobsRuntimeMode(t *testing.T) {
	pairs := []string{"a=1", "b=2", "a=3"}
	tests := []struct {
		mode              streaming.RuntimeExecutionMode
		wantResultType    jobgraph.ResultPartitionType
		wantReduce        string
		wantBufferTimeout time.Duration
	}{
		{streaming.Streaming, jobgraph.PipelinedBounded, "*tasks.streamGroupedReduce", DefaultBufferTimeout},
		{streaming.Batch, jobgraph.Blocking, "*tasks.batchGroupedReduce", disabledBufferTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			sg, err := streaming.PlanProgramInRuntimeMode(keyedSumProgram, pairs, 2, tt.mode)
			require.NoError(t, err)
			jg, err := sg.JobGraph()
			require.NoError(t, err)
			require.Equal(t, 2, jg.NumberOfVertices())
			require.Equal(t, tt.wantResultType, jg.Vertices()[1].Inputs()[0].Source.ResultType)

			job := deployLocally(t, jg, writeJar(t, keyedSumProgram, nil), network.Config{})
			for _, task := range job.tasks {
				require.NoError(t, task.invokable.Restore(context.Background()), task.name)
				switch invokable := task.invokable.(type) {
				case *SourceStreamTask:
					assert.Equal(t, tt.wantBufferTimeout, invokable.bufferTimeout, "the source task's buffer timeout")
					require.NoError(t, invokable.chain.closeOperators())
				case *OneInputStreamTask:
					assert.Equal(t, tt.wantReduce, fmt.Sprintf("%T", invokable.chain.head), "the counting task's head")
					require.NoError(t, invokable.chain.closeOperators())
				}
			}
		})
	}
}

// loadUserProgram plans the program in the runtime mode of the task's
// configuration.
func TestLoadUserProgramKeepsTheRuntimeMode(t *testing.T) {
	config := &streaming.StreamConfig{
		ProgramName: keyedSumProgram, ProgramArgs: []string{"a=1"}, ProgramParallelism: 1,
		ProgramRuntimeMode: streaming.Batch, ChainedNodeIDs: []int{3},
	}
	graph, _, err := loadUserProgram([]string{writeJar(t, keyedSumProgram, nil)}, config)
	require.NoError(t, err)
	assert.Equal(t, streaming.Batch, graph.RuntimeMode)
	assert.Equal(t, streaming.BatchReduceOperator, graph.StreamNode(3).Operator.Kind)
}
