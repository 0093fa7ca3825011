package dot

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/checkpoints"
)

// The ticker's subtasks at parallelism 2, as the trace names them.
const (
	tickerSource1 = "Source: sensor-events (1/2)#0"
	tickerSource2 = "Source: sensor-events (2/2)#0"
	tickerCount1  = "running-count -> Sink: collect-sink (1/2)#0"
	tickerCount2  = "running-count -> Sink: collect-sink (2/2)#0"
)

// tickerCheckpoint is checkpoint 2 of the ticker at parallelism 2 as a
// real run traced it, written by hand: the first source takes the trigger,
// sends its barrier and acknowledges before the second is triggered; the
// second running-count subtask has the barrier on both inputs first.
// Event i happens 250 µs × i after the trigger.
func tickerCheckpoint(t *testing.T) *checkpoints.Checkpoint {
	t.Helper()
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	var events []trace.Event
	emit := func(step trace.Step, from, to, format string, args ...any) {
		events = append(events, trace.Event{Step: step, From: from, To: to, Message: fmt.Sprintf(format, args...),
			Time: start.Add(time.Duration(len(events)) * 250 * time.Microsecond)})
	}
	ack := func(task string, subtask int) {
		emit(trace.K5, task, "CheckpointCoordinator",
			"Received acknowledge message for checkpoint 2 from task aa_bb_%d_0 of job cc at taskexecutor-0 @ pekko://flink/user/rpc/taskmanager_taskexecutor-0.", subtask)
	}
	emit(trace.K1, "CheckpointCoordinator", "CheckpointCoordinator", "Triggering checkpoint 2 (type=CheckpointType{name='Checkpoint'}) @ 1700000000200 for job cc.")
	emit(trace.K2, "CheckpointCoordinator", "TaskExecutor", "Trigger checkpoint 2@1700000000200 for %s.", tickerSource1)
	emit(trace.K3, tickerSource1, "downstream", "%s sent checkpoint barrier 2 to 1 outputs.", tickerSource1)
	ack(tickerSource1, 0)
	emit(trace.K2, "CheckpointCoordinator", "TaskExecutor", "Trigger checkpoint 2@1700000000200 for %s.", tickerSource2)
	emit(trace.K3, tickerSource2, "downstream", "%s sent checkpoint barrier 2 to 1 outputs.", tickerSource2)
	emit(trace.K4, tickerCount2, tickerCount2, "%s received barrier 2 on all 2 input channels (aligned in 1 ms).", tickerCount2)
	ack(tickerCount2, 1)
	ack(tickerSource2, 1)
	emit(trace.K4, tickerCount1, tickerCount1, "%s received barrier 2 on all 2 input channels (aligned in 0 ms).", tickerCount1)
	ack(tickerCount1, 0)
	emit(trace.K6, "CheckpointCoordinator", "CheckpointCoordinator",
		"Completed checkpoint 2 for job cc (241 bytes, checkpointDuration=3 ms, finalizationTime=0 ms).")
	for _, task := range []string{tickerSource1, tickerSource2, tickerCount1, tickerCount2} {
		emit(trace.K7, "CheckpointCoordinator", task, "notifyCheckpointComplete for checkpoint 2")
	}

	job, err := checkpoints.JobOf(planProgram(t, ticker.ProgramClass, []string{"--output", ticker.OutputCollect}, 2))
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoints.Read(events, 2, job)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The checkpoint as it ran: each subtask's steps with their numbers and
// milliseconds, the acknowledgements ranked.
func TestCheckpointMeasured(t *testing.T) {
	got := Checkpoint(tickerCheckpoint(t))
	checkGolden(t, "ticker_checkpoint.dot", got)
	for _, want := range []string{
		`numbers: the order of its 16 events; times since the trigger (k1)`,
		`<td align="right">4</td><td align="left">k5 acknowledged, 1st of 4</td><td width="16"></td><td align="right">+0.750 ms</td>`,
		`k4 barrier on all 2 inputs, aligned in 1 ms`,
		`<td align="right">13–16</td><td align="left">k7 notifyCheckpointComplete to 4 subtasks</td>`,
		`k6 completed: 4 of 4 subtasks acknowledged, 241 bytes`,
		`<b>1/2 #0 on taskexecutor-0</b>`,
		`label="running-count\nSink: collect-sink\nparallelism 2"`,
		`v1_s1 -> coordinator [label="k5, 2nd"`,
		`v0_s0 -> v1_s1 [color="#e8710a", penwidth=2]`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the measured checkpoint lacks %s; got:\n%s", want, got)
		}
	}
}

