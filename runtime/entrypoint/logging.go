package entrypoint

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"flinklab/runtime/logging"
)

// The daemon names Flink's scripts put into log file names
// (flink-daemon.sh): what runs in the process.
const (
	DaemonStandaloneSession = "standalonesession" // StandaloneSessionClusterEntrypoint
	DaemonStandaloneJob     = "standalonejob"     // StandaloneApplicationClusterEntryPoint
	DaemonTaskExecutor      = "taskexecutor"      // TaskManagerRunner
)

// LogFileBase returns the name, without extension, of the log files of
// the index-th daemon of a kind on this host, as Flink's flink-daemon.sh
// names them: flink-<user>-<daemon>-<index>-<host>. The log lines go to
// <base>.log; a daemon's standard output (what print sinks print) goes to
// <base>.out.
func LogFileBase(daemon string, index int) string {
	return fmt.Sprintf("flink-%s-%s-%d-%s", currentUser(), daemon, index, hostname())
}

// ProcessLog is where a cluster process writes its log lines: a file in
// the log directory and stderr, both in the shape of Flink's log4j
// pattern (see package logging).
type ProcessLog struct {
	// Logger writes every line to both.
	Logger *slog.Logger
	// Path is the log file, or "" when there is none.
	Path string
	file *os.File
}

// OpenProcessLog opens <dir>/<base>.log (LogFileBase) and returns a log
// that writes there and to stderr. A log file left by an earlier process
// of the same name is kept as <base>.log.1, replacing an older one, so a
// restarted cluster does not lose the log of the run before. With dir ""
// the log goes to stderr alone.
func OpenProcessLog(dir, base string, stderr io.Writer) (*ProcessLog, error) {
	if dir == "" {
		return &ProcessLog{Logger: slog.New(logging.NewHandler(stderr, slog.LevelInfo))}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the log directory: %w", err)
	}
	path := filepath.Join(dir, base+".log")
	if err := os.Rename(path, path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("keep the previous log file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the log file: %w", err)
	}
	handler := logging.NewHandler(io.MultiWriter(f, stderr), slog.LevelInfo)
	return &ProcessLog{Logger: slog.New(handler), Path: path, file: f}, nil
}

// Close closes the log file.
func (l *ProcessLog) Close() error {
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

// logEnvironmentInfo writes the banner with which every Flink process
// starts its log (Flink's EnvironmentInformation.logEnvironmentInfo): who
// starts, as which user, where, with which arguments. It is the first
// thing to look for in a log: the line "Starting <component>" opens each
// run of a process.
func logEnvironmentInfo(log *slog.Logger, component string) {
	const rule = "--------------------------------------------------------------------------------"
	dir, _ := os.Getwd()
	lines := []string{
		rule,
		fmt.Sprintf(" Starting %s (flinklab, Go: %s, Rev: %s)", component, runtime.Version(), revision()),
		" OS current user: " + currentUser(),
		fmt.Sprintf(" Arch: %s/%s", runtime.GOOS, runtime.GOARCH),
		fmt.Sprintf(" Process ID: %d", os.Getpid()),
		" Working directory: " + dir,
		" Program Arguments:",
	}
	for _, arg := range os.Args[1:] {
		lines = append(lines, "    "+arg)
	}
	lines = append(lines, rule)
	for _, line := range lines {
		log.Info(line)
	}
}

// revision is the VCS revision the binary was built from, if the build
// recorded one.
func revision() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value[:min(len(s.Value), 7)]
			}
		}
	}
	return "unknown"
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return sanitize(u.Username)
	}
	if name := os.Getenv("USER"); name != "" {
		return sanitize(name)
	}
	return "flinklab"
}

func hostname() string {
	if name, err := os.Hostname(); err == nil && name != "" {
		return sanitize(name)
	}
	return "localhost"
}

// sanitize keeps a name usable in a file name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}
