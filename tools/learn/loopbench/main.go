// Command loopbench measures the learner's loop: how long `go run
// ./tools/learn check m03` takes, and how soon it says something, as a
// learner meets it. It never touches the tree it measures: it copies the
// repository into a temporary directory, starts exercise m03 there, and
// times, each over a few runs,
//
//  1. the first check on an empty build cache (GOCACHE in a temporary
//     directory), after `learn start`, which builds learn itself;
//  2. a check right after an edit of the hole (a wrong body written: one
//     expectation fails, nothing crashes);
//  3. the same failing check again, with nothing edited;
//  4. a passing check, right after the reference's body is written.
//
// The cold part takes minutes on a small machine: -skip-cold, or
// LEARN_BENCH_SKIP_COLD=1 in the environment, leaves it out, and the warm
// part then uses the build cache of `go env GOCACHE`.
//
//	go run ./tools/learn/loopbench                         # this repository
//	go run ./tools/learn/loopbench -repo ../other-checkout # another one, e.g. an older commit
//
// `make bench` runs it. Timings on a shared machine are noisy: each figure
// is a range over -runs runs, and the load average is printed with them.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"flinklab/tools/learn/hole"
)

// The exercise, its hole, and the file the hole is in.
const (
	exerciseID = "m03"
	holeFile   = "runtime/dispatcher/dispatcher.go"
	holeFunc   = "Dispatcher.checkAndSubmitJob"
	reference  = "solutions/m03/dispatcher.go"
)

func main() {
	repo := flag.String("repo", "", "the repository to measure (copied, never changed); empty: the one around the working directory")
	runs := flag.Int("runs", 3, "runs of each measurement")
	skipCold := flag.Bool("skip-cold", os.Getenv("LEARN_BENCH_SKIP_COLD") != "", "leave out the checks on an empty build cache (minutes)")
	flag.Parse()
	if err := run(*repo, *runs, *skipCold, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "loopbench: %v\n", err)
		os.Exit(1)
	}
}

// measurement is one row of the table: how long a command took, and when
// it wrote its first byte, over several runs.
type measurement struct {
	what         string
	total, first []time.Duration
}

func (m *measurement) add(t timing) {
	m.total = append(m.total, t.total)
	m.first = append(m.first, t.first)
}

func run(repo string, runs int, skipCold bool, out io.Writer) error {
	if repo == "" {
		var err error
		if repo, err = moduleRoot(); err != nil {
			return err
		}
	}
	version, _ := exec.Command("go", "version").Output()
	fmt.Fprintf(out, "Measuring the learner's loop of %s in copies of %s: %d runs each, %s, %d cores.\n",
		exerciseID, repo, runs, strings.TrimSpace(string(version)), runtime.NumCPU())
	fmt.Fprintf(out, "Load average at the start: %s\n\n", loadAverage())

	var (
		rows    []*measurement
		warm    *tree // the tree and cache the warm part uses
		cleanup []func()
	)
	defer func() {
		for _, f := range slices.Backward(cleanup) {
			f()
		}
	}()
	row := func(what string) *measurement {
		m := &measurement{what: what}
		rows = append(rows, m)
		return m
	}

	if !skipCold {
		start, first := row("cold: learn start (go run builds learn)"), row("cold: first check (empty build cache)")
		for i := range runs {
			t, err := newTree(repo, true)
			if err != nil {
				return err
			}
			cleanup = append(cleanup, t.remove)
			fmt.Fprintf(out, "cold run %d of %d…\n", i+1, runs)
			timed, err := t.learn(0, "start", exerciseID)
			if err != nil {
				return err
			}
			start.add(timed)
			if timed, err = t.learn(1, "check", exerciseID); err != nil {
				return err
			}
			first.add(timed)
			warm = t // the last one's build cache is warm for what follows
		}
	} else {
		t, err := newTree(repo, false)
		if err != nil {
			return err
		}
		cleanup = append(cleanup, t.remove)
		if _, err := t.learn(0, "start", exerciseID); err != nil {
			return err
		}
		fmt.Fprintln(out, "warming the build cache…")
		if _, err := t.learn(1, "check", exerciseID); err != nil {
			return err
		}
		warm = t
	}

	edited, failing, passing := row("check after an edit (a wrong body)"), row("failing check, nothing edited"), row("passing check after an edit (the reference's body)")
	for i := range runs {
		fmt.Fprintf(out, "warm run %d of %d…\n", i+1, runs)
		if err := warm.writeBody(i, true); err != nil {
			return err
		}
		for _, m := range []*measurement{edited, failing} {
			timed, err := warm.learn(1, "check", exerciseID)
			if err != nil {
				return err
			}
			m.add(timed)
		}
		if err := warm.writeBody(i, false); err != nil {
			return err
		}
		timed, err := warm.learn(0, "check", exerciseID)
		if err != nil {
			return err
		}
		passing.add(timed)
	}

	fmt.Fprintf(out, "\nLoad average at the end: %s\n\n", loadAverage())
	fmt.Fprintln(out, "| measure | total | first output after |")
	fmt.Fprintln(out, "|---|---|---|")
	for _, m := range rows {
		fmt.Fprintf(out, "| %s | %s | %s |\n", m.what, span(m.total), span(m.first))
	}
	return nil
}

