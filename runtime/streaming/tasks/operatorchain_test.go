package tasks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
)

// Map → Filter → Map runs as one chain in one task: each record goes
// through all three functions before the next record starts (function
// calls, no batching), and the middle record type holds a func, which no
// serializer takes (no serialization inside the chain).
func TestChainedOperatorsPassRecordsByFunctionCall(t *testing.T) {
	chainCalls, chainResults = nil, streaming.CollectSink[string]{}
	jg := planJobGraph(t, chainProgram, []string{"1", "2", "3", "4", "5"}, 1)
	require.Equal(t, 1, jg.NumberOfVertices(), "source, maps, filter and sink form one chain")
	assert.Equal(t, "Source: Collection Source -> Map -> Filter -> Map -> Sink: Data stream collect sink", jg.Vertices()[0].Name)

	job := deployLocally(t, jg, writeJar(t, chainProgram, nil), network.Config{})
	require.NoError(t, job.run(t.Context()))

	assert.Equal(t, []string{
		"map1(1)", "filter(1)", "map2(1)",
		"map1(2)", "filter(2)", // even: filtered out, map2 never sees it
		"map1(3)", "filter(3)", "map2(3)",
		"map1(4)", "filter(4)",
		"map1(5)", "filter(5)", "map2(5)",
	}, chainCalls)
	assert.Equal(t, []string{"#1", "#3", "#5"}, chainResults.Values())
}

// richRecorder is a user function with Open and Close that logs both.
type richRecorder struct {
	name    string
	log     *[]string
	openErr error
}

func (r *richRecorder) Open() error {
	*r.log = append(*r.log, "open "+r.name)
	return r.openErr
}

func (r *richRecorder) Close() error {
	*r.log = append(*r.log, "close "+r.name)
	return nil
}

var _ RichFunction = (*richRecorder)(nil)

// testChain builds Map-1 → Filter-2 → Sink-3 whose user functions are
// rich, as RegularOperatorChain holds them: head first.
func testChain(log *[]string, openErrs map[string]error) *operatorChain {
	udf := func(name string) abstractUdfStreamOperator {
		return abstractUdfStreamOperator{&richRecorder{name: name, log: log, openErr: openErrs[name]}}
	}
	sink := &functionSink{udf("sink"), func(record any) error {
		*log = append(*log, fmt.Sprintf("sink(%v)", record))
		return nil
	}}
	filter := &streamFilter{udf("filter"), func(record any) bool { return record.(int) > 0 }, chainingOutput{sink}}
	head := &streamMap{udf("map"), func(record any) any { return record.(int) - 1 }, chainingOutput{filter}}
	return &operatorChain{
		operators: []streamOperator{head, filter, sink},
		nodes: []*streaming.StreamNode{
			{ID: 1, OperatorName: "Map"}, {ID: 2, OperatorName: "Filter"}, {ID: 3, OperatorName: "Sink: Unnamed"},
		},
		head: head,
	}
}

// Operators open tail first, so no operator emits into one that is not
// open, and close head first, as Flink's RegularOperatorChain does; their
// RichFunctions open and close with them.
func TestOperatorsOpenTailFirstAndCloseHeadFirst(t *testing.T) {
	var log []string
	chain := testChain(&log, nil)
	require.NoError(t, chain.openOperators())
	require.NoError(t, chain.head.processElement(1))
	require.NoError(t, chain.head.processElement(5))
	require.NoError(t, chain.closeOperators())
	require.NoError(t, chain.closeOperators(), "closing twice closes once")

	assert.Equal(t, []string{
		"open sink", "open filter", "open map",
		"sink(4)",
		"close map", "close filter", "close sink",
	}, log)
}

// An operator whose Open fails stops the opening; the operators opened
// before it (those behind it) are closed again, the others never opened.
func TestOpenFailureClosesOnlyTheOpenedOperators(t *testing.T) {
	var log []string
	chain := testChain(&log, map[string]error{"filter": errors.New("no database")})
	err := chain.openOperators()
	require.EqualError(t, err, "Filter-2: open: no database")
	require.NoError(t, chain.closeOperators())
	assert.Equal(t, []string{"open sink", "open filter", "close sink"}, log)
}

// A FlatMap's output error reaches the task, although the user's
// Collector cannot return one; later records of the same call are dropped.
func TestFlatMapReportsTheOutputsError(t *testing.T) {
	boom := errors.New("downstream failed")
	var got []any
	out := outputFunc(func(record any) error {
		got = append(got, record)
		if len(got) == 2 {
			return boom
		}
		return nil
	})
	op := newStreamFlatMap(nil, func(record any, collect func(any)) {
		for _, word := range strings.Fields(record.(string)) {
			collect(word)
		}
	}, out)
	require.ErrorIs(t, op.processElement("a b c d"), boom)
	assert.Equal(t, []any{"a", "b"}, got)
}

// outputFunc adapts a function to an output.
type outputFunc func(any) error

func (f outputFunc) collect(record any) error { return f(record) }

// A chain whose StreamGraph does not match its configuration (the program
// built a different dataflow when it was planned again) fails in Restore.
func TestRestoreFailsWhenTheProgramBuildsAnotherGraph(t *testing.T) {
	jg := planJobGraph(t, chainProgram, []string{"1", "2"}, 1)
	jg.Vertices()[0].Configuration[streaming.ConfigChainedNodeIDs] = "[1,2,42]"
	job := deployLocally(t, jg, writeJar(t, chainProgram, nil), network.Config{})
	err := job.tasks[0].invokable.Restore(context.Background())
	assert.ErrorContains(t, err, "the StreamGraph of program tasks-test.chain does not match the task: program tasks-test.chain has no node 42")
}
