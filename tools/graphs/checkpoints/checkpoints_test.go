package checkpoints

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/streaming"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/regions"
)

// The ticker at parallelism 2: two sources, each sending to both
// running-count subtasks.
const (
	source1 = "Source: sensor-events (1/2)#0"
	source2 = "Source: sensor-events (2/2)#0"
	count1  = "running-count -> Sink: collect-sink (1/2)#0"
	count2  = "running-count -> Sink: collect-sink (2/2)#0"
)

func tickerJob(t *testing.T) *Job {
	t.Helper()
	sg, err := streaming.PlanProgram(ticker.ProgramClass, []string{"--output", "collect"}, 2)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	job, err := JobOf(jg)
	require.NoError(t, err)
	return job
}

// tickerTrace is a trace of checkpoints 1 and 2 of the ticker, in the
// order of a real run: the first source is triggered, sends its barrier and
// acknowledges before the second is triggered. Checkpoint 1 fails to
// trigger; checkpoint 2 completes. Event i happens i ms after the first.
func tickerTrace() []trace.Event {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	var events []trace.Event
	emit := func(step trace.Step, from, to, format string, args ...any) {
		events = append(events, trace.Event{Step: step, From: from, To: to, Message: fmt.Sprintf(format, args...),
			Time: start.Add(time.Duration(len(events)) * time.Millisecond)})
	}
	ack := func(id int, task string, subtask int) {
		emit(trace.K5, task, "CheckpointCoordinator",
			"Received acknowledge message for checkpoint %d from task aa_bb_%d_0 of job cc at taskexecutor-0 @ pekko://flink/user/rpc/taskmanager_taskexecutor-0.", id, subtask)
	}
	emit(trace.K1, "CheckpointCoordinator", "CheckpointCoordinator", "Triggering checkpoint 1 (type=CheckpointType{name='Checkpoint'}) @ 1700000000000 for job cc.")
	emit(trace.K2, "CheckpointCoordinator", "TaskExecutor", "Trigger checkpoint 1@1700000000000 for %s.", source1)
	emit(trace.K1, "CheckpointCoordinator", "CheckpointCoordinator", "Failed to trigger checkpoint 1: nope")
	events[len(events)-1].Failed = true

	emit(trace.K1, "CheckpointCoordinator", "CheckpointCoordinator", "Triggering checkpoint 2 (type=CheckpointType{name='Checkpoint'}) @ 1700000000200 for job cc.")
	emit(trace.K2, "CheckpointCoordinator", "TaskExecutor", "Trigger checkpoint 2@1700000000200 for %s.", source1)
	emit(trace.K3, source1, "downstream", "%s sent checkpoint barrier 2 to 1 outputs.", source1)
	ack(2, source1, 0)
	emit(trace.K2, "CheckpointCoordinator", "TaskExecutor", "Trigger checkpoint 2@1700000000200 for %s.", source2)
	emit(trace.K3, source2, "downstream", "%s sent checkpoint barrier 2 to 1 outputs.", source2)
	emit(trace.K4, count2, count2, "%s received barrier 2 on all 2 input channels (aligned in 3 ms).", count2)
	ack(2, count2, 1)
	ack(2, source2, 1)
	emit(trace.K4, count1, count1, "%s received barrier 2 on all 2 input channels (aligned in 0 ms).", count1)
	ack(2, count1, 0)
	emit(trace.K6, "CheckpointCoordinator", "CheckpointCoordinator",
		"Completed checkpoint 2 for job cc (241 bytes, checkpointDuration=9 ms, finalizationTime=0 ms).")
	for _, task := range []string{source1, source2, count1, count2} {
		emit(trace.K7, "CheckpointCoordinator", task, "notifyCheckpointComplete for checkpoint 2")
	}
	return events
}

