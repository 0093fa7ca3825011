package tasks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/streaming"
)

// collected is an output that keeps what it gets.
type collected struct{ records []any }

func (c *collected) collect(record any) error {
	c.records = append(c.records, record)
	return nil
}

// fakeJar is a userJar in memory.
type fakeJar struct {
	programClass string
	resources    map[string]string
}

func (j fakeJar) ProgramClass() string { return j.programClass }
func (j fakeJar) Resource(name string) ([]byte, error) {
	if text, ok := j.resources[name]; ok {
		return []byte(text), nil
	}
	return nil, fmt.Errorf("resource %q: %w", name, fs.ErrNotExist)
}

func runSource(t *testing.T, op sourceOperator) {
	t.Helper()
	require.NoError(t, op.open())
	require.NoError(t, op.run(context.Background()))
	require.NoError(t, op.close())
}

// Every source is parallel: subtask s of p emits the records with index
// i % p == s, in order.
func TestSourcesSplitTheirRecordsAcrossSubtasks(t *testing.T) {
	jar := fakeJar{programClass: "wordcount", resources: map[string]string{"wordcount/hamlet.txt": "a\nb\r\nc\rd\n\ne"}}
	tests := []struct {
		name     string
		operator streaming.Operator
		share    subtaskShare
		want     []any
	}{
		{"collection, one subtask", streaming.Operator{Kind: streaming.CollectionSource, Elements: []any{"x", "y", "z"}},
			subtaskShare{0, 1}, []any{"x", "y", "z"}},
		{"collection, subtask 1 of 2", streaming.Operator{Kind: streaming.CollectionSource, Elements: []any{0, 1, 2, 3, 4}},
			subtaskShare{1, 2}, []any{1, 3}},
		{"collection, more subtasks than elements", streaming.Operator{Kind: streaming.CollectionSource, Elements: []any{0, 1}},
			subtaskShare{3, 4}, nil},
		{"sequence, subtask 0 of 3", streaming.Operator{Kind: streaming.SequenceSource, From: 10, To: 17},
			subtaskShare{0, 3}, []any{int64(10), int64(13), int64(16)}},
		{"sequence up to MaxInt64", streaming.Operator{Kind: streaming.SequenceSource, From: math.MaxInt64 - 3, To: math.MaxInt64},
			subtaskShare{1, 2}, []any{int64(math.MaxInt64 - 2), int64(math.MaxInt64)}},
		{"text file: lines end in \\n, \\r\\n or \\r, found in the program's directory",
			streaming.Operator{Kind: streaming.TextFileSource, ResourceName: "hamlet.txt"},
			subtaskShare{0, 1}, []any{"a", "b", "c", "d", "", "e"}},
		{"text file, subtask 1 of 2", streaming.Operator{Kind: streaming.TextFileSource, ResourceName: "wordcount/hamlet.txt"},
			subtaskShare{1, 2}, []any{"b", "d", "e"}},
		{"bounded generator, subtask 2 of 3", streaming.Operator{Kind: streaming.GeneratorSource, Count: 8,
			Generate: func(i int64) any { return fmt.Sprint("g", i) }},
			subtaskShare{2, 3}, []any{"g2", "g5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &collected{}
			node := &streaming.StreamNode{ID: 1, OperatorName: "Source", Operator: tt.operator}
			op, err := newSourceOperator(node, out, tt.share, jar, func(context.Context) error { return nil }, newMailbox())
			require.NoError(t, err)
			runSource(t, op)
			assert.Equal(t, tt.want, out.records)
		})
	}
}

func TestTextFileSourceFailsToOpenWithoutItsResource(t *testing.T) {
	node := &streaming.StreamNode{ID: 1, Operator: streaming.Operator{Kind: streaming.TextFileSource, ResourceName: "missing.txt"}}
	op, err := newSourceOperator(node, &collected{}, subtaskShare{0, 1}, fakeJar{programClass: "wordcount"}, nil, newMailbox())
	require.NoError(t, err)
	err = op.open()
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorContains(t, err, `cannot read the text file: the job jar holds neither "missing.txt" nor "wordcount/missing.txt"`)
}

// A generator keeps its rate with a ticker: the first records at once,
// then its allowance at every tick, flushing after each. The rate is for
// all subtasks together.
func TestGeneratorSourceIsRateLimited(t *testing.T) {
	tests := []struct {
		name                   string
		recordsPerSecond       float64
		share                  subtaskShare
		wantAfterOneSecondFrom int
		wantAfterOneSecondTo   int
	}{
		{"100/s in one subtask: one record every 10 ms", 100, subtaskShare{0, 1}, 101, 101},
		{"100/s in two subtasks: one record every 20 ms each", 100, subtaskShare{1, 2}, 51, 51},
		{"1/s: one record a second", 1, subtaskShare{0, 1}, 2, 2},
		{"10,000/s: a hundred records every 10 ms", 10_000, subtaskShare{0, 1}, 10_099, 10_100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				out := &collected{}
				flushes := 0
				node := &streaming.StreamNode{ID: 1, Operator: streaming.Operator{Kind: streaming.GeneratorSource,
					Count: streaming.Unbounded, RecordsPerSecond: tt.recordsPerSecond,
					Generate: func(i int64) any { return i }}}
				op, err := newSourceOperator(node, out, tt.share, nil, func(context.Context) error { flushes++; return nil }, newMailbox())
				require.NoError(t, err)
				done := make(chan error, 1)
				go func() { done <- op.run(ctx) }()

				time.Sleep(time.Second)
				synctest.Wait()
				n := len(out.records)
				assert.GreaterOrEqual(t, n, tt.wantAfterOneSecondFrom)
				assert.LessOrEqual(t, n, tt.wantAfterOneSecondTo)
				assert.Equal(t, int64(tt.share.subtaskIndex), out.records[0], "its share starts at its subtask index")
				assert.Equal(t, int64(tt.share.subtaskIndex+tt.share.parallelism), out.records[1])
				assert.Positive(t, flushes)

				cancel()
				assert.ErrorIs(t, <-done, context.Canceled)
			})
		})
	}
}

// Sources whose records never block still stop promptly when cancelled:
// they look at ctx every cancellationCheckInterval records.
func TestSourcesStopWhenCancelled(t *testing.T) {
	for _, op := range []streaming.Operator{
		{Kind: streaming.SequenceSource, From: 0, To: math.MaxInt64},
		{Kind: streaming.GeneratorSource, Count: streaming.Unbounded, Generate: func(i int64) any { return i }},
		{Kind: streaming.CollectionSource, Elements: make([]any, 10*cancellationCheckInterval)},
	} {
		t.Run(op.Kind.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			emitted := 0
			out := outputFunc(func(any) error {
				emitted++
				if emitted == 10 {
					cancel()
				}
				return nil
			})
			node := &streaming.StreamNode{ID: 1, Operator: op}
			source, err := newSourceOperator(node, out, subtaskShare{0, 1}, nil, nil, newMailbox())
			require.NoError(t, err)
			err = source.run(ctx)
			require.True(t, errors.Is(err, context.Canceled), "run returned %v", err)
			assert.LessOrEqual(t, emitted, cancellationCheckInterval+1)
		})
	}
}
