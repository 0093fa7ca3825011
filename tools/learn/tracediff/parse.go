package tracediff

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// TracePrefix starts each trace line in a test's log; one event as JSON
// follows it. It is the prefix the exercises' tests write through
// exercises/internal/scenario (scenario.TracePrefix), repeated here so that
// this package needs nothing of the runtime; the r03 tests check that the
// two agree.
const TracePrefix = "learn-trace: "

// testEvent is one line of `go test -json` output (cmd/test2json's
// TestEvent), the fields we need.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// wireEvent is a trace event as the runtime's trace.Event encodes it in
// JSON. The job's ID is kept raw, whatever form it takes.
type wireEvent struct {
	Step    string          `json:"step"`
	From    string          `json:"from"`
	To      string          `json:"to"`
	Message string          `json:"message"`
	JobID   json.RawMessage `json:"jobId"`
	Failed  bool            `json:"failed"`
}

// ParseTestOutput reads the output of a test that logged its trace and
// returns the events, in the order they were logged. It takes the output of
// `go test -v` as well as of `go test -json`, where each line of the test's
// log arrives in the Output field of a JSON record (and a long line may
// arrive in pieces). A trace line is any line holding TracePrefix: what the
// testing package puts before it ("    r03_test.go:42: ") is skipped, and
// every other line is ignored.
//
// A trace line whose JSON cannot be read is reported in the error, with its
// line number; the events read before and after it are still returned.
func ParseTestOutput(r io.Reader) ([]Event, error) {
	var (
		events []Event
		errs   []error
		split  = newOutputSplitter()
	)
	readLine := func(n int, line string) {
		e, ok, err := traceEvent(line)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("line %d: %w", n, err))
		case ok:
			events = append(events, e)
		}
	}

	in := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := in.ReadString('\n')
		if te, ok := jsonRecord(line); ok {
			if te.Action == "output" {
				split.add(te.Package+" "+te.Test, te.Output, func(l string) { readLine(n, l) })
			}
		} else if line != "" {
			readLine(n, line)
		}
		if err != nil {
			split.flush(func(l string) { readLine(n, l) })
			if err != io.EOF {
				errs = append(errs, err)
			}
			return events, errors.Join(errs...)
		}
	}
}

// outputSplitter puts the pieces of `go test -json` output back together
// into lines, separately for each test, since the pieces of two tests
// running in parallel may interleave.
type outputSplitter struct {
	pending map[string]string // each test's output that no newline has ended yet
	order   []string          // the tests, in the order they first wrote
}

func newOutputSplitter() *outputSplitter {
	return &outputSplitter{pending: make(map[string]string)}
}

// add appends a piece of test's output and calls each for every line the
// piece completes.
func (s *outputSplitter) add(test, piece string, each func(line string)) {
	text, seen := s.pending[test]
	if !seen {
		s.order = append(s.order, test)
	}
	text += piece
	for {
		line, rest, found := strings.Cut(text, "\n")
		if !found {
			break
		}
		each(line)
		text = rest
	}
	s.pending[test] = text
}

// flush calls each for what every test wrote after its last newline.
func (s *outputSplitter) flush(each func(line string)) {
	for _, test := range s.order {
		if rest := s.pending[test]; rest != "" {
			each(rest)
		}
		s.pending[test] = ""
	}
}

// jsonRecord decodes line as one record of `go test -json`, if it is one.
func jsonRecord(line string) (testEvent, bool) {
	trimmed := strings.TrimSpace(line)
	if !strings.HasPrefix(trimmed, "{") {
		return testEvent{}, false
	}
	var te testEvent
	if err := json.Unmarshal([]byte(trimmed), &te); err != nil || te.Action == "" {
		return testEvent{}, false
	}
	return te, true
}

// traceEvent decodes the event on a line of a test's log, if the line is a
// trace line.
func traceEvent(line string) (Event, bool, error) {
	_, payload, found := strings.Cut(line, TracePrefix)
	if !found {
		return Event{}, false, nil
	}
	payload = strings.TrimSpace(payload)
	var w wireEvent
	if err := json.Unmarshal([]byte(payload), &w); err != nil {
		return Event{}, false, fmt.Errorf("the trace event %s cannot be read: %w", shorten(payload, 60), err)
	}
	if w.Step == "" {
		return Event{}, false, fmt.Errorf("the trace event %s has no step", shorten(payload, 60))
	}
	e := Event{Step: w.Step, From: w.From, To: w.To, Message: w.Message, Failed: w.Failed}
	if err := json.Unmarshal(w.JobID, &e.JobID); err != nil {
		e.JobID = string(w.JobID) // not a string: keep it as written
	}
	return e, true, nil
}

