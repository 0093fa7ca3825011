package tracediff

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// logLine is a line of a test's log as `go test -v` prints it.
func logLine(event string) string {
	return "    r03_test.go:42: " + TracePrefix + event + "\n"
}

// jsonOutput is what `go test -json` prints for output of test.
func jsonOutput(test, output string) string {
	line, err := json.Marshal(map[string]string{
		"Time": "2026-01-02T03:04:05Z", "Action": "output", "Package": "flinklab/exercises/r03", "Test": test, "Output": output,
	})
	if err != nil {
		panic(err)
	}
	return string(line) + "\n"
}

const (
	m1JSON = `{"step":"m1","from":"Client","to":"REST","message":"POST /jars/upload","jobId":"e69e536703736e60841fa74dfbb41c9b","time":"2026-01-02T03:04:05Z"}`
	m2JSON = `{"step":"m2","from":"Client","to":"REST","message":"POST /jars/r03.jar/run","jobId":"e69e536703736e60841fa74dfbb41c9b","time":"2026-01-02T03:04:05Z"}`
	m9JSON = `{"step":"m9","from":"JobMaster","to":"TaskExecutor","message":"TaskManager died","jobId":"e69e536703736e60841fa74dfbb41c9b","time":"2026-01-02T03:04:05Z","failed":true}`
)

var (
	m1Event = Event{Step: "m1", From: "Client", To: "REST", Message: "POST /jars/upload", JobID: "e69e536703736e60841fa74dfbb41c9b"}
	m2Event = Event{Step: "m2", From: "Client", To: "REST", Message: "POST /jars/r03.jar/run", JobID: "e69e536703736e60841fa74dfbb41c9b"}
	m9Event = Event{Step: "m9", From: "JobMaster", To: "TaskExecutor", Message: "TaskManager died", JobID: "e69e536703736e60841fa74dfbb41c9b", Failed: true}
)

func TestParseTestOutput(t *testing.T) {
	tests := []struct {
		name    string
		output  string
		want    []Event
		wantErr string // a piece of the error; "" for none
	}{
		{
			name:   "go test -v",
			output: "=== RUN   TestSubmissionTrace\n" + logLine(m1JSON) + logLine(m2JSON) + logLine(m9JSON) + "--- PASS: TestSubmissionTrace (0.07s)\nPASS\n",
			want:   []Event{m1Event, m2Event, m9Event},
		},
		{
			name: "go test -json",
			output: `{"Action":"start","Package":"flinklab/exercises/r03"}` + "\n" +
				jsonOutput("TestSubmissionTrace", "=== RUN   TestSubmissionTrace\n") +
				jsonOutput("TestSubmissionTrace", logLine(m1JSON)) +
				jsonOutput("TestSubmissionTrace", logLine(m2JSON)) +
				`{"Action":"pass","Package":"flinklab/exercises/r03","Test":"TestSubmissionTrace"}` + "\n",
			want: []Event{m1Event, m2Event},
		},
		{
			name: "go test -json splits a long line into pieces",
			output: jsonOutput("TestSubmissionTrace", logLine(m1JSON)[:40]) +
				jsonOutput("TestSubmissionTrace", logLine(m1JSON)[40:90]) +
				jsonOutput("TestSubmissionTrace", logLine(m1JSON)[90:]),
			want: []Event{m1Event},
		},
		{
			name: "the pieces of two tests interleave",
			output: jsonOutput("TestA", logLine(m1JSON)[:50]) +
				jsonOutput("TestB", logLine(m2JSON)[:50]) +
				jsonOutput("TestB", logLine(m2JSON)[50:]) +
				jsonOutput("TestA", logLine(m1JSON)[50:]),
			want: []Event{m2Event, m1Event},
		},
		{
			name:   "the last line has no newline",
			output: logLine(m1JSON) + strings.TrimSuffix(logLine(m2JSON), "\n"),
			want:   []Event{m1Event, m2Event},
		},
		{
			name:   "the last piece of go test -json has no newline",
			output: jsonOutput("TestSubmissionTrace", strings.TrimSuffix(logLine(m1JSON), "\n")),
			want:   []Event{m1Event},
		},
		{
			name:   "the prefix at the start of a line",
			output: TracePrefix + m1JSON + "\n",
			want:   []Event{m1Event},
		},
		{
			name:   "a job ID that is not a string is kept as written",
			output: logLine(`{"step":"m3","from":"REST","to":"Dispatcher","jobId":[1,2]}`),
			want:   []Event{{Step: "m3", From: "REST", To: "Dispatcher", JobID: "[1,2]"}},
		},
		{
			name:   "no trace",
			output: "=== RUN   TestSubmissionTrace\n--- FAIL: TestSubmissionTrace (0.00s)\npanic: TODO(m03)\n",
		},
		{
			name:    "a broken event is reported, the others are kept",
			output:  logLine(m1JSON) + logLine(`{"step":"m2","fro`) + logLine(m9JSON),
			want:    []Event{m1Event, m9Event},
			wantErr: `line 2: the trace event {"step":"m2","fro cannot be read`,
		},
		{
			name:    "an event without a step",
			output:  logLine(`{"from":"REST","to":"Dispatcher"}`),
			wantErr: "line 1: the trace event",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTestOutput(strings.NewReader(tt.output))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseTestOutput: events differ (-want +got):\n%s", diff)
			}
			checkError(t, err, tt.wantErr)
		})
	}
}

