// Package diagrams is the part of the tools/graphs command that does not
// need Graphviz: it plans a program into its StreamGraph and JobGraph, draws
// them as DOT (package dot), runs a job on a MiniCluster to draw its
// submission sequence as Mermaid, plans where a job's subtasks run or asks
// a running cluster (PlanSlots, RunningSlots; package slots), works out a
// job's pipelined regions and what region failover restarts (PlanRegions;
// package regions), runs a job on the AdaptiveScheduler to draw the states
// it went through (RunAdaptive; package states), runs a job with
// checkpoints, or asks a running cluster, to draw one checkpoint
// (RunCheckpoint, DrawCheckpoint; package checkpoints), and produces
// the committed contents of the repository's diagrams/ directory
// (Generate). Turning DOT into SVG is
// left to the command and package svg, so this package and its test never
// load go-graphviz (see ../shared/notes/tooling.md §1-2).
//
// Everything it writes is deterministic: the DOT files name nodes by
// position, and the sequence is made stable by Canonical, which strips the
// random IDs and timestamps out of the trace and puts the events in step
// order; a checkpoint likewise by CheckpointRun.Canonical.
package diagrams

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"flinklab/runtime/client"
	"flinklab/runtime/configuration"
	"flinklab/runtime/examples/shapes"
	"flinklab/runtime/examples/sharing"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	"flinklab/runtime/streaming/tasks" // also the streaming runtime, on the TaskExecutors' "class path"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/dot"
	"flinklab/tools/graphs/slots"

	_ "flinklab/runtime/examples/ticker" // registers the ticker program
)

// Plan is a program planned for drawing: its graphs and the jar the
// MiniCluster runs it from.
type Plan struct {
	// Name prefixes the output files: the registered program's name, or
	// the jar's file name without ".jar".
	Name        string
	StreamGraph *streaming.StreamGraph
	JobGraph    *jobgraph.JobGraph
	// NotChained says why each JobEdge is one (streaming.NotChainedReasons).
	NotChained map[*jobgraph.JobEdge]string
	// Topology is the ExecutionGraph's partition groups and regions.
	Topology dot.Topology
	Jar      []byte
}

// PlanProgram plans program, which is the name of a registered example
// program or the path of a job jar (whose Program-Class is planned), with
// args and parallelism (0: the program's own choice), as the client would
// before submitting it.
func PlanProgram(program string, args []string, parallelism int) (*Plan, error) {
	name, class, jar, err := resolve(program)
	if err != nil {
		return nil, err
	}
	sg, err := streaming.PlanProgram(class, args, parallelism)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", program, err)
	}
	jg, err := sg.JobGraph()
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", program, err)
	}
	notChained, err := streaming.NotChainedReasons(sg, jg)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", program, err)
	}
	topology, err := dot.TopologyOf(jg)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", program, err)
	}
	return &Plan{Name: name, StreamGraph: sg, JobGraph: jg, NotChained: notChained, Topology: topology, Jar: jar}, nil
}

// resolve turns the PROGRAM|JAR argument into an output name, a program
// class and the bytes of a jar that names it.
func resolve(program string) (name, class string, jar []byte, err error) {
	if strings.HasSuffix(program, ".jar") {
		pp, err := client.OpenPackagedProgram(program)
		if err != nil {
			return "", "", nil, err
		}
		jar, err := os.ReadFile(program)
		if err != nil {
			return "", "", nil, err
		}
		return strings.TrimSuffix(filepath.Base(program), ".jar"), pp.ProgramClass(), jar, nil
	}
	if program == wordcount.ProgramClass {
		jar, err := wordcount.Jar()
		return program, program, jar, err
	}
	// Other registered programs need no resources: a jar with just the
	// manifest naming them.
	var b bytes.Buffer
	if err := client.WriteJar(&b, program, nil); err != nil {
		return "", "", nil, err
	}
	return program, program, b.Bytes(), nil
}

// DOT returns the StreamGraph and the JobGraph as DOT, keyed by file name:
// <name>-streamgraph.dot and <name>-jobgraph.dot.
func (p *Plan) DOT() map[string][]byte {
	return map[string][]byte{
		p.Name + "-streamgraph.dot": dot.StreamGraph(p.StreamGraph),
		p.Name + "-jobgraph.dot":    dot.JobGraph(p.JobGraph, p.NotChained),
	}
}