// stepName is how a prediction names a step: m1 … m11.
var stepName = regexp.MustCompile(`^[mM][0-9]+$`)

// times is how a prediction says how often a message happens: ×N after
// the receiver, or xN with a space before it ("TaskExecutor ×4",
// "TaskExecutor x4").
var times = regexp.MustCompile(`^(.*?)(?:\s*×|\s+[xX])\s*([0-9]+)$`)

// MaxTimes is the largest count a prediction may give a message.
const MaxTimes = 1000

// ParsePrediction reads a prediction: one message per line, its step and
// who sends it to whom,
//
//	m3 REST → Dispatcher: submitJob, the JobGraph is persisted
//
// with -> as well as → between the two names, and ✗ (or -x->) instead for
// a step that breaks. A message that happens more than once may be
// written once with its count after the receiver,
//
//	m7 SlotManager → TaskExecutor ×2: one requestSlot per slot
//
// (or "x2"), which reads as that many lines; ×0 says that the message
// never happens, which is what leaving it out says too. What follows a ':'
// after the names (and the count) is a note for the reader and is kept as
// the event's Message; '#' starts a comment that runs to the end of the
// line; blank lines are skipped. Names may contain spaces ("Job Master");
// see Same for how they are compared.
//
// A line that is not of this form is reported in the error with its line
// number; the lines that are are still returned.
func ParsePrediction(r io.Reader) ([]Event, error) {
	var (
		events []Event
		errs   []error
	)
	scanner := bufio.NewScanner(r)
	for n := 1; scanner.Scan(); n++ {
		e, count, err := predictionLine(scanner.Text())
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", n, err))
			continue
		}
		for range count {
			events = append(events, e)
		}
	}
	if err := scanner.Err(); err != nil {
		errs = append(errs, err)
	}
	return events, errors.Join(errs...)
}

// predictionLine reads one line of a prediction: the message, and how
// many times it happens, 0 for a line with nothing on it but a comment or
// spaces.
func predictionLine(line string) (e Event, count int, err error) {
	text, _, _ := strings.Cut(line, "#")
	text = strings.TrimSpace(text)
	if text == "" {
		return Event{}, 0, nil
	}
	wrong := func(why string) (Event, int, error) {
		return Event{}, 0, fmt.Errorf("%q: %s; a line reads like \"m3 REST → Dispatcher\"", text, why)
	}

	step, rest := text, ""
	if i := strings.IndexFunc(text, unicode.IsSpace); i >= 0 {
		step, rest = text[:i], text[i:]
	}
	step = strings.TrimRight(step, ":.")
	if !stepName.MatchString(step) {
		return wrong("it does not start with a step (m1, m2, …)")
	}
	from, to, failed, found := cutArrow(rest)
	if !found {
		return wrong("there is no arrow between the sender and the receiver (✗ marks a message that fails; × is for a count after the receiver)")
	}
	to, note, _ := strings.Cut(to, ":")
	if _, _, _, another := cutArrow(to); another {
		return wrong("one message per line, with one arrow")
	}
	count = 1
	if m := times.FindStringSubmatch(strings.TrimSpace(to)); m != nil {
		to = m[1]
		count, err = strconv.Atoi(m[2])
		if err != nil || count > MaxTimes {
			return wrong(fmt.Sprintf("a count is at most %d", MaxTimes))
		}
	}
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	if from == "" || to == "" {
		return wrong("a message needs a sender and a receiver")
	}
	return Event{
		Step:    strings.ToLower(step),
		From:    from,
		To:      to,
		Message: strings.TrimSpace(note),
		Failed:  failed,
	}, count, nil
}

// arrows are the ways a prediction may write what stands between sender
// and receiver, and whether each means that the step broke.
var arrows = []struct {
	text   string
	failed bool
}{{"→", false}, {"->", false}, {"✗", true}, {"-x->", true}}

// cutArrow slices s around its first arrow. No two arrows start at the
// same place ("-x->" holds "->", but two characters in).
func cutArrow(s string) (before, after string, failed, found bool) {
	at, size := -1, 0
	for _, a := range arrows {
		if i := strings.Index(s, a.text); i >= 0 && (at < 0 || i < at) {
			at, size, failed = i, len(a.text), a.failed
		}
	}
	if at < 0 {
		return s, "", false, false
	}
	return s[:at], s[at+size:], failed, true
}
