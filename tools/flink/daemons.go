package main

import (
	"fmt"
	"io"
	"os"

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
	entrypoint.WaitForShutdown(plog.Logger, jm.Done())
	if err := jm.Close(); err != nil {
		plog.Logger.Warn("The cluster did not shut down cleanly.", "cause", err.Error())
	}
	return jm.ExitCode()
}

// runTaskManager runs a TaskManager process until it is asked to stop:
// bin/taskmanager.sh start-foreground.
func runTaskManager(opts taskManagerOptions, stderr io.Writer) int {
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
	entrypoint.WaitForShutdown(plog.Logger, nil)
	if err := tm.Close(); err != nil {
		plog.Logger.Warn("The TaskManager did not shut down cleanly.", "cause", err.Error())
	}
	return 0
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
