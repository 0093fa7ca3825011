// Package gotest runs an exercise's tests with `go test -json` and reads
// the outcome: which tests passed and failed, what each printed, and
// whether the test binary crashed or did not build.
//
// A run may replace files without touching the working tree: `go test
// -overlay` reads a JSON map from a file's path to a stand-in, so the same
// tests can run against the holes punched, a mutant, or the reference.
// The build cache is keyed on content, so a stand-in equal to what is on
// disk reuses the cached build and result.
//
// go test links its test binary on every run, and for a test of a whole
// cluster the link costs more than the tests. Compile builds the binary
// once (go test -c) and ExecuteBinary runs it as often as needed, each
// time with its own environment, its output read the same way through go
// tool test2json.
package gotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Run describes one `go test` invocation.
type Run struct {
	Root    string // the module root: the working directory of go test
	Package string // "./exercises/m03"
	Pattern string // -run; empty: every test
	// Overlay holds stand-ins, keyed by path relative to Root. A go
	// command the tests run themselves (exercise h05's builds the flink
	// command) builds with them too: Execute passes the overlay on in
	// GOFLAGS.
	Overlay map[string][]byte
	Race    bool          // -race
	Timeout time.Duration // -timeout; zero: 2 minutes
	// FailFast stops at the first failing test (-failfast), for runs that
	// only ask whether any test fails.
	FailFast bool
	// Env is added to the environment of go test (and so of the test
	// binary), each "KEY=value".
	Env []string
	// SkipVet leaves out the go vet checks go test runs before the tests
	// (-vet=off). They look at the test files of the package under test,
	// which a learner does not edit, and on an empty build cache they cost
	// a third of the build: learn's runs skip them, and `make test` vets
	// every package itself.
	SkipVet bool
	// Started, if set, is called once, when go test is done building and
	// turns to running the tests (it writes {"Action":"start"} then; a
	// test file go vet refuses still fails after it). It is called on a
	// goroutine of Execute's, before Execute returns.
	Started func()
}

// Test is one test's outcome.
type Test struct {
	Name   string   // "TestSubmit/duplicate"
	Action string   // "pass", "fail" or "skip"
	Output []string // what it printed, lines without their newline
}

// Failed reports whether the test failed.
func (t *Test) Failed() bool { return t.Action == "fail" }

// Result is the outcome of a run.
type Result struct {
	Tests       []*Test  // in the order they started
	Output      []string // everything the package printed, in order
	Passed      bool     // the package passed, and at least one test passed in it
	NoTests     bool     // the package passed, but no test passed in it: none matched -run, or each skipped
	BuildFailed bool     // it did not compile; Output says why
	Crashed     bool     // the test binary died (an unrecovered panic, a timeout)
	Elapsed     time.Duration
}

