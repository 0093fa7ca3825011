// Command graphs draws a job's StreamGraph, JobGraph, ExecutionGraph and
// submission sequence, as SVG (the default), as DOT, or the sequence as
// Mermaid:
//
//	go run ./tools/graphs wordcount                  # wordcount-{streamgraph,jobgraph,executiongraph,sequence}.svg
//	go run ./tools/graphs -format dot -p 2 wordcount # the DOT sources, at parallelism 2
//	go run ./tools/graphs -format mermaid wordcount  # wordcount-sequence.mmd
//	go run ./tools/graphs -o out/ path/to/job.jar    # the jar's Program-Class
//	go run ./tools/graphs -inject m10 wordcount      # the run with step m10 broken once
//	go run ./tools/graphs -m localhost:8081 -job JOBID # a job on a running cluster, over REST
//	go run ./tools/graphs -diagrams diagrams         # what `make diagrams` runs
//	go run ./tools/graphs -explain -p 4 wordcount    # the decisions behind the graphs, as text
//	go run ./tools/graphs -slots -p 2 -D taskmanager.numberOfTaskSlots=2 wordcount  # wordcount-slots.svg
//	go run ./tools/graphs -slots -explain -taskmanagers 2 -D taskmanager.numberOfTaskSlots=2 -p 2 sharing
//	go run ./tools/graphs -slots -m localhost:8081 -job JOBID  # where a running job's subtasks are
//	go run ./tools/graphs -regions -fail "work -> Sink: print-sink (2/4)" -p 4 pipelines  # pipelines-regions.svg
//	go run ./tools/graphs -regions -explain -p 2 wordcount --execution-mode BATCH
//	go run ./tools/graphs -adaptive                  # adaptive-states.svg: the AdaptiveScheduler's states
//	go run ./tools/graphs -checkpoint                # ticker-checkpoint.svg, ticker-checkpoint-sequence.svg: a checkpoint's barrier
//	go run ./tools/graphs -checkpoint -p 3 ticker --count 500 --rate 50
//	go run ./tools/graphs -checkpoint -m localhost:8081 -job JOBID  # a checkpoint of a running job
//
// PROGRAM is a registered example program (wordcount, ticker, sharing,
// pipelines, chains, fanout); a path ending in ".jar" is opened as a job jar and its
// Program-Class planned. The arguments after it are the program's. The
// StreamGraph and JobGraph come from planning the program, as the client
// does before it submits; the ExecutionGraph and the sequence come from
// running it once on an embedded MiniCluster. With -m, the JobGraph comes
// from the job's plan (/jobs/{jobid}/plan), the ExecutionGraph with the
// subtasks' current states from /jobs/{jobid} and
// /jobs/{jobid}/vertices/{vertexid}, and the sequence from
// /jobs/{jobid}/trace; there is no StreamGraph, which the cluster never
// sees.
//
// With -explain nothing runs and nothing is drawn: the chaining decisions,
// the JobVertices with the slots they need, and how each JobEdge becomes
// partitions and ConsumedPartitionGroups are printed (package explain).
//
// With -slots the tool draws where the job's subtasks run instead
// (<name>-slots.svg, or .dot): one box per TaskManager with its total and
// free resources, one box per slot with its profile, and in each slot the
// subtasks that share it, coloured by slot sharing group; slot requests no
// TaskManager has room for are drawn outside, as waiting. For a program,
// a jar or a JobGraph file (flinklab's JSON, e.g. flink-jobgraph.json) it
// is a plan, worked out without running anything by the runtime's own
// decisions (package slots), for a cluster of -taskmanagers TaskManagers
// configured by -D key=value (Flink's keys: taskmanager.numberOfTaskSlots,
// taskmanager.memory.process.size, taskmanager.cpu.cores, …). With -m it
// is what REST says of the job on a running cluster; REST does not say
// which slot a subtask runs in, so there subtasks are listed per
// TaskManager. -slots -explain prints the same as text.
//
// With -regions the tool draws the pipelined regions of the job's
// ExecutionGraph instead (<name>-regions.svg, or .dot), planned without
// running anything (package regions): one box per region with its
// subtasks, solid arrows for pipelined exchanges and dashed ones for
// BLOCKING exchanges. -fail "NAME (i/p)" names a subtask that fails, as
// Flink's logs name it; the runtime's RestartPipelinedRegionFailoverStrategy
// decides which regions restart, with every BLOCKING result still
// readable, and the drawing marks them, while the same is printed as
// text. -regions -explain prints the text alone.
//
// With -adaptive the tool runs a job on the AdaptiveScheduler
// (diagrams.RunAdaptive: the ticker at parallelism 4 on a MiniCluster
// that has 2 slots, then 4) and draws the scheduler's states and
// transitions with the path the job took, read from the scheduler's DEBUG
// lines (adaptive-states.svg, .dot or .mmd); the path is printed too.
//
// With -checkpoint the tool runs the program with checkpoints, one every
// 200 ms (diagrams.RunCheckpoint; without a program, the ticker of
// diagrams/: bounded, at parallelism 2), waits for its second completed
// checkpoint, reads it from the job's trace (package checkpoints: the
// steps k1…k7 of runtime/checkpoint) and cancels the job. It prints the
// checkpoint's steps with their milliseconds since the trigger (k1), and
// draws it twice: on the ExecutionGraph (<name>-checkpoint.svg or .dot),
// where each subtask lists its steps in order with their numbers and
// times, the barrier's channels are orange and the acknowledgements
// point back to the CheckpointCoordinator; and as a sequence
// (<name>-checkpoint-sequence.svg, .dot or .mmd). With -m and -job it
// draws a checkpoint of a running job from its trace
// (diagrams.DrawCheckpoint), the second completed or else the first.
//
// The DOT and Mermaid come from package diagrams (and package dot), which
// need no Graphviz; SVG is rendered by package svg, the only importer of
// go-graphviz.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/fault"
	"flinklab/tools/graphs/diagrams"
	"flinklab/tools/graphs/dot"
	"flinklab/tools/graphs/explain"
	"flinklab/tools/graphs/slots"
	"flinklab/tools/graphs/svg"
)

