package entrypoint

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// WaitForShutdown blocks until the process is asked to stop, with SIGINT
// (Ctrl-C) or SIGTERM (kill, stop-cluster), or until done is closed (an
// application cluster whose job has ended). A signal is logged as Flink's
// SignalHandler logs it:
//
//	RECEIVED SIGNAL 15: SIGTERM. Shutting down as requested.
//
// It reports whether a signal arrived. The signals are handled only while
// it waits: a second Ctrl-C during the shutdown that follows ends the
// process at once, the way out of a shutdown that hangs.
func WaitForShutdown(log *slog.Logger, done <-chan struct{}) (signalled bool) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	select {
	case sig := <-signals:
		log.With("logger", "SignalHandler").Info(fmt.Sprintf("RECEIVED SIGNAL %s. Shutting down as requested.", describeSignal(sig)))
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