// Run is what a run of a planned job on a MiniCluster leaves to draw: its
// trace and its ExecutionGraph once it ended.
type Run struct {
	// Events is the job's trace, made stable by Canonical.
	Events []trace.Event
	// ExecutionGraph is the archived ExecutionGraph after the job reached
	// its terminal state: every subtask FINISHED for a bounded job,
	// CANCELED for an unbounded one.
	ExecutionGraph *gateway.ArchivedExecutionGraph
}

// Run runs the planned job on a fresh MiniCluster with one TaskManager and
// as many slots as the job's highest parallelism, waits until every subtask
// is RUNNING (step m11), then lets the job finish; one still running after a
// few seconds (an unbounded source such as ticker's) is cancelled. Print
// sinks write to the TaskManager's standard output, which is discarded here
// (in Flink it is the TaskManager's .out file, not the client's terminal).
// The trace is made stable by Canonical.
//
// The MiniCluster is driven directly, not over REST, so the trace begins at
// m3 (Dispatcher.submitJob); the jar goes to the BlobServer with
// MiniCluster.UploadJar, the BlobServer half of m1, which is not traced.
func (p *Plan) Run(ctx context.Context) (*Run, error) { return p.run(ctx, nil) }

// RunWithFault is Run with f injected once, on a cluster that can recover
// from it as `make run INJECT=…` does: two TaskManagers, a fixed-delay
// restart strategy, short heartbeat and RPC timeouts. The trace is left in
// the order things happened, so that the diagram shows where the
// submission broke and what the cluster did next. Steps m1 and m2 break in
// the REST endpoint, which Run does not use.
func (p *Plan) RunWithFault(ctx context.Context, f fault.Fault) (*Run, error) {
	if f.Step == trace.M1 || f.Step == trace.M2 {
		return nil, fmt.Errorf("fault %s: steps m1 and m2 break in the REST endpoint; use `make run INJECT=%s`", f, f.Step)
	}
	return p.run(ctx, &f)
}

func (p *Plan) run(ctx context.Context, injected *fault.Fault) (*Run, error) {
	slots, _ := p.JobGraph.SlotsNeeded()
	subtasks := 0
	for _, v := range p.JobGraph.Vertices() {
		subtasks += v.Parallelism
	}
	cfg := minicluster.Config{
		NumTaskManagers:        1,
		NumSlotsPerTaskManager: slots,
		Logger:                 slog.New(slog.DiscardHandler), // the trace is what we draw
	}
	if injected != nil {
		cfg.NumTaskManagers = 2 // a spare, should one die (m9)
		cfg.RPCTimeout = time.Second
		cfg.Heartbeat = heartbeat.HeartbeatServices{Interval: 100 * time.Millisecond, Timeout: 500 * time.Millisecond}
		cfg.StartUpPeriod = 500 * time.Millisecond
		cfg.RestartStrategy = failover.Config{Type: failover.TypeFixedDelay,
			FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: 100 * time.Millisecond}}
	}
	cluster, err := minicluster.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := cluster.Start(); err != nil {
		return nil, err
	}
	defer cluster.Close()
	defer tasks.SetStdout(io.Discard)()

	if err := cluster.UploadJar(p.JobGraph, p.Jar); err != nil {
		return nil, err
	}
	if injected != nil {
		if err := cluster.Faults().Inject(*injected); err != nil {
			return nil, err
		}
	}
	jobID := p.JobGraph.JobID
	if _, err := cluster.SubmitJob(ctx, p.JobGraph); err != nil {
		if injected == nil {
			return nil, err
		}
		return &Run{Events: cluster.Trace().JobEvents(jobID)}, nil // refused at m3: the trace is all there is
	}
	if injected == nil {
		allRunning := func(events []trace.Event) bool { return trace.Count(events, trace.M11) >= subtasks }
		if err := cluster.Trace().Await(ctx, jobID, allRunning); err != nil {
			return nil, fmt.Errorf("job %s: waiting for its %d subtasks to run: %w", jobID, subtasks, err)
		}
	}
	events := cluster.Trace().JobEvents(jobID)

	waitCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cluster.RequestJobResult(waitCtx, jobID); err != nil {
		if err := cluster.CancelJob(ctx, jobID); err != nil {
			return nil, fmt.Errorf("cancel job %s: %w", jobID, err)
		}
		if _, err := cluster.RequestJobResult(ctx, jobID); err != nil {
			return nil, err
		}
	}
	graph, err := cluster.Dispatcher().RequestJob(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if injected != nil {
		return &Run{Events: cluster.Trace().JobEvents(jobID), ExecutionGraph: graph}, nil
	}
	return &Run{Events: Canonical(events), ExecutionGraph: graph}, nil
}