const usage = `usage: go run ./tools/graphs [-o DIR] [-format svg|dot|mermaid] [-p N] [-inject FAULT] PROGRAM|JAR [args]
       go run ./tools/graphs [-o DIR] [-format svg|dot|mermaid] -m HOST:PORT -job JOBID
       go run ./tools/graphs -diagrams DIR
       go run ./tools/graphs -explain [-p N] PROGRAM|JAR [args]
       go run ./tools/graphs -slots [-explain] [-o DIR] [-format svg|dot] [-taskmanagers N] [-D key=value]... [-p N] PROGRAM|JAR|JOBGRAPH.json [args]
       go run ./tools/graphs -slots [-explain] [-o DIR] [-format svg|dot] -m HOST:PORT -job JOBID
       go run ./tools/graphs -regions [-explain] [-fail "NAME (i/p)"] [-o DIR] [-format svg|dot] [-p N] PROGRAM|JAR|JOBGRAPH.json [args]
       go run ./tools/graphs -adaptive [-o DIR] [-format svg|dot|mermaid]
       go run ./tools/graphs -checkpoint [-o DIR] [-format svg|dot|mermaid] [-p N] [PROGRAM|JAR [args]]
       go run ./tools/graphs -checkpoint [-o DIR] [-format svg|dot|mermaid] -m HOST:PORT -job JOBID

Writes <name>-streamgraph, <name>-jobgraph, <name>-executiongraph and
<name>-sequence as .svg or .dot to DIR; with -format mermaid only
<name>-sequence.mmd. With -m, <name> is the JobID and there is no
streamgraph. -diagrams DIR regenerates the committed diagrams (make diagrams).
-explain prints why the graphs are as they are, and draws nothing.
-slots writes <name>-slots instead: where the subtasks run, planned on
-taskmanagers TaskManagers configured by -D (or, with -m, as REST shows
them); with -explain as text.
-regions writes <name>-regions instead: the pipelined regions of the
ExecutionGraph and, with -fail, what region failover restarts (also
printed); with -explain as text only.
-adaptive runs a job on the AdaptiveScheduler and writes adaptive-states:
its states and transitions, with the path the job took.
-checkpoint runs the program with a checkpoint every 200 ms (without one,
the ticker at parallelism 2, bounded) and writes <name>-checkpoint and
<name>-checkpoint-sequence: its second completed checkpoint on the
ExecutionGraph, where each subtask lists its steps k2…k7 with their
numbers and milliseconds since the trigger (k1), and as a sequence (with
-format mermaid, the sequence alone); its steps are printed too. With -m,
a checkpoint of a running job.

`

