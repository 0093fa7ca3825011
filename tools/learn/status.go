package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// A check is quiet when it is quick: a learner who saves and checks again
// sees the verdict a second or two later. On an empty build cache the
// first check builds the standard library, the runtime and the tests
// first, which takes a minute on a small machine, and a terminal that
// shows nothing for that long looks hung. So once a check has run for
// statusDelay, a status line says what go test is doing, and once go list
// has counted the packages to compile (half a second later), roughly how
// long that takes. On a terminal the line is redrawn every statusTick
// with a spinner and the time so far, and rubbed out when the verdict
// comes; elsewhere (a pipe, a file) it is written once, and the estimate
// follows on a line of its own when the build takes long.
const (
	statusDelay = 300 * time.Millisecond
	statusTick  = 100 * time.Millisecond
)

// spinner is drawn at the start of the live status line, one frame a tick.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// checkStatus is the status line of one check. Its methods may be called
// from any goroutine; it writes to out only from its own goroutine, until
// stop returns.
type checkStatus struct {
	out   io.Writer
	live  bool   // a terminal: one line, redrawn in place
	id    string // the exercise
	stale func(context.Context) (int, error)
	cpus  int // for the estimate

	mu       sync.Mutex
	running  bool // the build is done and the tests run
	packages int  // how many packages the build compiles; -1 until known
	changed  chan struct{}

	ctx     context.Context // ends at stop: cancels the count
	cancel  context.CancelFunc
	workers sync.WaitGroup
}

// startStatus starts the status line of a check of exercise id, written
// to out; live says that out is a terminal. stale counts the packages the
// build has to compile; it is asked only once the check has taken
// statusDelay, so that a quick check costs nothing.
func startStatus(out io.Writer, live bool, id string, stale func(context.Context) (int, error)) *checkStatus {
	return newStatus(out, live, id, stale, runtime.NumCPU())
}

