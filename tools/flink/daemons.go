package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"flinklab/runtime/entrypoint"
)

// runClusterAction runs one of the cluster's actions and returns the
// process's exit code.
func runClusterAction(action string, args []string, stdout, stderr io.Writer) int {
	switch action {
	case "start-cluster":
		opts, err := parseStartCluster(args)
		if err != nil {
			return exitCode(err, action, stdout, stderr)
		}
		return startCluster(opts, stdout, stderr)
	case "run-application":
		opts, err := parseRunApplication(args)
		if err != nil {
			return exitCode(err, action, stdout, stderr)
		}
		return runApplication(opts, stdout, stderr)
	case "jobmanager", "standalone-job":
		parse := parseJobManager
		if action == "standalone-job" {
			parse = parseStandaloneJob
		}
		opts, err := parse(args)
		if err != nil {
			return exitCode(err, action, stdout, stderr)
		}
		return runJobManager(action, opts, stderr)
	default: // "taskmanager"
		opts, err := parseTaskManager(args)
		if err != nil {
			return exitCode(err, action, stdout, stderr)
		}
		return runTaskManager(opts, stderr)
	}
}

// runJobManager runs a JobManager process until it is asked to stop or,
// in application mode, until its job has ended: bin/jobmanager.sh
// start-foreground, or bin/standalone-job.sh start-foreground.
func runJobManager(action string, opts jobManagerOptions, stderr io.Writer) int {
	logOnWithoutStderr()
	daemon := entrypoint.DaemonStandaloneSession
	if action == "standalone-job" {
		daemon = entrypoint.DaemonStandaloneJob
	}
	plog, err := entrypoint.OpenProcessLog(opts.logDir, entrypoint.LogFileBase(daemon, opts.logIndex), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "flink:", err)
		return 1
	}
	defer plog.Close()

	cfg := entrypoint.Config{
		RPCAddress:        opts.rpcAddress(),
		RESTAddress:       opts.restAddress(),
		BlobServerAddress: opts.blobServerAddress(),
		LogDir:            opts.logDir,
		Configuration:     opts.properties.configuration(),
		Logger:            plog.Logger,
	}
	jm := entrypoint.NewStandaloneSessionClusterEntrypoint(cfg)
	if action == "standalone-job" {
		jm = entrypoint.NewStandaloneApplicationClusterEntryPoint(cfg, entrypoint.Application{
			JarFile: opts.jarFile, Args: opts.args, Parallelism: opts.parallelism,
		})
	}
	if err := jm.Start(); err != nil {
		return jm.ExitCode()
	}
	announceReady(opts.readyFD, fmt.Sprintf("rpc=%s rest=%s blob=%s log=%s", jm.RPCAddress(), jm.RESTAddress(), jm.BlobServerAddress(), plog.Path))
	entrypoint.WaitForShutdown(plog.Logger, jm.Done(), watchLifeline(opts.lifelineFD, plog.Logger))
	if err := jm.Close(); err != nil {
		plog.Logger.Warn("The cluster did not shut down cleanly.", "cause", err.Error())
	}
	return jm.ExitCode()
}

// runTaskManager runs a TaskManager process until it is asked to stop:
// bin/taskmanager.sh start-foreground.
func runTaskManager(opts taskManagerOptions, stderr io.Writer) int {
	logOnWithoutStderr()
	plog, err := entrypoint.OpenProcessLog(opts.logDir, entrypoint.LogFileBase(entrypoint.DaemonTaskExecutor, opts.logIndex), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "flink:", err)
		return 1
	}
	defer plog.Close()

	tm := entrypoint.NewTaskManagerRunner(entrypoint.TaskManagerConfig{
		JobManagerAddress: opts.jobManager,
		BlobServerAddress: opts.blobServer,
		RPCAddress:        hostPort(opts.host, 0),
		NumberOfSlots:     opts.slots,
		Configuration:     opts.properties.configuration(),
		Logger:            plog.Logger,
	})
	if err := tm.Start(); err != nil {
		fmt.Fprintln(stderr, "flink:", err) // its log says so too, with the cause
		return 1
	}
	announceReady(opts.readyFD, fmt.Sprintf("resource-id=%s log=%s", tm.ResourceID(), plog.Path))
	entrypoint.WaitForShutdown(plog.Logger, nil, watchLifeline(opts.lifelineFD, plog.Logger))
	if err := tm.Close(); err != nil {
		plog.Logger.Warn("The TaskManager did not shut down cleanly.", "cause", err.Error())
	}
	return 0
}

// logOnWithoutStderr lets a daemon write its log file on after its
// stderr has gone. The stderr of a daemon that start-cluster started is a
// pipe to start-cluster, and a Go program that writes to a pipe nobody
// reads any more dies of SIGPIPE: a daemon whose start-cluster was killed
// would die on its next log line, before logging why it stops. With
// SIGPIPE ignored, that write fails instead, and the log file, written
// before stderr, keeps every line.
func logOnWithoutStderr() { signal.Ignore(syscall.SIGPIPE) }

// watchLifeline returns a channel closed when the pipe on file
// descriptor fd ends: the lifeline of a daemon, which ends when the
// process that started it (start-cluster) has exited, however it exited
// (see procattr.Lifeline). With fd 0 it is nil: nobody watches over the
// process. A pipe that cannot be read is no sign of the parent's end:
// it is logged, and the channel stays open.
func watchLifeline(fd int, log *slog.Logger) <-chan struct{} {
	if fd <= 0 {
		return nil
	}
	exited := make(chan struct{})
	go func() {
		pipe := os.NewFile(uintptr(fd), "lifeline")
		// Nothing is ever written: Copy returns at the end of the pipe,
		// with a nil error.
		if _, err := io.Copy(io.Discard, pipe); err != nil {
			log.Warn(fmt.Sprintf("Cannot watch the lifeline on file descriptor %d: the process will not notice its parent's end.", fd), "cause", err.Error())
			return
		}
		close(exited)
	}()
	return exited
}

// announceReady tells the process that started this one (start-cluster)
// that it is up, on the pipe it passed as file descriptor fd: one line,
// then the pipe is closed. With fd 0 nobody waits.
func announceReady(fd int, line string) {
	if fd <= 0 {
		return
	}
	pipe := os.NewFile(uintptr(fd), "ready")
	if pipe == nil {
		return
	}
	_, _ = fmt.Fprintln(pipe, line)
	_ = pipe.Close()
}
