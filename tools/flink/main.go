// Command flink is flinklab's bin/ directory in one binary: Flink's
// command line client (bin/flink) and the scripts that start a cluster
// (bin/start-cluster.sh, bin/jobmanager.sh, bin/taskmanager.sh,
// bin/standalone-job.sh).
//
// A standalone session cluster, then a job on it:
//
//	go build -o flink ./tools/flink
//	./flink start-cluster --taskmanagers 2 --slots 2      # stays in the foreground; Ctrl-C stops it
//	./flink jar wordcount -o WordCount.jar                # in another terminal
//	./flink run -p 1 WordCount.jar                        # -m localhost:8081 by default
//	./flink list -a
//
// The client's actions talk to the cluster's REST endpoint only:
//
//	run [-m HOST:PORT] [-p N] [-d] [-s SAVEPOINT [-n]] JAR [ARGS]   plan the program here, submit it with POST /jobs, wait for it
//	info [-p N] JAR [ARGS]                      the job's plan, as JSON, without a cluster
//	list [-m HOST:PORT] [-a|-r|-s]              the jobs (GET /jobs/overview)
//	cancel [-m HOST:PORT] JOBID                 PATCH /jobs/JOBID?mode=cancel
//	savepoint [-m HOST:PORT] JOBID [DIR]        POST /jobs/JOBID/savepoints, then its status until it completed
//	stop [-m HOST:PORT] [-p DIR] [-d] JOBID     POST /jobs/JOBID/stop: a savepoint, then the job ends FINISHED
//	jar PROGRAM [-o FILE]                       write the job jar of a registered program
//
// A job stopped with a savepoint starts again from it, its state and its
// sources' positions restored:
//
//	./flink start-cluster --taskmanagers 2 --slots 2 -D execution.checkpointing.interval=1s -D state.savepoints.dir=/tmp/savepoints
//	./flink run -d Ticker.jar
//	./flink stop JOBID                                    # Savepoint completed. Path: /tmp/savepoints/savepoint-…
//	./flink run -d -s /tmp/savepoints/savepoint-… Ticker.jar
//
// The cluster's actions start processes of this same binary:
//
//	start-cluster [--taskmanagers N] [--slots M] [--rest-port P]   a JobManager and N TaskManagers, in the foreground
//	run-application [--taskmanagers N] [--slots M] JAR [ARGS]       an application cluster that ends with its job
//	jobmanager [--rpc-port P] [--rest-port P]                       one JobManager (runtime/entrypoint)
//	standalone-job JAR [ARGS]                                       one JobManager in application mode
//	taskmanager --jobmanager HOST:PORT [--slots M]                  one TaskManager
//
// Each of them takes options of Flink's configuration as -D key=value,
// and start-cluster and run-application pass them on to every process:
//
//	./flink start-cluster --taskmanagers 2 -D heartbeat.interval=200 -D heartbeat.timeout=1000 \
//	    -D restart-strategy.type=fixed-delay -D restart-strategy.fixed-delay.delay=200ms
//
// A TaskManager that dies (kill -9 its pid, which start-cluster prints
// with its ResourceID) is reported, and the cluster runs on without it:
// the JobManager finds out through its heartbeats, and a job that ran
// there restarts on the TaskManagers left, as its restart strategy
// allows.
//
// Each cluster process logs, in the shape of Flink's log4j pattern, to
// stderr and to flink-<user>-<daemon>-<index>-<host>.log in the log
// directory (--log-dir, $FLINK_LOG_DIR, or flinklab-log in the temporary
// directory); what its tasks print goes to the .out file of the same name
// when start-cluster started it. See runtime/entrypoint for what each
// process starts and how to read its log.
//
// Between the processes, everything goes over TCP: every RPC
// (registration, slot requests, slot offers, deployment, heartbeats, task
// states) on jobmanager.rpc.port (6123) and the TaskManagers' own ports,
// the job's jar from the BlobServer (blob.server.port, 6124), and the
// records between TaskManagers from each TaskManager's partition server
// (see runtime/entrypoint/crossprocess.go).
//
// WordCount's results: `flink run` cannot collect records across
// processes (--output collect gathers them in the memory of the process
// that runs the sink), so run it with the print sink, its default: each
// TaskManager prints its records into its .out file, and flink run prints
// how the job ended and how long it ran.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "flinklab/runtime/examples/pipelines" // the programs a job jar may name
	_ "flinklab/runtime/examples/sharing"   //
	_ "flinklab/runtime/examples/ticker"    //
	_ "flinklab/runtime/examples/wordcount" //
	_ "flinklab/runtime/streaming/tasks"    // the streaming runtime, on the TaskExecutors' "class path"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one action and returns the process's exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stdout, "")
		return 1
	}
	action, args := args[0], args[1:]
	if action == "-h" || action == "--help" {
		printUsage(stdout, "")
		return 0
	}

	// The client's actions stop waiting on Ctrl-C; the cluster's own
	// processes handle their signals themselves (entrypoint.WaitForShutdown).
	clientCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch action {
	case "run":
		err = withOptions(parseRun, args, func(o runOptions) error { return runJob(clientCtx, o, stdout) })
	case "info":
		err = withOptions(parseInfo, args, func(o runOptions) error { return info(o, stdout) })
	case "list":
		err = withOptions(parseList, args, func(o listOptions) error { return list(clientCtx, o, stdout) })
	case "cancel":
		err = withOptions(parseCancel, args, func(o cancelOptions) error { return cancel(clientCtx, o, stdout) })
	case "savepoint":
		err = withOptions(parseSavepoint, args, func(o savepointOptions) error { return triggerSavepoint(clientCtx, o, stdout) })
	case "stop":
		err = withOptions(parseStop, args, func(o stopOptions) error { return stopWithSavepoint(clientCtx, o, stdout) })
	case "jar":
		err = withOptions(parseJar, args, func(o jarOptions) error { return writeJar(o, stdout) })
	case "ha-trace":
		err = withOptions(parseHATrace, args, func(o haTraceOptions) error { return haTrace(o, stdout) })
	case "start-zookeeper-quorum":
		stop() // it handles SIGINT and SIGTERM itself
		opts, err := parseStartZooKeeperQuorum(args)
		if err != nil {
			return exitCode(err, action, stdout, stderr)
		}
		return startZooKeeperQuorum(opts, stdout, stderr)
	case "start-cluster", "run-application", "jobmanager", "standalone-job", "taskmanager":
		stop() // these handle SIGINT and SIGTERM themselves
		return runClusterAction(action, args, stdout, stderr)
	default:
		printInvalidAction(stdout, action)
		return 1
	}
	return exitCode(err, action, stdout, stderr)
}

// withOptions parses an action's arguments and runs it.
func withOptions[O any](parse func([]string) (O, error), args []string, action func(O) error) error {
	opts, err := parse(args)
	if err != nil {
		return err
	}
	return action(opts)
}

// exitCode prints what went wrong, as Flink's CliFrontend does: the usage
// of the action for -h, the message and a hint for a bad command line,
// and for any other failure "The program finished with the following
// exception".
func exitCode(err error, action string, stdout, stderr io.Writer) int {
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		printUsage(stdout, action)
		return 0
	case errors.As(err, &usage):
		fmt.Fprintln(stdout, usage.msg)
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, "Use the help option (-h or --help) to get help on the command.")
		return 1
	default:
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "------------------------------------------------------------")
		fmt.Fprintln(stderr, " The program finished with the following exception:")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, err)
		return 1
	}
}
