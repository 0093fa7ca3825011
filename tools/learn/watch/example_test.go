package watch_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"

	"flinklab/tools/learn/watch"
)

// The check of an exercise runs once at start and again after every save.
// A newer save cancels a check in progress; a green check stops watching.
func ExampleRun() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	cfg := watch.Config{Roots: []string{"runtime", "exercises"}, RunAtStart: true}
	err := watch.Run(ctx, cfg, func(ctx context.Context, changed []string) {
		out, err := exec.CommandContext(ctx, "go", "test", "./runtime/dispatcher").CombinedOutput()
		switch {
		case context.Cause(ctx) == watch.ErrNewerChange:
			fmt.Println("Saved again: checking again.")
		case ctx.Err() != nil:
			// Interrupted: say nothing.
		case err != nil:
			fmt.Printf("%s\nNot yet. Save to check again.\n", out)
		default:
			fmt.Println("Green. On to the next exercise.")
			stop() // Run returns nil
		}
	})
	if err != nil {
		fmt.Println(err)
	}
}
