package streaming

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/jobgraph"
)

// Flink's texts, written out so that a change to them shows here.
const (
	flinkUnboundedInBatch = "Detected an UNBOUNDED source with the 'execution.runtime-mode' set to 'BATCH'. " +
		"This combination is not allowed, please set the 'execution.runtime-mode' to STREAMING or AUTOMATIC"
	flinkUnknownEnum = "Could not parse value for enum class org.apache.flink.api.common.RuntimeExecutionMode. " +
		"Expected one of: [[STREAMING, BATCH, AUTOMATIC]]"
)

// TestParseRuntimeExecutionMode: the values of execution.runtime-mode are
// read in any case, as Flink reads enum options, and nothing else is a
// mode.
func TestParseRuntimeExecutionMode(t *testing.T) {
	tests := []struct {
		text    string
		want    RuntimeExecutionMode
		wantErr string
	}{
		{"STREAMING", Streaming, ""},
		{"BATCH", Batch, ""},
		{"AUTOMATIC", Automatic, ""},
		{"batch", Batch, ""},
		{"Automatic", Automatic, ""},
		{"sTrEaMiNg", Streaming, ""},
		{"bacth", 0, "Could not parse value 'bacth' for key 'execution.runtime-mode'. Caused by: " + flinkUnknownEnum},
		{" BATCH", 0, "Could not parse value ' BATCH' for key 'execution.runtime-mode'. Caused by: " + flinkUnknownEnum},
		{"", 0, "Could not parse value '' for key 'execution.runtime-mode'. Caused by: " + flinkUnknownEnum},
		{"PIPELINED", 0, "Could not parse value 'PIPELINED' for key 'execution.runtime-mode'. Caused by: " + flinkUnknownEnum},
	}
	for _, tt := range tests {
		got, err := ParseRuntimeExecutionMode(tt.text)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrUnknownRuntimeExecutionMode) {
				t.Errorf("ParseRuntimeExecutionMode(%q) = %v, %v; want the error %q", tt.text, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRuntimeExecutionMode(%q) = %v, %v; want %v", tt.text, got, err, tt.want)
		}
	}

	// Every mode reads back from its name.
	for _, mode := range []RuntimeExecutionMode{Streaming, Batch, Automatic} {
		if got, err := ParseRuntimeExecutionMode(mode.String()); err != nil || got != mode {
			t.Errorf("ParseRuntimeExecutionMode(%q) = %v, %v; want %v", mode.String(), got, err, mode)
		}
	}
	if got := RuntimeExecutionMode(7).String(); got != "RuntimeExecutionMode(7)" {
		t.Errorf("String of an unknown mode = %q", got)
	}
}

// TestRuntimeModeResolution is Flink's shouldExecuteInBatchMode: the
// configured mode, and whether some source the job reads never ends,
// decide the mode the StreamGraph is built in, or fail it.
func TestRuntimeModeResolution(t *testing.T) {
	bounded := func(env *StreamExecutionEnvironment) {
		FromElements(env, "a", "b").Print()
		env.ReadTextFile("story.txt").Print()
		env.GenerateSequence(1, 10).Print()
		FromGenerator(env, func(i int64) int64 { return i }, 100, 0).Print()
	}
	unbounded := func(env *StreamExecutionEnvironment) {
		FromElements(env, "a", "b").Print()
		FromGenerator(env, func(i int64) int64 { return i }, Unbounded, 10).Print()
	}
	unboundedUnread := func(env *StreamExecutionEnvironment) {
		FromElements(env, "a", "b").Print()
		FromGenerator(env, func(i int64) int64 { return i }, Unbounded, 10) // nobody reads it: not translated
	}

	tests := []struct {
		name       string
		configured RuntimeExecutionMode // the zero value: never set
		sources    func(*StreamExecutionEnvironment)
		want       RuntimeExecutionMode
		wantErr    string
	}{
		{"default, bounded", Streaming, bounded, Streaming, ""},
		{"STREAMING, bounded", Streaming, bounded, Streaming, ""},
		{"STREAMING, unbounded", Streaming, unbounded, Streaming, ""},
		{"BATCH, bounded", Batch, bounded, Batch, ""},
		{"BATCH, unbounded", Batch, unbounded, 0, flinkUnboundedInBatch},
		{"BATCH, an unbounded source nobody reads", Batch, unboundedUnread, Batch, ""},
		{"AUTOMATIC, bounded", Automatic, bounded, Batch, ""},
		{"AUTOMATIC, unbounded", Automatic, unbounded, Streaming, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewStreamExecutionEnvironment()
			if tt.configured != Streaming {
				env.SetRuntimeMode(tt.configured)
			}
			tt.sources(env)
			sg, err := env.GetStreamGraph("modes")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrUnboundedSourceInBatch) {
					t.Fatalf("GetStreamGraph = %v; want the error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("GetStreamGraph: %v", err)
			}
			if sg.RuntimeMode != tt.want {
				t.Errorf("RuntimeMode = %v, want %v", sg.RuntimeMode, tt.want)
			}
		})
	}
}

