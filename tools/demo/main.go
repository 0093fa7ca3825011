// Command demo is what `make run` runs: an embedded cluster (a MiniCluster
// with 2 TaskManagers × 2 slots) runs a small job, and the demo prints the
// job's submission trace, step by step, and its result.
//
//	go run ./tools/demo        # the trace and the result
//	go run ./tools/demo -v     # also the cluster's log, as Flink would print it
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/logging"
	"flinklab/runtime/minicluster"
)

func main() {
	verbose := flag.Bool("v", false, "print the cluster's log (INFO and above) to stderr")
	count := flag.Int("count", 1000, "the job squares the numbers 1…count")
	parallelism := flag.Int("p", 4, "parallelism of the job")
	flag.Parse()
	if err := run(*verbose, *count, *parallelism); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(verbose bool, count, parallelism int) error {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(logging.NewHandler(os.Stderr, level))

	cluster, err := minicluster.New(minicluster.Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2, Logger: logger})
	if err != nil {
		return err
	}
	if err := cluster.Start(); err != nil {
		return err
	}
	defer cluster.Close()
	fmt.Printf("flinklab: a MiniCluster with 2 TaskManagers × 2 slots runs the job 'numbers' (parallelism %d)\n", parallelism)

	collector := numbers.NewCollector()
	defer collector.Close()
	job := numbers.JobGraph(numbers.Config{Count: count, Parallelism: parallelism, Collector: collector})
	if err := cluster.UploadJar(job, numbers.Jar()); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	submitted := time.Now()
	jobID, err := cluster.SubmitJob(ctx, job)
	if err != nil {
		return err
	}
	fmt.Printf("Job has been submitted with JobID %s\n", jobID)
	result, err := cluster.RequestJobResult(ctx, jobID)
	if err != nil {
		return err
	}

	fmt.Println("\nsubmission trace:")
	for i, e := range cluster.Trace().JobEvents(jobID) {
		fmt.Printf("%3d. %-3s %+8.3fms  %s → %s: %s\n", i+1, e.Step,
			float64(e.Time.Sub(submitted).Microseconds())/1000, e.From, e.To, e.Message)
	}
	fmt.Printf("\njob %s %s in %s\n", jobID, result.JobStatus, result.NetRuntime.Round(time.Microsecond))
	if result.JobStatus != api.JobFinished {
		return fmt.Errorf("the job ended %s: %s", result.JobStatus, result.FailureCause)
	}

	var sum, want int64
	for _, v := range collector.Values() {
		sum += v
	}
	for n := int64(1); n <= int64(count); n++ {
		want += n * n
	}
	fmt.Printf("result: %d squares, sum %d (1² + … + %d² = %d)\n", collector.Len(), sum, count, want)
	if sum != want || collector.Len() != count {
		return fmt.Errorf("wrong result")
	}
	return nil
}
