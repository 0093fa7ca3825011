package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// writeFile writes content to root/rel, making the directories it needs.
func writeFile(t *testing.T, root, rel, content string) string {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPollerScan checks what one scan sees after one kind of change. The
// tree starts with pkg/a.go and pkg/b.go and is scanned once, the
// baseline, before the change.
func TestPollerScan(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   []string // relative to the root
	}{{
		name:   "nothing changed",
		change: func(t *testing.T, root string) {},
		want:   nil,
	}, {
		name:   "a file grew",
		change: func(t *testing.T, root string) { writeFile(t, root, "pkg/a.go", "package pkg // more") },
		want:   []string{"pkg/a.go"},
	}, {
		name: "a file kept its size but has a newer modification time",
		change: func(t *testing.T, root string) {
			later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // set, not waited for: the clock is not the test's
			if err := os.Chtimes(filepath.Join(root, "pkg", "b.go"), later, later); err != nil {
				t.Fatal(err)
			}
		},
		want: []string{"pkg/b.go"},
	}, {
		name:   "a new file",
		change: func(t *testing.T, root string) { writeFile(t, root, "pkg/c.go", "package pkg") },
		want:   []string{"pkg/c.go"},
	}, {
		name: "a removed file",
		change: func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "pkg", "a.go")); err != nil {
				t.Fatal(err)
			}
		},
		want: []string{"pkg/a.go"},
	}, {
		name: "a new directory with files, in testdata too",
		change: func(t *testing.T, root string) {
			writeFile(t, root, "newpkg/x.go", "package newpkg")
			writeFile(t, root, "newpkg/testdata/seed", "{}")
		},
		want: []string{"newpkg/testdata/seed", "newpkg/x.go"},
	}, {
		name: "a removed directory: each of its files",
		change: func(t *testing.T, root string) {
			if err := os.RemoveAll(filepath.Join(root, "pkg")); err != nil {
				t.Fatal(err)
			}
		},
		want: []string{"pkg/a.go", "pkg/b.go"},
	}, {
		name: "files that do not matter, and a dot-directory",
		change: func(t *testing.T, root string) {
			writeFile(t, root, "pkg/a.go~", "backup")
			writeFile(t, root, "pkg/.a.go.swp", "swap")
			writeFile(t, root, "pkg/4913", "")
			writeFile(t, root, "pkg/openapi.json", "{}")
			writeFile(t, root, ".git/objects/x.go", "package x")
		},
		want: nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, root, "pkg/a.go", "package pkg")
			writeFile(t, root, "pkg/b.go", "package pkg")
			p := newPoller([]string{root}, DefaultMatters, time.Second)

			tt.change(t, root)
			got := p.scan()

			var want []string
			for _, rel := range tt.want {
				want = append(want, filepath.Join(root, filepath.FromSlash(rel)))
			}
			if !slices.Equal(got, want) {
				t.Errorf("scan() = %q, want %q", got, want)
			}
			if again := p.scan(); again != nil {
				t.Errorf("a second scan = %q, want nothing: a change is reported once", again)
			}
		})
	}
}

// TestPollerRun checks the poller's clock: a change is seen at the next
// scan, one interval after the previous one ended, and not before.
func TestPollerRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		a := writeFile(t, root, "a.go", "package a")
		start := time.Now()
		p := newPoller([]string{root}, DefaultMatters, 500*time.Millisecond) // the baseline, at 0

		ctx, cancel := context.WithCancel(t.Context())
		changes := make(chan string)
		returned := make(chan error)
		go func() { returned <- p.run(ctx, changes) }()

		writeFile(t, root, "a.go", "package a // 1") // at 0
		if got := <-changes; got != a {
			t.Errorf("changed %s, want %s", got, a)
		}
		if got, want := time.Since(start), 500*time.Millisecond; got != want {
			t.Errorf("change seen at %v, want %v: the first scan after the baseline", got, want)
		}

		time.Sleep(100 * time.Millisecond)           // fake time
		b := writeFile(t, root, "b.go", "package a") // at 600 ms
		time.Sleep(300 * time.Millisecond)           // fake time: 900 ms, before the next scan
		synctest.Wait()
		select {
		case got := <-changes:
			t.Fatalf("changed %s at %v, before the next scan", got, time.Since(start))
		default:
		}
		if got := <-changes; got != b {
			t.Errorf("changed %s, want %s", got, b)
		}
		if got, want := time.Since(start), time.Second; got != want {
			t.Errorf("change seen at %v, want %v", got, want)
		}

		time.Sleep(10 * time.Second) // fake time: 20 scans, and nothing more to report
		synctest.Wait()
		select {
		case got := <-changes:
			t.Errorf("changed %s with nothing written", got)
		default:
		}

		cancel()
		if err := <-returned; err != nil {
			t.Errorf("run returned %v, want nil", err)
		}
	})
}
