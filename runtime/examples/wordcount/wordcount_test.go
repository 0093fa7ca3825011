package wordcount_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/client"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
)

// TestTokenize: the tokenizer splits as Flink's does, with Java's
// line.toLowerCase().split("\\W+") minus the empty tokens.
func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"empty line", "", nil},
		{"only punctuation", " -- ... !? ", nil},
		{"Hamlet", "To be, or not to be,--that is the question:--", []string{"to", "be", "or", "not", "to", "be", "that", "is", "the", "question"}},
		{"upper case is folded", "HARBOUR Harbour harbour", []string{"harbour", "harbour", "harbour"}},
		{"leading and trailing separators", "  \"Look past the first ten.\"  ", []string{"look", "past", "the", "first", "ten"}},
		{"apostrophes split", "It's the baker's dozen", []string{"it", "s", "the", "baker", "s", "dozen"}},
		{"hyphens split", "a thank-you, long-awaited", []string{"a", "thank", "you", "long", "awaited"}},
		{"digits are word characters", "12 eggs and 3 loaves, 0x1F", []string{"12", "eggs", "and", "3", "loaves", "0x1f"}},
		{"version numbers split at the dot", "CC0 1.0", []string{"cc0", "1", "0"}},
		{"underscores are word characters", "tide_table _private_ __", []string{"tide_table", "_private_", "__"}},
		{"tabs and newlines separate", "one\ttwo\nthree\r\nfour", []string{"one", "two", "three", "four"}},
		{"letters outside ASCII separate, as in Java", "café naïve Ünïcode", []string{"caf", "na", "ve", "n", "code"}},
		{"lower-casing to ASCII happens before the split", "\u212Aelvin", []string{"kelvin"}}, // KELVIN SIGN → k, in Java too
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wordcount.Tokenize(tt.line)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Tokenize(%q) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// referenceWords splits text into words without regular expressions: an
// independent implementation of the same rule, to check Tokenize against
// on the whole text.
func referenceWords(text string) []string {
	isWordChar := func(r rune) bool {
		return r <= unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '_'
	}
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWordChar(r) })
}

// tokenizeText tokenizes the text line by line, as the job does.
func tokenizeText(text string) []string {
	var words []string
	for line := range strings.Lines(text) {
		words = append(words, wordcount.Tokenize(line)...)
	}
	return words
}

func TestTextIsAtLeast2000WordsAndPublicDomain(t *testing.T) {
	text := wordcount.Text()
	words := tokenizeText(text)
	if len(words) < 2000 {
		t.Errorf("the text has %d words, want at least 2,000", len(words))
	}
	if diff := cmp.Diff(referenceWords(text), words); diff != "" {
		t.Errorf("Tokenize disagrees with the reference splitter (-reference +Tokenize):\n%s", diff)
	}
	first, _, _ := strings.Cut(text, "\n")
	for _, want := range []string{"dedicated to the public domain", "CC0 1.0", "flinklab"} {
		if !strings.Contains(first, want) {
			t.Errorf("first line %q does not say %q", first, want)
		}
	}
}

// vertex is what the plan tests compare of a JobVertex.
type vertex struct {
	Name           string
	Invokable      string
	Parallelism    int
	ChainedNodeIDs []int
	ProgramName    string
	ProgramArgs    []string
}

func vertices(t *testing.T, jg *jobgraph.JobGraph) []vertex {
	t.Helper()
	var got []vertex
	for _, v := range jg.Vertices() {
		config, err := streaming.ReadStreamConfig(v.Configuration)
		if err != nil {
			t.Fatalf("vertex %s: %v", v.Name, err)
		}
		got = append(got, vertex{v.Name, v.InvokableClassName, v.Parallelism, config.ChainedNodeIDs, config.ProgramName, config.ProgramArgs})
	}
	return got
}