// ExecutionGraphFile names the file of ExecutionGraphDOT.
func (p *Plan) ExecutionGraphFile() string { return p.Name + "-executiongraph.dot" }

// SequenceFile names the file of SequenceMermaid.
func (p *Plan) SequenceFile() string { return p.Name + "-sequence.mmd" }

// SequenceDOTFile names the file of SequenceDOT.
func (p *Plan) SequenceDOTFile() string { return p.Name + "-sequence.dot" }

// ExecutionGraphDOT draws the run's ExecutionGraph, with the edges, partition
// groups and regions of the planned JobGraph; nil for a job the Dispatcher
// refused, which never had one.
func (p *Plan) ExecutionGraphDOT(run *Run) []byte {
	if run.ExecutionGraph == nil {
		return nil
	}
	return dot.ExecutionGraph(run.ExecutionGraph, p.Topology)
}

// SequenceMermaid draws the run's submission sequence as Mermaid.
func (p *Plan) SequenceMermaid(run *Run) []byte { return dot.SequenceDiagram(run.Events) }

// SequenceDOT draws the run's submission sequence as DOT, for SVG.
func (p *Plan) SequenceDOT(run *Run) []byte { return dot.SequenceDOT(run.Events) }

// The parts of trace messages that change from run to run.
var (
	clockTime = regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}(\.\d+)?\b`)
	uuid      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// An ExecutionAttemptID (graph_vertex_subtask_attempt) or any other
	// run of 16 or more hex digits: JobIDs, AllocationIDs, leader IDs,
	// BLOB keys.
	attemptID = regexp.MustCompile(`[0-9a-f]{32}_[0-9a-f]{32}_\d+_\d+`)
	hexID     = regexp.MustCompile(`[0-9a-f]{16,}`)
)

// Canonical returns events in a form that is the same from run to run:
// each message with its IDs and clock times replaced by <id> and <time>,
// and the events ordered by step (m1 … m11) and, within a step, by
// message, with the m8 slot offers of each TaskExecutor folded into one
// (mergeSlotOffers). The order inside a step is the one thing that varies with
// scheduling (two subtasks fetching the jar or reporting RUNNING in either
// order); the order of the steps is the submission's own, with one
// exception made visible by this sort: m10 and m11 of different subtasks
// interleave in a real run, and the diagram shows all m10 before all m11.
func Canonical(events []trace.Event) []trace.Event {
	out := make([]trace.Event, len(events))
	for i, e := range events {
		e.Message = Sanitize(e.Message)
		e.Time = time.Time{}
		out[i] = e
	}
	slices.SortStableFunc(out, func(a, b trace.Event) int {
		if c := stepNumber(a.Step) - stepNumber(b.Step); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return mergeSlotOffers(out)
}

// offerSlots is the message of step m8 (JobMaster.OfferSlots).
var offerSlots = regexp.MustCompile(`^offerSlots from (\S+): (\d+) offered, (\d+) accepted$`)

// mergeSlotOffers folds the m8 offers of each TaskExecutor into one event
// without counts: "offerSlots from taskexecutor-0". Whether a TaskExecutor
// offers its slots in one call or one by one, and whether it offers an
// accepted slot again, depends on when its slot requests (m7) arrive
// relative to its connection to the JobMaster, so neither the number of
// calls nor the counts in them are the same every run (the number of slots
// is on the m7 arrow).
func mergeSlotOffers(events []trace.Event) []trace.Event {
	seen := make(map[string]bool)
	out := events[:0]
	for _, e := range events {
		m := offerSlots.FindStringSubmatch(e.Message)
		if e.Step != trace.M8 || m == nil {
			out = append(out, e)
			continue
		}
		if !seen[m[1]] {
			seen[m[1]] = true
			e.Message = "offerSlots from " + m[1]
			out = append(out, e)
		}
	}
	return out
}

// Sanitize replaces the run-dependent parts of a trace message: clock
// times, UUIDs (uploaded jar names), ExecutionAttemptIDs and other hex IDs.
func Sanitize(message string) string {
	message = clockTime.ReplaceAllString(message, "<time>")
	message = uuid.ReplaceAllString(message, "<id>")
	message = attemptID.ReplaceAllString(message, "<attempt>")
	return hexID.ReplaceAllString(message, "<id>")
}

// stepNumber is 3 for "m3"; a step of another form sorts last.
func stepNumber(s trace.Step) int {
	n, err := strconv.Atoi(strings.TrimPrefix(string(s), "m"))
	if err != nil {
		return 1 << 30
	}
	return n
}

// The committed diagrams: WordCount at parallelism 2, with its submission
// sequence, and the graphs of the two programs of runtime/examples/shapes.
const (
	Program     = wordcount.ProgramClass
	Parallelism = 2
	// FixCommand regenerates the diagrams/ directory.
	FixCommand = "make diagrams"
)

// sequenceArgs make the sequence run collect its results rather than print
// every running count; the graphs are drawn with the program's defaults.
var sequenceArgs = []string{"--output", wordcount.OutputCollect}

// shapePrograms are drawn next to WordCount: the program's StreamGraph and
// JobGraph, and the ExecutionGraph of a run (which collects its results).
var shapePrograms = []struct {
	class, title string
	parallelism  int // 0: the program's own
}{
	{shapes.ChainsProgramClass, shapes.ChainsJobName, Parallelism},
	{shapes.FanOutProgramClass, shapes.FanOutJobName, 0},
}

// slotViews are the committed slot views (-slots): a program at a
// parallelism, planned on a cluster, with what the README says of it.
var slotViews = []struct {
	class        string
	parallelism  int
	taskManagers int
	slots        int
	about        string
}{
	{wordcount.ProgramClass, Parallelism, 1, 2,
		"Both of WordCount's JobVertices are in the slot sharing group `default`, so each of the " +
			"2 shared slots holds subtask i of both; they ask for any slot (UNKNOWN), and the " +
			"ResourceManager cuts two slots of the default profile, half of the TaskManager each, " +
			"leaving nothing free."},
	{sharing.ProgramClass, Parallelism, 2, 2,
		"The program `sharing` (runtime/examples/sharing) puts count and format in a slot sharing " +
			"group `counting` with resources of its own and co-locates them; its slots are cut " +
			"first, out of tm-1, and the two default slots take what is left, one on tm-1 and one on " +
			"tm-2, since each TaskManager is filled before the next. On one TaskManager × 2 slots the " +
			"second default slot would wait; `-explain` prints why."},
}

// slotCommand is the command line that draws a slot view.
func slotCommand(class string, parallelism, taskManagers, numSlots int) string {
	cmd := fmt.Sprintf("go run ./tools/graphs -slots -p %d", parallelism)
	if taskManagers != 1 {
		cmd += fmt.Sprintf(" -taskmanagers %d", taskManagers)
	}
	return cmd + fmt.Sprintf(" -D %s=%d %s", configuration.NumTaskSlots.Key(), numSlots, class)
}

// Generate returns the committed sources of diagrams/, keyed by file name:
// WordCount's StreamGraph, JobGraph and ExecutionGraph (after a run) as DOT,
// its submission sequence as Mermaid, the three graphs of each of
// shapePrograms, the slot view of each of slotViews, the regions view of
// each of regionViews, the AdaptiveScheduler's states with the path of a
// real run (RunAdaptive) as DOT and Mermaid, a checkpoint of the ticker
// (RunCheckpoint, in step order: generateCheckpoint) on its
// ExecutionGraph as DOT and as a sequence in DOT and Mermaid, and
// README.md, which embeds the sequences and the states in mermaid blocks. The SVGs rendered from the DOT files are not part of it: they need
// go-graphviz, which only the command loads.
func Generate(ctx context.Context) (map[string][]byte, error) {
	plan, err := PlanProgram(Program, nil, Parallelism)
	if err != nil {
		return nil, err
	}
	files := plan.DOT()

	run, err := PlanProgram(Program, sequenceArgs, Parallelism)
	if err != nil {
		return nil, err
	}
	wordcount.Results.Clear()
	ran, err := run.Run(ctx)
	wordcount.Results.Clear()
	if err != nil {
		return nil, err
	}
	sequence := run.SequenceMermaid(ran)
	files[plan.SequenceFile()] = sequence
	files[plan.SequenceDOTFile()] = run.SequenceDOT(ran)
	files[plan.ExecutionGraphFile()] = run.ExecutionGraphDOT(ran)

	type shape struct{ Name, Title string }
	var drawn []shape
	for _, program := range shapePrograms {
		shapePlan, err := PlanProgram(program.class, nil, program.parallelism)
		if err != nil {
			return nil, err
		}
		maps.Copy(files, shapePlan.DOT())
		shapeRun, err := PlanProgram(program.class, []string{"--output", shapes.OutputCollect}, program.parallelism)
		if err != nil {
			return nil, err
		}
		shapes.Results.Clear()
		ran, err := shapeRun.Run(ctx)
		shapes.Results.Clear()
		if err != nil {
			return nil, err
		}
		files[shapePlan.ExecutionGraphFile()] = shapeRun.ExecutionGraphDOT(ran)
		drawn = append(drawn, shape{shapePlan.Name, program.title})
	}

	type slotView struct{ Name, Title, About, Command string }
	var slotDrawn []slotView
	for _, view := range slotViews {
		cluster := slots.Cluster{TaskManagers: view.taskManagers,
			Configuration: map[string]string{configuration.NumTaskSlots.Key(): strconv.Itoa(view.slots)}}
		name, slotPlan, err := PlanSlots(view.class, nil, view.parallelism, cluster)
		if err != nil {
			return nil, err
		}
		files[SlotsFile(name)] = dot.SlotPlan(slotPlan)
		slotDrawn = append(slotDrawn, slotView{
			Name:    name,
			Title:   fmt.Sprintf("%s on %s", slotPlan.JobName, slots.Describe(view.taskManagers, view.slots)),
			About:   view.about,
			Command: slotCommand(view.class, view.parallelism, view.taskManagers, view.slots),
		})
	}

	regionsDrawn, err := generateRegions(files)
	if err != nil {
		return nil, err
	}

	adaptiveRun, err := RunAdaptive(ctx)
	if err != nil {
		return nil, err
	}
	adaptiveFiles := adaptiveRun.Files()
	maps.Copy(files, adaptiveFiles)

	checkpointDrawn, err := generateCheckpoint(ctx, files)
	if err != nil {
		return nil, err
	}

	var readme bytes.Buffer
	err = readmeTemplate.Execute(&readme, map[string]any{
		"Name": plan.Name, "Parallelism": Parallelism, "Fix": FixCommand,
		"Sequence": strings.TrimRight(string(sequence), "\n"),
		"Shapes":   drawn,
		"Slots":    slotDrawn,
		"Regions":  regionsDrawn,
		"Adaptive": map[string]any{
			"File": AdaptiveFile, "Program": AdaptiveProgram, "Parallelism": AdaptiveParallelism, "Slots": AdaptiveSlots,
			"Stabilization": AdaptiveSettings().ResourceStabilizationTimeout, "ScalingInterval": AdaptiveSettings().ScalingIntervalMin,
			"Mermaid": strings.TrimRight(string(adaptiveFiles[AdaptiveFile+".mmd"]), "\n"),
		},
		"Checkpoint": checkpointDrawn,
	})
	if err != nil {
		return nil, err
	}
	files["README.md"] = readme.Bytes()
	return files, nil
}

var readmeTemplate = template.Must(template.New("README.md").Parse(`# Diagrams