func TestReadTellsWhoDidWhatWhen(t *testing.T) {
	events := tickerTrace()
	assert.Equal(t, []int64{2}, Completed(events))
	id, ok := NthCompleted(events, 1)
	require.True(t, ok)
	assert.Equal(t, int64(2), id)

	c, err := Read(events, id, tickerJob(t))
	require.NoError(t, err)
	assert.True(t, c.Measured)
	assert.Len(t, c.Events, 16, "k1, 2 × k2, 2 × k3, 2 × k4, 4 × k5, k6, 4 × k7")
	assert.Equal(t, Step{Step: trace.K1, Order: 1}, c.Trigger)
	assert.Equal(t, Step{Step: trace.K6, Order: 12, Since: 11 * time.Millisecond}, c.Completion)
	assert.Equal(t, int64(241), c.StateSize)

	var names []string
	for _, task := range c.Tasks {
		names = append(names, task.Name)
	}
	assert.Equal(t, []string{source1, source2, count1, count2}, names, "sources first, each vertex by index")

	s1, s2, c1, c2 := c.Tasks[0], c.Tasks[1], c.Tasks[2], c.Tasks[3]
	assert.True(t, s1.Source)
	assert.False(t, c1.Source)
	assert.Equal(t, regions.Subtask{Vertex: "Source: sensor-events", Index: 0, Parallelism: 2}, s1.Subtask)
	assert.Equal(t, Step{Step: trace.K2, Order: 2, Since: time.Millisecond}, s1.Triggered)
	assert.Equal(t, Step{Step: trace.K3, Order: 3, Since: 2 * time.Millisecond}, s1.SentBarrier)
	assert.Equal(t, 1, s1.Outputs)
	assert.False(t, s1.Aligned.Happened())
	assert.Equal(t, "taskexecutor-0", s1.TaskManager)

	assert.Equal(t, []int{1, 3, 4, 2}, []int{s1.AckRank, s2.AckRank, c1.AckRank, c2.AckRank}, "who acknowledged first")
	assert.Equal(t, 2, c2.Inputs)
	assert.Equal(t, 3*time.Millisecond, c2.Alignment)
	assert.Equal(t, Step{Step: trace.K7, Order: 16, Since: 15 * time.Millisecond}, c2.Notified)
	assert.False(t, c2.Triggered.Happened())
}

func TestNthCompletedWaitsForTheNotifications(t *testing.T) {
	events := tickerTrace()
	_, ok := NthCompleted(events[:len(events)-1], 1)
	assert.False(t, ok, "one subtask is not notified yet")
	_, ok = NthCompleted(events, 2)
	assert.False(t, ok, "only one checkpoint completed")
}

func TestCanonicalIsStepOrder(t *testing.T) {
	c, err := Read(tickerTrace(), 2, tickerJob(t))
	require.NoError(t, err)
	canonical := c.Canonical()

	var got []string
	for _, e := range canonical.Events {
		assert.True(t, e.Time.IsZero())
		who := e.From
		if e.Step == trace.K7 || e.Step == trace.K2 {
			who = e.To
		}
		got = append(got, string(e.Step)+" "+who)
	}
	assert.Equal(t, []string{
		"k1 CheckpointCoordinator",
		"k2 TaskExecutor", "k2 TaskExecutor",
		"k3 " + source1, "k3 " + source2,
		"k4 " + count1, "k4 " + count2,
		"k5 " + source1, "k5 " + source2, "k5 " + count1, "k5 " + count2,
		"k6 CheckpointCoordinator",
		"k7 " + source1, "k7 " + source2, "k7 " + count1, "k7 " + count2,
	}, got)
	assert.Contains(t, canonical.Events[1].Message, source1, "the first source's trigger first")

	assert.False(t, canonical.Measured)
	assert.Zero(t, canonical.StateSize)
	for _, task := range canonical.Tasks {
		assert.Zero(t, task.AckRank, task.Name)
		assert.Zero(t, task.Alignment, task.Name)
		assert.Zero(t, task.Acknowledged.Since, task.Name)
	}
	assert.Equal(t, 8, canonical.Tasks[0].Acknowledged.Order)
	assert.Equal(t, 11, canonical.Tasks[3].Acknowledged.Order)
}

func TestReadNeedsTheTrigger(t *testing.T) {
	_, err := Read(tickerTrace(), 7, tickerJob(t))
	assert.ErrorContains(t, err, "no trigger (k1) of checkpoint 7")
}

func TestJobOfTheTicker(t *testing.T) {
	job := tickerJob(t)
	assert.Equal(t, []Vertex{
		{Name: "Source: sensor-events", Parallelism: 2, Source: true},
		{Name: "running-count -> Sink: collect-sink", Parallelism: 2},
	}, job.Vertices)
	assert.Len(t, job.Exchanges, 4, "ALL_TO_ALL: 2 × 2 channels")
	source := job.Subtasks()[0]
	assert.Equal(t, []regions.Subtask{job.Subtasks()[2], job.Subtasks()[3]}, job.Consumers(source))
}