// TestPlan: at every parallelism the program plans into two chains joined
// by one HASH edge, as Flink's WordCount does.
func TestPlan(t *testing.T) {
	for _, output := range []string{wordcount.OutputPrint, wordcount.OutputCollect} {
		for _, parallelism := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/p=%d", output, parallelism), func(t *testing.T) {
				args := []string{"--output", output}
				sg, err := streaming.PlanProgram(wordcount.ProgramClass, args, parallelism)
				if err != nil {
					t.Fatalf("PlanProgram: %v", err)
				}

				// The stream nodes: the KeyBy (3) became the HASH edge.
				var nodes []string
				for _, n := range sg.StreamNodes() {
					nodes = append(nodes, n.String())
				}
				want := []string{"Source: file-input-1", "tokenizer-2", "counter-4", "Sink: " + output + "-sink-5"}
				if diff := cmp.Diff(want, nodes); diff != "" {
					t.Fatalf("stream nodes (-want +got):\n%s", diff)
				}
				if got := sg.StreamNode(1).Operator.ResourceName; got != wordcount.TextResource {
					t.Errorf("the source reads %q, want %q", got, wordcount.TextResource)
				}

				jg, err := sg.JobGraph()
				if err != nil {
					t.Fatalf("JobGraph: %v", err)
				}
				if err := jg.Validate(); err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if jg.Name != wordcount.JobName {
					t.Errorf("job name = %q, want %q", jg.Name, wordcount.JobName)
				}
				wantVertices := []vertex{
					{"Source: file-input -> tokenizer", streaming.SourceStreamTaskClass, parallelism, []int{1, 2}, wordcount.ProgramClass, args},
					{"counter -> Sink: " + output + "-sink", streaming.OneInputStreamTaskClass, parallelism, []int{4, 5}, wordcount.ProgramClass, args},
				}
				if diff := cmp.Diff(wantVertices, vertices(t, jg)); diff != "" {
					t.Fatalf("job vertices (-want +got):\n%s", diff)
				}
				source, counter := jg.Vertices()[0], jg.Vertices()[1]
				if len(counter.Inputs()) != 1 {
					t.Fatalf("the counter has %d inputs, want 1", len(counter.Inputs()))
				}
				edge := counter.Inputs()[0]
				if edge.Source.Producer != source || edge.DistributionPattern != jobgraph.AllToAll || edge.ShipStrategyName != "HASH" {
					t.Errorf("edge %v: %v %s, want from the source chain, ALL_TO_ALL, HASH", edge, edge.DistributionPattern, edge.ShipStrategyName)
				}
			})
		}
	}
}

