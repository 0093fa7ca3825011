package checkpoints

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/trace"
	"flinklab/tools/graphs/regions"
)

// Checkpoint is one checkpoint as a job's trace tells it.
type Checkpoint struct {
	ID  int64
	Job *Job
	// Measured says that the times, the alignments, the state size and
	// the order of the acknowledgements are the run's own; Canonical
	// clears it, and them.
	Measured bool
	// Events are the checkpoint's events, k1 to k7, in the order they
	// happened (or in step order, after Canonical): event i is number
	// i+1, the Order of its Step.
	Events []trace.Event
	// Trigger is the coordinator's k1, Completion its k6.
	Trigger, Completion Step
	// StateSize is the size of the checkpoint's state in bytes (k6).
	StateSize int64
	// Tasks are the job's subtasks in the order of Job.Subtasks, then
	// any subtask the trace names that the job does not have.
	Tasks []Task
}

// Step is one step of a checkpoint as it happened. The zero Step is one
// the trace does not have.
type Step struct {
	Step trace.Step
	// Order is the event's number among the checkpoint's Events, from 1.
	Order int
	// Since is how long after the trigger (k1) it happened; zero when not
	// Measured.
	Since time.Duration
}

// Happened reports whether the trace has the step.
func (s Step) Happened() bool { return s.Order > 0 }

// Task is one subtask's part in a checkpoint.
type Task struct {
	Subtask regions.Subtask
	// Name is the subtask as the trace names it, with its attempt:
	// "Source: sensor-events (1/2)#0"; "" when the trace does not name it.
	Name    string
	Attempt int
	Source  bool
	// Triggered is k2 (sources), SentBarrier k3 (sources), Aligned k4
	// (subtasks with inputs), Acknowledged k5 and Notified k7.
	Triggered, SentBarrier, Aligned, Acknowledged, Notified Step
	// Outputs is the number of outputs a source sent the barrier on (k3):
	// its result partitions, each with a channel per consumer subtask.
	Outputs int
	// Inputs is the number of input channels the barrier came on (k4), and
	// Alignment how long the first waited for the last, to the millisecond.
	Inputs    int
	Alignment time.Duration
	// AckRank is 1 for the first subtask to acknowledge, 2 for the second,
	// …; 0 when not Measured.
	AckRank int
	// TaskManager is where the acknowledgement came from (k5).
	TaskManager string
}

// NthCompleted returns the ID of the n-th checkpoint of events (one
// job's, in order) that completed, from 1, once every subtask that
// acknowledged it has been notified (k7); false if there is none yet.
func NthCompleted(events []trace.Event, n int) (int64, bool) {
	completed := 0
	for _, e := range events {
		p, ok := parse(e)
		if !ok || p.step != trace.K6 {
			continue
		}
		if completed++; completed < n {
			continue
		}
		acknowledged, notified := 0, 0
		for _, other := range events {
			if q, ok := parse(other); ok && q.id == p.id {
				acknowledged += b2i(q.step == trace.K5)
				notified += b2i(q.step == trace.K7)
			}
		}
		return p.id, notified >= acknowledged
	}
	return 0, false
}

// Completed returns the IDs of the checkpoints of events that completed,
// in the order they completed.
func Completed(events []trace.Event) []int64 {
	var ids []int64
	for _, e := range events {
		if p, ok := parse(e); ok && p.step == trace.K6 {
			ids = append(ids, p.id)
		}
	}
	return ids
}

