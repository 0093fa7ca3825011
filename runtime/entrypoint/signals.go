package entrypoint

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// startedBy is the process that started this one, as it was when the
// process began.
var startedBy = os.Getppid()

// WaitForShutdown blocks until the process is asked to stop, with SIGINT
// (Ctrl-C) or SIGTERM (kill, stop-cluster), or until done is closed (an
// application cluster whose job has ended). A signal is logged as Flink's
// SignalHandler logs it:
//
//	RECEIVED SIGNAL 15: SIGTERM. Shutting down as requested.
//
// It also returns when parentExited is closed: a daemon of start-cluster
// learns so that start-cluster died without stopping it (killed with
// SIGKILL, say; see tools/flink/internal/procattr's Lifeline), and stops
// as on SIGTERM, its log saying why:
//
//	The process that started this one (pid 4711) has exited: shutting down with it.
//
// A nil parentExited is never closed. It reports whether a signal
// arrived or the parent exited. The signals are handled only while
// it waits: a second Ctrl-C during the shutdown that follows ends the
// process at once, the way out of a shutdown that hangs.
func WaitForShutdown(log *slog.Logger, done, parentExited <-chan struct{}) (signalled bool) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	select {
	case sig := <-signals:
		log.With("logger", "SignalHandler").Info(fmt.Sprintf("RECEIVED SIGNAL %s. Shutting down as requested.", describeSignal(sig)))
		return true
	case <-parentExited:
		log.With("logger", "SignalHandler").Info(fmt.Sprintf("The process that started this one (pid %d) has exited: shutting down with it.", startedBy))
		return true
	case <-done:
		return false
	}
}

// describeSignal writes a signal as Flink does: "15: SIGTERM".
func describeSignal(sig os.Signal) string {
	names := map[os.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}
	number := 0
	if s, ok := sig.(syscall.Signal); ok {
		number = int(s)
	}
	return fmt.Sprintf("%d: %s", number, names[sig])
}
