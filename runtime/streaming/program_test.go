package streaming

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"flinklab/runtime/api"
)

// testPrograms numbers the programs tests register, so that names stay
// unique when tests run more than once (go test -count=2).
var testPrograms atomic.Int64

// registerTestProgram registers main under a name unique to the test.
func registerTestProgram(t *testing.T, main ProgramMain) string {
	t.Helper()
	name := fmt.Sprintf("streaming-test.%s.%d", t.Name(), testPrograms.Add(1))
	RegisterProgram(name, main)
	return name
}

// TestBadPrograms: each mistake a program can make surfaces as an error of
// PlanProgram (or of CreateJobGraph), with a message that says what is
// wrong.
func TestBadPrograms(t *testing.T) {
	tests := []struct {
		name string
		main ProgramMain
		want string // fragment of the error
		is   error  // the error wraps it, if set
	}{
		{
			name: "main fails before Execute",
			main: func(*StreamExecutionEnvironment, []string) error { return errors.New("no input given") },
			want: "The main method caused an error: no input given",
		},
		{
			name: "main panics",
			main: func(*StreamExecutionEnvironment, []string) error { panic("index out of range") },
			want: "The main method caused an error: panic: index out of range",
		},
		{
			name: "main never calls Execute",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				FromElements(env, 1).Print()
				return nil
			},
			is: ErrMissingJob,
		},
		{
			name: "no operators",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				FromElements(env, 1)
				return env.Execute("only a source")
			},
			is: ErrNoOperators,
		},
		{
			name: "parallelism 0",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				Map(FromElements(env, 1), func(i int) int { return i }).SetParallelism(0).Print()
				return env.Execute("")
			},
			want: "Map (id 2): The parallelism of an operator must be at least 1, found 0.",
		},
		{
			name: "environment parallelism 0",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				env.SetParallelism(0)
				FromElements(env, 1).Print()
				return env.Execute("")
			},
			want: "Parallelism must be at least one",
		},
		{
			name: "max parallelism out of bounds",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				env.SetMaxParallelism(1 << 16)
				FromElements(env, 1).Print()
				return env.Execute("")
			},
			want: "maxParallelism is out of bounds 0 < maxParallelism <= 32768. Found: 65536",
		},
		{
			name: "empty fromElements",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				FromElements[string](env).Print()
				return env.Execute("")
			},
			want: "fromElements needs at least one element as argument",
		},
		{
			name: "empty collection",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				FromCollection(env, []int{}).Print()
				return env.Execute("")
			},
			want: "Collection must not be empty",
		},
		{
			name: "blank resource name",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				env.ReadTextFile(" ").Print()
				return env.Execute("")
			},
			want: "The file path must not be null or blank.",
		},
		{
			name: "sequence backwards",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				env.GenerateSequence(10, 1).Print()
				return env.Execute("")
			},
			want: "Start of sequence must not be greater than the end",
		},
		{
			name: "nil map function",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				Map[int, int](FromElements(env, 1), nil).Print()
				return env.Execute("")
			},
			want: "Map (id 2): the Map function must not be nil",
		},
		{
			name: "key type without a hash code",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				type point struct{ X, Y int }
				KeyBy(FromElements(env, point{1, 2}), func(p point) point { return p }).Reduce(func(a, _ point) point { return a }).Print()
				return env.Execute("")
			},
			want: "cannot be used as key",
		},
		{
			name: "float key",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				prices := Map(FromElements(env, 1.5, 2.5), func(x float64) float64 { return x })
				KeyBy(prices, func(x float64) float64 { return x }).Sum(0).Print()
				return env.Execute("")
			},
			want: "Partition (id 3): KeyBy on the output of Map (id 2): This type (float64) cannot be used as key: it is a floating-point number",
		},
		{
			name: "sum of a string field",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				KeyBy(FromElements(env, Tuple2Of("a", 1)), word).Sum(0).Print()
				return env.Execute("")
			},
			want: "Keyed Aggregation (id 3): Cannot sum field F0",
		},
		{
			name: "setting on a partitioned stream",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				FromElements(env, 1).Rebalance().SetParallelism(2).Print()
				return env.Execute("")
			},
			want: "SetParallelism() on Partition (id 2): only operators have this setting",
		},
		{
			name: "forward between different parallelisms",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				FromElements(env, 1).Forward().Print().SetParallelism(2)
				return env.Execute("")
			},
			want: "Forward partitioning does not allow change of parallelism. Upstream operation: Source: Collection Source-1 parallelism: 1, downstream operation: Sink: Print to Std. Out-3 parallelism: 2",
		},
		{
			name: "duplicate uid",
			main: func(env *StreamExecutionEnvironment, _ []string) error {
				FromElements(env, 1).Uid("numbers").Print().Uid("numbers")
				return env.Execute("")
			},
			want: `Hash collision on user-specified ID "numbers"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := registerTestProgram(t, tt.main)
			_, err := PlanProgram(name, nil, 0)
			if err == nil {
				t.Fatal("PlanProgram succeeded, want an error")
			}
			if tt.want != "" && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error = %q, want it to wrap %q", err, tt.is)
			}
		})
	}
}

func TestUnknownProgramIsClassNotFound(t *testing.T) {
	_, err := PlanProgram("com.example.NoSuchJob", nil, 1)
	if !errors.Is(err, ErrClassNotFound) || err.Error() != "ClassNotFoundException: com.example.NoSuchJob" {
		t.Fatalf("error = %v, want ClassNotFoundException: com.example.NoSuchJob", err)
	}
	if _, err := LookupProgram("com.example.NoSuchJob"); !errors.Is(err, ErrClassNotFound) {
		t.Fatalf("LookupProgram error = %v, want ErrClassNotFound", err)
	}
}

func TestRegisterProgramTwicePanics(t *testing.T) {
	main := func(*StreamExecutionEnvironment, []string) error { return nil }
	name := registerTestProgram(t, main)
	defer func() {
		if recover() == nil {
			t.Fatal("second RegisterProgram did not panic")
		}
	}()
	RegisterProgram(name, main)
}

func TestRegisteredProgramsIsSorted(t *testing.T) {
	names := RegisteredPrograms()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("RegisteredPrograms() = %v, not sorted", names)
		}
	}
	if !strings.Contains(strings.Join(names, " "), wordCountProgram) {
		t.Fatalf("RegisteredPrograms() = %v, want it to list %s", names, wordCountProgram)
	}
}

// TestParallelismTooHighForMaxParallelism: as in Flink, the client builds
// the JobGraph of a program whose parallelism is higher than its max
// parallelism, and the Dispatcher would accept it; only the JobMaster,
// building the ExecutionGraph, refuses it (a failover.JobException).
func TestParallelismTooHighForMaxParallelism(t *testing.T) {
	env := NewStreamExecutionEnvironment().SetParallelism(4).SetMaxParallelism(2)
	FromElements(env, 1).Print()
	sg, err := env.GetStreamGraph("too wide")
	if err != nil {
		t.Fatal(err)
	}
	jg, err := CreateJobGraph(sg)
	if err != nil {
		t.Fatalf("CreateJobGraph error = %v, want the JobGraph: the client does not check the max parallelism", err)
	}
	for _, v := range jg.Vertices() {
		if v.Parallelism != 4 || v.MaxParallelism != 2 {
			t.Errorf("vertex %s: parallelism %d, max parallelism %d; want 4 and 2, as the program set them", v, v.Parallelism, v.MaxParallelism)
		}
	}
	if err := jg.Validate(); err != nil {
		t.Errorf("Validate() = %v, want nil: the Dispatcher accepts the job", err)
	}
}

func TestStreamGraphDefaults(t *testing.T) {
	env := NewStreamExecutionEnvironment().SetParallelism(3)
	FromElements(env, "unused")                                  // 1: read by nobody, so dropped
	source := env.GenerateSequence(1, 10).SlotSharingGroup("s")  // 2
	doubled := Map(source, func(i int64) int64 { return 2 * i }) // 3: inherits "s"
	doubled.Print().SetParallelism(1)                            // 4: REBALANCE, inherits "s"
	FromGenerator(env, func(i int64) int64 { return i }, Unbounded, 5).Print()

	sg, err := env.GetStreamGraph("")
	if err != nil {
		t.Fatal(err)
	}
	if sg.JobName != DefaultJobName || !sg.ChainingEnabled {
		t.Errorf("job name %q, chaining %v; want %q, true", sg.JobName, sg.ChainingEnabled, DefaultJobName)
	}
	if sg.StreamNode(1) != nil {
		t.Errorf("the unread source became node %v", sg.StreamNode(1))
	}
	if got := sg.SourceIDs(); len(got) != 2 || got[0] != 2 || got[1] != 5 {
		t.Errorf("source IDs = %v, want [2 5]", got)
	}
	for id, want := range map[int]string{2: "s", 3: "s", 4: "s", 5: "default", 6: "default"} {
		if got := sg.StreamNode(id).SlotSharingGroup; got != want {
			t.Errorf("node %v slot sharing group = %q, want %q", sg.StreamNode(id), got, want)
		}
	}
	sink := sg.StreamNode(4)
	if got := sink.InEdges[0].Partitioner.String(); got != "REBALANCE" {
		t.Errorf("edge into the sink = %s, want REBALANCE (parallelism 3 → 1)", got)
	}
	if sink.Parallelism != 1 || sink.MaxParallelism != 128 || sink.ChainingStrategy != Always {
		t.Errorf("sink: parallelism %d, max parallelism %d, strategy %v", sink.Parallelism, sink.MaxParallelism, sink.ChainingStrategy)
	}
	if src := sg.StreamNode(2); src.ChainingStrategy != Head || src.Operator.From != 1 || src.Operator.To != 10 {
		t.Errorf("sequence source: strategy %v, range %d..%d", src.ChainingStrategy, src.Operator.From, src.Operator.To)
	}
	if gen := sg.StreamNode(5).Operator; gen.Kind != GeneratorSource || gen.RecordsPerSecond != 5 || gen.Count != Unbounded || gen.Generate(7) != int64(7) {
		t.Errorf("generator source: %+v", gen)
	}
}

// fakeExecutor records what it was asked to run and answers with a fixed
// job result.
type fakeExecutor struct {
	graphs []*StreamGraph
	status api.JobStatus
}

func (e *fakeExecutor) Execute(_ context.Context, sg *StreamGraph) (JobClient, error) {
	e.graphs = append(e.graphs, sg)
	return fakeJobClient{status: e.status}, nil
}

type fakeJobClient struct{ status api.JobStatus }

func (c fakeJobClient) JobID() api.JobID { return api.JobID{} }

func (c fakeJobClient) GetJobExecutionResult(context.Context) (*api.JobResult, error) {
	return &api.JobResult{JobStatus: c.status, FailureCause: "boom"}, nil
}

func TestExecute(t *testing.T) {
	env := NewStreamExecutionEnvironment()
	FromElements(env, 1).Print()
	if err := env.Execute("no executor"); !errors.Is(err, ErrNoExecutor) {
		t.Fatalf("Execute without executor = %v, want ErrNoExecutor", err)
	}

	executor := &fakeExecutor{status: api.JobFinished}
	env.SetExecutor(executor)
	if err := env.Execute("first"); err != nil {
		t.Fatalf("Execute = %v", err)
	}
	if len(executor.graphs) != 1 || executor.graphs[0].JobName != "first" {
		t.Fatalf("executor got %v, want the graph of job first", executor.graphs)
	}
	// As in Flink, Execute cleared the transformations.
	if err := env.Execute("second"); !errors.Is(err, ErrNoOperators) {
		t.Fatalf("second Execute = %v, want ErrNoOperators", err)
	}

	// New operators get new IDs: they continue after 1 and 2.
	FromElements(env, 2).Print()
	executor.status = api.JobFailed
	err := env.Execute("third")
	if err == nil || !strings.Contains(err.Error(), "FAILED: boom") {
		t.Fatalf("Execute of a failing job = %v, want the failure", err)
	}
	if got := executor.graphs[1].SourceIDs(); len(got) != 1 || got[0] != 3 {
		t.Fatalf("source IDs of the third job = %v, want [3]", got)
	}
}

// TestPlanProgramAcceptsAWrappedAbort: a main that wraps Execute's error
// still plans fine.
func TestPlanProgramAcceptsAWrappedAbort(t *testing.T) {
	name := registerTestProgram(t, func(env *StreamExecutionEnvironment, args []string) error {
		FromCollection(env, args).Print()
		if err := env.Execute("wrapped"); err != nil {
			return errors.Join(errors.New("execute"), err)
		}
		return nil
	})
	sg, err := PlanProgram(name, []string{"a", "b"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sg.JobName != "wrapped" || sg.ProgramName != name || sg.ProgramParallelism != 0 || len(sg.ProgramArgs) != 2 {
		t.Fatalf("graph %q of program %q (%v, parallelism %d)", sg.JobName, sg.ProgramName, sg.ProgramArgs, sg.ProgramParallelism)
	}
}

func TestReadStreamConfigRejectsForeignConfigurations(t *testing.T) {
	good := (&StreamConfig{ProgramName: "p", ChainedNodeIDs: []int{1}}).Configuration()
	if _, err := ReadStreamConfig(good); err != nil {
		t.Fatalf("ReadStreamConfig(good) = %v", err)
	}
	for key, value := range map[string]string{
		ConfigChainedNodeIDs:     "[]",
		ConfigOutEdges:           "{",
		ConfigProgramParallelism: "four",
		ConfigProgramRuntimeMode: "bacth",
		ConfigProgramArgs:        `"a"`,
	} {
		bad := map[string]string{}
		for k, v := range good {
			bad[k] = v
		}
		bad[key] = value
		if _, err := ReadStreamConfig(bad); err == nil {
			t.Errorf("ReadStreamConfig with %s = %q succeeded", key, value)
		}
	}
	if _, err := ReadStreamConfig(map[string]string{"count": "3"}); err == nil {
		t.Error("ReadStreamConfig of a foreign configuration succeeded")
	}
}