// checkError fails the test unless err is nil where want is "", or holds
// want.
func checkError(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("got error %v, want none", err)
	case want != "" && err == nil:
		t.Errorf("got no error, want one with %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("got error %q, want one with %q", err, want)
	}
}

// The output of real runs, with go test -json and with go test -v, read
// the same: a clean submission of one task, and the scenario of r03 (a
// job that needs one slot more than the cluster has).
func TestParseTestOutputOfRealRuns(t *testing.T) {
	tests := []struct {
		name  string
		files [2]string
		want  []string
	}{
		{
			name:  "a clean submission",
			files: [2]string{"testdata/clean-submission-json.txt", "testdata/clean-submission-v.txt"},
			want:  []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11"},
		},
		{
			name:  "r03: one slot too few",
			files: [2]string{"testdata/r03-json.txt", "testdata/r03-v.txt"},
			want:  []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m7", "m7", "m7", "m8", "m8", "m8", "m8"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs [][]Event
			for _, name := range tt.files {
				f, err := os.Open(name)
				if err != nil {
					t.Fatal(err)
				}
				events, err := ParseTestOutput(f)
				f.Close()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var got []string
				for _, e := range events {
					got = append(got, e.Step)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: steps differ (-want +got):\n%s", name, diff)
				}
				runs = append(runs, events)
			}
			if got := FirstCountDifference(Count(runs[0]), Count(runs[1])); got != -1 {
				t.Errorf("the two runs, counted, first differ at row %d, want no difference", got+1)
			}
		})
	}
}

