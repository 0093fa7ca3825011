package tracediff

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// happened is the trace of the r03 scenario, with shorter IDs.
var happened = []Event{
	{Step: "m1", From: "Client", To: "REST", Message: "POST /jars/upload: jar 4f2e_r03.jar (Program-Class Shout) stored"},
	{Step: "m2", From: "Client", To: "REST", Message: "POST /jars/4f2e_r03.jar/run: program Shout built job 'r03'"},
	{Step: "m3", From: "REST", To: "Dispatcher", Message: "submitJob 'r03': JobGraph validated and persisted in the JobGraphStore"},
	{Step: "m4", From: "JobManagerRunner", To: "JobMaster", Message: "leadership granted; JobMaster created for job 'r03', ExecutionGraph built"},
	{Step: "m5", From: "JobMaster", To: "ResourceManager", Message: "registerJobMaster: job manager 0ae3 registered for job e69e"},
	{Step: "m6", From: "JobMaster", To: "ResourceManager", Message: "declareRequiredResources: job e69e requires 1 slot(s)"},
	{Step: "m7", From: "SlotManager", To: "TaskExecutor", Message: "requestSlot: slot taskexecutor-0_0 for job e69e"},
	{Step: "m8", From: "TaskExecutor", To: "JobMaster", Message: "offerSlots from taskexecutor-0: 1 offered, 1 accepted"},
	{Step: "m9", From: "JobMaster", To: "TaskExecutor", Message: "Received task Source: words -> shout -> Sink: collect (1/1)#0"},
	{Step: "m10", From: "TaskExecutor", To: "BlobServer", Message: "Fetched p-ec73 of job e69e through the BlobCache."},
	{Step: "m11", From: "Task", To: "JobMaster", Message: "Source: words -> shout -> Sink: collect (1/1)#0 switched from INITIALIZING to RUNNING."},
}

// long is the r03 trace three times over, as a job that failed over twice
// might show; longWithFailure has step m9 of the second round broken.
var (
	long            = slices.Concat(happened, happened, happened)
	longWithFailure = slices.Concat(happened, happened[:6],
		[]Event{{Step: "m9", From: "JobMaster", To: "TaskExecutor", Failed: true, Message: "submitTask: TaskManager taskexecutor-0 died before the task arrived"}},
		happened[7:], happened)
)

// predicted is the reference prediction of r03, without notes.
func predicted() []Event {
	var p []Event
	for _, e := range happened {
		p = append(p, Event{Step: e.Step, From: e.From, To: e.To})
	}
	return p
}

// swapped returns events with rows i and i+1 swapped.
func swapped(events []Event, i int) []Event {
	s := slices.Clone(events)
	s[i], s[i+1] = s[i+1], s[i]
	return s
}

// golden trims the leading newline of a raw string, so that a golden table
// can start on its own line.
func golden(s string) string { return strings.TrimPrefix(s, "\n") }