<!-- Generated by ` + "`{{.Fix}}`" + ` (tools/graphs); do not edit. -->

WordCount (runtime/examples/wordcount) at parallelism {{.Parallelism}}, drawn by
` + "`go run ./tools/graphs`" + `. The DOT sources are the truth; the SVGs are rendered
from them with go-graphviz. A test (tools/graphs/diagrams) fails when a source
here is out of date; ` + "`{{.Fix}}`" + ` regenerates them.

## StreamGraph

The program as written: one node per operator, the partitioner on each edge.

![StreamGraph]({{.Name}}-streamgraph.svg) ([DOT]({{.Name}}-streamgraph.dot))

## JobGraph

What the client submits (step m3): chained vertices, slot sharing groups,
ship strategy and distribution pattern on each edge.

![JobGraph]({{.Name}}-jobgraph.svg) ([DOT]({{.Name}}-jobgraph.dot))

## ExecutionGraph

What the JobMaster builds from the JobGraph (step m4) and schedules: one
subtask per vertex and parallel instance, each with its attempt number, its
state (here after the run below finished) and its pipelined region; each
edge with the number of ConsumedPartitionGroups it became.

![ExecutionGraph]({{.Name}}-executiongraph.svg) ([DOT]({{.Name}}-executiongraph.dot))

