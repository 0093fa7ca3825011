package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
	"flinklab/runtime/streaming"
	"flinklab/runtime/trace"
)

// planJob opens a job jar and plans its program into a JobGraph, on the
// client, as Flink's CliFrontend does with PackagedProgramUtils: the
// program's main runs here, in a plan environment, and the StreamGraph it
// builds is chained into a JobGraph.
func planJob(opts runOptions) (*jobgraph.JobGraph, []byte, error) {
	jar, err := os.ReadFile(opts.jarFile)
	if err != nil {
		return nil, nil, fmt.Errorf("Could not build the program from JAR file: %w", err)
	}
	program, err := client.ReadPackagedProgram(jar)
	if err != nil {
		return nil, nil, fmt.Errorf("Could not build the program from JAR file: %w", err)
	}
	parallelism := opts.parallelism
	if parallelism == 0 {
		parallelism = client.ParallelismDefault
	}
	g, err := client.StreamingProgramRunner{}.JobGraph(program, opts.class, opts.args, parallelism)
	if err != nil {
		return nil, nil, err
	}
	if opts.fromSavepoint != "" {
		// Flink: ProgramOptions#getSavepointRestoreSettings, which the
		// JobGraph carries to the cluster.
		g.SavepointRestoreSettings = jobgraph.SavepointRestoreSettingsForPath(opts.fromSavepoint, opts.allowNonRestoredState)
	}
	return g, jar, nil
}

// runJob is "run": plan the job, submit it with POST /jobs (steps m1 and
// m2 in one request), and unless detached wait for it to end.
func runJob(ctx context.Context, opts runOptions, stdout io.Writer) error {
	g, jar, err := planJob(opts)
	if err != nil {
		return err
	}
	rc := client.NewRestClusterClient(opts.jobManager)
	jobID, err := rc.SubmitJob(ctx, g, filepath.Base(opts.jarFile), jar)
	if err != nil {
		return fmt.Errorf("Failed to submit JobGraph to %s: %w", opts.jobManager, err)
	}
	fmt.Fprintf(stdout, "Job has been submitted with JobID %s\n", jobID)
	if opts.detached {
		return nil
	}

	result, err := awaitJobResult(ctx, rc, jobID)
	if err != nil {
		return err
	}
	printTrace(ctx, stdout, rc, jobID)
	switch result.ApplicationStatus {
	case api.ApplicationSucceeded:
		fmt.Fprintln(stdout, "Program execution finished")
		fmt.Fprintf(stdout, "Job with JobID %s has finished.\n", jobID)
		fmt.Fprintf(stdout, "Job Runtime: %d ms\n", result.NetRuntime)
		return nil
	case api.ApplicationCanceled:
		return fmt.Errorf("Job was cancelled. (JobID: %s)", jobID)
	default:
		cause := "(no cause reported)"
		if result.FailureCause != nil {
			cause = result.FailureCause.StackTrace
		}
		return fmt.Errorf("Job failed (JobID: %s)\nCaused by: %s", jobID, cause)
	}
}

// awaitJobResult asks GET /jobs/{jobid}/execution-result until the job is
// globally terminal, as Flink's RestClusterClient#requestJobResult does:
// REST cannot tell a client when a job ends, so the client asks again,
// waiting 10 ms first, twice as long each time, at most 2 s (Flink's
// ExponentialWaitStrategy(10, 2000)). It waits as long as the job runs,
// or until ctx ends (Ctrl-C).
func awaitJobResult(ctx context.Context, rc *client.RestClusterClient, jobID api.JobID) (*rest.JobExecutionResult, error) {
	wait := 10 * time.Millisecond
	for {
		var answer rest.JobExecutionResultResponseBody
		if err := rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String()+"/execution-result", &answer); err != nil {
			return nil, fmt.Errorf("Could not retrieve the execution result of job %s: %w", jobID, err)
		}
		if answer.Status.ID == rest.QueueStatusCompleted && answer.JobExecutionResult != nil {
			return answer.JobExecutionResult, nil
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("Stopped waiting for job %s: %w", jobID, ctx.Err())
		case <-timer.C:
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// printTrace prints the job's submission trace (GET /jobs/{jobid}/trace),
// one numbered line per step, with the time since the first.
func printTrace(ctx context.Context, w io.Writer, rc *client.RestClusterClient, jobID api.JobID) {
	var info rest.JobTraceInfo
	if err := rc.SendRequest(ctx, http.MethodGet, "/jobs/"+jobID.String()+"/trace", &info); err != nil {
		fmt.Fprintf(w, "The submission trace is unavailable: %v\n", err)
		return
	}
	fmt.Fprintln(w, "Submission trace:")
	trace.Print(w, info.Events, time.Time{})
	steps := trace.Steps(info.Events)
	if !slices.Contains(steps, trace.M10) && !slices.Contains(steps, trace.M11) {
		fmt.Fprintln(w, "(Steps m9 to m11 happen on the TaskManagers: a TaskManager in a process of its own",
			"records them in its log, not in this trace.)")
	}
}

// info is "info": the plan of the job the program builds, as JSON, the
// same plan GET /jars/{jarid}/plan answers.
//
// Differs from Flink: Flink's info prints the StreamGraph's JSON, before
// chaining; this is the JobGraph's plan, after chaining, the one the web
// UI draws for a running job.
func info(opts runOptions, stdout io.Writer) error {
	g, _, err := planJob(opts)
	if err != nil {
		return err
	}
	var plan bytes.Buffer
	enc := json.NewEncoder(&plan)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rest.NewJobPlan(g)); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "----------------------- Execution Plan -----------------------")
	fmt.Fprint(stdout, plan.String())
	fmt.Fprintln(stdout, "--------------------------------------------------------------")
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "No description provided.")
	return nil
}

