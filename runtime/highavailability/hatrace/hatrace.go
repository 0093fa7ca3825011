package hatrace

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/logging"
)

// Step names one step of a failover.
type Step string

// The steps of a failover.
const (
	H1 Step = "h1" // the leader is elected
	H2 Step = "h2" // its leader information is published
	H3 Step = "h3" // the TaskManagers retrieve it
	H4 Step = "h4" // the new leader recovers the jobs
	H5 Step = "h5" // the TaskManagers register at the new leader
)

// Record is one record of a process's log: its first line's time, logger
// and message (continuation lines, an exception under the line, are left
// out).
type Record struct {
	Time    time.Time
	Level   string
	Logger  string
	Message string
}

// Log is the records of one process, named as the log file is
// ("standalonesession-0", "taskexecutor-1").
type Log struct {
	Process string
	Records []Record
}

// recordLine is the layout of runtime/logging, Flink's log4j pattern:
// "2026-12-02 06:32:43,187 INFO  DefaultDispatcherRunner [] - message".
var recordLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) (\w+) +(\S+) \[\] - (.*)$`)

// logFileName is a daemon's log file as Flink's scripts name it:
// flink-<user>-<daemon>-<index>-<host>.log.
var logFileName = regexp.MustCompile(`^flink-[^-]+-((?:standalonesession|taskexecutor)-\d+)-.+\.log$`)

// ProcessOf returns the process whose log file name is, as a Log names
// it ("standalonesession-0" for flink-flinklab-standalonesession-0-localhost.log),
// or "" for a name that is no daemon's log file.
func ProcessOf(name string) string {
	if m := logFileName.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

// ReadLog reads the records of a process's log.
func ReadLog(process string, r io.Reader) (Log, error) {
	log := Log{Process: process}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64<<10), 4<<20)
	for scanner.Scan() {
		m := recordLine.FindStringSubmatch(scanner.Text())
		if m == nil {
			continue // a continuation line
		}
		t, err := time.ParseInLocation(logging.TimeLayout, m[1], time.Local)
		if err != nil {
			continue
		}
		log.Records = append(log.Records, Record{Time: t, Level: m[2], Logger: m[3], Message: m[4]})
	}
	return log, scanner.Err()
}

// Event is one step as a process's log shows it.
type Event struct {
	Step    Step
	Process string
	Time    time.Time
	Message string
}

func (e Event) String() string {
	return fmt.Sprintf("%-3s %-20s %s  %s", e.Step, e.Process, e.Time.Format("15:04:05.000"), e.Message)
}

var (
	granted    = regexp.MustCompile(`^DefaultDispatcherRunner was granted leadership with leader id (\w+)\.`)
	recovered  = regexp.MustCompile(`^Successfully recovered \d+ persisted job graphs\.$`)
	connecting = regexp.MustCompile(`^Connecting to ResourceManager (\S+)\((\w+)\)\.$`)
	registered = regexp.MustCompile(`^Successful registration at resource manager (\S+) under registration id`)
)

// Trace returns the steps of the leader session that was granted last,
// in the order they happened, and that session's ID ("" if no process
// was ever granted the leadership).
func Trace(logs []Log) ([]Event, string) {
	// h1: the last grant of the Dispatcher's leadership, in any process.
	var h1 *Event
	session, leader := "", ""
	for _, l := range logs {
		for _, r := range l.Records {
			if m := granted.FindStringSubmatch(r.Message); m != nil && (h1 == nil || !r.Time.Before(h1.Time)) {
				h1 = &Event{Step: H1, Process: l.Process, Time: r.Time, Message: r.Message}
				session, leader = m[1], l.Process
			}
		}
	}
	if h1 == nil {
		return nil, ""
	}
	events := []Event{*h1}
	for _, l := range logs {
		var address string // where this TaskManager found the leader's ResourceManager
		for _, r := range l.Records {
			if r.Time.Before(h1.Time) {
				continue
			}
			switch {
			case l.Process == leader && recovered.MatchString(r.Message):
				if !has(events, H4, l.Process) {
					events = append(events, Event{Step: H4, Process: l.Process, Time: r.Time, Message: r.Message})
				}
			case connecting.MatchString(r.Message):
				m := connecting.FindStringSubmatch(r.Message)
				if m[2] == session && !has(events, H3, l.Process) {
					address = m[1]
					if !has(events, H2, "") {
						events = append(events, Event{Step: H2, Time: r.Time,
							Message: "(not logged) the leader information of session " + session + ", which " + l.Process + " reads"})
					}
					events = append(events, Event{Step: H3, Process: l.Process, Time: r.Time, Message: r.Message})
				}
			case address != "" && registered.MatchString(r.Message):
				if registered.FindStringSubmatch(r.Message)[1] == address && !has(events, H5, l.Process) {
					events = append(events, Event{Step: H5, Process: l.Process, Time: r.Time, Message: r.Message})
				}
			}
		}
	}
	slices.SortStableFunc(events, func(a, b Event) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(string(a.Step), string(b.Step))
	})
	return events, session
}

func has(events []Event, step Step, process string) bool {
	return slices.ContainsFunc(events, func(e Event) bool { return e.Step == step && (process == "" || e.Process == process) })
}
