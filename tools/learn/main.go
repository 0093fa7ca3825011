// Command learn is the learner's runner for the flinklab exercises: it
// punches an exercise's holes into the real runtime, checks the learner's
// code with the exercise's tests, re-checks on every save, reveals hints,
// shows the reference, restores it, and proves every exercise honest.
//
// Run `go run ./tools/learn help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"flinklab/tools/learn/exercise"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	interrupted := ctx.Err() != nil
	stop()
	switch {
	case err == nil:
	case interrupted:
		os.Exit(130) // Ctrl-C: the learner knows, and the terminal shows ^C
	case errors.Is(err, errUsage):
		if why, ok := strings.CutPrefix(err.Error(), errUsage.Error()+": "); ok {
			fmt.Fprintf(os.Stderr, "learn: %s\n\n", why)
		}
		usage(os.Stderr)
		os.Exit(2)
	case errors.Is(err, errNotYet):
		os.Exit(1) // check has said why
	default:
		fmt.Fprintf(os.Stderr, "learn: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	in, err := parseArgs(args)
	if err != nil {
		return err
	}
	if in.cmd == "help" {
		usage(os.Stdout)
		return nil
	}
	c, err := openCourse()
	if err != nil {
		return err
	}
	one := func() (*exercise.Exercise, error) {
		if len(in.ids) != 1 {
			return nil, fmt.Errorf("%w: %s takes one exercise ID", errUsage, in.cmd)
		}
		return c.exercise(in.ids[0])
	}
	out := os.Stdout
	switch in.cmd {
	case "list":
		c.list(out)
		return nil
	case "start":
		e, err := one()
		if err != nil {
			return err
		}
		if e.Kind == exercise.Diagnose {
			return c.startDrill(ctx, e, out)
		}
		return c.start(e, in.force, out)
	case "check":
		e := c.next()
		if len(in.ids) > 0 {
			if e, err = one(); err != nil {
				return err
			}
		}
		if e == nil {
			fmt.Fprintln(out, "Every exercise is done.")
			return nil
		}
		passed, err := c.check(ctx, e, out)
		if err == nil && !passed {
			err = errNotYet
		}
		return err
	case "watch":
		if len(in.ids) > 1 {
			return fmt.Errorf("%w: watch takes at most one exercise ID", errUsage)
		}
		var id string
		if len(in.ids) == 1 {
			id = in.ids[0]
		}
		return c.watch(ctx, id, in.poll, out)
	case "hint":
		e, err := one()
		if err != nil {
			return err
		}
		return c.hint(e, out)
	case "solution":
		e, err := one()
		if err != nil {
			return err
		}
		return c.solution(e, in.force, out)
	case "reset":
		if in.all {
			return c.resetAll(out)
		}
		e, err := one()
		if err != nil {
			return err
		}
		return c.reset(e, out)
	case "diagnose":
		return c.practiceDrill(ctx, out)
	case "verify":
		return c.verify(ctx, in.ids, out)
	case "lint":
		return c.lint(in.fix, out)
	case "solutions":
		return c.writeSolutions(in.ids, out)
	}
	return fmt.Errorf("%w: there is no command %q", errUsage, in.cmd)
}

// invocation is a command line of learn, read.
type invocation struct {
	cmd                   string   // "watch" when none is given
	ids                   []string // the exercise IDs named
	force, all, fix, poll bool
}

// parseArgs reads a command line. Flags may come before or after the IDs
// (start m03 --force): the flag package stops at the first argument that
// is not a flag, so it is asked again after each ID.
func parseArgs(args []string) (invocation, error) {
	in := invocation{cmd: "watch"}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		in.cmd, args = args[0], args[1:]
	}
	flags := flag.NewFlagSet(in.cmd, flag.ContinueOnError)
	flags.SetOutput(io.Discard) // usage says it all
	flags.BoolVar(&in.force, "force", false, "start: punch over your own version; solution: show it before the exercise passes")
	flags.BoolVar(&in.all, "all", false, "reset: every exercise")
	flags.BoolVar(&in.fix, "fix", false, "lint: rewrite the line numbers of code links")
	flags.BoolVar(&in.poll, "poll", false, "watch: poll for changes instead of using inotify")
	for {
		err := flags.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return invocation{cmd: "help"}, nil
		}
		if err != nil {
			return invocation{}, fmt.Errorf("%w: %v", errUsage, err)
		}
		if flags.NArg() == 0 {
			return in, nil
		}
		in.ids = append(in.ids, flags.Arg(0))
		args = flags.Args()[1:]
	}
}

// errNotYet makes `learn check` exit non-zero while the exercise fails.
var errNotYet = errors.New("not yet")
