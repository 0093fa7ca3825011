// Command demo is what `make run` runs. It starts an embedded cluster (a
// MiniCluster: one JobManager side and 2 TaskManagers × 2 slots, with its
// REST endpoint on a free loopback port), then acts exactly as an HTTP
// client of Flink's REST API would: it writes the WordCount jar, uploads it
// with POST /jars/upload (step m1), runs it with POST /jars/{jarid}/run
// (step m2) and follows the job until it is FINISHED. It prints the job's
// submission trace m1…m11, one numbered line per event, and the ten most
// frequent words.
//
//	go run ./tools/demo          # the trace and the result
//	go run ./tools/demo -v       # also the cluster's log, as Flink would print it
//	go run ./tools/demo -p 2     # the job at parallelism 2
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/logging"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// defaultParallelism is the job's parallelism in `make run`: one subtask
// per slot of the cluster.
const defaultParallelism = 4

func main() {
	verbose := flag.Bool("v", false, "print the cluster's log (INFO and above) to stderr")
	parallelism := flag.Int("p", defaultParallelism, "parallelism of the job")
	flag.Parse()
	if err := run(os.Stdout, *verbose, *parallelism); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, verbose bool, parallelism int) error {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(logging.NewHandler(os.Stderr, level))
	workDir, err := os.MkdirTemp("", "flinklab-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(workDir)

	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        2,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             filepath.Join(workDir, "cluster"),
		REST:                   &rest.Config{UploadDir: filepath.Join(workDir, "web-upload")},
		Logger:                 logger,
	})
	if err != nil {
		return err
	}
	if err := cluster.Start(); err != nil {
		return err
	}
	defer cluster.Close()
	fmt.Fprintf(out, "flinklab: a MiniCluster with 2 TaskManagers × 2 slots, REST endpoint at http://%s\n", cluster.RESTAddress())

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

	uploaded := time.Now()
	jarID, err := rc.UploadJar(ctx, filepath.Base(jarPath), jar)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "uploaded %s as %s\n", jarPath, jarID)
	jobID, err := rc.RunJar(ctx, jarID, client.JarRunRequest{
		ProgramArgsList: []string{"--output", wordcount.OutputCollect},
		Parallelism:     parallelism,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Job has been submitted with JobID %s\n", jobID)
	status, err := awaitTerminal(ctx, rc, jobID)
	if err != nil {
		return err
	}

	fmt.Fprintln(out, "\nsubmission trace:")
	for i, e := range cluster.Trace().JobEvents(jobID) {
		fmt.Fprintf(out, "%3d. %-3s %+9.3fms  %s → %s: %s\n", i+1, e.Step,
			float64(e.Time.Sub(uploaded).Microseconds())/1000, e.From, e.To, e.Message)
	}
	fmt.Fprintf(out, "\njob %s %s\n", jobID, status)
	if status != api.JobFinished {
		return fmt.Errorf("the job ended %s", status)
	}

	fmt.Fprintln(out, "\nthe ten most frequent words:")
	for _, word := range wordcount.Top(wordcount.FinalCounts(wordcount.Results.Values()), 10) {
		fmt.Fprintf(out, "%s: %d\n", word.F0, word.F1)
	}
	return nil
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
