package regions_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/pipelines"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/regions"
)

// plan plans a registered program at parallelism p, as the client does.
func plan(t *testing.T, program string, args []string, p int) *jobgraph.JobGraph {
	t.Helper()
	sg, err := streaming.PlanProgram(program, args, p)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	return jg
}

var batch = []string{"--execution-mode", "BATCH"}

// layout is a job's regions in words: "region N: subtasks" and, after a
// failure, why each restarts or that it keeps running.
func layout(j *regions.Job) []string {
	var lines []string
	for _, r := range j.Regions {
		var subtasks []string
		for _, s := range r.Subtasks {
			subtasks = append(subtasks, s.String())
		}
		line := fmt.Sprintf("region %d: %s", r.Number, strings.Join(subtasks, ", "))
		if j.Failed != nil {
			if r.Why == regions.Keeps {
				line += " | keeps running"
			} else {
				line += " | restarts: " + r.Reason()
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// The regions of the lesson's programs, as the scheduler's package doc
// has them: keyBy makes a streaming job one region, forward exchanges one
// region per pipeline, and BLOCKING exchanges (BATCH) cut the job at every
// exchange.
func TestOf(t *testing.T) {
	tests := []struct {
		name    string
		program string
		args    []string
		p       int
		want    []string
	}{
		{"streaming keyBy: one region", wordcount.ProgramClass, nil, 2, []string{
			"region 1: Source: file-input -> tokenizer (1/2), Source: file-input -> tokenizer (2/2), counter -> Sink: print-sink (1/2), counter -> Sink: print-sink (2/2)",
		}},
		{"forward only: one region per pipeline", pipelines.ProgramClass, nil, 3, []string{
			"region 1: Source: numbers (1/3), work -> Sink: print-sink (1/3)",
			"region 2: Source: numbers (2/3), work -> Sink: print-sink (2/3)",
			"region 3: Source: numbers (3/3), work -> Sink: print-sink (3/3)",
		}},
		{"BATCH: one region per subtask", wordcount.ProgramClass, batch, 2, []string{
			"region 1: Source: file-input -> tokenizer (1/2)",
			"region 2: Source: file-input -> tokenizer (2/2)",
			"region 3: counter -> Sink: print-sink (1/2)",
			"region 4: counter -> Sink: print-sink (2/2)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := regions.Of(plan(t, tt.program, tt.args, tt.p))
			require.NoError(t, err)
			assert.Equal(t, tt.want, layout(j))
			assert.Nil(t, j.Failed)
			assert.Empty(t, j.Restart)
		})
	}
}

// What region failover restarts, by the strategy's rules: the failed
// subtask's region, and every region that reads a result it produces
// again; a finished BLOCKING result is read again, not produced again.
func TestFail(t *testing.T) {
	tests := []struct {
		name    string
		program string
		args    []string
		p       int
		failed  string
		want    []string
		restart int // subtasks
	}{
		{"a pipeline restarts alone", pipelines.ProgramClass, nil, 3, "work -> Sink: print-sink (2/3)", []string{
			"region 1: Source: numbers (1/3), work -> Sink: print-sink (1/3) | keeps running",
			"region 2: Source: numbers (2/3), work -> Sink: print-sink (2/3) | restarts: it holds the failed subtask",
			"region 3: Source: numbers (3/3), work -> Sink: print-sink (3/3) | keeps running",
		}, 2},
		{"one region: everything restarts", wordcount.ProgramClass, nil, 2, "counter -> Sink: print-sink (1/2)", []string{
			"region 1: Source: file-input -> tokenizer (1/2), Source: file-input -> tokenizer (2/2), counter -> Sink: print-sink (1/2), counter -> Sink: print-sink (2/2) | restarts: it holds the failed subtask",
		}, 4},
		{"BATCH: a producer and every consumer of its result", wordcount.ProgramClass, batch, 2, "Source: file-input -> tokenizer (1/2)", []string{
			"region 1: Source: file-input -> tokenizer (1/2) | restarts: it holds the failed subtask",
			"region 2: Source: file-input -> tokenizer (2/2) | keeps running",
			"region 3: counter -> Sink: print-sink (1/2) | restarts: it reads a result of region 1, which is produced again",
			"region 4: counter -> Sink: print-sink (2/2) | restarts: it reads a result of region 1, which is produced again",
		}, 3},
		{"BATCH: a consumer reads its inputs again", wordcount.ProgramClass, batch, 2, "counter -> Sink: print-sink (2/2)#1", []string{
			"region 1: Source: file-input -> tokenizer (1/2) | keeps running",
			"region 2: Source: file-input -> tokenizer (2/2) | keeps running",
			"region 3: counter -> Sink: print-sink (1/2) | keeps running",
			"region 4: counter -> Sink: print-sink (2/2) | restarts: it holds the failed subtask",
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := regions.Fail(plan(t, tt.program, tt.args, tt.p), tt.failed)
			require.NoError(t, err)
			assert.Equal(t, tt.want, layout(j))
			assert.Len(t, j.Restart, tt.restart)
			failed, err := regions.ParseSubtask(tt.failed)
			require.NoError(t, err)
			assert.Equal(t, failed, *j.Failed)
			assert.Contains(t, j.Restart, failed)
		})
	}
}

func TestFailNamesASubtaskOfTheJob(t *testing.T) {
	jg := plan(t, pipelines.ProgramClass, nil, 4)
	for _, failed := range []string{"work (2/4)", "work -> Sink: print-sink (2/3)", "Source: numbers"} {
		_, err := regions.Fail(jg, failed)
		assert.Error(t, err, failed)
	}
	_, err := regions.Fail(jg, "work (2/4)")
	assert.EqualError(t, err, `Pipelines has no subtask work (2/4); its subtasks are "Source: numbers (1/4)" … (4/4), "work -> Sink: print-sink (1/4)" … (4/4)`)
}

func TestParseSubtask(t *testing.T) {
	tests := []struct {
		in   string
		want regions.Subtask
		err  string
	}{
		{in: "Map (1/1)", want: regions.Subtask{Vertex: "Map", Index: 0, Parallelism: 1}},
		{in: "Source: in -> Map (3/4)", want: regions.Subtask{Vertex: "Source: in -> Map", Index: 2, Parallelism: 4}},
		{in: "Source: in (2/2)#3", want: regions.Subtask{Vertex: "Source: in", Index: 1, Parallelism: 2}},
		{in: "odd (name) (1/2)", want: regions.Subtask{Vertex: "odd (name)", Index: 0, Parallelism: 2}},
		{in: "Map", err: "want NAME (i/p)"},
		{in: "Map (0/2)", err: "want i from 1 to p"},
		{in: "Map (3/2)", err: "want i from 1 to p"},
	}
	for _, tt := range tests {
		got, err := regions.ParseSubtask(tt.in)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, strings.Split(tt.in, "#")[0], got.String())
	}
}

// Exchanges join each consumer subtask to the producers it reads, with
// the result's type: FORWARD pairs subtask i with subtask i, an ALL_TO_ALL
// edge every producer with every consumer.
func TestExchanges(t *testing.T) {
	text := func(j *regions.Job) []string {
		var out []string
		for _, e := range j.Exchanges() {
			out = append(out, fmt.Sprintf("%s → %s %s", e.Producer, e.Consumer, e.ResultType))
		}
		return out
	}
	j, err := regions.Of(plan(t, pipelines.ProgramClass, nil, 2))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"Source: numbers (1/2) → work -> Sink: print-sink (1/2) PIPELINED_BOUNDED",
		"Source: numbers (2/2) → work -> Sink: print-sink (2/2) PIPELINED_BOUNDED",
	}, text(j))
	assert.Equal(t, 4, j.NumberOfSubtasks())

	j, err = regions.Of(plan(t, wordcount.ProgramClass, batch, 2))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"Source: file-input -> tokenizer (1/2) → counter -> Sink: print-sink (1/2) BLOCKING",
		"Source: file-input -> tokenizer (2/2) → counter -> Sink: print-sink (1/2) BLOCKING",
		"Source: file-input -> tokenizer (1/2) → counter -> Sink: print-sink (2/2) BLOCKING",
		"Source: file-input -> tokenizer (2/2) → counter -> Sink: print-sink (2/2) BLOCKING",
	}, text(j))
	require.Len(t, j.Edges, 1)
	assert.Equal(t, regions.Edge{
		Producer: "Source: file-input -> tokenizer", Consumer: "counter -> Sink: print-sink",
		DistributionPattern: jobgraph.AllToAll, ShipStrategy: "HASH", ResultType: jobgraph.Blocking,
	}, j.Edges[0])
}
