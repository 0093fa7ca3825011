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

	"flinklab/runtime/clusterframework"
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
//
// inheritedLogs, unless "", is what the start script computed before the
// process started (Flink's environment variable FLINK_INHERITED_LOGS; see
// preconfiguration): it comes first, under " Preconfiguration: ", logged
// as one message of many lines, as Flink logs it.
func logEnvironmentInfo(log *slog.Logger, component, inheritedLogs string) {
	const rule = "--------------------------------------------------------------------------------"
	if inheritedLogs != "" {
		log.Info(rule)
		log.Info(" Preconfiguration: ")
		log.Info(inheritedLogs)
	}
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

// preconfiguration is what Flink's start scripts hand a TaskManager in
// FLINK_INHERITED_LOGS (config.sh, parseResourceParamsAndExportLogs, run by
// taskmanager.sh), which its log shows under " Preconfiguration: ". Before
// it starts the TaskManager's JVM, the script runs BashJavaUtils
// GET_TM_RESOURCE_PARAMS, which derives the memory from the configuration
// and prints the JVM parameters, the dynamic properties and its own log
// lines; the script keeps all three:
//
//	(two empty lines)
//	RESOURCE_PARAMS extraction logs:
//	jvm_params: -Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456
//	dynamic_configs: -D taskmanager.memory.network.min=134217730b -D taskmanager.cpu.cores=1.0 … -D taskmanager.memory.jvm-overhead.max=201326592b
//	logs: INFO  [] - Final TaskExecutor Memory configuration:
//	INFO  [] -   Total Process Memory:          1.688gb (1811939328 bytes)
//	…
//	INFO  [] -     JVM Overhead:                192.000mb (201326592 bytes)
//
// A Go process has no JVM: the JVM parameters and the dynamic properties
// are what Flink would pass to the TaskManager's JVM, computed from the
// spec as Flink computes them and logged, not applied. (Flink 1.10's
// taskmanager.sh wrote "TM_RESOURCE_PARAMS extraction logs:"; once the
// JobManager's memory was computed the same way, config.sh took the
// export over for both and writes "RESOURCE_PARAMS", as Flink 1.20 does.)
//
// Differs from Flink: BashJavaUtils' own log also has a line "Loading
// configuration property: key, value" for each line of the configuration
// file, which we do not have, and the INFO lines of the derivation ("The
// derived from fraction jvm overhead memory (172.800mb (181193935 bytes))
// is less than its min value 192.000mb (201326592 bytes), min value will be
// used instead"), which package clusterframework does not log. The logs
// are the memory block alone. A Flink JobManager's log starts with a
// Preconfiguration of its own (its memory, from jobmanager.sh); ours has
// none: the JobManager's memory model is left out.
func preconfiguration(spec clusterframework.TaskExecutorProcessSpec) string {
	// BashJavaUtils logs with the pattern "%-5p [] - %m%n".
	summary := clusterframework.LogSummary(spec)
	logs := make([]string, len(summary))
	for i, line := range summary {
		logs[i] = fmt.Sprintf("%-5s [] - %s", logging.LevelName(slog.LevelInfo), line)
	}
	// The script's export: "\n$FLINK_INHERITED_LOGS\n\nRESOURCE_PARAMS …",
	// FLINK_INHERITED_LOGS being empty before.
	return "\n\n\nRESOURCE_PARAMS extraction logs:\n" +
		"jvm_params: " + clusterframework.GenerateJVMParametersStr(spec) + "\n" +
		"dynamic_configs: " + clusterframework.GenerateDynamicConfigsStr(spec) + "\n" +
		"logs: " + strings.Join(logs, "\n") + "\n"
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
