package tracediff

import (
	"os"
	"strings"
	"testing"
)

// reference is the reference prediction of r03 (solutions/r03/reference.txt
// holds the same lines, with notes).
const reference = `# r03
m1  Client → REST
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
		{
			"a reference with m5 and m6 the wrong way round",
			realJSON, strings.Replace(reference,
				"m5  JobMaster → ResourceManager\nm6  JobMaster → ResourceManager",
				"m6  JobMaster → ResourceManager\nm5  JobMaster → ResourceManager", 1),
			"the reference prediction does not match the scenario's trace",
		},
		{"a reference that stops early", realJSON, reference[:strings.Index(reference, "m10")], "First difference at row 10"},
		{"a test that logged no trace", "--- FAIL: TestSubmissionTrace (0.00s)\n", reference, "the test output holds no trace"},
		{"a trace line that cannot be read", logLine(`{"step":`), reference, "the test output: line 1"},
		{"a reference that cannot be read", realJSON, "m1 Client REST\n", "the reference prediction: line 1"},
		{
			"a reference without two different steps in a row",
			twoDeployments, "m9 JobMaster → TaskExecutor\nm9 JobMaster → TaskExecutor\n",
			"there is no order to predict",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyPrediction(strings.NewReader(tt.testOutput), strings.NewReader(tt.reference))
			checkError(t, err, tt.wantErr)
		})
	}
}

// A reference that does not match comes back with the two traces side by
// side, the reference on the left.
func TestVerifyPredictionShowsTheDifference(t *testing.T) {
	wrong := strings.Replace(reference, "m3  REST → Dispatcher", "m3  Client → Dispatcher", 1)
	err := VerifyPrediction(strings.NewReader(readTestdata(t, "testdata/r03-json.txt")), strings.NewReader(wrong))
	for _, want := range []string{
		"     reference ",
		"│ what happened\n",
		"✗  3 m3  Client → Dispatcher",
		"First difference at row 3 — reference: m3 Client → Dispatcher; what happened: m3 REST → Dispatcher.",
	} {
		checkError(t, err, want)
	}
}
