package ticker_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
)

// TestPlan: at every parallelism the program plans into a source vertex
// and a counting vertex joined by one HASH edge; by default the source is
// unbounded and limited to DefaultRecordsPerSecond.
func TestPlan(t *testing.T) {
	for _, output := range []string{ticker.OutputPrint, ticker.OutputCollect, ticker.OutputFile} {
		for _, parallelism := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/p=%d", output, parallelism), func(t *testing.T) {
				args := []string{"--output", output}
				if output == ticker.OutputFile {
					args = append(args, "--path", "/data/ticker")
				}
				sg, err := streaming.PlanProgram(ticker.ProgramClass, args, parallelism)
				if err != nil {
					t.Fatalf("PlanProgram: %v", err)
				}
				var nodes []string
				for _, n := range sg.StreamNodes() {
					nodes = append(nodes, n.String())
				}
				want := []string{"Source: sensor-events-1", "running-count-3", "Sink: " + output + "-sink-4"}
				if diff := cmp.Diff(want, nodes); diff != "" {
					t.Fatalf("stream nodes (-want +got):\n%s", diff)
				}
				source := sg.StreamNode(1).Operator
				if source.Kind != streaming.GeneratorSource || source.Count != streaming.Unbounded || source.RecordsPerSecond != ticker.DefaultRecordsPerSecond {
					t.Errorf("source = %v, count %d, %v/s; want an unbounded generator at %v/s",
						source.Kind, source.Count, source.RecordsPerSecond, float64(ticker.DefaultRecordsPerSecond))
				}

				jg, err := sg.JobGraph()
				if err != nil {
					t.Fatalf("JobGraph: %v", err)
				}
				if err := jg.Validate(); err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if jg.Name != ticker.JobName {
					t.Errorf("job name = %q, want %q", jg.Name, ticker.JobName)
				}
				type vertex struct {
					Name           string
					Invokable      string
					Parallelism    int
					ChainedNodeIDs []int
				}
				var got []vertex
				for _, v := range jg.Vertices() {
					config, err := streaming.ReadStreamConfig(v.Configuration)
					if err != nil {
						t.Fatalf("vertex %s: %v", v.Name, err)
					}
					if config.ProgramName != ticker.ProgramClass {
						t.Errorf("vertex %s runs program %q, want %q", v.Name, config.ProgramName, ticker.ProgramClass)
					}
					got = append(got, vertex{v.Name, v.InvokableClassName, v.Parallelism, config.ChainedNodeIDs})
				}
				wantVertices := []vertex{
					{"Source: sensor-events", streaming.SourceStreamTaskClass, parallelism, []int{1}},
					{"running-count -> Sink: " + output + "-sink", streaming.OneInputStreamTaskClass, parallelism, []int{3, 4}},
				}
				if diff := cmp.Diff(wantVertices, got); diff != "" {
					t.Fatalf("job vertices (-want +got):\n%s", diff)
				}
				edge := jg.Vertices()[1].Inputs()[0]
				if edge.Source.Producer != jg.Vertices()[0] || edge.DistributionPattern != jobgraph.AllToAll || edge.ShipStrategyName != "HASH" {
					t.Errorf("edge %v: %v %s, want from the source, ALL_TO_ALL, HASH", edge, edge.DistributionPattern, edge.ShipStrategyName)
				}
			})
		}
	}
}

