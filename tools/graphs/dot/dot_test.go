package dot

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
	"flinklab/runtime/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/<name>.golden, or rewrites the file
// when the test runs with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tools/graphs/dot -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date (go test ./tools/graphs/dot -update); got:\n%s", path, got)
	}
}

// planWordCount plans WordCount at parallelism 2, as the client does.
func planWordCount(t *testing.T) (*streaming.StreamGraph, *jobgraph.JobGraph) {
	t.Helper()
	sg, err := streaming.PlanProgram(wordcount.ProgramClass, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	jg, err := streaming.CreateJobGraph(sg)
	if err != nil {
		t.Fatal(err)
	}
	return sg, jg
}

func TestStreamGraphWordCount(t *testing.T) {
	sg, _ := planWordCount(t)
	checkGolden(t, "wordcount_streamgraph.dot", StreamGraph(sg))
}

func TestJobGraphWordCount(t *testing.T) {
	sg, jg := planWordCount(t)
	notChained, err := streaming.NotChainedReasons(sg, jg)
	if err != nil {
		t.Fatal(err)
	}
	got := JobGraph(jg, notChained)
	checkGolden(t, "wordcount_jobgraph.dot", got)
	if !bytes.Contains(got, []byte(`label="ALL_TO_ALL\nHASH\nnot chained: HASH, not FORWARD"`)) {
		t.Errorf("the HASH edge does not say why it is not chained:\n%s", got)
	}

	// Planning again gives new random IDs but the same diagram.
	sg, again := planWordCount(t)
	notChained, err = streaming.NotChainedReasons(sg, again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(JobGraph(again, notChained), got) {
		t.Errorf("JobGraph differs between two plans of the same program")
	}

	// A JobGraph read from a cluster comes without its StreamGraph.
	if bytes.Contains(JobGraph(jg, nil), []byte("not chained")) {
		t.Errorf("a reason without a StreamGraph")
	}
}

// subtasks returns n subtasks, the first len(states) in the given states
// and the rest in state rest.
func subtasks(n int, rest api.ExecutionState, states ...api.ExecutionState) []gateway.ArchivedExecution {
	out := make([]gateway.ArchivedExecution, n)
	for i := range out {
		out[i] = gateway.ArchivedExecution{SubtaskIndex: i, State: rest}
		if i < len(states) {
			out[i].State = states[i]
		}
	}
	return out
}

func TestExecutionGraphSmall(t *testing.T) {
	// A source chained with a map, feeding a sink over a HASH edge; the
	// second source subtask failed once and runs its attempt #1. The job
	// name has a quote and a backslash to be escaped.
	source, sink := api.NewJobVertexID(), api.NewJobVertexID()
	sourceSubtasks := subtasks(2, api.ExecutionRunning)
	sourceSubtasks[1].AttemptNumber = 1
	// Subtasks out of order must be drawn in order.
	sourceSubtasks[0], sourceSubtasks[1] = sourceSubtasks[1], sourceSubtasks[0]
	g := &gateway.ArchivedExecutionGraph{
		JobName: `Word "Count" C:\jobs`,
		State:   api.JobRunning,
		Vertices: []gateway.ArchivedExecutionJobVertex{
			{ID: source, Name: "Source: in -> Map", Parallelism: 2, Subtasks: sourceSubtasks},
			{ID: sink, Name: "Sink: out", Parallelism: 2, Subtasks: subtasks(2, api.ExecutionDeploying, api.ExecutionScheduled)},
		},
	}
	edges := []Edge{
		{Source: source, Target: sink, DistributionPattern: jobgraph.AllToAll, ShipStrategy: "HASH"},
		{Source: source, Target: api.NewJobVertexID()}, // unknown vertex: left out
	}
	checkGolden(t, "small_executiongraph.dot", ExecutionGraph(g, Topology{Edges: edges}))
}

func TestExecutionGraphOverThreshold(t *testing.T) {
	// Two vertices of parallelism 1000 joined all-to-all, and a sink of
	// parallelism 1: the big ones become one node each.
	source, mapper, sink := api.NewJobVertexID(), api.NewJobVertexID(), api.NewJobVertexID()
	mapSubtasks := subtasks(1000, api.ExecutionRunning, api.ExecutionDeploying, api.ExecutionDeploying)
	mapSubtasks[999].AttemptNumber = 3
	g := &gateway.ArchivedExecutionGraph{
		JobName: "Big",
		State:   api.JobRunning,
		Vertices: []gateway.ArchivedExecutionJobVertex{
			{ID: source, Name: "Source: numbers", Parallelism: 1000, Subtasks: subtasks(1000, api.ExecutionRunning)},
			{ID: mapper, Name: "Map", Parallelism: 1000, Subtasks: mapSubtasks},
			{ID: sink, Name: "Sink: collect", Parallelism: 1, Subtasks: subtasks(1, api.ExecutionCreated)},
		},
	}
	edges := []Edge{
		{Source: source, Target: mapper, DistributionPattern: jobgraph.AllToAll, ShipStrategy: "REBALANCE"},
		{Source: mapper, Target: sink, DistributionPattern: jobgraph.AllToAll, ShipStrategy: "REBALANCE"},
	}
	got := ExecutionGraph(g, Topology{Edges: edges})
	checkGolden(t, "big_executiongraph.dot", got)

	if want := "Map: 1000 subtasks: 998 RUNNING, 2 DEPLOYING, attempts up to #3"; VertexSummary(g.Vertices[1]) != want {
		t.Errorf("VertexSummary = %q, want %q", VertexSummary(g.Vertices[1]), want)
	}
	if lines := bytes.Count(got, []byte("\n")); lines > 20 {
		t.Errorf("the diagram of 2001 subtasks has %d lines, want a summary of at most 20", lines)
	}
}

func TestExecutionGraphOfJobGraph(t *testing.T) {
	// EdgesOf carries the JobGraph's edges over to the vertices of the
	// ExecutionGraph, which share their IDs.
	_, jg := planWordCount(t)
	g := &gateway.ArchivedExecutionGraph{JobName: jg.Name}
	for _, v := range jg.Vertices() {
		g.Vertices = append(g.Vertices, gateway.ArchivedExecutionJobVertex{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, Subtasks: subtasks(v.Parallelism, api.ExecutionCreated)})
	}
	got := string(ExecutionGraph(g, Topology{Edges: EdgesOf(jg)}))
	if want := `v0_s0 -> v1_s0 [label="ALL_TO_ALL\nHASH", ltail=cluster_v0, lhead=cluster_v1];`; !strings.Contains(got, want) {
		t.Errorf("ExecutionGraph of WordCount lacks %s; got:\n%s", want, got)
	}

	// TopologyOf adds what building the ExecutionGraph decides: one
	// ConsumedPartitionGroup for the ALL_TO_ALL edge, and one pipelined
	// region for the whole streaming job.
	topology, err := TopologyOf(jg)
	if err != nil {
		t.Fatal(err)
	}
	got = string(ExecutionGraph(g, topology))
	for _, want := range []string{
		`v0_s0 -> v1_s0 [label="ALL_TO_ALL\nHASH\n1 ConsumedPartitionGroup", ltail=cluster_v0, lhead=cluster_v1];`,
		`v1_s1 [label="2/2 #0\nCREATED\nregion 1"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ExecutionGraph of WordCount with its topology lacks %s; got:\n%s", want, got)
		}
	}
}

func TestSequenceDiagram(t *testing.T) {
	// A WordCount submission at parallelism 2 as the runtime traces it,
	// written by hand: m9 and m11 happen once per subtask and collapse.
	rec := trace.NewRecorder()
	job := api.NewJobID()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	emit := func(step trace.Step, from, to, format string, args ...any) {
		n++
		rec.EmitAt(trace.At(start.Add(time.Duration(n)*time.Millisecond)), step, from, to, job, format, args...)
	}
	emit(trace.M1, "Client", "REST", "POST /jars/upload: wordcount.jar")
	emit(trace.M2, "Client", "REST", "POST /jars/%s/run: program %s built job '%s' (parallelism %s, args %q)", "abc_wordcount.jar", "wordcount", "WordCount", "2", []string{"--output", "collect"})
	emit(trace.M3, "REST", "Dispatcher", "submitJob 'WordCount'")
	emit(trace.M4, "JobManagerRunner", "JobMaster", "JobMaster created; leader <granted>")
	emit(trace.M5, "JobMaster", "ResourceManager", "registerJobMaster")
	emit(trace.M6, "JobMaster", "ResourceManager", "declareRequiredResources: 2 slots # default")
	emit(trace.M7, "SlotManager", "TaskExecutor", "requestSlot 100%%")
	emit(trace.M8, "TaskExecutor", "JobMaster", "offerSlots")
	emit(trace.M9, "JobMaster", "TaskExecutor", "submitTask Source: file-input -> tokenizer (1/2)")
	emit(trace.M9, "JobMaster", "TaskExecutor", "submitTask Source: file-input -> tokenizer (2/2)")
	emit(trace.M9, "JobMaster", "TaskExecutor", "submitTask counter -> Sink: print-sink (1/2)")
	emit(trace.M9, "JobMaster", "TaskExecutor", "submitTask counter -> Sink: print-sink (2/2)")
	emit(trace.M10, "TaskExecutor", "BlobServer", "GET jar")
	emit(trace.M11, "Task", "JobMaster", "updateTaskExecutionState RUNNING")
	emit(trace.M11, "Task", "JobMaster", "updateTaskExecutionState RUNNING")
	emit(trace.M11, "Task", "JobMaster", "updateTaskExecutionState RUNNING")
	emit(trace.M11, "Task", "JobMaster", "updateTaskExecutionState RUNNING")
	emit(trace.M11, "metrics;reporter", "Task", "an unknown participant")
	checkGolden(t, "wordcount_sequence.mmd", SequenceDiagram(rec.JobEvents(job)))
	checkGolden(t, "wordcount_sequence.dot", SequenceDOT(rec.JobEvents(job)))
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"Map", `"Map"`},
		{`say "hi"`, `"say \"hi\""`},
		{`C:\jobs\n`, `"C:\\jobs\\n"`},
		{"two\nlines", `"two\nlines"`},
		{"windows\r\nline", `"windows\nline"`},
		{"a -> b; c { d } <e>", `"a -> b; c { d } <e>"`},
		{"bad \xff byte", "\"bad \uFFFD byte\""},
		{`\"`, `"\\\""`},
	}
	for _, tt := range tests {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestMermaidText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"submitJob 'WordCount'", "submitJob 'WordCount'"},
		{"a; b", "a#59; b"},
		{"#1", "#35;1"},
		{"100%% done", "100#37;#37; done"},
		{"<br/> & co", "#lt;br/> #amp; co"},
		{"a -> b", "a -> b"},
		{"two\nlines", "two lines"},
		{`"quoted": yes`, `"quoted": yes`},
	}
	for _, tt := range tests {
		if got := mermaidText(tt.in); got != tt.want {
			t.Errorf("mermaidText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly 10", 10, "exactly 10"},
		{"one more than ten", 10, "one more…"},
		{"ünïcödé ünïcödé", 8, "ünïcödé…"},
		{"line\nbreaks   and  spaces", 40, "line breaks and spaces"},
	}
	for _, tt := range tests {
		if got := shorten(tt.in, tt.max); got != tt.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestSequenceDiagramCollapsesOnlyEqualNeighbours(t *testing.T) {
	// m9 to the TaskExecutor, then m10, then m9 again: two m9 arrows.
	e := func(step trace.Step, from, to string) trace.Event {
		return trace.Event{Step: step, From: from, To: to, Message: "x"}
	}
	got := string(SequenceDiagram([]trace.Event{
		e(trace.M9, "JobMaster", "TaskExecutor"), e(trace.M9, "JobMaster", "TaskExecutor"),
		e(trace.M10, "TaskExecutor", "BlobServer"),
		e(trace.M9, "JobMaster", "TaskExecutor"),
	}))
	want := "sequenceDiagram\n" +
		"    participant JobMaster\n    participant TaskExecutor\n    participant BlobServer\n" +
		"    JobMaster->>TaskExecutor: m9 ×2: x\n" +
		"    TaskExecutor->>BlobServer: m10: x\n" +
		"    JobMaster->>TaskExecutor: m9: x\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSequenceDiagramShowsWhereTheSubmissionBroke(t *testing.T) {
	// Two subtasks deployed; the jar of the second never arrives (m10), its
	// task reports FAILED (m11), and a restart deploys it again.
	e := func(step trace.Step, from, to, message string, failed bool) trace.Event {
		return trace.Event{Step: step, From: from, To: to, Message: message, Failed: failed}
	}
	events := []trace.Event{
		e(trace.M9, "JobMaster", "TaskExecutor", "submitTask", false),
		e(trace.M9, "JobMaster", "TaskExecutor", "submitTask", false),
		e(trace.M10, "TaskExecutor", "BlobServer", "Fetched", false),
		e(trace.M10, "TaskExecutor", "BlobServer", "Failed to fetch BLOB p-1", true),
		e(trace.M11, "Task", "JobMaster", "switched from DEPLOYING to FAILED", true),
		e(trace.M11, "Task", "JobMaster", "switched from DEPLOYING to FAILED", true),
		e(trace.M9, "JobMaster", "TaskExecutor", "submitTask", false),
	}
	got := string(SequenceDiagram(events))
	want := "sequenceDiagram\n" +
		"    participant JobMaster\n    participant TaskExecutor\n    participant BlobServer\n    participant Task\n" +
		"    JobMaster->>TaskExecutor: m9 ×2: submitTask\n" +
		"    TaskExecutor->>BlobServer: m10: Fetched\n" +
		"    TaskExecutor-xBlobServer: m10 ✗: Failed to fetch BLOB p-1\n" +
		"    Note over BlobServer: the submission broke here, at step m10\n" +
		"    Task-xJobMaster: m11 ✗ ×2: switched from DEPLOYING to FAILED\n" +
		"    JobMaster->>TaskExecutor: m9: submitTask\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	checkGolden(t, "broken_sequence.dot", SequenceDOT(events))
}
