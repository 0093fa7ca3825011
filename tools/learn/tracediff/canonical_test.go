package tracediff

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The parallel-* files are `go test -json` output of m07's
// TestAJobGetsASlotForEachParallelSubtaskAndRuns on the complete runtime:
// a job of three tasks at parallelism 3 on two TaskExecutors, 37 steps.
// run1 and run2 are two real runs whose goroutines interleaved very
// differently (run2 deploys and runs subtask 3 before subtasks 1 and 2,
// and offers taskexecutor-1's slot between taskexecutor-0's); run1
// reordered holds run1's lines, IDs and all, in run2's order: the same run
// as another interleaving would have logged it.
const (
	parallelRun1          = "testdata/parallel-run1-json.txt"
	parallelRun2          = "testdata/parallel-run2-json.txt"
	parallelRun1Reordered = "testdata/parallel-run1-reordered-json.txt"
)

func readTrace(t *testing.T, path string) []Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := ParseTestOutput(f)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// The same run, interleaved two ways, gives byte for byte the same
// table, and so does another run of the same code: the comparison shows
// what the program guarantees, not how its goroutines were scheduled.
func TestCanonicalGivesTheSameTableForEveryInterleaving(t *testing.T) {
	run1, reordered, run2 := readTrace(t, parallelRun1), readTrace(t, parallelRun1Reordered), readTrace(t, parallelRun2)
	if FirstDifference(run1, reordered) < 0 || FirstDifference(run1, run2) < 0 {
		t.Fatal("the recorded runs must interleave differently, or they prove nothing")
	}
	// A wrong answer: the second TaskExecutor's slot is never requested,
	// so one subtask of each task is never deployed.
	wrong := slices.DeleteFunc(slices.Clone(run1), func(e Event) bool {
		return strings.Contains(e.Message, "taskexecutor-1") || strings.Contains(e.Message, "(3/3)#0")
	})

	render := func(reference []Event) string {
		return Render(Canonical(wrong), Canonical(reference), Options{})
	}
	want := render(run1)
	for name, reference := range map[string][]Event{"run1 reordered": reordered, "run2": run2} {
		if got := render(reference); got != want {
			t.Errorf("%s gives another table than run1:\n%s", name, cmp.Diff(want, got))
		}
	}
	if !strings.Contains(want, "First difference at row 7 — what happened: m8 TaskExecutor → JobMaster; reference: m7 SlotManager → TaskExecutor.") {
		t.Errorf("the first difference is not at the third requestSlot:\n%s", want)
	}
}

