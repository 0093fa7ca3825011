package diagnose

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/fault"
	"flinklab/runtime/logging"
)

// JobManagerLogFile is the JobManager's log file in a drill's log/
// directory, named as Flink's standalone session cluster names it.
const JobManagerLogFile = "flink-flinklab-standalonesession-0-localhost.log"

// TaskManagerLogFile returns the log file of TaskManager i.
func TaskManagerLogFile(i int) string {
	return fmt.Sprintf("flink-flinklab-taskexecutor-%d-localhost.log", i)
}

// ProcessOf returns the process whose log a file is, by its name, or ""
// for a file that is neither the JobManager's nor a TaskManager's.
func ProcessOf(file string) fault.Process {
	switch {
	case strings.Contains(file, "-standalonesession-"):
		return fault.JobManagerLog
	case strings.Contains(file, "-taskexecutor-"):
		return fault.TaskManagerLog
	}
	return ""
}

// ErrNoLogs is returned by LoadLogs for a drill without log files.
var ErrNoLogs = errors.New("no log files")

// Record is one record of a log file: what it says, and where it is.
type Record struct {
	fault.LogRecord
	// File is the base name of the log file.
	File string
	// Line is the line of the file the record starts on, from 1.
	Line int
}

// Process returns the log the record is in: the file's process, or for a
// file named otherwise the one its logger writes to.
func (r Record) Process() fault.Process {
	if p := ProcessOf(r.File); p != "" {
		return p
	}
	return r.LogRecord.Process()
}

// Where returns "file:line", the record's place in the logs.
func (r Record) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// printedLine is the first line of the record as the file has it.
func (r Record) printedLine() string {
	return fmt.Sprintf("%s %-5s %s [] - %s", r.Time.Format(logging.TimeLayout), logging.LevelName(r.Level), r.Logger, firstLine(r.Message))
}

// Logs are the log files of one drill: each file's records, and all of
// them merged into one story in time order.
type Logs struct {
	// Files maps a file's base name to its records, in file order.
	Files map[string][]Record
	// All is every record, oldest first; records of the same millisecond
	// keep the JobManager's file first, then the file names' order, then
	// the order in the file.
	All []Record
	// Client is what the client was told (ClientFile), shown with the
	// logs: no proof comes from it, but it must not give the fault away
	// either.
	Client string
}

// ClientFile is the file of a drill that holds what the client was told.
const ClientFile = "client.txt"

// header is the first line of a printed record: date, level (padded to
// five), logger, "[] - " and the message.
var header = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) (ERROR|WARN|INFO|DEBUG) +(\S+) \[\] -(?: (.*))?$`)

var levels = map[string]slog.Level{
	"ERROR": slog.LevelError, "WARN": slog.LevelWarn, "INFO": slog.LevelInfo, "DEBUG": slog.LevelDebug,
}

// ParseLog reads a log file as runtime/logging.Handler prints it: a record
// is a line that starts with its date, and the lines after it that do not
// (a cause, the rest of a multi-line message) belong to it. The message
// keeps everything after "[] - ", the inline " key=value" attributes and
// the continuation lines (joined with "\n"), so that LogRecord.Text is the
// printed text and the clues of package fault match it. Times are read as
// UTC: the log does not print its zone, and only their order matters.
func ParseLog(r io.Reader) ([]fault.LogRecord, error) {
	records, _, err := parse(r)
	return records, err
}

// parse is ParseLog that also returns the line each record starts on.
func parse(r io.Reader) ([]fault.LogRecord, []int, error) {
	var records []fault.LogRecord
	var starts []int
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, nil, err
		}
		if line == "" && err == io.EOF {
			return records, starts, nil
		}
		line = strings.TrimRight(line, "\r\n")
		if m := header.FindStringSubmatch(line); m != nil {
			t, terr := time.ParseInLocation(logging.TimeLayout, m[1], time.UTC)
			if terr != nil {
				return nil, nil, fmt.Errorf("line %d: %w", n, terr)
			}
			records = append(records, fault.LogRecord{Time: t, Level: levels[m[2]], Logger: m[3], Message: m[4]})
			starts = append(starts, n)
		} else if len(records) > 0 {
			records[len(records)-1].Message += "\n" + line
		} else if strings.TrimSpace(line) != "" {
			return nil, nil, fmt.Errorf("line %d: not a log record: %q", n, line)
		}
		if err == io.EOF {
			return records, starts, nil
		}
	}
}

// LoadLogs reads every *.log file in dir/log, a drill's log directory, and
// dir's ClientFile if there is one.
func LoadLogs(dir string) (Logs, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "log", "*.log"))
	if err != nil {
		return Logs{}, err
	}
	if len(paths) == 0 {
		return Logs{}, fmt.Errorf("diagnose: %w in %s", ErrNoLogs, filepath.Join(dir, "log"))
	}
	files := make(map[string][]Record)
	for _, path := range paths {
		records, err := loadFile(path)
		if err != nil {
			return Logs{}, err
		}
		files[filepath.Base(path)] = records
	}
	logs := merge(files)
	client, err := os.ReadFile(filepath.Join(dir, ClientFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Logs{}, err
	}
	logs.Client = string(client)
	return logs, nil
}

func loadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	records, starts, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("diagnose: %s: %w", path, err)
	}
	file := filepath.Base(path)
	out := make([]Record, len(records))
	for i, r := range records {
		out[i] = Record{LogRecord: r, File: file, Line: starts[i]}
	}
	return out, nil
}

// NewLogs builds Logs from records already read, keyed by file name (a
// producer that kept them need not read its files back). Each record's
// line is where the file prints it.
func NewLogs(files map[string][]fault.LogRecord) Logs {
	wrapped := make(map[string][]Record, len(files))
	for file, records := range files {
		line := 1
		for _, r := range records {
			wrapped[file] = append(wrapped[file], Record{LogRecord: r, File: file, Line: line})
			line += 1 + strings.Count(r.Text(), "\n")
		}
	}
	return merge(wrapped)
}

// merge puts the records of all files into one story, in time order.
func merge(files map[string][]Record) Logs {
	logs := Logs{Files: files}
	for _, records := range files {
		logs.All = append(logs.All, records...)
	}
	slices.SortStableFunc(logs.All, func(a, b Record) int {
		return cmp.Or(a.Time.Compare(b.Time),
			cmp.Compare(jobManagerFirst(a.File), jobManagerFirst(b.File)),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line))
	})
	return logs
}

// jobManagerFirst orders the JobManager's file before the others.
func jobManagerFirst(file string) int {
	if ProcessOf(file) == fault.JobManagerLog {
		return 0
	}
	return 1
}

// Records returns All as the records package fault reads: Evidence.Find's
// indexes are indexes into All.
func (l Logs) Records() []fault.LogRecord {
	records := make([]fault.LogRecord, len(l.All))
	for i, r := range l.All {
		records[i] = r.LogRecord
	}
	return records
}

// Find returns the records of All that prove e, in log order, and whether
// every clue that is not optional found its line (see fault.Evidence.Find).
func (l Logs) Find(e fault.Evidence) ([]Record, bool) {
	lines, complete := e.Find(l.Records())
	proof := make([]Record, len(lines))
	for i, line := range lines {
		proof[i] = l.All[line.Index]
	}
	return proof, complete
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
