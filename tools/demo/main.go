// Command demo is what `make run` runs. It starts an embedded cluster (a
// MiniCluster: one JobManager side and 2 TaskManagers × 2 slots, with its
// REST endpoint on a free loopback port), then acts exactly as an HTTP
// client of Flink's REST API would: it writes the WordCount jar, uploads it
// with POST /jars/upload (step m1), runs it with POST /jars/{jarid}/run
// (step m2) and follows the job until it is FINISHED. It prints the job's
// submission trace m1…m11, one numbered line per event, and the ten most
// frequent words.
//
//	go run ./tools/demo                 # the trace and the result
//	go run ./tools/demo -v              # also the cluster's log, as Flink would print it
//	go run ./tools/demo -p 2            # the job at parallelism 2
//	go run ./tools/demo -inject m9      # break step m9 once (make run INJECT=m9)
//
// With -inject, one fault is armed before the upload (see package fault for
// the steps and kinds: "m10:jar-corrupted", "m8:slot-offer-timeout", …),
// the job runs at parallelism 2 (half the slots, so that it can fail over
// to the other TaskManager) with a fixed-delay restart strategy of 3
// attempts, and the demo prints the diagnosis: which step broke, which
// component to dig into, the cause the cluster's log shows, and the three
// to five lines of the JobManager's and the TaskManagers' logs that prove
// it (kept from the INFO log even without -v). A fault at m1–m3 refuses the
// job; at m4 the job fails during initialization; at m5–m11 it recovers and
// still counts every word exactly, unless its slot sharing group asks for
// more than any TaskManager has (m7:slot-sharing-group-too-large), which no
// restart fixes. In every case the demo has worked, and exits 0.
//
// A fault at a checkpoint's step (k1, k2, k4, k5, k6: see package fault)
// needs a job that checkpoints, and WordCount is over before its first
// checkpoint. With one of those, the demo runs the ticker instead
// (runtime/examples/ticker): 1,000 sensor events at 200 a second, a keyed
// running count per sensor, at parallelism 2, on a cluster that
// checkpoints every 200 ms into a directory of its own, with a timeout of
// 2 s and Flink's default of no tolerable failed checkpoint. It prints the
// submission trace, then the checkpoint's steps from the trigger of the
// checkpoint that broke to the next one that completed, how the
// checkpoints went, each sensor's last count (200: a failover restored
// the latest completed checkpoint), and the diagnosis:
//
//	go run ./tools/demo -inject k4          # an alignment that never ends (make run INJECT=k4)
//	go run ./tools/demo -inject k4,after=4  # the same, once a first checkpoint completed: the failover restores it
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/fault"
	"flinklab/runtime/logging"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/registration"
	"flinklab/runtime/rest"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
	"flinklab/runtime/trace"
)

// defaultParallelism is the job's parallelism in `make run`: one subtask
// per slot of the cluster.
const defaultParallelism = 4

// A registration that failed with an error pauses 1 s in the demo, not
// Flink's 10 s (cluster.registration.error-delay), before it starts over;
// the demo's other timings are minicluster.Config.WithQuickRecovery.
var demoRegistration = registration.Config{ErrorDelay: time.Second}

func main() {
	verbose := flag.Bool("v", false, "print the cluster's log (INFO and above) to stderr")
	parallelism := flag.Int("p", 0, "parallelism of the job (default 4, or 2 with -inject)")
	inject := flag.String("inject", "", "break one step once: m1 … m11, k1, k2, k4, k5, k6, or STEP:KIND (see package fault)")
	flag.Parse()
	var injected *fault.Fault
	if *inject != "" {
		f, err := fault.Parse(*inject)
		if err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			os.Exit(2)
		}
		injected = &f
	}
	if err := run(os.Stdout, options{verbose: *verbose, parallelism: *parallelism, injected: injected, log: os.Stderr}); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// options are the demo's flags.
type options struct {
	// verbose prints the cluster's log at INFO, not only its warnings.
	verbose bool
	// parallelism is the job's; 0 means the default.
	parallelism int
	// injected is the fault to break the submission with, once; nil for
	// none.
	injected *fault.Fault
	// log is where the cluster's log is printed.
	log io.Writer
}