// The checkpoint in step order: numbers only, nothing that changes from
// run to run.
func TestCheckpointCanonical(t *testing.T) {
	c := tickerCheckpoint(t).Canonical()
	got := string(Checkpoint(c))
	checkGolden(t, "ticker_checkpoint_canonical.dot", []byte(got))
	for _, unwanted := range []string{" ms", "bytes", "1st", "aligned in"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the canonical checkpoint says %q; got:\n%s", unwanted, got)
		}
	}
	if !strings.Contains(got, `<td align="right">8</td><td align="left">k5 acknowledged</td>`) {
		t.Errorf("the first source does not acknowledge 8th in step order; got:\n%s", got)
	}
}

// A TaskManager that records no trace (a standalone cluster's) leaves the
// steps k2 to k4 out; the barrier is still drawn where the subtasks
// downstream acknowledged.
func TestCheckpointWithoutTheTaskManagersSteps(t *testing.T) {
	c := tickerCheckpoint(t)
	var events []trace.Event
	for _, e := range c.Events {
		if e.Step != trace.K2 && e.Step != trace.K3 && e.Step != trace.K4 {
			events = append(events, e)
		}
	}
	c, err := checkpoints.Read(events, 2, c.Job)
	if err != nil {
		t.Fatal(err)
	}
	got := string(Checkpoint(c))
	for _, want := range []string{
		`k2 trigger received: not in the trace`,
		`k4 barrier on all inputs: not in the trace`,
		`v0_s1 -> v1_s0 [color="#e8710a", penwidth=2]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the checkpoint without k2–k4 lacks %s; got:\n%s", want, got)
		}
	}
}

func TestCheckpointSequence(t *testing.T) {
	c := tickerCheckpoint(t)
	measured := string(CheckpointSequence(c))
	checkGolden(t, "ticker_checkpoint_sequence.mmd", []byte(measured))
	for _, want := range []string{
		"    participant CheckpointCoordinator as CheckpointCoordinator (JobMaster)\n    participant TaskExecutor\n" +
			"    participant P1 as Source: sensor-events (1/2)#35;0\n    participant P2 as Source: sensor-events (2/2)#35;0\n",
		"    P1->>P3: k3: +0.500 ms checkpoint barrier 2\n    P1->>P4: k3: +0.500 ms checkpoint barrier 2\n",
		"    P4->>P4: k4: +1.500 ms received barrier 2 on all 2 input channels (aligned in 1 ms).\n",
		"    CheckpointCoordinator->>TaskExecutor: k2: +1.000 ms Trigger checkpoint 2@1700000000200 for Source: sensor-events (2/2)#35;0.\n",
	} {
		if !strings.Contains(measured, want) {
			t.Errorf("the sequence lacks\n%s\ngot:\n%s", want, measured)
		}
	}
	checkGolden(t, "ticker_checkpoint_sequence.dot", CheckpointSequenceDOT(c))

	canonical := string(CheckpointSequence(c.Canonical()))
	if strings.Contains(canonical, " ms ") {
		t.Errorf("the canonical sequence has times:\n%s", canonical)
	}
	if !strings.Contains(canonical, "    CheckpointCoordinator->>TaskExecutor: k2: Trigger checkpoint 2@1700000000200 for Source: sensor-events (1/2)#35;0.\n"+
		"    CheckpointCoordinator->>TaskExecutor: k2: Trigger checkpoint 2@1700000000200 for Source: sensor-events (2/2)#35;0.\n") {
		t.Errorf("the canonical sequence does not trigger both sources first, one arrow each:\n%s", canonical)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestHTMLText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"running-count -> Sink", "running-count -&gt; Sink"},
		{`a <b> & "c"`, "a &lt;b&gt; &amp; &quot;c&quot;"},
		{"two\nlines", "two lines"},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		if got := htmlText(tt.in); got != tt.want {
			t.Errorf("htmlText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A checkpointed job's whole trace (-m): the CheckpointCoordinator is drawn
// next to the JobMaster it lives in, under its caption, and the subtasks
// after the submission's participants.
func TestSequenceDiagramPlacesTheCheckpointCoordinator(t *testing.T) {
	e := func(step trace.Step, from, to string) trace.Event {
		return trace.Event{Step: step, From: from, To: to, Message: "x"}
	}
	got := string(SequenceDiagram([]trace.Event{
		e(trace.M9, "JobMaster", "TaskExecutor"),
		e(trace.M11, "Task", "JobMaster"),
		e(trace.K1, "CheckpointCoordinator", "CheckpointCoordinator"),
		e(trace.K2, "CheckpointCoordinator", "TaskExecutor"),
		e(trace.K5, tickerSource1, "CheckpointCoordinator"),
	}))
	want := "sequenceDiagram\n" +
		"    participant JobMaster\n" +
		"    participant CheckpointCoordinator as CheckpointCoordinator (JobMaster)\n" +
		"    participant TaskExecutor\n    participant Task\n" +
		"    participant P1 as Source: sensor-events (1/2)#35;0\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got:\n%s\nwant it to start with:\n%s", got, want)
	}
}
