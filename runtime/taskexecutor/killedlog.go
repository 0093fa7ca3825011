package taskexecutor

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// untilKilled is the log of a TaskExecutor's process: it writes as the
// handler it wraps until the process is killed (Kill), and nothing after,
// for the TaskExecutor and its tasks alike. A process killed with kill -9
// has no last words: whatever it still stops on its way out (here it must
// be stopped, or it would go on acting for the dead TaskExecutor) leaves
// no line in its log.
type untilKilled struct {
	slog.Handler
	killed *atomic.Bool
}

func (h untilKilled) Enabled(ctx context.Context, level slog.Level) bool {
	return !h.killed.Load() && h.Handler.Enabled(ctx, level)
}

func (h untilKilled) Handle(ctx context.Context, r slog.Record) error {
	if h.killed.Load() {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h untilKilled) WithAttrs(attrs []slog.Attr) slog.Handler {
	return untilKilled{h.Handler.WithAttrs(attrs), h.killed}
}

func (h untilKilled) WithGroup(name string) slog.Handler {
	return untilKilled{h.Handler.WithGroup(name), h.killed}
}