// Read returns checkpoint id of events, the trace of one job, on the
// shape of job. Failed events (a declined or expired checkpoint) are not
// read: Read is for checkpoints that completed, or are still going.
func Read(events []trace.Event, id int64, job *Job) (*Checkpoint, error) {
	c := &Checkpoint{ID: id, Job: job, Measured: true}
	for _, s := range job.Subtasks() {
		c.Tasks = append(c.Tasks, Task{Subtask: s, Source: job.IsSource(s)})
	}
	var parsed []parsedEvent
	for _, e := range events {
		if p, ok := parse(e); ok && p.id == id {
			parsed = append(parsed, p)
			c.Events = append(c.Events, e)
		}
	}
	if len(parsed) == 0 || parsed[0].step != trace.K1 {
		return nil, fmt.Errorf("the trace has no trigger (k1) of checkpoint %d", id)
	}
	start := parsed[0].time
	acks := 0
	for i, p := range parsed {
		step := Step{Step: p.step, Order: i + 1, Since: p.time.Sub(start)}
		if p.step == trace.K1 {
			c.Trigger = step
			continue
		}
		if p.step == trace.K6 {
			c.Completion, c.StateSize = step, p.number
			continue
		}
		t, err := c.task(p.task)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %d, event %d (%s): %w", id, i+1, p.step, err)
		}
		switch p.step {
		case trace.K2:
			t.Triggered, t.Source = step, true
		case trace.K3:
			t.SentBarrier, t.Outputs, t.Source = step, int(p.number), true
		case trace.K4:
			t.Aligned, t.Inputs, t.Alignment = step, int(p.number), p.alignment
		case trace.K5:
			acks++
			t.Acknowledged, t.AckRank, t.TaskManager = step, acks, p.location
		case trace.K7:
			t.Notified = step
		}
	}
	return c, nil
}

// TaskNamed returns the subtask the trace names name, "NAME
// (i/p)#attempt".
func (c *Checkpoint) TaskNamed(name string) (Task, bool) {
	i := slices.IndexFunc(c.Tasks, func(t Task) bool { return t.Name == name && name != "" })
	if i < 0 {
		return Task{}, false
	}
	return c.Tasks[i], true
}

// TaskOf returns the part subtask s took in the checkpoint.
func (c *Checkpoint) TaskOf(s regions.Subtask) (Task, bool) {
	i := slices.IndexFunc(c.Tasks, func(t Task) bool { return t.Subtask == s })
	if i < 0 {
		return Task{}, false
	}
	return c.Tasks[i], true
}

// task returns the Task the trace names name ("NAME (i/p)#attempt"),
// adding it when the job does not have it.
func (c *Checkpoint) task(name string) (*Task, error) {
	s, err := regions.ParseSubtask(name)
	if err != nil {
		return nil, err
	}
	attempt := 0
	if _, after, ok := strings.Cut(strings.TrimPrefix(name, s.String()), "#"); ok {
		attempt, _ = strconv.Atoi(after)
	}
	i := slices.IndexFunc(c.Tasks, func(t Task) bool { return t.Subtask == s })
	if i < 0 {
		c.Tasks = append(c.Tasks, Task{Subtask: s, Source: c.Job.IsSource(s)})
		i = len(c.Tasks) - 1
	}
	c.Tasks[i].Name, c.Tasks[i].Attempt = name, attempt
	return &c.Tasks[i], nil
}

// Canonical returns the checkpoint in step order: k1, then every k2, every
// k3, and so on, the events of a step in the order of the subtasks they
// concern (Tasks), numbered anew; without the times, the alignments, the
// state size and the order of the acknowledgements, which change from run
// to run. The events keep their messages. Step order is one order the
// checkpoint may take: each subtask's steps are in their own order, every
// barrier is sent (k3, k4) before the subtasks downstream have it on all
// inputs (k4, which come in the order of the job's vertices), every
// acknowledgement (k5) comes before the completion (k6), and the
// notifications (k7) after it.
func (c *Checkpoint) Canonical() *Checkpoint {
	rank := make(map[string]int, len(c.Tasks))
	for i, t := range c.Tasks {
		rank[t.Name] = i
	}
	events := slices.Clone(c.Events)
	slices.SortStableFunc(events, func(x, y trace.Event) int {
		px, _ := parse(x)
		py, _ := parse(y)
		if d := stepNumber(px.step) - stepNumber(py.step); d != 0 {
			return d
		}
		return rank[px.task] - rank[py.task]
	})
	for i := range events {
		events[i].Time = time.Time{}
	}
	out, err := Read(events, c.ID, c.Job)
	if err != nil {
		panic(fmt.Sprintf("checkpoint %d does not read back in step order: %v", c.ID, err))
	}
	out.Measured, out.StateSize = false, 0
	for i := range out.Tasks {
		out.Tasks[i].AckRank, out.Tasks[i].Alignment = 0, 0
	}
	return out
}

// stepNumber is 3 for k3.
func stepNumber(s trace.Step) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(string(s), "k"))
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
