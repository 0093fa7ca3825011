package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRunRefusesABadConfig(t *testing.T) {
	root := t.TempDir()
	file := writeFile(t, root, "a.go", "package a")
	link := filepath.Join(root, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		roots []string
		want  string // in the error
	}{
		{"no roots", nil, "no roots"},
		{"a root that does not exist", []string{filepath.Join(root, "missing")}, "no such file"},
		{"a root that is a file", []string{file}, "not a directory"},
		{"a root that is a symbolic link", []string{link}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(t.Context(), Config{Roots: tt.roots}, func(context.Context, []string) {
				t.Error("run was called")
			})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run() = %v, want an error about %q", err, tt.want)
			}
		})
	}
}

// TestRunPolling is the whole path from a save to a run, with the poller
// as the source, on the fake clock: the poll interval, then the debounce.
// The run stops watching as the exercise command does once the check is
// green, by cancelling Run's ctx.
func TestRunPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		a := writeFile(t, root, "pkg/a.go", "package pkg")
		start := time.Now()

		ctx, stop := context.WithCancel(t.Context())
		type runAt struct {
			at      time.Duration
			changed []string
		}
		var runs []runAt
		returned := make(chan error)
		go func() {
			returned <- Run(ctx, Config{Roots: []string{root}, Poll: true, RunAtStart: true},
				func(ctx context.Context, changed []string) {
					runs = append(runs, runAt{time.Since(start), changed})
					if len(runs) == 2 {
						stop() // green: stop watching
					}
				})
		}()

		synctest.Wait()                                        // the baseline scan is done, and the run at start
		writeFile(t, root, "pkg/a.go", "package pkg // saved") // at 0
		if err := <-returned; err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}

		want := []runAt{
			{0, nil},
			{DefaultPollInterval + DefaultDebounce, []string{a}}, // seen by the scan at 500 ms, run 150 ms later
		}
		if len(runs) != len(want) {
			t.Fatalf("runs = %v, want %v", runs, want)
		}
		for i := range want {
			if runs[i].at != want[i].at || !slices.Equal(runs[i].changed, want[i].changed) {
				t.Errorf("run %d = %v, want %v", i, runs[i], want[i])
			}
		}
	})
}

// TestRunWithInotify is the same path with inotify, in real time: the run
// at start saves a file, and the next run must be given it.
func TestRunWithInotify(t *testing.T) {
	root := t.TempDir()
	var a string
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var runs [][]string
	err := Run(ctx, Config{Roots: []string{root}, RunAtStart: true}, func(ctx context.Context, changed []string) {
		runs = append(runs, changed)
		if len(runs) == 1 {
			// The trees are watched by now. (Not writeFile: this is not the
			// test's goroutine, where t.Fatal belongs.)
			a = filepath.Join(root, "sub", "a.go")
			if err := os.Mkdir(filepath.Dir(a), 0o755); err != nil {
				t.Error(err)
			}
			if err := os.WriteFile(a, []byte("package sub"), 0o644); err != nil {
				t.Error(err)
			}
			return
		}
		if slices.Contains(changed, a) {
			stop()
		}
	})
	if err != nil {
		t.Errorf("Run() = %v, want nil", err)
	}
	if len(runs) < 2 || runs[0] != nil {
		t.Errorf("runs = %q, want the run at start with no paths, then %s", runs, a)
	}
}