// run runs the demo, with the fault injected once if there is one. It
// fails only if the demo itself did not work: a job that ends as the
// injected fault makes it end is a success.
func run(out io.Writer, o options) error {
	injected, parallelism := o.injected, o.parallelism
	if parallelism <= 0 {
		parallelism = defaultParallelism
		if injected != nil {
			parallelism = 2
		}
	}
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelInfo
	}
	// The diagnosis quotes the log lines that prove it, so the INFO log is
	// kept even when only its warnings are printed.
	captured := fault.NewLogCapture(slog.LevelInfo)
	logger := slog.New(slog.NewMultiHandler(logging.NewHandler(o.log, level), captured))
	workDir, err := os.MkdirTemp("", "flinklab-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(workDir)

	checkpointFault := injected != nil && slices.Contains(fault.CheckpointSteps(), injected.Step)
	cfg := minicluster.Config{
		NumTaskManagers:        2,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             filepath.Join(workDir, "cluster"),
		Registration:           demoRegistration,
		REST:                   &rest.Config{UploadDir: filepath.Join(workDir, "web-upload")},
		Logger:                 logger,
	}.WithQuickRecovery()
	if checkpointFault {
		cfg.Checkpointing = demoCheckpointing(filepath.Join(workDir, "checkpoints"))
	}
	cluster, err := minicluster.New(cfg)
	if err != nil {
		return err
	}
	if err := cluster.Start(); err != nil {
		return err
	}
	defer cluster.Close()
	fmt.Fprintf(out, "flinklab: a MiniCluster with 2 TaskManagers × 2 slots, REST endpoint at http://%s\n", cluster.RESTAddress())
	if injected != nil {
		if err := cluster.Faults().Inject(*injected); err != nil {
			return err
		}
		fmt.Fprintf(out, "injecting fault %s once; restart strategy %s\n", cluster.Faults().Armed()[0], "fixed-delay (3 attempts, 100 ms apart)")
	}
	if checkpointFault {
		fmt.Fprintf(out, "checkpoints every %v into %s, timeout %v, %d tolerable failed checkpoints (Flink's default)\n",
			cfg.Checkpointing.Interval, cfg.Checkpointing.CheckpointsDir, cfg.Checkpointing.Timeout, cfg.Checkpointing.TolerableFailures)
		return runTicker(out, cluster, parallelism, captured)
	}

	// The client side: write the jar, upload it, run it.
	jar, err := wordcount.Jar()
	if err != nil {
		return err
	}
	jarPath := filepath.Join(workDir, "WordCount.jar")
	if err := os.WriteFile(jarPath, jar, 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rc := client.NewRestClusterClient(cluster.RESTAddress())
	wordcount.Results.Clear()

	// refused ends the demo when the cluster refused the job, as the
	// injected fault should make it: the REST error and the diagnosis.
	refused := func(what string, err error) error {
		fmt.Fprintf(out, "%s: %v\n", what, err)
		if injected == nil {
			return err
		}
		printDiagnosis(out, append(cluster.Trace().JobEvents(api.JobID{}), failuresOfAllJobs(cluster)...), captured.Records())
		return nil
	}
	uploaded := time.Now()
	jarID, err := rc.UploadJar(ctx, filepath.Base(jarPath), jar)
	if err != nil {
		return refused("upload refused", err)
	}
	fmt.Fprintf(out, "uploaded %s as %s\n", jarPath, jarID)
	jobID, err := rc.RunJar(ctx, jarID, client.JarRunRequest{
		ProgramArgsList: []string{"--output", wordcount.OutputCollect},
		Parallelism:     parallelism,
	})
	if err != nil {
		return refused("job refused", err)
	}
	fmt.Fprintf(out, "Job has been submitted with JobID %s\n", jobID)
	status, err := awaitTerminal(ctx, rc, jobID)
	if err != nil {
		return err
	}

	fmt.Fprintln(out, "\nsubmission trace:")
	events := cluster.Trace().JobEvents(jobID)
	trace.Print(out, events, uploaded)
	fmt.Fprintf(out, "\njob %s %s\n", jobID, status)
	if status != api.JobFinished {
		printRootCause(ctx, out, rc, jobID)
		printDiagnosis(out, events, captured.Records())
		if injected != nil {
			return nil
		}
		return fmt.Errorf("the job ended %s", status)
	}

	fmt.Fprintln(out, "\nthe ten most frequent words:")
	for _, word := range wordcount.Top(wordcount.FinalCounts(wordcount.Results.Values()), 10) {
		fmt.Fprintf(out, "%s: %d\n", word.F0, word.F1)
	}
	if injected != nil {
		printRestarts(ctx, out, rc, jobID, "the step's own retry absorbed the fault")
		printDiagnosis(out, events, captured.Records())
	}
	return nil
}

// demoCheckpointing is how the demo checkpoints the ticker for a fault at
// a checkpoint's step: every 200 ms into dir, a checkpoint expiring after
// 2 s (more than the 1 s heartbeat timeout of WithQuickRecovery, as
// Flink's 10 minutes are more than its 50 s: a lost TaskManager is noticed
// before its checkpoint expires), and Flink's defaults otherwise: exactly
// once, one checkpoint at a time, no failed checkpoint tolerated.
func demoCheckpointing(dir string) checkpoint.CheckpointCoordinatorConfiguration {
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = 200 * time.Millisecond
	cfg.Timeout = 2 * time.Second
	cfg.CheckpointsDir = dir
	return cfg
}

// tickerArgs run the ticker for about 5 s: 1,000 events at 200 a second,
// 200 per sensor.
var tickerArgs = []string{"--rate", "200", "--count", "1000", "--output", ticker.OutputCollect}

// tickerCountPerSensor is each sensor's last count when the ticker ran with
// tickerArgs.
const tickerCountPerSensor = 1000 / ticker.NumSensors

// runTicker runs the ticker as a client of the REST API would, with its
// checkpoints broken at the injected step, and prints what happened: the
// submission trace, the steps of the checkpoint that broke, the
// checkpoints' counts, each sensor's last count, and the diagnosis.
func runTicker(out io.Writer, cluster *minicluster.MiniCluster, parallelism int, captured *fault.LogCapture) error {
	jar, err := ticker.Jar()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rc := client.NewRestClusterClient(cluster.RESTAddress())
	ticker.Results.Clear()

	uploaded := time.Now()
	jarID, err := rc.UploadJar(ctx, "Ticker.jar", jar)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "uploaded Ticker.jar as %s\n", jarID)
	jobID, err := rc.RunJar(ctx, jarID, client.JarRunRequest{ProgramArgsList: tickerArgs, Parallelism: parallelism})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Job has been submitted with JobID %s\n", jobID)
	status, err := awaitTerminal(ctx, rc, jobID)
	if err != nil {
		return err
	}

	events := cluster.Trace().JobEvents(jobID)
	fmt.Fprintln(out, "\nsubmission trace:")
	trace.Print(out, submissionEvents(events), uploaded)
	broken, more := brokenCheckpoint(events)
	if len(broken) > 0 {
		fmt.Fprintln(out, "\ncheckpoint trace, from the trigger of the checkpoint that broke:")
		trace.Print(out, broken, uploaded)
		if more > 0 {
			fmt.Fprintf(out, "     … and %d more events until a checkpoint completed\n", more)
		}
	}
	fmt.Fprintf(out, "\njob %s %s\n", jobID, status)
	if stats, err := cluster.Dispatcher().RequestCheckpointStats(ctx, jobID); err == nil && stats != nil {
		fmt.Fprintf(out, "checkpoints: %d completed, %d failed", stats.Counts.Completed, stats.Counts.Failed)
		if restored := stats.Latest.Restored; restored != nil {
			fmt.Fprintf(out, "; the job restored checkpoint %d", restored.ID)
		}
		fmt.Fprintln(out)
	}
	if status != api.JobFinished {
		printRootCause(ctx, out, rc, jobID)
		printDiagnosis(out, events, captured.Records())
		return nil
	}

	fmt.Fprintln(out, "\nthe last count of each sensor:")
	last := map[string]int64{}
	for _, c := range ticker.Results.Values() {
		last[c.F0] = c.F1
	}
	sensors := slices.Sorted(maps.Keys(last))
	for _, sensor := range sensors {
		fmt.Fprintf(out, "%s: %d\n", sensor, last[sensor])
	}
	printRestarts(ctx, out, rc, jobID, "the failed checkpoint does not count against execution.checkpointing.tolerable-failed-checkpoints")
	printDiagnosis(out, events, captured.Records())
	return nil
}