// Test returns the named test, or nil.
func (r *Result) Test(name string) *Test {
	for _, t := range r.Tests {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// FirstFailure returns the first failed test that has no failed subtest
// (the most specific failure), or nil.
func (r *Result) FirstFailure() *Test {
	for _, t := range r.Tests {
		if !t.Failed() {
			continue
		}
		if !slices.ContainsFunc(r.Tests, func(sub *Test) bool {
			return sub.Failed() && strings.HasPrefix(sub.Name, t.Name+"/")
		}) {
			return t
		}
	}
	return nil
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// Execute runs the tests and reads their outcome. An error means go test
// could not be run at all; failing tests are a Result.
func Execute(ctx context.Context, run Run) (*Result, error) {
	args := []string{"test", "-json"}
	if run.Race {
		args = append(args, "-race")
	}
	if run.FailFast {
		args = append(args, "-failfast")
	}
	if run.SkipVet {
		args = append(args, "-vet=off")
	}
	timeout := run.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	args = append(args, "-timeout", timeout.String())
	if run.Pattern != "" {
		args = append(args, "-run", run.Pattern)
	}
	if len(run.Overlay) > 0 {
		overlay, cleanup, err := writeOverlay(run.Root, run.Overlay)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		args = append(args, "-overlay", overlay)
		run.Env = append(slices.Clone(run.Env), goflagsWith("-overlay="+overlay))
	}
	args = append(args, run.Package)

	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = run.Root
	return execute(ctx, cmd, run)
}

// execute runs cmd, which writes go test -json's events, and reads their
// outcome.
func execute(ctx context.Context, cmd *exec.Cmd, run Run) (*Result, error) {
	start := time.Now()
	if len(run.Env) > 0 {
		cmd.Env = append(os.Environ(), run.Env...)
	}
	stopWholeRun(cmd)
	var stdout startWatcher
	var stderr bytes.Buffer
	stdout.started = run.Started
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	result := parse(stdout.out.Bytes())
	result.Elapsed = time.Since(start)
	if stderr.Len() > 0 {
		// Build errors come on stderr (and as build-output events in
		// newer Go): either way the package did not compile.
		result.Output = append(result.Output, strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")...)
		if len(result.Tests) == 0 && !result.Passed {
			result.BuildFailed = true
		}
	}
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		return nil, fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
	}
	return result, nil
}

// Compile builds run's test binary once (go test -c, with run's overlay
// and -race), to be run many times by ExecuteBinary: a build is most of
// what a run of an exercise's tests costs. A package that does not build
// gives a Result with BuildFailed and no binary; cleanup removes the
// binary.
func Compile(ctx context.Context, run Run) (binary string, failed *Result, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "learn-test-")
	if err != nil {
		return "", nil, nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	binary = filepath.Join(dir, "exercise.test")
	args := []string{"test", "-c", "-o", binary}
	if run.Race {
		args = append(args, "-race")
	}
	if run.SkipVet {
		args = append(args, "-vet=off")
	}
	if len(run.Overlay) > 0 {
		overlay, removeOverlay, err := writeOverlay(run.Root, run.Overlay)
		if err != nil {
			cleanup()
			return "", nil, nil, err
		}
		defer removeOverlay()
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, run.Package)...)
	cmd.Dir = run.Root
	stopWholeRun(cmd)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		cleanup()
		return "", nil, nil, ctx.Err()
	}
	if err != nil {
		cleanup()
		if _, exited := err.(*exec.ExitError); !exited {
			return "", nil, nil, fmt.Errorf("go test -c: %w", err)
		}
		return "", &Result{BuildFailed: true, Output: strings.Split(strings.TrimRight(string(out), "\n"), "\n")}, func() {}, nil
	}
	return binary, nil, cleanup, nil
}

// ExecuteBinary runs a test binary Compile built from run, as Execute
// would run the tests: in the package's directory, with run's Pattern,
// FailFast, Timeout and Env, its output turned into go test -json's
// events by go tool test2json.
func ExecuteBinary(ctx context.Context, run Run, binary string) (*Result, error) {
	timeout := run.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	args := []string{"tool", "test2json", "-t", "-p", run.Package, binary, "-test.v=test2json", "-test.timeout", timeout.String()}
	if run.FailFast {
		args = append(args, "-test.failfast")
	}
	if run.Pattern != "" {
		args = append(args, "-test.run", run.Pattern)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Join(run.Root, filepath.FromSlash(run.Package))
	return execute(ctx, cmd, run)
}

// startWatcher keeps what go test -json writes, and calls started once,
// at the event go test writes as it turns from building to running the
// tests ({"Action":"start",…}). It is an io.Writer only: a bytes.Buffer
// embedded would lend it ReadFrom, which io.Copy would call instead of
// Write.
type startWatcher struct {
	out     bytes.Buffer
	started func()
	seen    bool
}

// startEvent is how the start event reads in go test -json's output.
var startEvent = []byte(`"Action":"start"`)

func (w *startWatcher) Write(p []byte) (int, error) {
	from := max(0, w.out.Len()-len(startEvent)) // the event may span two writes
	n, err := w.out.Write(p)
	if !w.seen && w.started != nil && bytes.Contains(w.out.Bytes()[from:], startEvent) {
		w.seen = true
		w.started()
	}
	return n, err
}

func parse(out []byte) *Result {
	r := &Result{}
	packagePassed := false
	byName := map[string]*Test{}
	partial := map[string]string{} // per test, the start of a line whose end has not come yet
	addLine := func(test, line string) {
		r.Output = append(r.Output, line)
		if t := byName[test]; t != nil {
			t.Output = append(t.Output, line)
		}
		if IsCrash(line) {
			r.Crashed = true
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "build-output":
			r.Output = append(r.Output, strings.TrimRight(e.Output, "\n"))
		case "build-fail":
			r.BuildFailed = true
		case "run":
			if e.Test != "" && byName[e.Test] == nil {
				t := &Test{Name: e.Test}
				byName[e.Test] = t
				r.Tests = append(r.Tests, t)
			}
		case "output":
			// test2json cuts a long line into several events: only the
			// last one ends with a newline.
			text := partial[e.Test] + e.Output
			if !strings.HasSuffix(text, "\n") {
				partial[e.Test] = text
				continue
			}
			delete(partial, e.Test)
			addLine(e.Test, strings.TrimRight(text, "\n"))
		case "pass", "fail", "skip":
			if t := byName[e.Test]; t != nil {
				t.Action = e.Action
			} else if e.Test == "" {
				packagePassed = e.Action == "pass"
			}
		}
	}
	for test, text := range partial {
		addLine(test, text)
	}
	// A run in which no test passed proves nothing, though go test says
	// "ok" when the -run pattern matches no test, or every test skips.
	r.NoTests = packagePassed && !slices.ContainsFunc(r.Tests, func(t *Test) bool { return t.Action == "pass" })
	r.Passed = packagePassed && !r.NoTests
	return r
}

// IsCrash reports whether a line of output is the first line of a crash
// of the test binary: an unrecovered panic (the -timeout's included) or a
// fatal error of the Go runtime.
func IsCrash(line string) bool {
	return strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")
}

// goflagsWith returns GOFLAGS=… as the environment has it, with flag
// added, quoted if it holds a space (as go reads GOFLAGS).
func goflagsWith(flag string) string {
	if strings.ContainsAny(flag, " \t") {
		flag = "'" + flag + "'"
	}
	return "GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" "+flag)
}

// writeOverlay writes each stand-in to a temporary directory and the
// overlay map that names them; cleanup removes both.
func writeOverlay(root string, files map[string][]byte) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "learn-overlay-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	absRoot, err := filepath.Abs(root)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	replace := map[string]string{}
	i := 0
	for rel, content := range files {
		i++
		standIn := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(rel)))
		if err := os.WriteFile(standIn, content, 0o644); err != nil {
			cleanup()
			return "", nil, err
		}
		replace[filepath.Join(absRoot, filepath.FromSlash(rel))] = standIn
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		cleanup()
		return "", nil, err
	}
	path = filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}