## Submission sequence

A real run on a MiniCluster (1 TaskManager × {{.Parallelism}} slots), from its
trace. The job is submitted to the Dispatcher directly, so the sequence
starts at m3, not at the REST upload (m1, m2). To keep the diagram the same
from run to run, IDs and times are replaced by ` + "`<id>`, `<attempt>` and `<time>`" + `,
and events are ordered by step: in the real run the m10 and m11 of different
subtasks interleave, and a TaskExecutor's slot offers (m8) are drawn as one
arrow without counts.
Source: [{{.Name}}-sequence.mmd]({{.Name}}-sequence.mmd); the same drawn by
Graphviz: [{{.Name}}-sequence.svg]({{.Name}}-sequence.svg) ([DOT]({{.Name}}-sequence.dot)).
When a step breaks, its arrow ends in a cross and the diagram notes where
the submission broke: ` + "`go run ./tools/graphs -inject m11 wordcount`" + ` draws a
run with step m11 broken once, in the order things happened, restart
included.

` + "```mermaid" + `
{{.Sequence}}
` + "```" + `
{{range .Shapes}}
## {{.Title}} (runtime/examples/shapes)

The graphs of the program ` + "`{{.Name}}`" + `, drawn the same way; its package doc and
` + "`go run ./tools/graphs -explain {{.Name}}`" + ` say why each edge is one.