// maxCheckpointTrace is how many events of the checkpoint that broke the
// demo prints.
const maxCheckpointTrace = 40

// submissionEvents are the events of the submission's steps, m1…m11, of
// the job's first attempt: those before the first checkpoint's.
func submissionEvents(events []trace.Event) []trace.Event {
	var submission []trace.Event
	for _, e := range events {
		if isCheckpointStep(e.Step) {
			break
		}
		submission = append(submission, e)
	}
	return submission
}

// brokenCheckpoint returns the events from the trigger (k1) of the first
// checkpoint that broke to the next checkpoint that completed, the
// failover's redeployments among them, at most maxCheckpointTrace of
// them, and how many more there were.
func brokenCheckpoint(events []trace.Event) ([]trace.Event, int) {
	first := slices.IndexFunc(events, func(e trace.Event) bool { return e.Failed && isCheckpointStep(e.Step) })
	if first < 0 {
		return nil, 0
	}
	start := first
	for start > 0 && (events[start].Step != trace.K1 || events[start].Failed) {
		start--
	}
	end := len(events)
	for i := first + 1; i < len(events); i++ {
		if e := events[i]; e.Step == trace.K6 && !e.Failed {
			end = i + 1
			break
		}
	}
	broken := events[start:end]
	if len(broken) > maxCheckpointTrace {
		return broken[:maxCheckpointTrace], len(broken) - maxCheckpointTrace
	}
	return broken, 0
}