// TestArguments: --rate and --count reach the source; wrong arguments fail
// the job when it is planned.
func TestArguments(t *testing.T) {
	sg, err := streaming.PlanProgram(ticker.ProgramClass, []string{"--rate", "0", "--count", "50"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if source := sg.StreamNode(1).Operator; source.Count != 50 || source.RecordsPerSecond != 0 {
		t.Errorf("source count %d at %v/s, want 50 as fast as possible", source.Count, source.RecordsPerSecond)
	}

	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "-1"}, "--rate -1: want 0 or more events per second"},
		{[]string{"--rate", "fast"}, `invalid value "fast" for flag -rate`},
		{[]string{"--count", "0"}, `want a positive number of events, got "0"`},
		{[]string{"--output", "kafka"}, `--output "kafka": want "print", "collect" or "file"`},
		{[]string{"--output", "file"}, "--output file needs --path <dir>"},
		{[]string{"--path", "/tmp/out"}, "--path is for --output file only"},
		{[]string{"--sensors", "3"}, "flag provided but not defined: -sensors"},
		{[]string{"now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := streaming.PlanProgram(ticker.ProgramClass, tt.args, 1)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("PlanProgram(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestTheFileOutputIsTheTransactionalSink: --output file writes through
// the transactional file sink, into --path.
func TestTheFileOutputIsTheTransactionalSink(t *testing.T) {
	sg, err := streaming.PlanProgram(ticker.ProgramClass, []string{"--output", "file", "--path", "/data/ticker"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	sink := sg.StreamNode(4).Operator
	if sink.Kind != streaming.TransactionalFileSink || sink.Path != "/data/ticker" {
		t.Errorf("sink = %v into %q, want a %v into /data/ticker", sink.Kind, sink.Path, streaming.TransactionalFileSink)
	}
}

// TestPlannedFunctionsCountPerSensor plays the tasks without a cluster:
// twelve events from the planned generator go through the planned key
// selector, reduce and collect sink, and each sensor's count runs on.
func TestPlannedFunctionsCountPerSensor(t *testing.T) {
	ticker.Results.Clear()
	t.Cleanup(ticker.Results.Clear)
	sg, err := streaming.PlanProgram(ticker.ProgramClass, []string{"--output", "collect", "--count", "12"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	source, counter, sink := sg.StreamNode(1).Operator, sg.StreamNode(3), sg.StreamNode(4).Operator
	if sink.UserFunction != &ticker.Results {
		t.Fatalf("the collect sink writes to %p, want ticker.Results at %p", sink.UserFunction, &ticker.Results)
	}
	state := map[any]any{}
	for i := range source.Count {
		record := source.Generate(i)
		key := counter.KeySelector(record)
		if acc, ok := state[key]; ok {
			record = counter.Operator.Reduce(acc, record)
		}
		state[key] = record
		if err := sink.Invoke(record); err != nil {
			t.Fatal(err)
		}
	}

	var got []string
	for _, r := range ticker.Results.Values() {
		got = append(got, r.String())
	}
	want := []string{
		"(sensor-1,1)", "(sensor-2,1)", "(sensor-3,1)", "(sensor-4,1)", "(sensor-5,1)",
		"(sensor-1,2)", "(sensor-2,2)", "(sensor-3,2)", "(sensor-4,2)", "(sensor-5,2)",
		"(sensor-1,3)", "(sensor-2,3)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("running counts (-want +got):\n%s", diff)
	}
}

// TestJarRoundTrip: the jar opens as a PackagedProgram naming the program,
// and is the same bytes every time.
func TestJarRoundTrip(t *testing.T) {
	jar, err := ticker.Jar()
	if err != nil {
		t.Fatalf("Jar: %v", err)
	}
	program, err := client.ReadPackagedProgram(jar)
	if err != nil {
		t.Fatalf("ReadPackagedProgram: %v", err)
	}
	if got := program.ProgramClass(); got != ticker.ProgramClass {
		t.Errorf("ProgramClass = %q, want %q", got, ticker.ProgramClass)
	}
	if got := program.Resources(); len(got) != 0 {
		t.Errorf("Resources = %q, want none", got)
	}
	again, err := ticker.Jar()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(jar, again) {
		t.Error("two calls of Jar gave different bytes; the BLOB key would change")
	}
	if _, err := streaming.LookupProgram(program.ProgramClass()); err != nil {
		t.Errorf("the jar's program is not registered: %v", err)
	}
}