// TestPlannedFunctionsCountTheText plays the tasks without a cluster: it
// takes the tokenizer, key selector, counter and collect sink from the
// planned graph, as a TaskExecutor finds them, pushes the text through
// them, and compares the final counts with a count of its own.
func TestPlannedFunctionsCountTheText(t *testing.T) {
	wordcount.Results.Clear()
	t.Cleanup(wordcount.Results.Clear)
	sg, err := streaming.PlanProgram(wordcount.ProgramClass, []string{"--output", "collect"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	tokenizer, counter, sink := sg.StreamNode(2).Operator, sg.StreamNode(4), sg.StreamNode(5).Operator
	if sink.UserFunction != &wordcount.Results {
		t.Fatalf("the collect sink writes to %p, want wordcount.Results at %p", sink.UserFunction, &wordcount.Results)
	}

	state := map[any]any{} // the counter's keyed state: word → running count
	for line := range strings.Lines(wordcount.Text()) {
		tokenizer.FlatMap(line, func(record any) {
			key := counter.KeySelector(record)
			if acc, ok := state[key]; ok {
				record = counter.Operator.Reduce(acc, record)
			}
			state[key] = record
			if err := sink.Invoke(record); err != nil {
				t.Fatal(err)
			}
		})
	}

	want := map[string]int{}
	for _, w := range referenceWords(wordcount.Text()) {
		want[w]++
	}
	records := wordcount.Results.Values()
	if diff := cmp.Diff(want, wordcount.FinalCounts(records)); diff != "" {
		t.Errorf("final counts (-want +got):\n%s", diff)
	}
	if got, want := len(records), len(referenceWords(wordcount.Text())); got != want {
		t.Errorf("the sink got %d running counts, want one per word: %d", got, want)
	}
}

// TestJarRoundTrip: the jar opens as a PackagedProgram naming the program
// and carrying the text, and is the same bytes every time.
func TestJarRoundTrip(t *testing.T) {
	jar, err := wordcount.Jar()
	if err != nil {
		t.Fatalf("Jar: %v", err)
	}
	program, err := client.ReadPackagedProgram(jar)
	if err != nil {
		t.Fatalf("ReadPackagedProgram: %v", err)
	}
	if got := program.ProgramClass(); got != wordcount.ProgramClass {
		t.Errorf("ProgramClass = %q, want %q", got, wordcount.ProgramClass)
	}
	if got, want := program.Resources(), []string{wordcount.TextResource}; !slices.Equal(got, want) {
		t.Errorf("Resources = %q, want %q", got, want)
	}
	text, err := program.Resource(wordcount.TextResource)
	if err != nil {
		t.Fatalf("Resource: %v", err)
	}
	if string(text) != wordcount.Text() {
		t.Errorf("the jar's text (%d bytes) differs from Text() (%d bytes)", len(text), len(wordcount.Text()))
	}
	again, err := wordcount.Jar()
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

// TestBadArguments: wrong arguments fail the job when it is planned, with
// a message that names the mistake.
func TestBadArguments(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--output", "file:///tmp/out"}, `--output "file:///tmp/out": want "print" or "collect"`},
		{[]string{"--parallelism", "2"}, "flag provided but not defined: -parallelism"},
		{[]string{"--output"}, "flag needs an argument: -output"},
		{[]string{"hamlet.txt"}, `unexpected argument "hamlet.txt"`},
		{[]string{"--execution-mode", "bacth"}, `--execution-mode "bacth": Could not parse value 'bacth' for key 'execution.runtime-mode'. ` +
			"Caused by: Could not parse value for enum class org.apache.flink.api.common.RuntimeExecutionMode. Expected one of: [[STREAMING, BATCH, AUTOMATIC]]"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := streaming.PlanProgram(wordcount.ProgramClass, tt.args, 1)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("PlanProgram(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestExecutionModeArgument: --execution-mode chooses the runtime mode, in
// any case, as Flink's example does. BATCH (and AUTOMATIC, as the text is
// bounded) keeps the two chains, makes the exchange between them BLOCKING
// and the counter emit only final counts.
func TestExecutionModeArgument(t *testing.T) {
	tests := []struct {
		args           []string
		wantMode       streaming.RuntimeExecutionMode
		wantCounter    streaming.OperatorKind
		wantResultType jobgraph.ResultPartitionType
	}{
		{nil, streaming.Streaming, streaming.ReduceOperator, jobgraph.PipelinedBounded},
		{[]string{"--execution-mode", "STREAMING"}, streaming.Streaming, streaming.ReduceOperator, jobgraph.PipelinedBounded},
		{[]string{"--execution-mode", "BATCH"}, streaming.Batch, streaming.BatchReduceOperator, jobgraph.Blocking},
		{[]string{"--execution-mode", "batch"}, streaming.Batch, streaming.BatchReduceOperator, jobgraph.Blocking},
		{[]string{"--execution-mode", "Automatic"}, streaming.Batch, streaming.BatchReduceOperator, jobgraph.Blocking},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			sg, err := streaming.PlanProgram(wordcount.ProgramClass, tt.args, 2)
			if err != nil {
				t.Fatalf("PlanProgram: %v", err)
			}
			if sg.RuntimeMode != tt.wantMode {
				t.Errorf("runtime mode %v, want %v", sg.RuntimeMode, tt.wantMode)
			}
			if got := sg.StreamNode(4).Operator.Kind; got != tt.wantCounter {
				t.Errorf("the counter runs a %v, want a %v", got, tt.wantCounter)
			}
			jg, err := sg.JobGraph()
			if err != nil {
				t.Fatalf("JobGraph: %v", err)
			}
			if jg.Name != wordcount.JobName {
				t.Errorf("job name %q, want %q", jg.Name, wordcount.JobName)
			}
			var names []string
			for _, v := range jg.Vertices() {
				names = append(names, v.Name)
			}
			if diff := cmp.Diff([]string{"Source: file-input -> tokenizer", "counter -> Sink: print-sink"}, names); diff != "" {
				t.Errorf("chains (-want +got):\n%s", diff)
			}
			if got := jg.Vertices()[1].Inputs()[0].Source.ResultType; got != tt.wantResultType {
				t.Errorf("the exchange is %v, want %v", got, tt.wantResultType)
			}
		})
	}
}

// TestInputArgument: --input picks another resource of the jar.
func TestInputArgument(t *testing.T) {
	sg, err := streaming.PlanProgram(wordcount.ProgramClass, []string{"--input", "wordcount/other.txt"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := sg.StreamNode(1).Operator.ResourceName; got != "wordcount/other.txt" {
		t.Errorf("the source reads %q, want wordcount/other.txt", got)
	}
}

func TestFinalCountsAndTop(t *testing.T) {
	running := []streaming.Tuple2[string, int]{
		{F0: "to", F1: 1}, {F0: "be", F1: 1}, {F0: "or", F1: 1}, {F0: "not", F1: 1}, {F0: "to", F1: 2}, {F0: "be", F1: 2},
	}
	counts := wordcount.FinalCounts(running)
	if diff := cmp.Diff(map[string]int{"to": 2, "be": 2, "or": 1, "not": 1}, counts); diff != "" {
		t.Errorf("FinalCounts (-want +got):\n%s", diff)
	}
	tests := []struct {
		n    int
		want []streaming.Tuple2[string, int]
	}{
		{0, []streaming.Tuple2[string, int]{}},
		{-1, []streaming.Tuple2[string, int]{}},
		{3, []streaming.Tuple2[string, int]{{F0: "be", F1: 2}, {F0: "to", F1: 2}, {F0: "not", F1: 1}}},
		{10, []streaming.Tuple2[string, int]{{F0: "be", F1: 2}, {F0: "to", F1: 2}, {F0: "not", F1: 1}, {F0: "or", F1: 1}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, wordcount.Top(counts, tt.n)); diff != "" {
			t.Errorf("Top(%d) (-want +got):\n%s", tt.n, diff)
		}
	}
}

// The ten most frequent words of the bundled text, counted in plain Go.
func ExampleTop() {
	counts := map[string]int{}
	for line := range strings.Lines(wordcount.Text()) {
		for _, w := range wordcount.Tokenize(line) {
			counts[w]++
		}
	}
	for _, c := range wordcount.Top(counts, 10) {
		fmt.Printf("%s: %d\n", c.F0, c.F1)
	}
	// Output:
	// the: 245
	// a: 104
	// and: 94
	// it: 57
	// of: 46
	// to: 44
	// that: 43
	// she: 39
	// ilse: 34
	// machines: 28
}