// isCheckpointStep reports whether step is one of a checkpoint's, k1…k7.
func isCheckpointStep(step trace.Step) bool { return strings.HasPrefix(string(step), "k") }

// failuresOfAllJobs returns the failed steps of every job the cluster
// traced: a job the Dispatcher refused is known only by its trace.
func failuresOfAllJobs(cluster *minicluster.MiniCluster) []trace.Event {
	return trace.Failures(cluster.Trace().Events())
}

// printDiagnosis prints which step broke first and which component to
// open, the cause the cluster's log shows and the log lines that prove it,
// or says that nothing broke.
func printDiagnosis(out io.Writer, events []trace.Event, log []fault.LogRecord) {
	d, ok := fault.Diagnose(events)
	if !ok {
		fmt.Fprintln(out, "\ndiagnosis: no step broke")
		return
	}
	fmt.Fprintf(out, "\n%s\n", fault.Explain(d, log))
}

// printRootCause prints the job's root exception from
// GET /jobs/{jobid}/exceptions, as the web UI's Exceptions tab shows it.
func printRootCause(ctx context.Context, out io.Writer, rc *client.RestClusterClient, jobID api.JobID) {
	var exceptions rest.JobExceptionsInfoWithHistory
	if err := rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String()+"/exceptions", &exceptions); err != nil {
		fmt.Fprintf(out, "root exception: unavailable: %v\n", err)
		return
	}
	if exceptions.RootException != nil {
		fmt.Fprintf(out, "root exception: %s\n", *exceptions.RootException)
	}
}

// printRestarts says how often the job restarted and why, from
// GET /jobs/{jobid}/exceptions, or, when it did not, why not.
func printRestarts(ctx context.Context, out io.Writer, rc *client.RestClusterClient, jobID api.JobID, whyNoRestart string) {
	var exceptions rest.JobExceptionsInfoWithHistory
	if err := rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String()+"/exceptions", &exceptions); err != nil {
		return
	}
	entries := exceptions.ExceptionHistory.Entries
	if len(entries) == 0 {
		fmt.Fprintf(out, "\nthe job needed no restart: %s\n", whyNoRestart)
		return
	}
	fmt.Fprintf(out, "\nthe job restarted %d time(s); the failure that restarted it last:\n  %s\n", len(entries), entries[0].Stacktrace)
}

// awaitTerminal asks the REST endpoint for the job's state until it is
// globally terminal, as `flink run` does in attached mode.
func awaitTerminal(ctx context.Context, rc *client.RestClusterClient, jobID api.JobID) (api.JobStatus, error) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		status, err := rc.JobStatus(ctx, jobID)
		if err != nil {
			return 0, err
		}
		if status.IsGloballyTerminalState() {
			return status, nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return 0, fmt.Errorf("job %s did not finish: %w", jobID, ctx.Err())
		}
	}
}