// TestBatchJobName: a job without a name is named after its mode, as in
// Flink.
func TestBatchJobName(t *testing.T) {
	for _, tt := range []struct {
		mode RuntimeExecutionMode
		want string
	}{
		{Streaming, "Flink Streaming Job"},
		{Batch, "Flink Batch Job"},
		{Automatic, "Flink Batch Job"}, // FromElements is bounded
	} {
		env := NewStreamExecutionEnvironment().SetRuntimeMode(tt.mode)
		FromElements(env, 1).Print()
		sg, err := env.GetStreamGraph("")
		if err != nil {
			t.Fatal(err)
		}
		if sg.JobName != tt.want {
			t.Errorf("%v: job name %q, want %q", tt.mode, sg.JobName, tt.want)
		}
	}
}

func TestSetRuntimeModeRejectsAnUnknownMode(t *testing.T) {
	env := NewStreamExecutionEnvironment().SetRuntimeMode(RuntimeExecutionMode(3))
	FromElements(env, 1).Print()
	_, err := env.GetStreamGraph("")
	want := "Unknown runtime execution mode RuntimeExecutionMode(3): want STREAMING, BATCH or AUTOMATIC"
	if err == nil || err.Error() != want {
		t.Fatalf("GetStreamGraph = %v, want %q", err, want)
	}
}

// TestWordCountJobGraphPerMode: BATCH keeps WordCount's two chains and
// makes its one exchange BLOCKING, and its Sum a BatchReduceOperator;
// STREAMING is what it always was.
func TestWordCountJobGraphPerMode(t *testing.T) {
	tests := []struct {
		mode           RuntimeExecutionMode
		wantMode       RuntimeExecutionMode
		wantSum        OperatorKind
		wantResultType jobgraph.ResultPartitionType
	}{
		{Streaming, Streaming, ReduceOperator, jobgraph.PipelinedBounded},
		{Batch, Batch, BatchReduceOperator, jobgraph.Blocking},
		{Automatic, Batch, BatchReduceOperator, jobgraph.Blocking}, // its source is a collection
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			sg, err := PlanProgramInRuntimeMode(wordCountProgram, hamletLines, 4, tt.mode)
			if err != nil {
				t.Fatal(err)
			}
			if sg.RuntimeMode != tt.wantMode || sg.ProgramRuntimeMode != tt.mode {
				t.Errorf("RuntimeMode %v, ProgramRuntimeMode %v; want %v, %v", sg.RuntimeMode, sg.ProgramRuntimeMode, tt.wantMode, tt.mode)
			}
			if got := sg.StreamNode(4).Operator.Kind; got != tt.wantSum {
				t.Errorf("the Sum runs a %v, want a %v", got, tt.wantSum)
			}

			jg, err := sg.JobGraph()
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, v := range jg.Vertices() {
				names = append(names, v.Name)
			}
			wantNames := []string{"Source: Collection Source -> Flat Map", "Keyed Aggregation -> Sink: Print to Std. Out"}
			if diff := cmp.Diff(wantNames, names); diff != "" {
				t.Errorf("the chains differ from STREAMING's (-want +got):\n%s", diff)
			}
			edge := jg.Vertices()[1].Inputs()[0]
			if edge.Source.ResultType != tt.wantResultType || edge.ShipStrategyName != "HASH" {
				t.Errorf("the exchange is %v %s, want %v HASH", edge.Source.ResultType, edge.ShipStrategyName, tt.wantResultType)
			}
		})
	}
}

