package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"flinklab/runtime/highavailability/hatrace"
)

// haTraceOptions are the options of "ha-trace".
type haTraceOptions struct {
	logDir string
}

func parseHATrace(args []string) (haTraceOptions, error) {
	fs := newFlagSet("ha-trace")
	opts := haTraceOptions{}
	fs.StringVar(&opts.logDir, "log-dir", defaultLogDir(), "")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usagef("ha-trace takes no arguments, got %q", fs.Arg(0))
	}
	return opts, nil
}

// haTrace is "ha-trace": the steps h1–h5 of the last failover, read from
// the logs of a cluster's processes in the log directory, what ended the
// leadership before it (or what the only leader survived), and the first
// step that is missing.
func haTrace(opts haTraceOptions, stdout io.Writer) error {
	entries, err := os.ReadDir(opts.logDir)
	if err != nil {
		return err
	}
	var logs []hatrace.Log
	for _, e := range entries {
		process := hatrace.ProcessOf(e.Name())
		if process == "" {
			continue
		}
		f, err := os.Open(filepath.Join(opts.logDir, e.Name()))
		if err != nil {
			return err
		}
		l, err := hatrace.ReadLog(process, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", e.Name(), err)
		}
		logs = append(logs, l)
	}
	if len(logs) == 0 {
		return fmt.Errorf("no JobManager or TaskManager log in %s", opts.logDir)
	}
	slices.SortFunc(logs, func(a, b hatrace.Log) int { return strings.Compare(a.Process, b.Process) })
	events, session := hatrace.Trace(logs)
	if session != "" {
		fmt.Fprintf(stdout, "The last leader session, %s:\n", session)
	}
	for _, e := range events {
		fmt.Fprintln(stdout, e)
	}
	if cause, ok := hatrace.Explain(logs); ok {
		fmt.Fprintln(stdout, cause)
	}
	fmt.Fprintln(stdout, hatrace.Diagnose(logs))
	return nil
}
