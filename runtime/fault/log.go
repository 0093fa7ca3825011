package fault

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"flinklab/runtime/logging"
)

// Process is the log a line is written to. A Flink cluster writes two kinds
// of log: the JobManager's (Dispatcher, ResourceManager, JobMasters, REST
// endpoint, BlobServer) and one per TaskManager (TaskExecutor, its slots,
// its tasks, its BLOB cache). Knowing which one to open is half of reading
// a failure.
type Process string

// The two logs of a cluster.
const (
	JobManagerLog  Process = "JobManager"
	TaskManagerLog Process = "TaskManager"
)

// taskManagerLoggers are the loggers that write to a TaskManager's log;
// every other component runs in the JobManager.
var taskManagerLoggers = map[string]bool{
	"TaskExecutor":            true,
	"DefaultJobLeaderService": true,
	"TaskSlotTableImpl":       true,
	"Task":                    true,
	"PermanentBlobCache":      true,
	"BlobClient":              true,
	"TaskManagerRunner":       true,
	"AsyncCheckpointRunnable": true,
}

// LogRecord is one entry of a cluster's log: what a log line says, before
// it is printed. Records come from a LogCapture, or from anything else that
// reads a log (a log-detective drill builds them from a run it recorded).
type LogRecord struct {
	Time  time.Time
	Level slog.Level
	// Logger is the component's logger, named like its Flink class
	// ("FineGrainedSlotManager", "Task").
	Logger  string
	Message string
	// Attrs are the record's other attributes, in the order the log prints
	// them; a "cause" is printed on a line of its own.
	Attrs []slog.Attr
}

// Process returns the log the record is written to: a TaskManager's for
// the TaskManager's components and for a task's operators (their records
// carry a "task" attribute), the JobManager's for everything else.
func (r LogRecord) Process() Process {
	if taskManagerLoggers[r.Logger] {
		return TaskManagerLog
	}
	for _, a := range r.Attrs {
		if a.Key == "task" {
			return TaskManagerLog
		}
	}
	return JobManagerLog
}

// Text returns what the log prints after "LOGGER [] - ": the message, each
// attribute as " key=value", and the cause on the next line, exactly as
// runtime/logging prints them. Clues are matched against it.
func (r LogRecord) Text() string {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, a := range r.Attrs {
		logging.WriteAttr(&b, a)
	}
	return b.String()
}

// String prints the record as its log line (and the lines of its cause),
// with the time of day as Flink's log4j pattern prints it:
//
//	10:16:02,475 ERROR PermanentBlobCache [] - Failed to fetch BLOB …
func (r LogRecord) String() string {
	return fmt.Sprintf("%s %-5s %s [] - %s", r.Time.Format("15:04:05,000"), logging.LevelName(r.Level), r.Logger, r.Text())
}

// LogCapture is a slog.Handler that keeps the records it is given, so that
// a diagnosis can quote the lines that prove it. Put it next to the
// handler that prints the log (slog.NewMultiHandler). It is safe for
// concurrent use, as a cluster's components log from many goroutines.
type LogCapture struct {
	level slog.Leveler
	// logger and attrs are what With added to this handler's loggers.
	logger string
	attrs  []slog.Attr
	kept   *capturedRecords
}

type capturedRecords struct {
	mu      sync.Mutex
	records []LogRecord
}

// NewLogCapture returns a capture that keeps every record at or above
// level.
func NewLogCapture(level slog.Leveler) *LogCapture {
	return &LogCapture{level: level, kept: &capturedRecords{}}
}

// Records returns the records kept so far, in the order they were logged.
func (c *LogCapture) Records() []LogRecord {
	c.kept.mu.Lock()
	defer c.kept.mu.Unlock()
	return slices.Clone(c.kept.records)
}

// Enabled reports whether records of level are kept.
func (c *LogCapture) Enabled(_ context.Context, level slog.Level) bool {
	return level >= c.level.Level()
}

// Handle keeps r.
func (c *LogCapture) Handle(_ context.Context, r slog.Record) error {
	rec := LogRecord{Time: r.Time, Level: r.Level, Logger: c.logger, Message: r.Message, Attrs: slices.Clone(c.attrs)}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "logger" {
			rec.Logger = a.Value.String()
		} else {
			rec.Attrs = append(rec.Attrs, slog.Attr{Key: a.Key, Value: a.Value.Resolve()})
		}
		return true
	})
	c.kept.mu.Lock()
	defer c.kept.mu.Unlock()
	c.kept.records = append(c.kept.records, rec)
	return nil
}

// WithAttrs returns a capture whose records carry attrs; the "logger"
// attribute names the component instead, as in runtime/logging.
func (c *LogCapture) WithAttrs(attrs []slog.Attr) slog.Handler {
	c2 := *c
	c2.attrs = slices.Clone(c.attrs)
	for _, a := range attrs {
		if a.Key == "logger" {
			c2.logger = a.Value.String()
			continue
		}
		c2.attrs = append(c2.attrs, slog.Attr{Key: a.Key, Value: a.Value.Resolve()})
	}
	return &c2
}

// WithGroup is not used by the runtime; groups are flattened.
func (c *LogCapture) WithGroup(string) slog.Handler { return c }