func TestRender(t *testing.T) {
	tests := []struct {
		name        string
		left, right []Event
		opts        Options
		want        string
	}{
		{
			name:  "what happened agrees with the reference",
			left:  happened,
			right: predicted(),
			opts:  Options{Width: 100},
			want: golden(`
     what happened                        │ reference
   1 m1  Client → REST: POST /jars/uploa… │ m1  Client → REST
   2 m2  Client → REST: POST /jars/4f2e_… │ m2  Client → REST
   3 m3  REST → Dispatcher: submitJob 'r… │ m3  REST → Dispatcher
   4 m4  JobManagerRunner → JobMaster: l… │ m4  JobManagerRunner → JobMaster
   5 m5  JobMaster → ResourceManager: re… │ m5  JobMaster → ResourceManager
   6 m6  JobMaster → ResourceManager: de… │ m6  JobMaster → ResourceManager
   7 m7  SlotManager → TaskExecutor: req… │ m7  SlotManager → TaskExecutor
   8 m8  TaskExecutor → JobMaster: offer… │ m8  TaskExecutor → JobMaster
   9 m9  JobMaster → TaskExecutor: Recei… │ m9  JobMaster → TaskExecutor
  10 m10 TaskExecutor → BlobServer: Fetc… │ m10 TaskExecutor → BlobServer
  11 m11 Task → JobMaster: Source: words… │ m11 Task → JobMaster

No difference: the 11 rows agree.
`),
		},
		{
			name:  "the prediction has two messages the wrong way round",
			left:  swapped(predicted(), 4),
			right: happened,
			opts:  Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened, Width: 100},
			want: golden(`
     you predicted                        │ what happened
   1 m1  Client → REST                    │ m1  Client → REST: POST /jars/uploa…
   2 m2  Client → REST                    │ m2  Client → REST: POST /jars/4f2e_…
   3 m3  REST → Dispatcher                │ m3  REST → Dispatcher: submitJob 'r…
   4 m4  JobManagerRunner → JobMaster     │ m4  JobManagerRunner → JobMaster: l…
✗  5 m6  JobMaster → ResourceManager      │ m5  JobMaster → ResourceManager: re…  ← first difference
   6 m5  JobMaster → ResourceManager      │ m6  JobMaster → ResourceManager: de…
   7 m7  SlotManager → TaskExecutor       │ m7  SlotManager → TaskExecutor: req…
   8 m8  TaskExecutor → JobMaster         │ m8  TaskExecutor → JobMaster: offer…
   9 m9  JobMaster → TaskExecutor         │ m9  JobMaster → TaskExecutor: Recei…
  10 m10 TaskExecutor → BlobServer        │ m10 TaskExecutor → BlobServer: Fetc…
  11 m11 Task → JobMaster                 │ m11 Task → JobMaster: Source: words…

First difference at row 5 — you predicted: m6 JobMaster → ResourceManager; what happened: m5 JobMaster → ResourceManager.
`),
		},
		{
			name:  "the prediction stops early",
			left:  predicted()[:3],
			right: happened[:5],
			opts:  Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened, Width: 80},
			want: golden(`
    you predicted                    │ what happened
  1 m1  Client → REST                │ m1  Client → REST: POST /jars/u…
  2 m2  Client → REST                │ m2  Client → REST: POST /jars/4…
  3 m3  REST → Dispatcher            │ m3  REST → Dispatcher: submitJo…
✗ 4 (no more steps)                  │ m4  JobManagerRunner → JobMaster  ← first difference
  5                                  │ m5  JobMaster → ResourceManager

First difference at row 4 — you predicted: (no more steps); what happened: m4 JobManagerRunner → JobMaster.
`),
		},
		{
			name:  "the reference stops early",
			left:  happened[:4],
			right: predicted()[:3],
			opts:  Options{Width: 80},
			want: golden(`
    what happened                    │ reference
  1 m1  Client → REST: POST /jars/u… │ m1  Client → REST
  2 m2  Client → REST: POST /jars/4… │ m2  Client → REST
  3 m3  REST → Dispatcher: submitJo… │ m3  REST → Dispatcher
✗ 4 m4  JobManagerRunner → JobMaster │ (no more steps)                   ← first difference

First difference at row 4 — what happened: m4 JobManagerRunner → JobMaster; reference: (no more steps).
`),
		},
		{
			name:  "a long table is cut around the first difference",
			left:  long,
			right: longWithFailure,
			opts:  Options{Width: 100},
			want: golden(`
     what happened                        │ reference
   1 m1  Client → REST: POST /jars/uploa… │ m1  Client → REST: POST /jars/uploa…
   2 m2  Client → REST: POST /jars/4f2e_… │ m2  Client → REST: POST /jars/4f2e_…
   3 m3  REST → Dispatcher: submitJob 'r… │ m3  REST → Dispatcher: submitJob 'r…
   ⋮ (11 rows left out: 4–14)
  15 m4  JobManagerRunner → JobMaster: l… │ m4  JobManagerRunner → JobMaster: l…
  16 m5  JobMaster → ResourceManager: re… │ m5  JobMaster → ResourceManager: re…
  17 m6  JobMaster → ResourceManager: de… │ m6  JobMaster → ResourceManager: de…
✗ 18 m7  SlotManager → TaskExecutor: req… │ m9  JobMaster ✗ TaskExecutor: submi…  ← first difference
  19 m8  TaskExecutor → JobMaster: offer… │ m8  TaskExecutor → JobMaster: offer…
  20 m9  JobMaster → TaskExecutor: Recei… │ m9  JobMaster → TaskExecutor: Recei…
  21 m10 TaskExecutor → BlobServer: Fetc… │ m10 TaskExecutor → BlobServer: Fetc…
   ⋮ (9 rows left out: 22–30)
  31 m9  JobMaster → TaskExecutor: Recei… │ m9  JobMaster → TaskExecutor: Recei…
  32 m10 TaskExecutor → BlobServer: Fetc… │ m10 TaskExecutor → BlobServer: Fetc…
  33 m11 Task → JobMaster: Source: words… │ m11 Task → JobMaster: Source: words…

First difference at row 18 — what happened: m7 SlotManager → TaskExecutor; reference: m9 JobMaster ✗ TaskExecutor.
`),
		},
		{
			name:  "a long table that agrees keeps its ends",
			left:  long,
			right: long,
			opts:  Options{Width: 100, MaxRows: 10, Context: 2},
			want: golden(`
     what happened                        │ reference
   1 m1  Client → REST: POST /jars/uploa… │ m1  Client → REST: POST /jars/uploa…
   2 m2  Client → REST: POST /jars/4f2e_… │ m2  Client → REST: POST /jars/4f2e_…
   ⋮ (29 rows left out: 3–31)
  32 m10 TaskExecutor → BlobServer: Fetc… │ m10 TaskExecutor → BlobServer: Fetc…
  33 m11 Task → JobMaster: Source: words… │ m11 Task → JobMaster: Source: words…

No difference: the 33 rows agree.
`),
		},
		{
			name:  "nothing on either side",
			left:  nil,
			right: nil,
			opts:  Options{},
			want: golden(`
    what happened                                  │ reference
    (no steps on either side)

No difference: there are no steps on either side.
`),
		},
		{
			name:  "steps and names are never cut",
			left:  happened[:2],
			right: []Event{{Step: "m1", From: "Client", To: "REST"}, {Step: "m3", From: "REST", To: "Dispatcher"}},
			opts:  Options{Width: 40},
			want: golden(`
    what happened         │ reference
  1 m1  Client → REST: P… │ m1  Client → REST
✗ 2 m2  Client → REST: P… │ m3  REST → Dispatcher  ← first difference

First difference at row 2 — what happened: m2 Client → REST; reference: m3 REST → Dispatcher.
`),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.left, tt.right, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render: differs from the golden text (-want +got):\n%s\ngot:\n%s", diff, got)
			}
		})
	}
}

// With Color, the titles are bold and the row of the first difference red.
func TestRenderInColor(t *testing.T) {
	got := Render(happened[:2], []Event{{Step: "m1", From: "Client", To: "REST"}, {Step: "m3", From: "REST", To: "Dispatcher"}},
		Options{Width: 80, Color: true})
	want := "\x1b[1m    what happened              │ reference\x1b[0m\n" +
		"  1 m1  Client → REST: POST /… │ m1  Client → REST\n" +
		"\x1b[31m✗ 2 m2  Client → REST: POST /… │ m3  REST → Dispatcher       ← first difference\x1b[0m\n" +
		"\n" +
		"First difference at row 2 — what happened: m2 Client → REST; reference: m3 REST → Dispatcher.\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Render: differs (-want +got):\n%s", diff)
	}
}
