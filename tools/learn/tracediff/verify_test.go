package tracediff

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// reference is the reference prediction of r03 (solutions/r03/reference.txt
// holds the same lines, with notes), for the run in testdata/r03-*.txt.
const reference = `# r03
m1  Client → REST
m2  Client → REST
m3  REST → Dispatcher
m4  JobManagerRunner → JobMaster
m5  JobMaster → ResourceManager
m6  JobMaster → ResourceManager
m7  SlotManager → TaskExecutor ×4
m8  TaskExecutor → JobMaster ×4
m9  JobMaster → TaskExecutor ×0
`

// cleanTable is the course's table of a clean submission, as a learner
// would copy it.
const cleanTable = `m1  Client → REST
m2  Client → REST
m3  REST → Dispatcher
m4  JobManagerRunner → JobMaster
m5  JobMaster → ResourceManager
m6  JobMaster → ResourceManager
m7  SlotManager → TaskExecutor
m8  TaskExecutor → JobMaster
m9  JobMaster → TaskExecutor
m10 TaskExecutor → BlobServer
m11 Task → JobMaster
`

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestVerifyPrediction(t *testing.T) {
	realJSON := readTestdata(t, "testdata/r03-json.txt")
	realV := readTestdata(t, "testdata/r03-v.txt")
	cleanRun := readTestdata(t, "testdata/clean-submission-json.txt")
	m7m8 := logLine(`{"step":"m7","from":"SlotManager","to":"TaskExecutor"}`) +
		logLine(`{"step":"m8","from":"TaskExecutor","to":"JobMaster"}`)
	twoDeployments := logLine(`{"step":"m9","from":"JobMaster","to":"TaskExecutor"}`) +
		logLine(`{"step":"m9","from":"JobMaster","to":"TaskExecutor"}`)
	tests := []struct {
		name       string
		testOutput string
		reference  string
		wantErr    string // a piece of the error; "" for none
	}{
		{"the reference matches a real run (go test -json)", realJSON, reference, ""},
		{"the reference matches a real run (go test -v)", realV, reference, ""},
		{"the reference, its repeats written out line by line", realJSON, strings.Replace(reference,
			"m8  TaskExecutor → JobMaster ×4\n", strings.Repeat("m8  TaskExecutor → JobMaster\n", 4), 1), ""},
		{
			"a reference with m5 and m6 the wrong way round",
			realJSON, strings.Replace(reference,
				"m5  JobMaster → ResourceManager\nm6  JobMaster → ResourceManager",
				"m6  JobMaster → ResourceManager\nm5  JobMaster → ResourceManager", 1),
			"the reference prediction does not match the scenario's trace",
		},
		{"a reference with a wrong count", realJSON, strings.Replace(reference, "TaskExecutor ×4", "TaskExecutor ×5", 1),
			"Row 7: m7 SlotManager → TaskExecutor happened 4 times; the reference says 5 times."},
		{"a reference that stops early", realJSON, reference[:strings.Index(reference, "m8")],
			"Row 8: the reference says nothing more, but the run went on: m8 TaskExecutor → JobMaster happened 4 times."},
		{"a reference with a message that never happens", realJSON, strings.Replace(reference, "×0", "", 1),
			"Row 9: the reference says m9 JobMaster → TaskExecutor; it never happened: the run ends after row 8."},
		{"a test that logged no trace", "--- FAIL: TestSubmissionWithOneSlotTooFew (0.00s)\n", reference, "the test output holds no trace"},
		{"a trace line that cannot be read", logLine(`{"step":`), reference, "the test output: line 1"},
		{"a reference that cannot be read", realJSON, "m1 Client REST\n", "the reference prediction: line 1"},
		{
			"a scenario whose run is the table of a clean submission",
			cleanRun, cleanTable,
			"the table of a clean submission (m1 … m11, each once) matches the trace",
		},
		{
			"a reference of a single message",
			twoDeployments, "m9 JobMaster → TaskExecutor ×2\n",
			"there is no order to predict",
		},
		{"a short reference that is honest", m7m8, "m7 SlotManager → TaskExecutor\nm8 TaskExecutor → JobMaster\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyPrediction(strings.NewReader(tt.testOutput), strings.NewReader(tt.reference))
			checkError(t, err, tt.wantErr)
		})
	}
}