// TestEveryExchangeIsBlockingInBatch: in BATCH every data set between two
// tasks is BLOCKING, a FORWARD one as well as a HASH one, while the
// chainable edges stay inside their chains.
func TestEveryExchangeIsBlockingInBatch(t *testing.T) {
	env := NewStreamExecutionEnvironment().SetParallelism(2).SetRuntimeMode(Batch)
	numbers := env.GenerateSequence(1, 100)                                        // 1
	doubled := Map(numbers, func(n int64) int64 { return 2 * n })                  // 2: chained to the source
	kept := doubled.Filter(func(n int64) bool { return n%3 == 0 }).StartNewChain() // 3: FORWARD, not chained
	sums := KeyBy(kept, func(n int64) int64 { return n % 10 }).Sum(0)              // 5: HASH
	sums.Print().SetParallelism(1)                                                 // 6: REBALANCE
	sg, err := env.GetStreamGraph("exchanges")
	if err != nil {
		t.Fatal(err)
	}
	jg, err := sg.JobGraph()
	if err != nil {
		t.Fatal(err)
	}

	type exchange struct {
		From, To, Ship string
		ResultType     jobgraph.ResultPartitionType
	}
	var got []exchange
	for _, v := range jg.Vertices() {
		for _, in := range v.Inputs() {
			got = append(got, exchange{in.Source.Producer.Name, v.Name, in.ShipStrategyName, in.Source.ResultType})
		}
	}
	want := []exchange{
		{"Source: Sequence Source -> Map", "Filter", "FORWARD", jobgraph.Blocking},
		{"Filter", "Keyed Aggregation", "HASH", jobgraph.Blocking},
		{"Keyed Aggregation", "Sink: Print to Std. Out", "REBALANCE", jobgraph.Blocking},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exchanges (-want +got):\n%s", diff)
	}
}

// TestReplannedStreamGraphKeepsTheRuntimeMode plays the TaskExecutor of a
// job planned in BATCH: from the JobVertex's configuration alone, after
// the trip to the JobManager, it plans the program again and gets the
// BATCH graph, whether the runner or the program's main chose the mode.
func TestReplannedStreamGraphKeepsTheRuntimeMode(t *testing.T) {
	batchInMain := registerTestProgram(t, func(env *StreamExecutionEnvironment, args []string) error {
		env.SetRuntimeMode(Batch)
		return wordCountMain(env, args)
	})
	tests := []struct {
		name       string
		program    string
		runnerMode RuntimeExecutionMode
	}{
		{"the runner chose BATCH", wordCountProgram, Batch},
		{"the runner chose AUTOMATIC", wordCountProgram, Automatic},
		{"the program chose BATCH", batchInMain, Streaming},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := PlanProgramInRuntimeMode(tt.program, hamletLines, 2, tt.runnerMode)
			if err != nil {
				t.Fatal(err)
			}
			if client.RuntimeMode != Batch {
				t.Fatalf("the client planned %v, want BATCH", client.RuntimeMode)
			}
			jg, err := client.JobGraph()
			if err != nil {
				t.Fatal(err)
			}
			encoded, err := jobgraph.Encode(jg)
			if err != nil {
				t.Fatal(err)
			}
			decoded, err := jobgraph.Decode(encoded)
			if err != nil {
				t.Fatal(err)
			}

			// The TaskExecutor's side: the task configuration only.
			for _, vertex := range decoded.Vertices() {
				config, err := ReadStreamConfig(vertex.Configuration)
				if err != nil {
					t.Fatal(err)
				}
				if config.ProgramRuntimeMode != tt.runnerMode {
					t.Errorf("%s: the configuration says %v, want the runner's %v", vertex.Name, config.ProgramRuntimeMode, tt.runnerMode)
				}
				task, err := PlanProgramInRuntimeMode(config.ProgramName, config.ProgramArgs, config.ProgramParallelism, config.ProgramRuntimeMode)
				if err != nil {
					t.Fatal(err)
				}
				if task.RuntimeMode != Batch {
					t.Errorf("%s: the task planned %v, want BATCH", vertex.Name, task.RuntimeMode)
				}
				for _, id := range config.ChainedNodeIDs {
					if got, want := task.StreamNode(id).Operator.Kind, client.StreamNode(id).Operator.Kind; got != want {
						t.Errorf("%s: node %d runs a %v in the task, a %v in the client's plan", vertex.Name, id, got, want)
					}
				}
			}
		})
	}

	// Why the mode travels: planned without it, the runner's BATCH is lost,
	// and the task would run a rolling Sum behind a BLOCKING exchange.
	forgetful, err := PlanProgram(wordCountProgram, hamletLines, 2)
	if err != nil {
		t.Fatal(err)
	}
	if forgetful.RuntimeMode != Streaming || forgetful.StreamNode(4).Operator.Kind != ReduceOperator {
		t.Errorf("planned without the runner's mode: %v with a %v", forgetful.RuntimeMode, forgetful.StreamNode(4).Operator.Kind)
	}
}
