package tracediff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRenderCounts(t *testing.T) {
	run := []Counted{
		{Event{Step: "m5", From: "JobMaster", To: "ResourceManager", Message: "registerJobMaster"}, 1},
		{m6, 1}, {m7a, 4}, {m8a, 4},
	}
	tests := []struct {
		name      string
		predicted []Counted
		opts      Options
		want      string
	}{
		{
			name:      "the prediction agrees",
			predicted: []Counted{{Event{Step: "m5", From: "JobMaster", To: "ResourceManager"}, 1}, {m6, 1}, {m7b, 4}, {m8b, 4}},
			opts:      Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened, Width: 110},
			want: golden(`
    you predicted                             │ what happened
  1 m5  JobMaster → ResourceManager           │ m5  JobMaster → ResourceManager: registe…
  2 m6  JobMaster → ResourceManager: require… │ m6  JobMaster → ResourceManager: require…
  3 m7  SlotManager → TaskExecutor ×4: slot…  │ m7  SlotManager → TaskExecutor ×4: slot…
  4 m8  TaskExecutor → JobMaster ×4: from ta… │ m8  TaskExecutor → JobMaster ×4: from ta…

No difference: the 4 messages agree, each as many times.
`),
		},
		{
			name: "a wrong count, what happened after it hidden",
			predicted: []Counted{
				{Event{Step: "m5", From: "JobMaster", To: "ResourceManager"}, 1},
				{Event{Step: "m6", From: "JobMaster", To: "ResourceManager"}, 1},
				{Event{Step: "m7", From: "SlotManager", To: "TaskExecutor"}, 5},
				{Event{Step: "m8", From: "TaskExecutor", To: "JobMaster"}, 5},
				{m9, 1},
			},
			opts: Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened, Width: 110, HideAfterDifference: true},
			want: golden(`
    you predicted                             │ what happened
  1 m5  JobMaster → ResourceManager           │ m5  JobMaster → ResourceManager: registe…
  2 m6  JobMaster → ResourceManager           │ m6  JobMaster → ResourceManager: require…
✗ 3 m7  SlotManager → TaskExecutor ×5         │ m7  SlotManager → TaskExecutor ×4: slot…   ← first difference
  4 m8  TaskExecutor → JobMaster ×5           │
  5 m9  JobMaster → TaskExecutor              │
    (what happened after row 3 is not shown)

Row 3: m7 SlotManager → TaskExecutor happened 4 times; you predicted 5 times.
`),
		},
		{
			name:      "the same, everything shown",
			predicted: []Counted{{run[0].Event, 1}, {m6, 1}, {m7a, 5}},
			opts:      Options{LeftTitle: TitleReference, RightTitle: TitleHappened, Width: 110},
			want: golden(`
    reference                                 │ what happened
  1 m5  JobMaster → ResourceManager: registe… │ m5  JobMaster → ResourceManager: registe…
  2 m6  JobMaster → ResourceManager: require… │ m6  JobMaster → ResourceManager: require…
✗ 3 m7  SlotManager → TaskExecutor ×5: slot…  │ m7  SlotManager → TaskExecutor ×4: slot…   ← first difference
  4                                           │ m8  TaskExecutor → JobMaster ×4: from ta…

Row 3: m7 SlotManager → TaskExecutor happened 4 times; the reference says 5 times.
`),
		},
		{
			name:      "a prediction that ends early says nothing of the end of the run",
			predicted: []Counted{{run[0].Event, 1}},
			opts:      Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened, Width: 110, HideAfterDifference: true},
			want: golden(`
    you predicted                             │ what happened
  1 m5  JobMaster → ResourceManager: registe… │ m5  JobMaster → ResourceManager: registe…
✗ 2 (no more messages)                        │ m6  JobMaster → ResourceManager: require…  ← first difference
    (what happened after row 2 is not shown)

Row 2: you predicted nothing more, but the run went on: m6 JobMaster → ResourceManager happened once.
`),
		},
		{
			name:      "nothing on either side",
			predicted: nil,
			opts:      Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened},
			want: golden(`
    you predicted                                  │ what happened
    (no messages on either side)

No difference: there are no messages on either side.
`),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			right := run
			if tt.predicted == nil {
				right = nil
			}
			got := RenderCounts(tt.predicted, right, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RenderCounts: differs from the golden text (-want +got):\n%s\ngot:\n%s", diff, got)
			}
		})
	}
}

// With HideAfterDifference nothing of what happened after the first
// difference shows, neither in the table nor in the sentence.
func TestRenderCountsHidesTheRestOfTheRun(t *testing.T) {
	happened := Count(mustParseTestOutput(t, readTestdata(t, "testdata/r03-json.txt")))
	predicted := Count(mustParsePrediction(t, strings.Replace(reference, "m5  JobMaster → ResourceManager\n", "", 1)))
	got := RenderCounts(predicted, happened, Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened, HideAfterDifference: true})
	for _, secret := range []string{"×4: ", "offerSlots", "requestSlot", "declareRequiredResources"} {
		if strings.Contains(got, secret) {
			t.Errorf("RenderCounts shows %q, which happened after the first difference:\n%s", secret, got)
		}
	}
	if !strings.Contains(got, "registerJobM") {
		t.Errorf("RenderCounts does not show the row of the first difference:\n%s", got)
	}
}

// With Color, the titles are bold and the row of the first difference red.
func TestRenderCountsInColor(t *testing.T) {
	got := RenderCounts([]Counted{{m6, 2}}, []Counted{{m6, 1}}, Options{LeftTitle: TitlePredicted, RightTitle: TitleHappened, Width: 60, Color: true})
	want := "\x1b[1m    you predicted                      │ what happened\x1b[0m\n" +
		"\x1b[31m✗ 1 m6  JobMaster → ResourceManager ×2 │ m6  JobMaster → ResourceManager     ← first difference\x1b[0m\n" +
		"\n" +
		"Row 1: m6 JobMaster → ResourceManager happened once; you predicted twice.\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RenderCounts: differs (-want +got):\n%s", diff)
	}
}