// newStatus is startStatus on a machine of cpus cores.
func newStatus(out io.Writer, live bool, id string, stale func(context.Context) (int, error), cpus int) *checkStatus {
	s := &checkStatus{out: out, live: live, id: id, stale: stale, cpus: cpus, packages: -1, changed: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.workers.Go(s.run)
	return s
}

// testsRunning says that the build is done and the test binary runs.
func (s *checkStatus) testsRunning() {
	s.update(func() { s.running = true })
}

// planned says how many packages go test has to compile.
func (s *checkStatus) planned(packages int) {
	s.update(func() { s.packages = packages })
}

func (s *checkStatus) update(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
	close(s.changed)
	s.changed = make(chan struct{})
}

// snapshot returns what the line says now, and a channel closed at the
// next change.
func (s *checkStatus) snapshot() (running bool, packages int, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running, s.packages, s.changed
}

// stop ends the status line: on a terminal the line is rubbed out, so
// that the verdict starts on a clean line; elsewhere what was written
// stays. It returns once nothing more will be written.
func (s *checkStatus) stop() {
	s.cancel()
	s.workers.Wait()
}

func (s *checkStatus) run() {
	start := time.Now()
	if !s.sleep(statusDelay) {
		return // a quick check says nothing
	}
	s.workers.Go(func() {
		if n, err := s.stale(s.ctx); err == nil {
			s.planned(n)
		}
	})
	if s.live {
		s.redraw(start)
		return
	}
	// Elsewhere than a terminal the status is a log, not an animation:
	// one line now, and one with the estimate if the build takes long.
	// The first line never waits for the count, nor shows it: the count
	// comes from another goroutine, so whether it is there yet is
	// chance, and the log must not depend on it.
	running, packages, changed := s.snapshot()
	fmt.Fprintln(s.out, s.describe(running, -1))
	for packages < 0 && !running {
		select {
		case <-s.ctx.Done():
			return
		case <-changed:
			running, packages, changed = s.snapshot()
		}
	}
	if !running && buildSeconds(packages, s.cpus) >= longBuild {
		fmt.Fprintln(s.out, s.describe(running, packages))
	}
}

// redraw draws the live line every statusTick, and at once on a change,
// until stop; then it rubs the line out. The line is kept short, so that
// it never wraps: a wrapped line would not be rubbed out whole.
func (s *checkStatus) redraw(start time.Time) {
	ticker := time.NewTicker(statusTick)
	defer ticker.Stop()
	for frame := 0; ; frame++ {
		running, packages, changed := s.snapshot()
		elapsed := time.Since(start).Truncate(time.Second)
		fmt.Fprintf(s.out, "\r\x1b[K%s %s %s", spinner[frame%len(spinner)], s.describe(running, packages), elapsed)
		select {
		case <-s.ctx.Done():
			fmt.Fprint(s.out, "\r\x1b[K")
			return
		case <-changed:
		case <-ticker.C:
		}
	}
}

// sleep waits for d, and reports false if stop came first.
func (s *checkStatus) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// describe says what the check is doing: on a terminal in a few words,
// elsewhere in a sentence.
func (s *checkStatus) describe(running bool, packages int) string {
	switch {
	case running:
		return s.id + ": running the tests…"
	case packages <= 0:
		return s.id + ": go test is building the tests…"
	case s.live:
		return fmt.Sprintf("%s: compiling %s, %s…", s.id, plural(packages, "package"), buildTime(packages, s.cpus))
	}
	why := ""
	if packages > emptyCache {
		why = " (the build cache was empty; later checks reuse this build)"
	}
	return fmt.Sprintf("%s: go test compiles %s before the tests run: %s on %d cores%s…",
		s.id, plural(packages, "package"), buildTime(packages, s.cpus), s.cpus, why)
}

// emptyCache is a count of packages to compile that means the standard
// library is among them: the build cache was empty, or was cleaned.
const emptyCache = 50

// buildSeconds estimates how long go test takes to compile packages on
// cpus cores, then link and start the tests. A package takes about 0.3 s
// of one core, on average over the standard library, the runtime and the
// tests: the first check of m03 on an empty build cache compiles about
// 130 packages (learn's own build has compiled the rest) in 20–40 s on 2
// cores, with other builds running.
func buildSeconds(packages, cpus int) float64 {
	return 0.3*float64(max(packages, 0))/float64(max(cpus, 1)) + 1
}

// longBuild is a build that takes long enough (in seconds) to be worth a
// line of its own elsewhere than on a terminal.
const longBuild = 5

// buildTime says roughly how long go test takes to compile packages on
// cpus cores (see buildSeconds).
func buildTime(packages, cpus int) string {
	seconds := buildSeconds(packages, cpus)
	if seconds < longBuild {
		return "a few seconds"
	}
	return "roughly " + roundedDuration(seconds)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// roundedDuration says seconds as a person would: "10 s", "40 s", "2 min".
func roundedDuration(seconds float64) string {
	if seconds < 90 {
		return fmt.Sprintf("%d s", max(10, int(seconds/10+0.5)*10))
	}
	return fmt.Sprintf("%d min", int(seconds/60+0.5))
}

// stalePackages asks go list how many packages a build of the tests in
// pkg has to compile (the test binary's dependencies the build cache does
// not hold). It takes a quarter of a second with a warm cache and half a
// second with an empty one: cheap next to the build it measures.
func stalePackages(ctx context.Context, root, pkg string) (int, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-test", "-f", "{{if .Stale}}stale{{end}}", pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	return strings.Count(string(out), "stale"), nil
}

// statusOut returns where a check's status line goes, and whether that is
// a terminal: only to the process's own standard output or error, so that
// a check whose output is collected (a test, a buffer) gets none.
func statusOut(out io.Writer) (w io.Writer, live, ok bool) {
	f, isFile := out.(*os.File)
	if !isFile || (f != os.Stdout && f != os.Stderr) {
		return nil, false, false
	}
	return f, isTerminal(f), true
}