![StreamGraph]({{.Name}}-streamgraph.svg) ([DOT]({{.Name}}-streamgraph.dot))

![JobGraph]({{.Name}}-jobgraph.svg) ([DOT]({{.Name}}-jobgraph.dot))

![ExecutionGraph]({{.Name}}-executiongraph.svg) ([DOT]({{.Name}}-executiongraph.dot))
{{end}}
## Where the subtasks run

` + "`go run ./tools/graphs -slots`" + ` plans where a job's subtasks run, with the runtime's
own decisions and without running anything: one box per TaskManager with its
total and free resources, one box per slot with its profile (cpu, task heap,
managed memory; the whole ResourceProfile is its tooltip), and in each slot
the subtasks that share it, coloured by slot sharing group. Slot requests that
no TaskManager has room for would be drawn outside, as waiting. It is a plan:
which of two equal slots a shared slot gets is up to the JobMaster's slot pool
at run time. ` + "`-explain`" + ` prints the same as text; ` + "`-m HOST:PORT -job JOBID`" + ` asks
a running cluster instead.
{{range .Slots}}
### {{.Title}}

{{.About}} Drawn by ` + "`{{.Command}}`" + `.

![Slots]({{.Name}}-slots.svg) ([DOT]({{.Name}}-slots.dot))
{{end}}
## Pipelined regions and region failover