// The canonical order of one run, as a table reads it: by step, each
// task attempt's steps in their order, task attempts by name, a
// TaskExecutor's offers as one.
func TestCanonicalOrder(t *testing.T) {
	var got []string
	for _, e := range Canonical(readTrace(t, parallelRun2)) {
		got = append(got, strings.TrimSpace(e.String()+" "+chainOf(e).subject))
	}
	want := []string{
		"m3 Client → Dispatcher",
		"m4 JobManagerRunner → JobMaster",
		"m5 JobMaster → ResourceManager",
		"m6 JobMaster → ResourceManager",
		"m7 SlotManager → TaskExecutor taskexecutor-0",
		"m7 SlotManager → TaskExecutor taskexecutor-0",
		"m7 SlotManager → TaskExecutor taskexecutor-1",
		"m8 TaskExecutor → JobMaster taskexecutor-0", // two offers in run2, one in run1
		"m8 TaskExecutor → JobMaster taskexecutor-1",
	}
	for _, step := range []string{"m9 JobMaster → TaskExecutor", "m10 TaskExecutor → BlobServer", "m11 Task → JobMaster"} {
		for _, task := range []string{"Map: square", "Sink: collect", "Source: numbers"} {
			for _, subtask := range []string{"(1/3)#0", "(2/3)#0", "(3/3)#0"} {
				want = append(want, step+" "+task+" "+subtask)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// What the program guarantees survives: a task that reports RUNNING
// before it has its jar, a registration accepted before it was refused,
// still differ from the reference after Canonical.
func TestCanonicalKeepsTheOrderTheProgramGuarantees(t *testing.T) {
	task := func(step, msg string) Event {
		return Event{Step: step, From: "x", To: "y", JobID: "j1", Message: msg}
	}
	deploy := task("m9", "Received task Map (1/2)#0 (a_b_0_0), deploy into slot with allocation id c.")
	fetch := task("m10", "Fetched p-1 of job j1 for task Map (1/2)#0 (a_b_0_0) through the BlobCache.")
	run := task("m11", "Map (1/2)#0 (a_b_0_0) switched from INITIALIZING to RUNNING.")
	other := task("m9", "Received task Map (2/2)#0 (a_b_1_0), deploy into slot with allocation id d.")

	right := Canonical([]Event{deploy, other, fetch, run})
	if FirstDifference(right, Canonical([]Event{other, deploy, fetch, run})) >= 0 {
		t.Error("two tasks deployed in the other order must not differ")
	}
	if FirstDifference(right, Canonical([]Event{deploy, other, run, fetch})) < 0 {
		t.Error("a task that runs before it fetches its jar must differ")
	}

	refused := Event{Step: "m5", From: "JobMaster", To: "ResourceManager", JobID: "j1", Failed: true}
	accepted := Event{Step: "m5", From: "JobMaster", To: "ResourceManager", JobID: "j1"}
	if FirstDifference(Canonical([]Event{refused, accepted}), Canonical([]Event{accepted, refused})) < 0 {
		t.Error("a registration refused, then accepted, must differ from the other way round")
	}
}

func TestCanonicalOrdersJobsByTheirFirstEventAndUploadsWithoutAJobFirst(t *testing.T) {
	events := []Event{
		{Step: "m3", From: "Client", To: "Dispatcher", JobID: "b"},
		{Step: "m3", From: "Client", To: "Dispatcher", JobID: "a"},
		{Step: "m1", From: "Client", To: "REST", Failed: true},
		{Step: "m4", From: "JobManagerRunner", To: "JobMaster", JobID: "a"},
		{Step: "m4", From: "JobManagerRunner", To: "JobMaster", JobID: "b"},
	}
	var got []string
	for _, e := range Canonical(events) {
		got = append(got, e.String())
		if e.JobID != "" {
			t.Errorf("%v keeps its job ID", e)
		}
	}
	want := []string{
		"m1 Client ✗ REST",
		"m3 Client → Dispatcher", "m4 JobManagerRunner → JobMaster", // job b, first to appear
		"m3 Client → Dispatcher", "m4 JobManagerRunner → JobMaster", // job a
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// A TaskExecutor offers what it holds when it offers: two slots in one
// call or in two. Offers that broke are kept apart.
func TestCanonicalCountsATaskExecutorsOffersInARowAsOne(t *testing.T) {
	offer := func(te, msg string, failed bool) Event {
		return Event{Step: "m8", From: "TaskExecutor", To: "JobMaster", JobID: "j", Message: "offerSlots from " + te + ": " + msg, Failed: failed}
	}
	inTwo := Canonical([]Event{offer("te-0", "1 offered, 1 accepted", false), offer("te-1", "1 offered, 1 accepted", false), offer("te-0", "1 offered, 1 accepted", false)})
	inOne := Canonical([]Event{offer("te-1", "1 offered, 1 accepted", false), offer("te-0", "2 offered, 2 accepted", false)})
	if diff := cmp.Diff(inOne, inTwo); diff != "" {
		t.Errorf("offers in one call and in two differ:\n%s", diff)
	}
	if got := inOne[0].Message; got != "offerSlots from te-0: all offered slots accepted" {
		t.Errorf("the offers of te-0 read %q", got)
	}
	rejected := Canonical([]Event{offer("te-0", "2 offered, 0 accepted", false), offer("te-0", "1 offered, 1 accepted", false)})
	if len(rejected) != 1 || rejected[0].Message != "offerSlots from te-0: 3 offered, 1 accepted" {
		t.Errorf("offers the JobMaster did not take all of read %v", rejected)
	}
	broken := Canonical([]Event{offer("te-0", "1 offered, 0 accepted: fault injected", true), offer("te-0", "1 offered, 1 accepted", false)})
	if len(broken) != 2 {
		t.Errorf("a broken offer and the next are %d rows, want 2", len(broken))
	}
}

func TestStableMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"registerJobMaster: job manager 06ce2fbe01b2e010cdcfde52549fc52b@pekko://flink/user/rpc/jobmanager_0 registered for job baf1df8e700d15d76b6b80bb1f7e9c48",
			"registerJobMaster: job manager <id>@pekko://flink/user/rpc/jobmanager_0 registered for job <id>"},
		{"Map: square (1/1)#0 (62db9138ce87f72f99763224d9613786_f3f4d5e14e4dc4a643a4b880b77631f1_0_0) switched from INITIALIZING to RUNNING.",
			"Map: square (1/1)#0 (<id>) switched from INITIALIZING to RUNNING."},
		{"POST /jars/upload: jar bdda8c6c-8ce4-46fe-ac3b-8a81958517b5_r03.jar (Program-Class Shout) stored at 05:05:10.881",
			"POST /jars/upload: jar <id>_r03.jar (Program-Class Shout) stored at <time>"},
		{"Could not move uploaded jar file [WordCount.jar] to [/tmp/TestAJarThatCannotBeStored573259948/001/web/flink-web-upload/x.jar]",
			"Could not move uploaded jar file [WordCount.jar] to [<tmp>/web/flink-web-upload/x.jar]"},
		{"requestSlot: slot taskexecutor-0_0 of TaskExecutor taskexecutor-0", "requestSlot: slot taskexecutor-0_0 of TaskExecutor taskexecutor-0"},
	}
	for _, tt := range tests {
		if got := StableMessage(tt.in); got != tt.want {
			t.Errorf("StableMessage(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
