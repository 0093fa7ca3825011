package watch

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests use the real inotify, so they run outside synctest: its
// reading goroutine waits in a system call, which is never durably
// blocked. They never sleep either: each blocks on the changes channel
// until the path it expects arrives, and a missing event shows up as the
// test binary's timeout.

// startNotifier watches root with inotify and runs the notifier until the
// test ends. Before it runs, prepare may change the notifier.
func startNotifier(t *testing.T, cfg Config, prepare func(n *notifier)) <-chan string {
	t.Helper()
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	n, err := newNotifier(cfg)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	if err := n.watchTrees(); err != nil {
		n.w.Close()
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan string)
	returned := make(chan error)
	go func() { returned <- n.run(ctx, changes) }()
	t.Cleanup(func() {
		cancel()
		if err := <-returned; err != nil {
			t.Errorf("notifier: %v", err)
		}
	})
	return changes
}

// receiveUntil receives changed paths until want arrives, and returns all
// it received, want last.
func receiveUntil(t *testing.T, changes <-chan string, want string) []string {
	t.Helper()
	var got []string
	for path := range changes {
		got = append(got, path)
		if path == want {
			return got
		}
	}
	t.Fatalf("changes closed before %s arrived", want)
	return nil
}

func TestNotifierReportsFilesThatMatter(t *testing.T) {
	root := t.TempDir()
	changes := startNotifier(t, Config{Roots: []string{root}}, nil)

	// Files that do not matter come first; inotify keeps the order of
	// events, so none of them may arrive before a.go does.
	writeFile(t, root, ".hidden.go", "package a")
	writeFile(t, root, ".a.go.swp", "swap")
	writeFile(t, root, "a.go~", "backup")
	writeFile(t, root, "#a.go#", "auto-save")
	writeFile(t, root, "4913", "")
	writeFile(t, root, "openapi.json", "{}")
	writeFile(t, root, ".git/HEAD.go", "package git") // a dot-directory is not watched
	a := writeFile(t, root, "a.go", "package a")

	for _, got := range receiveUntil(t, changes, a) {
		if got != a {
			t.Errorf("changed %s, which does not matter", got)
		}
	}
}

func TestNotifierWatchesNewDirectories(t *testing.T) {
	root := t.TempDir()
	changes := startNotifier(t, Config{Roots: []string{root}}, nil)

	// A new directory, and a file in it written right away: the file may
	// be there before the watch is, and is reported either way.
	b := writeFile(t, root, "sub/b.go", "package sub")
	receiveUntil(t, changes, b)

	// Once b.go arrived, sub has a watch: c.go can only come through it.
	c := writeFile(t, root, "sub/c.go", "package sub")
	receiveUntil(t, changes, c)

	// mkdir -p: directories nested in a new one are watched too.
	d := writeFile(t, root, "one/two/three/d.go", "package three")
	receiveUntil(t, changes, d)
	e := writeFile(t, root, "one/two/three/e.go", "package three")
	receiveUntil(t, changes, e)
}

func TestNotifierFollowsARenamedDirectory(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "old/inner/a.go", "package inner")
	changes := startNotifier(t, Config{Roots: []string{root}}, nil)

	oldDir, newDir := filepath.Join(root, "old"), filepath.Join(root, "new")
	if err := os.Rename(oldDir, newDir); err != nil {
		t.Fatal(err)
	}
	// The move reports the directory that went away and the files that
	// arrived under the new name.
	moved := filepath.Join(newDir, "inner", "a.go")
	got := receiveUntil(t, changes, moved)
	if !slices.Contains(got, oldDir) {
		t.Errorf("changed %q, want %s among them", got, oldDir)
	}

	// A write in the moved tree must come under its new name: the kernel
	// keeps the old watches, which still carry the old names.
	b := writeFile(t, root, "new/inner/b.go", "package inner")
	for got := range changes {
		if strings.HasPrefix(got, oldDir) {
			t.Fatalf("changed %s, under the directory's old name", got)
		}
		if got == b {
			break
		}
	}
}

// recordHandler is a slog.Handler that hands each record to the test.
type recordHandler struct{ records chan<- slog.Record }

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.records <- r
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }

// TestNotifierPollsWhenTheWatchLimitIsReached fills the watch limit the
// way the kernel reports it (ENOSPC from inotify_add_watch) when a new
// directory arrives: the notifier goes on polling.
func TestNotifierPollsWhenTheWatchLimitIsReached(t *testing.T) {
	root := t.TempDir()
	records := make(chan slog.Record, 1)
	cfg := Config{
		Roots:        []string{root},
		PollInterval: time.Millisecond, // real time: the test waits for a change, not for the clock
		Logger:       slog.New(recordHandler{records}),
	}
	changes := startNotifier(t, cfg, func(n *notifier) {
		n.add = func(string) error { return syscall.ENOSPC }
	})

	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := <-records
	if got, want := r.Level, slog.LevelWarn; got != want {
		t.Errorf("logged at %v, want %v", got, want)
	}
	// From here on only the poller can see changes: inotify is closed.
	a := writeFile(t, root, "sub/a.go", "package sub")
	receiveUntil(t, changes, a)
}

func TestWatchTreesFailsAtTheWatchLimit(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "pkg/a.go", "package pkg")
	cfg, err := Config{Roots: []string{root}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	n, err := newNotifier(cfg)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	defer n.w.Close()
	n.add = func(dir string) error {
		if dir == root {
			return n.w.Add(dir)
		}
		return syscall.ENOSPC
	}

	if err := n.watchTrees(); !errors.Is(err, errInotifyUnavailable) || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("watchTrees() = %v, want errInotifyUnavailable wrapping ENOSPC", err)
	}
}