func TestParsePrediction(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    []Event
		wantErr string
	}{
		{
			name: "an arrow",
			text: "m3 REST → Dispatcher",
			want: []Event{{Step: "m3", From: "REST", To: "Dispatcher"}},
		},
		{
			name: "an ASCII arrow",
			text: "m3 REST -> Dispatcher",
			want: []Event{{Step: "m3", From: "REST", To: "Dispatcher"}},
		},
		{
			name: "spaces anywhere, the step in capitals",
			text: "   M3   REST→Dispatcher   ",
			want: []Event{{Step: "m3", From: "REST", To: "Dispatcher"}},
		},
		{
			name: "a note after the names",
			text: "m3 REST → Dispatcher: submitJob: the JobGraph → the JobGraphStore",
			want: []Event{{Step: "m3", From: "REST", To: "Dispatcher", Message: "submitJob: the JobGraph → the JobGraphStore"}},
		},
		{
			name: "an arrow in the note is the note's",
			text: "m4 JobManagerRunner -> JobMaster: JobGraph -> ExecutionGraph",
			want: []Event{{Step: "m4", From: "JobManagerRunner", To: "JobMaster", Message: "JobGraph -> ExecutionGraph"}},
		},
		{
			name: "a tab after the step",
			text: "m3\tREST → Dispatcher",
			want: []Event{{Step: "m3", From: "REST", To: "Dispatcher"}},
		},
		{
			name: "a comment after the names",
			text: "m3 REST → Dispatcher   # the front door",
			want: []Event{{Step: "m3", From: "REST", To: "Dispatcher"}},
		},
		{
			name: "a colon after the step",
			text: "m3: REST → Dispatcher",
			want: []Event{{Step: "m3", From: "REST", To: "Dispatcher"}},
		},
		{
			name: "names with spaces",
			text: "m4 Job Manager Runner → Job Master",
			want: []Event{{Step: "m4", From: "Job Manager Runner", To: "Job Master"}},
		},
		{
			name: "a step that breaks",
			text: "m9 JobMaster ✗ TaskExecutor\nm9 JobMaster -x-> TaskExecutor",
			want: []Event{
				{Step: "m9", From: "JobMaster", To: "TaskExecutor", Failed: true},
				{Step: "m9", From: "JobMaster", To: "TaskExecutor", Failed: true},
			},
		},
		{
			name: "comments and blank lines only",
			text: "# Predict the messages.\n\n   # indented\n\t\n",
		},
		{
			name: "several lines",
			text: "# r03\nm1 Client → REST\n\nm2 Client -> REST: the run\n",
			want: []Event{
				{Step: "m1", From: "Client", To: "REST"},
				{Step: "m2", From: "Client", To: "REST", Message: "the run"},
			},
		},
		{
			name: "a count reads as that many lines",
			text: "m7 SlotManager → TaskExecutor ×3: one per slot",
			want: []Event{
				{Step: "m7", From: "SlotManager", To: "TaskExecutor", Message: "one per slot"},
				{Step: "m7", From: "SlotManager", To: "TaskExecutor", Message: "one per slot"},
				{Step: "m7", From: "SlotManager", To: "TaskExecutor", Message: "one per slot"},
			},
		},
		{
			name: "the ways to write a count",
			text: "m7 SlotManager → TaskExecutor×2\nm8 TaskExecutor -> JobMaster x 1\nm9 JobMaster ✗ TaskExecutor X1 # fails",
			want: []Event{
				{Step: "m7", From: "SlotManager", To: "TaskExecutor"},
				{Step: "m7", From: "SlotManager", To: "TaskExecutor"},
				{Step: "m8", From: "TaskExecutor", To: "JobMaster"},
				{Step: "m9", From: "JobMaster", To: "TaskExecutor", Failed: true},
			},
		},
		{
			name: "×0: a message that never happens",
			text: "m8 TaskExecutor → JobMaster\nm9 JobMaster → TaskExecutor ×0: never deployed",
			want: []Event{{Step: "m8", From: "TaskExecutor", To: "JobMaster"}},
		},
		{
			name: "an x in a name is not a count",
			text: "m10 TaskExecutor → Box2",
			want: []Event{{Step: "m10", From: "TaskExecutor", To: "Box2"}},
		},
		{
			name:    "a count too large",
			text:    "m7 SlotManager → TaskExecutor ×1001",
			wantErr: "a count is at most 1000",
		},
		{
			name:    "a count without a receiver",
			text:    "m7 SlotManager → ×2",
			wantErr: "a message needs a sender and a receiver",
		},
		{
			name:    "× between the names is not an arrow",
			text:    "m9 JobMaster × TaskExecutor",
			wantErr: "there is no arrow between the sender and the receiver (✗ marks a message that fails; × is for a count",
		},
		{
			name:    "no step",
			text:    "REST → Dispatcher",
			wantErr: `line 1: "REST → Dispatcher": it does not start with a step`,
		},
		{
			name:    "no arrow",
			text:    "m3 REST Dispatcher",
			wantErr: "there is no arrow",
		},
		{
			name:    "a step alone",
			text:    "m3",
			wantErr: "there is no arrow",
		},
		{
			name:    "two arrows",
			text:    "m3 REST → Dispatcher → JobMaster",
			wantErr: "one message per line, with one arrow",
		},
		{
			name:    "no sender",
			text:    "m3 → Dispatcher",
			wantErr: "a message needs a sender and a receiver",
		},
		{
			name:    "the lines that can be read are kept",
			text:    "m1 Client → REST\nm2 Client REST\nm3 REST → Dispatcher\n",
			want:    []Event{{Step: "m1", From: "Client", To: "REST"}, {Step: "m3", From: "REST", To: "Dispatcher"}},
			wantErr: "line 2:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePrediction(strings.NewReader(tt.text))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePrediction(%q): events differ (-want +got):\n%s", tt.text, diff)
			}
			checkError(t, err, tt.wantErr)
		})
	}
}

// Every error of a prediction is reported, each with its line.
func TestParsePredictionReportsEveryLine(t *testing.T) {
	_, err := ParsePrediction(strings.NewReader("m1 Client → REST\nClient → REST\nm3 REST → Dispatcher\nm4 JobManagerRunner JobMaster\n"))
	for _, want := range []string{"line 2:", "line 4:"} {
		checkError(t, err, want)
	}
}