// A reference that does not match comes back with the two sides in a
// table, the reference on the left, the whole run on the right.
func TestVerifyPredictionShowsTheDifference(t *testing.T) {
	wrong := strings.Replace(reference, "m3  REST → Dispatcher", "m3  Client → Dispatcher", 1)
	err := VerifyPrediction(strings.NewReader(readTestdata(t, "testdata/r03-json.txt")), strings.NewReader(wrong))
	for _, want := range []string{
		"    reference ",
		"│ what happened\n",
		"✗ 3 m3  Client → Dispatcher",
		"  8 m8  TaskExecutor → JobMaster ×4",
		"│ m8  TaskExecutor → JobMaster ×4: offerSlots",
		"Row 3: the reference says m3 Client → Dispatcher; it never happened. The next new message was m3 REST → Dispatcher.",
	} {
		checkError(t, err, want)
	}
}

// The checks beyond the reference's match are what make a predict
// exercise worth doing. With FirstCountDifference they pass for every
// honest reference; against comparisons that ignore the order, or the
// counts, or both, each one speaks.
func TestCheckPredictionIsAsked(t *testing.T) {
	happened := Count(mustParseTestOutput(t, readTestdata(t, "testdata/r03-json.txt")))
	want := Count(mustParsePrediction(t, reference))
	orderBlind := func(a, b []Counted) int { return FirstCountDifference(sortedByStep(a), sortedByStep(b)) }
	countBlind := func(a, b []Counted) int { return FirstCountDifference(once(a), once(b)) }
	// Blind to the counts, and to predicted messages after the last one
	// that happened.
	tableBlind := func(a, b []Counted) int {
		a = once(a)
		return FirstCountDifference(a[:min(len(a), len(b))], once(b))
	}
	tests := []struct {
		name            string
		firstDifference func(a, b []Counted) int
		wantErrs        []string
	}{
		{"the comparison of learn check", FirstCountDifference, nil},
		{"a comparison blind to the order", orderBlind, []string{
			"rows 1 and 2 swapped", "rows 2 and 3 swapped", "rows 7 and 8 swapped",
		}},
		{"a comparison blind to the counts", countBlind, []string{
			"row 7 counted 3 times (m7 SlotManager → TaskExecutor) still matches the trace",
			"row 8 counted 5 times (m8 TaskExecutor → JobMaster) still matches the trace",
		}},
		{"a comparison blind to the counts and to messages that never came", tableBlind, []string{
			"the table of a clean submission (m1 … m11, each once) matches the trace",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPredictionIsAsked(want, happened, tt.firstDifference)
			if tt.wantErrs == nil {
				checkError(t, err, "")
			}
			for _, w := range tt.wantErrs {
				checkError(t, err, w)
			}
		})
	}
}

func mustParseTestOutput(t *testing.T, output string) []Event {
	t.Helper()
	events, err := ParseTestOutput(strings.NewReader(output))
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func mustParsePrediction(t *testing.T, text string) []Event {
	t.Helper()
	events, err := ParsePrediction(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// sortedByStep returns counted in the order of their steps, then their
// names: what a comparison blind to the order would compare.
func sortedByStep(counted []Counted) []Counted {
	sorted := slices.Clone(counted)
	slices.SortStableFunc(sorted, func(a, b Counted) int { return strings.Compare(a.String(), b.String()) })
	return sorted
}

// once returns counted with every count 1 and the messages that never
// happen left out: what a comparison blind to the counts would compare.
func once(counted []Counted) []Counted {
	var out []Counted
	for _, c := range counted {
		if c.Times > 0 {
			c.Times = 1
			out = append(out, c)
		}
	}
	return out
}
