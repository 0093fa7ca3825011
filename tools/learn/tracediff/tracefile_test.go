package tracediff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTracesReadBackAsWritten(t *testing.T) {
	traces := []TestTrace{
		{Test: "TestARun", Events: Canonical(readTrace(t, parallelRun1))},
		{Test: "TestARefusal/twice"}, // a scenario that takes no step
		{Test: "TestABrokenStep", Events: []Event{
			{Step: "m3", From: "Client", To: "Dispatcher", Failed: true, Message: "submitJob 'numbers' rejected: DuplicateJobSubmissionException: Job has already been submitted."},
			{Step: "m10", From: "TaskExecutor", To: "BlobServer", Message: "a message → with an arrow: and a colon"},
			{Step: "m11", From: "Task", To: "JobMaster"},
		}},
	}
	var b bytes.Buffer
	if err := WriteTraces(&b, []string{"generated", "", "two lines"}, traces); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "# generated\n#\n# two lines\n\n=== TestARun\nm3  Client → Dispatcher: submitJob 'numbers'") {
		t.Errorf("the file starts\n%s", b.String()[:200])
	}
	got, err := ReadTraces(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(traces, got); diff != "" {
		t.Error(diff)
	}
}

func TestReadTracesSaysWhichLineIsWrong(t *testing.T) {
	_, err := ReadTraces(strings.NewReader("m3  Client → Dispatcher\n=== TestA\nm3 Client Dispatcher\nm4  → JobMaster\n"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"line 1: an event before the first", "line 3: ", "line 4: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}