// span says durations as a range, "2.1–2.9 s".
func span(ds []time.Duration) string {
	if len(ds) == 0 {
		return "–"
	}
	lo, hi := slices.Min(ds), slices.Max(ds)
	if lo.Round(100*time.Millisecond) == hi.Round(100*time.Millisecond) {
		return fmt.Sprintf("%.1f s", lo.Seconds())
	}
	return fmt.Sprintf("%.1f–%.1f s", lo.Seconds(), hi.Seconds())
}

// tree is a copy of the repository and the build cache its commands use.
type tree struct {
	dir     string
	gocache string // empty: go env GOCACHE
}

// newTree copies repo into a temporary directory, with an empty build
// cache of its own if cold.
func newTree(repo string, cold bool) (*tree, error) {
	dir, err := os.MkdirTemp("", "loopbench-tree-")
	if err != nil {
		return nil, err
	}
	t := &tree{dir: dir}
	if cold {
		if t.gocache, err = os.MkdirTemp("", "loopbench-gocache-"); err != nil {
			t.remove()
			return nil, err
		}
	}
	if err := copyTree(repo, dir); err != nil {
		t.remove()
		return nil, err
	}
	return t, nil
}

func (t *tree) remove() {
	// The build cache's files are read-only: make them writable first.
	for _, dir := range []string{t.dir, t.gocache} {
		if dir == "" {
			continue
		}
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(path, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	}
}

// timing is how long a command took, and when it first wrote.
type timing struct {
	total, first time.Duration
}

// learn runs `go run ./tools/learn args…` in the tree and times it; it
// must exit with wantExit (a check that fails exits 1).
func (t *tree) learn(wantExit int, args ...string) (timing, error) {
	cmd := exec.Command("go", append([]string{"run", "./tools/learn"}, args...)...)
	cmd.Dir = t.dir
	cmd.Env = os.Environ()
	if t.gocache != "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+t.gocache)
	}
	w := &firstWrite{}
	cmd.Stdout, cmd.Stderr = w, w
	w.start = time.Now()
	err := cmd.Run()
	total := time.Since(w.start)
	exit := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		exit = exitErr.ExitCode()
	} else if err != nil {
		return timing{}, err
	}
	if exit != wantExit {
		return timing{}, fmt.Errorf("learn %s exited %d, want %d:\n%s", strings.Join(args, " "), exit, wantExit, w.String())
	}
	return timing{total: total, first: w.firstAt()}, nil
}

// firstWrite keeps what a command writes, and when it first wrote.
type firstWrite struct {
	mu    sync.Mutex
	start time.Time
	first time.Duration
	b     bytes.Buffer
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() == 0 && len(p) > 0 {
		w.first = time.Since(w.start)
	}
	return w.b.Write(p)
}

func (w *firstWrite) firstAt() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

func (w *firstWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// writeBody writes the hole's body as a learner would: the reference's,
// or without the warning for a globally-terminated job (wrong), a mistake
// that fails one expectation (TestAFinishedJobSubmittedAgainIsRefused…)
// without crashing the test binary. Each run's body differs
// from the last (a check for a nil JobGraph, numbered), so that every
// edit is a real change the build must compile.
func (t *tree) writeBody(run int, wrong bool) error {
	ref, err := os.ReadFile(filepath.Join(t.dir, reference))
	if err != nil {
		return err
	}
	fn, err := hole.Find(ref, holeFunc)
	if err != nil {
		return err
	}
	body := fn.Body
	if wrong {
		// Everything right but the warning Flink logs when it refuses a
		// job that already reached a globally-terminal state: one test
		// fails on an expectation, and nothing crashes.
		lines := strings.Split(body, "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "d.log.Warn(") })
		if i < 0 {
			return fmt.Errorf("%s: the reference logs no warning", reference)
		}
		body = strings.Join(slices.Delete(lines, i, i+1), "\n")
	}
	body = fmt.Sprintf("\n\tif g == nil {\n\t\treturn &JobSubmissionError{Message: \"no JobGraph (edit %d, wrong %t)\"}\n\t}%s", run, wrong, body)

	path := filepath.Join(t.dir, holeFile)
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	imports, err := hole.Imports(ref)
	if err != nil {
		return err
	}
	written, err := hole.Replace(src, map[string]string{holeFunc: body}, imports)
	if err != nil {
		return err
	}
	return os.WriteFile(path, written, 0o644)
}

// copyTree copies the repository at src to dst, without its git data and
// the learner's progress.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel == ".git" || rel == ".learn-progress" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !info.Mode().IsRegular():
			return nil // sockets, links: nothing the build needs
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}

// moduleRoot finds the flinklab repository above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module flinklab\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the flinklab repository; give -repo")
		}
		dir = parent
	}
}

// loadAverage is the machine's load, where the system tells it: how busy
// the cores were with other work while the figures were taken.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return "unknown"
	}
	return strings.Join(fields[:3], " ") + " (1, 5, 15 min)"
}