// list is "list": the cluster's jobs from GET /jobs/overview, printed as
// Flink's CliFrontend prints them (client.JobList).
func list(ctx context.Context, opts listOptions, stdout io.Writer) error {
	fmt.Fprintln(stdout, "Waiting for response...")
	jobs, err := client.NewRestClusterClient(opts.jobManager).ListJobs(ctx)
	if err != nil {
		return fmt.Errorf("Failed to retrieve job list: %w", err)
	}
	show := client.JobList{Running: opts.running || opts.all, Scheduled: opts.scheduled || opts.all, Terminated: opts.all}
	show.Print(stdout, jobs, time.Local)
	return nil
}

// cancel is "cancel": PATCH /jobs/{jobid}?mode=cancel.
func cancel(ctx context.Context, opts cancelOptions, stdout io.Writer) error {
	fmt.Fprintf(stdout, "Cancelling job %s.\n", opts.jobID)
	var answer rest.EmptyResponseBody
	err := client.NewRestClusterClient(opts.jobManager).SendRequest(ctx, http.MethodPatch, "/jobs/"+opts.jobID.String()+"?mode=cancel", &answer)
	if err != nil {
		return fmt.Errorf("Could not cancel job %s: %w", opts.jobID, err)
	}
	fmt.Fprintf(stdout, "Cancelled job %s.\n", opts.jobID)
	return nil
}

// triggerSavepoint is "savepoint": a savepoint of a running job (POST
// /jobs/{jobid}/savepoints, then its status until it completed), printed
// as Flink's CliFrontend#triggerSavepoint prints it.
func triggerSavepoint(ctx context.Context, opts savepointOptions, stdout io.Writer) error {
	if opts.superfluous {
		fmt.Fprintln(stdout, "Provided more arguments than required. Ignoring not needed arguments.")
	}
	fmt.Fprintf(stdout, "Triggering savepoint for job %s.\n", opts.jobID)
	fmt.Fprintln(stdout, "Waiting for response...")
	path, err := client.NewRestClusterClient(opts.jobManager).TriggerSavepoint(ctx, opts.jobID, opts.targetDirectory)
	if err != nil {
		return fmt.Errorf("Failed to trigger a savepoint for the job %s.\nCaused by: %w", opts.jobID, err)
	}
	fmt.Fprintf(stdout, "Savepoint completed. Path: %s\n", path)
	fmt.Fprintln(stdout, "You can resume your program from this savepoint with the run command.")
	return nil
}

// stopWithSavepoint is "stop": stop a running job with a savepoint (POST
// /jobs/{jobid}/stop, then its status until the job has stopped), printed
// as Flink's CliFrontend#stop prints it.
func stopWithSavepoint(ctx context.Context, opts stopOptions, stdout io.Writer) error {
	verb := "Suspending"
	if opts.drain {
		verb = "Draining"
	}
	fmt.Fprintf(stdout, "%s job \"%s\" with a CANONICAL savepoint.\n", verb, opts.jobID)
	path, err := client.NewRestClusterClient(opts.jobManager).StopWithSavepoint(ctx, opts.jobID, opts.drain, opts.targetDirectory)
	if err != nil {
		return fmt.Errorf("Could not stop with a savepoint job \"%s\".\nCaused by: %w", opts.jobID, err)
	}
	fmt.Fprintf(stdout, "Savepoint completed. Path: %s\n", path)
	return nil
}

// jarWriters are the programs whose jars carry more than a manifest.
var jarWriters = map[string]func() ([]byte, error){
	wordcount.ProgramClass: wordcount.Jar, // with the text it counts
	ticker.ProgramClass:    ticker.Jar,
}

// writeJar is "jar": the job jar of a program registered in this binary.
// Go cannot load code from a jar, so the jar names the program (its
// manifest's Program-Class) and carries its resources; every process of
// the cluster runs this binary, where the program is registered.
func writeJar(opts jarOptions, stdout io.Writer) error {
	if _, err := streaming.LookupProgram(opts.program); err != nil {
		return fmt.Errorf("%w (registered programs: %v)", err, streaming.RegisteredPrograms())
	}
	var jar []byte
	var err error
	if write, ok := jarWriters[opts.program]; ok {
		jar, err = write()
	} else {
		var buf bytes.Buffer
		err = client.WriteJar(&buf, opts.program, nil)
		jar = buf.Bytes()
	}
	if err == nil {
		err = os.WriteFile(opts.output, jar, 0o644)
	}
	if err != nil {
		return fmt.Errorf("Could not write the jar of %s: %w", opts.program, err)
	}
	fmt.Fprintf(stdout, "Wrote the job jar of %s to %s (%d bytes).\n", opts.program, opts.output, len(jar))
	return nil
}
