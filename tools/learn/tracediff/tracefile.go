package tracediff

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// TestTrace is the trace one test of an exercise logged, by the test's
// full name ("TestSubmit", "TestSubmit/duplicate").
type TestTrace struct {
	Test   string
	Events []Event
}

// testHeader starts each test's trace in a trace file.
const testHeader = "=== "

// WriteTraces writes traces in the text form of a reference trace file
// (solutions/m03/traces.txt): comment lines starting with '#' (header,
// one per line), then for each test a line "=== TestName" and one line per
// event, as the table shows it, with its message:
//
//	=== TestAValidJobIsPersistedAndRuns
//	m3  Client → Dispatcher: submitJob 'numbers': JobGraph validated and persisted in the JobGraphStore
//	m4  JobManagerRunner → JobMaster: leadership granted (leader id <id>); …
//
// The events are written as given: a reference trace file holds them in
// canonical order (see Canonical), so that it reads the same after every
// run of the reference.
func WriteTraces(w io.Writer, header []string, traces []TestTrace) error {
	b := bufio.NewWriter(w)
	for _, line := range header {
		fmt.Fprintln(b, strings.TrimRight("# "+line, " "))
	}
	for _, t := range traces {
		fmt.Fprintf(b, "\n%s%s\n", testHeader, t.Test)
		for _, e := range t.Events {
			line := e.head()
			if msg := strings.Join(strings.Fields(e.Message), " "); msg != "" {
				line += ": " + msg
			}
			fmt.Fprintln(b, line)
		}
	}
	return b.Flush()
}

// ReadTraces reads what WriteTraces wrote. A line that is neither a
// comment, a test's header, an event after one, nor blank is reported in
// the error with its line number.
func ReadTraces(r io.Reader) ([]TestTrace, error) {
	var (
		traces []TestTrace
		errs   []error
	)
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, testHeader):
			traces = append(traces, TestTrace{Test: strings.TrimSpace(strings.TrimPrefix(line, testHeader))})
		case len(traces) == 0:
			errs = append(errs, fmt.Errorf("line %d: an event before the first %q line", n, testHeader+"TestName"))
		default:
			e, err := traceFileEvent(line)
			if err != nil {
				errs = append(errs, fmt.Errorf("line %d: %w", n, err))
				continue
			}
			last := &traces[len(traces)-1]
			last.Events = append(last.Events, e)
		}
	}
	if err := scanner.Err(); err != nil {
		errs = append(errs, err)
	}
	return traces, errors.Join(errs...)
}

// traceFileEvent reads "m3  Client → Dispatcher: message" (✗ instead of
// → for a failed step). Names hold neither an arrow nor ": ", so the first
// of each ends the sender and the receiver; the message may hold anything.
func traceFileEvent(line string) (Event, error) {
	step, rest, _ := strings.Cut(line, " ")
	var e Event
	from, to, arrowFound := strings.Cut(rest, " → ")
	if failedFrom, failedTo, found := strings.Cut(rest, " ✗ "); found && (!arrowFound || len(failedFrom) < len(from)) {
		from, to, arrowFound, e.Failed = failedFrom, failedTo, true, true
	}
	if _, ok := stepNumber(step); !ok || !arrowFound {
		return Event{}, fmt.Errorf("%q is not an event: it reads like \"m3  Client → Dispatcher: message\"", line)
	}
	to, msg, _ := strings.Cut(to, ": ")
	e.Step, e.From, e.To, e.Message = step, strings.TrimSpace(from), strings.TrimSpace(to), msg
	if e.From == "" || e.To == "" {
		return Event{}, fmt.Errorf("%q has no sender or no receiver", line)
	}
	return e, nil
}