` + "`go run ./tools/graphs -regions`" + ` draws the pipelined regions of a job's ExecutionGraph as
the JobMaster computes them (ExecutionGraph.PipelinedRegions), without running
anything: one box per region holding its subtasks, a solid arrow for each
pipelined exchange between two subtasks and a dashed one for each BLOCKING
exchange. ` + "`-fail \"NAME (i/p)\"`" + ` names a subtask that fails, and the runtime's
RestartPipelinedRegionFailoverStrategy decides what restarts, every BLOCKING
result taken to be still readable: the failed subtask's region is red, the
regions it drags along are orange and say why, and those that keep running are
green. The restart set is printed as text too; ` + "`-explain`" + ` prints the text alone.
{{range .Regions}}
### {{.Title}}

{{.About}} Drawn by ` + "`{{.Command}}`" + `, which prints:

` + "```text" + `
{{.Text}}
` + "```" + `

![Regions]({{.Name}}-regions.svg) ([DOT]({{.Name}}-regions.dot))
{{end}}
## The AdaptiveScheduler's states
{{with .Adaptive}}
` + "`go run ./tools/graphs -adaptive`" + ` draws every state of the AdaptiveScheduler
(runtime/scheduler/adaptive) with the JobStatus a job shows in it, every
transition with what causes it, and in green the path a real job took: the
program ` + "`{{.Program}}`" + ` (runtime/examples/ticker) at parallelism {{.Parallelism}} on a MiniCluster with
` + "`jobmanager.scheduler: adaptive`" + `, one TaskManager of {{.Slots}} slots, a
resource-stabilization-timeout of {{.Stabilization}} and a scaling-interval.min of {{.ScalingInterval}}.
The job has enough slots but not all it wants, so it waits out the timeout and
runs at parallelism 2 (moves 1–3); a second TaskManager starts, and once
scaling-interval.min has passed the job restarts at parallelism 4 (moves 4–7);
then it is cancelled (moves 8 and 9). The path is read from the scheduler's
DEBUG lines, "Transition from state X to Y.", and the label of each transition
it took starts with the numbers of its moves. Mermaid cannot colour a
transition, so in the Mermaid diagram the numbers alone mark the path.
Source: [{{.File}}.mmd]({{.File}}.mmd); the same drawn by Graphviz, with the path
in green: [{{.File}}.svg]({{.File}}.svg) ([DOT]({{.File}}.dot)).

![AdaptiveScheduler]({{.File}}.svg)

` + "```mermaid" + `
{{.Mermaid}}
` + "```" + `
{{end}}
## A checkpoint, step by step
{{with .Checkpoint}}
` + "`go run ./tools/graphs -checkpoint`" + ` runs the program ` + "`{{.Program}}`" + ` (runtime/examples/ticker),
bounded, at parallelism {{.Parallelism}} on a MiniCluster with a checkpoint every {{.Interval}}, and draws
its {{if eq .Drawn 2}}second{{else}}{{.Drawn}}th{{end}} completed checkpoint, number {{.ID}}, from the job's trace: the steps
k1…k7 of runtime/checkpoint. The first checkpoint comes after a random delay
(between the min pause, {{.MinPause}}, and the interval), soon after the tasks
started; the second is the first of the steady rhythm, one interval later,
with records flowing ahead of its barrier.

What to look at, on the ExecutionGraph:

- The CheckpointCoordinator (in the JobMaster) triggers the checkpoint (k1)
  and sends triggerCheckpoint to each source (k2, blue dashed).
- Each source sends the barrier on every output channel, behind the records
  it emitted before, and snapshots its position (k3): the orange arrows, one
  per channel, two into each running-count subtask, because the keyBy is
  ALL_TO_ALL.
- A running-count subtask snapshots its counts only once the barrier has come
  on both of its inputs (k4): EXACTLY_ONCE aligns, holding back the input
  that delivered the barrier first.
- Every subtask acknowledges with its state's handles (k5, green dotted); the
  last acknowledgement completes the checkpoint (k6), and the coordinator
  notifies every subtask (k7).
- Read each subtask's rows top to bottom: the number is the step's place
  among the checkpoint's events. Here the events are numbered in step order,
  one order a checkpoint may take, so that the drawing is the same on every
  run. In every run each source's k3 comes before any k4 downstream, and
  every k5 before k6; but the two sources may take the trigger, and any two
  subtasks acknowledge, in either order. The command draws its run's own
  order with the milliseconds since the trigger, and prints them: the subtask
  that acknowledged last is the one the checkpoint waited for.

![Checkpoint]({{.File}}.svg) ([DOT]({{.File}}.dot))

The same as a sequence: [{{.Sequence}}.mmd]({{.Sequence}}.mmd); drawn by Graphviz:
[{{.Sequence}}.svg]({{.Sequence}}.svg) ([DOT]({{.Sequence}}.dot)). A source's k3 is one
arrow per channel; k4 is the subtask's own step. IDs, timestamps, sizes and
milliseconds are replaced by ` + "`<id>`, `<attempt>`, `<timestamp>` and `<n>`" + `.

` + "```mermaid" + `
{{.Mermaid}}
` + "```" + `
{{end}}`))
