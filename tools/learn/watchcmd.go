package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/watch"
)

// watch checks an exercise on every save. With an id it stops when that
// exercise is green; without one it takes the next unfinished exercise,
// and the next after that, offering to start each.
func (c *course) watch(ctx context.Context, id string, poll bool, out io.Writer) error {
	for {
		e := c.next()
		if id != "" {
			var err error
			if e, err = c.exercise(id); err != nil {
				return err
			}
		}
		if e == nil {
			fmt.Fprintln(out, "Every exercise is done. `go run ./tools/learn list` shows them; lessons/ has what comes next.")
			return nil
		}
		if c.state(e) == notStarted {
			started, err := c.offerStart(ctx, e, os.Stdin, isTerminal(os.Stdin), out)
			if !started || err != nil {
				return err
			}
		}
		passed, err := c.watchOne(ctx, e, poll, out)
		if err != nil || !passed || id != "" {
			return err
		}
		fmt.Fprintf(out, "\n%s is done. `go run ./tools/learn solution %s` shows the reference and why it is written so.\n\n", e.ID, e.ID)
	}
}

// isTerminal reports whether f is a terminal, where a person can answer.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	// /dev/null is a character device too, and nobody answers there.
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(info, null)
}

// offerStart asks, on a terminal, whether to start the exercise, and
// starts it; elsewhere it says how to. Ctrl-C and Ctrl-D answer no.
func (c *course) offerStart(ctx context.Context, e *exercise.Exercise, in io.Reader, terminal bool, out io.Writer) (started bool, err error) {
	c.describe(e, out)
	if !terminal {
		fmt.Fprintf(out, "\nStart it with: go run ./tools/learn start %s\n", e.ID)
		return false, nil
	}
	what := "it"
	switch e.Kind {
	case exercise.Write:
		what = "it: this turns " + strings.Join(holeNames(e), ", ") + " into holes"
	case exercise.Diagnose:
		what = "it: a cluster runs and its logs are kept"
	}
	fmt.Fprintf(out, "\nStart %s? [Y/n] ", what)
	// The signal that ends ctx does not end a read of the terminal: read
	// on a goroutine of its own, which Ctrl-C leaves behind as learn exits.
	answered := make(chan string, 1)
	go func() {
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil {
			line = "n" // Ctrl-D
		}
		answered <- line
	}()
	var answer string
	select {
	case <-ctx.Done():
		return false, nil
	case answer = <-answered:
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	if answer != "" && answer != "y" && answer != "yes" {
		fmt.Fprintf(out, "\nNot started. Start it later with: go run ./tools/learn start %s\n", e.ID)
		return false, nil
	}
	fmt.Fprintln(out)
	if e.Kind == exercise.Diagnose {
		return true, c.startDrill(ctx, e, out)
	}
	if err := c.punchAndRecord(e, false); err != nil {
		return false, err
	}
	return true, nil
}

func holeNames(e *exercise.Exercise) []string {
	var names []string
	for _, h := range e.Holes {
		names = append(names, h.Func)
	}
	return names
}

// watchOne checks e now and after every save until it passes (true) or
// ctx ends (false).
func (c *course) watchOne(ctx context.Context, e *exercise.Exercise, poll bool, out io.Writer) (bool, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	roots := []string{c.path("runtime"), c.path(e.Dir)}
	passed := false
	err := watch.Run(ctx, watch.Config{Roots: roots, Poll: poll, RunAtStart: true}, func(ctx context.Context, changed []string) {
		if len(changed) > 0 {
			rel, _ := filepath.Rel(c.root, changed[0])
			fmt.Fprintf(out, "\n── %s saved: checking %s again ──\n", rel, e.ID)
		}
		ok, err := c.check(ctx, e, out)
		switch {
		case ctx.Err() != nil:
			// A newer save (or Ctrl-C) cut this check short.
		case err != nil:
			fmt.Fprintf(out, "learn: %v\n", err)
		case ok:
			passed = true
			stop()
		default:
			fmt.Fprintln(out, "\nWatching for changes (Ctrl-C to stop)…")
		}
	})
	return passed, err
}
