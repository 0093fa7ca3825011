package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// Handler formats records like Flink's default log4j pattern:
// "%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n", with the component
// name in place of the class.
type Handler struct {
	mu     *sync.Mutex
	w      io.Writer
	level  slog.Leveler
	logger string
	attrs  []slog.Attr
}

// NewHandler returns a handler writing records at or above level to w.
func NewHandler(w io.Writer, level slog.Leveler) *Handler {
	return &Handler{mu: &sync.Mutex{}, w: w, level: level}
}

// Enabled reports whether records of this level are printed.
func (h *Handler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.level.Level()
}

// TimeLayout is how a record's line begins: its time, to the millisecond,
// as Flink's log4j pattern prints it (%d{yyyy-MM-dd HH:mm:ss,SSS}).
const TimeLayout = "2006-01-02 15:04:05,000"

// Handle prints one record on one line (continuation lines of a multi-line
// message follow it, as in Flink's logs).
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Time.Format(TimeLayout))
	fmt.Fprintf(&b, " %-5s %s [] - %s", LevelName(r.Level), h.loggerName(r), r.Message)
	for _, a := range h.attrs {
		WriteAttr(&b, a)
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "logger" {
			WriteAttr(&b, a)
		}
		return true
	})
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *Handler) loggerName(r slog.Record) string {
	name := h.logger
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "logger" {
			name = a.Value.String()
			return false
		}
		return true
	})
	if name == "" {
		return "flinklab"
	}
	return name
}

// WriteAttr prints one attribute of a record after its message: " key=value",
// or, for the "cause", the value on a line of its own, as Flink prints an
// exception under the line that logged it.
func WriteAttr(b *strings.Builder, a slog.Attr) {
	if a.Key == "cause" {
		fmt.Fprintf(b, "\n%s", a.Value.String())
		return
	}
	fmt.Fprintf(b, " %s=%v", a.Key, a.Value)
}

// LevelName is a level as log4j prints it: ERROR, WARN, INFO or DEBUG.
func LevelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "ERROR"
	case l >= slog.LevelWarn:
		return "WARN"
	case l >= slog.LevelInfo:
		return "INFO"
	default:
		return "DEBUG"
	}
}

// WithAttrs returns a handler that adds attrs to every record; the
// "logger" attribute names the component instead.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	h2 := *h
	h2.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		if a.Key == "logger" {
			h2.logger = a.Value.String()
			continue
		}
		h2.attrs = append(h2.attrs, a)
	}
	return &h2
}

// WithGroup is not used by the runtime; groups are flattened.
func (h *Handler) WithGroup(string) slog.Handler { return h }