func main() {
	outDir := flag.String("o", ".", "directory to write the files to")
	format := flag.String("format", "svg", "svg, dot or mermaid")
	parallelism := flag.Int("p", 0, "default parallelism of the program (0: the program's own)")
	address := flag.String("m", "", "REST address (host:port) of a running cluster; draws the job given by -job")
	jobID := flag.String("job", "", "with -m: the JobID of the job to draw")
	inject := flag.String("inject", "", "break one step (m3 … m11, or STEP:KIND) of the run; the sequence shows where it broke")
	diagramsDir := flag.String("diagrams", "", "regenerate the committed diagrams into this directory")
	explainOnly := flag.Bool("explain", false, "print the chaining decisions, JobVertices, slots and partition groups instead of drawing (with -slots: the slot plan; with -regions: the regions and the restart set)")
	slotView := flag.Bool("slots", false, "draw the TaskManagers, their slots and the subtasks sharing each slot")
	taskManagers := flag.Int("taskmanagers", 1, "with -slots: how many TaskManagers the job is planned for")
	regionView := flag.Bool("regions", false, "draw the pipelined regions of the job's ExecutionGraph")
	failed := flag.String("fail", "", `with -regions: a subtask that fails, "NAME (i/p)"; marks and prints what region failover restarts`)
	adaptiveView := flag.Bool("adaptive", false, "run a job on the AdaptiveScheduler and draw its states, with the path the job took")
	checkpointView := flag.Bool("checkpoint", false, "run a job with checkpoints and draw how its second completed checkpoint's barrier flowed")
	config := map[string]string{}
	flag.Func("D", "with -slots: a TaskManager option, key=value (repeatable), e.g. taskmanager.numberOfTaskSlots=2", func(s string) error {
		key, value, ok := strings.Cut(s, "=")
		if !ok || key == "" {
			return fmt.Errorf("want key=value, got %q", s)
		}
		config[key] = value
		return nil
	})
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var files map[string][]byte
	var err error
	switch {
	case *diagramsDir != "":
		err = writeDiagrams(ctx, *diagramsDir)
	case !*slotView && (isSet("taskmanagers") || isSet("D")):
		err = fmt.Errorf("%w: -taskmanagers and -D describe the cluster of -slots", errUsage)
	case countTrue(*slotView, *regionView, *adaptiveView, *checkpointView) > 1:
		err = fmt.Errorf("%w: one of -slots, -regions, -adaptive and -checkpoint at a time", errUsage)
	case !*regionView && isSet("fail"):
		err = fmt.Errorf("%w: -fail names a failed subtask of -regions", errUsage)
	case *regionView:
		err = drawRegions(regionsOptions{
			address: *address, jobID: *jobID, parallelism: *parallelism, explain: *explainOnly,
			inject: *inject, outDir: *outDir, format: *format, failed: *failed,
		})
	case *adaptiveView:
		err = drawAdaptive(ctx, *outDir, *format)
	case *checkpointView:
		err = drawCheckpoint(ctx, checkpointOptions{
			address: *address, jobID: *jobID, parallelism: *parallelism, outDir: *outDir, format: *format,
		})
	case *slotView:
		err = drawSlots(ctx, slotsOptions{
			address: *address, jobID: *jobID, parallelism: *parallelism, explain: *explainOnly,
			inject: *inject, outDir: *outDir, format: *format,
			cluster: slots.Cluster{TaskManagers: *taskManagers, Configuration: config},
		})
	case *address != "" || *jobID != "":
		if *address == "" || *jobID == "" || flag.NArg() > 0 {
			flag.Usage()
			os.Exit(2)
		}
		if files, err = diagrams.DrawJob(ctx, *address, *jobID); err == nil {
			err = write(*outDir, *format, files)
		}
	case flag.NArg() == 0:
		flag.Usage()
		os.Exit(2)
	case *explainOnly:
		var plan *diagrams.Plan
		if plan, err = diagrams.PlanProgram(flag.Arg(0), flag.Args()[1:], *parallelism); err == nil {
			err = explain.Write(os.Stdout, plan.StreamGraph, plan.JobGraph)
		}
	default:
		var injected *fault.Fault
		if *inject != "" {
			f, perr := fault.Parse(*inject)
			if perr != nil {
				fmt.Fprintln(os.Stderr, "graphs:", perr)
				os.Exit(2)
			}
			injected = &f
		}
		if files, err = drawProgram(ctx, *parallelism, flag.Arg(0), flag.Args()[1:], injected); err == nil {
			err = write(*outDir, *format, files)
		}
	}
	if errors.Is(err, errUsage) {
		fmt.Fprintln(os.Stderr, "graphs:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "graphs:", err)
		os.Exit(1)
	}
}

// drawProgram plans the program, runs it once, and draws the four
// diagrams: DOT files and the sequence as Mermaid.
func drawProgram(ctx context.Context, parallelism int, program string, args []string, injected *fault.Fault) (map[string][]byte, error) {
	plan, err := diagrams.PlanProgram(program, args, parallelism)
	if err != nil {
		return nil, err
	}
	var run *diagrams.Run
	if injected != nil {
		run, err = plan.RunWithFault(ctx, *injected)
	} else {
		run, err = plan.Run(ctx)
	}
	if err != nil {
		return nil, err
	}
	files := plan.DOT()
	if graph := plan.ExecutionGraphDOT(run); graph != nil {
		files[plan.ExecutionGraphFile()] = graph
	}
	files[plan.SequenceDOTFile()] = plan.SequenceDOT(run)
	files[plan.SequenceFile()] = plan.SequenceMermaid(run)
	return files, nil
}

// slotsOptions are the flags -slots reads.
type slotsOptions struct {
	address, jobID string
	parallelism    int
	explain        bool
	inject         string
	outDir, format string
	cluster        slots.Cluster
}

// errUsage is a command line -slots cannot work with; main prints the
// usage after it.
var errUsage = errors.New("usage")

// drawSlots draws, or with -explain prints, where a job's subtasks run:
// planned for a program, jar or JobGraph file on the cluster of
// -taskmanagers and -D, or, with -m and -job, as REST shows a running job.
func drawSlots(ctx context.Context, o slotsOptions) error {
	if o.format == "mermaid" {
		return errors.New("-slots draws DOT and SVG only: use -format svg or dot")
	}
	if o.inject != "" {
		return fmt.Errorf("%w: -slots runs nothing, so there is nothing to -inject into", errUsage)
	}
	if o.address != "" || o.jobID != "" {
		if o.address == "" || o.jobID == "" {
			return fmt.Errorf("%w: -slots of a running job needs both -m HOST:PORT and -job JOBID", errUsage)
		}
		if flag.NArg() > 0 {
			return fmt.Errorf("%w: -slots -m HOST:PORT -job JOBID takes no program", errUsage)
		}
		if isSet("taskmanagers") || isSet("D") || isSet("p") {
			return fmt.Errorf("%w: with -m the cluster is what it is: no -taskmanagers, -D or -p", errUsage)
		}
		running, err := diagrams.RunningSlots(ctx, o.address, o.jobID)
		if err != nil {
			return err
		}
		if o.explain {
			explain.WriteRunningSlots(os.Stdout, running)
			return nil
		}
		return write(o.outDir, o.format, map[string][]byte{diagrams.SlotsFile(running.JobID.String()): dot.RunningSlots(running)})
	}
	if flag.NArg() == 0 {
		return fmt.Errorf("%w: -slots needs a PROGRAM, JAR or JOBGRAPH.json, or -m and -job", errUsage)
	}
	name, plan, err := diagrams.PlanSlots(flag.Arg(0), flag.Args()[1:], o.parallelism, o.cluster)
	if err != nil {
		return err
	}
	if o.explain {
		explain.WriteSlots(os.Stdout, plan)
		return nil
	}
	return write(o.outDir, o.format, map[string][]byte{diagrams.SlotsFile(name): dot.SlotPlan(plan)})
}

// countTrue counts the flags that are set.
func countTrue(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}

// isSet reports whether the flag was given on the command line.
func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// write writes the files of one format to dir: the DOT files, their SVGs,
// or the Mermaid files.
func write(dir, format string, files map[string][]byte) error {
	chosen := make(map[string][]byte)
	for name, data := range files {
		switch format {
		case "dot", "svg":
			if strings.HasSuffix(name, ".dot") {
				chosen[name] = data
			}
		case "mermaid":
			if strings.HasSuffix(name, ".mmd") {
				chosen[name] = data
			}
		default:
			return fmt.Errorf("unknown -format %q: want svg, dot or mermaid", format)
		}
	}
	if format == "svg" {
		var err error
		if chosen, err = renderSVG(chosen); err != nil {
			return err
		}
	}
	return writeFiles(dir, chosen)
}

// writeDiagrams writes the committed diagrams (diagrams.Generate) to dir,
// and an SVG next to every DOT file.
func writeDiagrams(ctx context.Context, dir string) error {
	files, err := diagrams.Generate(ctx)
	if err != nil {
		return err
	}
	dotFiles := make(map[string][]byte)
	for name, data := range files {
		if strings.HasSuffix(name, ".dot") {
			dotFiles[name] = data
		}
	}
	svgs, err := renderSVG(dotFiles)
	if err != nil {
		return err
	}
	for name, data := range svgs {
		files[name] = data
	}
	return writeFiles(dir, files)
}

// renderSVG renders every DOT file to <name>.svg.
func renderSVG(dotFiles map[string][]byte) (map[string][]byte, error) {
	out := make(map[string][]byte, len(dotFiles))
	for name, data := range dotFiles {
		image, err := svg.Render(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[strings.TrimSuffix(name, ".dot")+".svg"] = image
	}
	return out, nil
}

// writeFiles writes files to dir, creating it, and prints each path.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(path)
	}
	return nil
}
