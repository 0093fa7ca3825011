// Exercise k02: the coordinator completes a pending checkpoint when its
// last acknowledgement arrives, not before, and not twice.
//
// Each test runs a real CheckpointCoordinator as the JobMaster runs it:
// every call on one goroutine (the main thread), its timers on the
// synctest bubble's clock, its checkpoints in a directory of files. The
// job it coordinates has two vertices of two subtasks each:
//
//	Source: events (2)  ══HASH══►  Keyed Reduce -> Sink: print (2)
//	task 0, task 1                 task 2, task 3
//
// The tests play the tasks: they trigger a checkpoint, write each task's
// state into the checkpoint's directory as a task would, and send the
// acknowledgements a TaskExecutor sends (ReceiveAcknowledgeMessage), in
// the order they choose. A source's state is its position, a few bytes,
// kept inline; a reduce's is 20 KiB and more, in a file of its own, so
// that one can see whether the coordinator kept or deleted it. The sink
// keeps no state.
package k02_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/state"
	"flinklab/runtime/trace"
)

var (
	sourceVertex = api.NewJobVertexID()
	keyedVertex  = api.NewJobVertexID()
	sourceOp     = api.OperatorIDFromBytes([16]byte{15: 1})
	reduceOp     = api.OperatorIDFromBytes([16]byte{15: 2})
	sinkOp       = api.OperatorIDFromBytes([16]byte{15: 3})
)

const maxParallelism = 128

// operatorName names an operator in the tests' state and messages.
func operatorName(op api.OperatorID) string {
	return map[api.OperatorID]string{sourceOp: "source", reduceOp: "reduce", sinkOp: "sink"}[op]
}

// job is a CheckpointCoordinator of the test job, running on its own main
// thread inside the test's synctest bubble.
type job struct {
	t          *testing.T
	id         api.JobID
	coord      *checkpoint.CheckpointCoordinator
	mainThread chan func()
	stopped    chan struct{} // closed when the test ends: the main thread stops
	logs       *scenario.Logs
	trace      *trace.Recorder
	dir        string // state.checkpoints.dir

	// Read and written on the main thread:
	tasks     []checkpoint.TaskToCheckpoint
	locations map[int64]state.CheckpointStorageLocation // what each checkpoint's triggers carried
	completes map[int64][]string                        // the tasks told of each checkpoint's completion
	outcomes  map[int64][]string                        // what each trigger request's caller heard
}

// newJob starts a coordinator for the test job, with a checkpoint timeout
// of one minute and no periodic checkpoints: the tests trigger them.
func newJob(t *testing.T) *job {
	t.Helper()
	j := &job{t: t, id: api.NewJobID(), mainThread: make(chan func()), stopped: make(chan struct{}), logs: &scenario.Logs{},
		trace: trace.NewRecorder(), dir: t.TempDir(), locations: map[int64]state.CheckpointStorageLocation{}, completes: map[int64][]string{},
		outcomes: map[int64][]string{}}
	go func() {
		for {
			select {
			case fn := <-j.mainThread:
				fn()
			case <-j.stopped:
				return
			}
		}
	}()
	t.Cleanup(func() { close(j.stopped) })

	graph := api.NewExecutionGraphID()
	for i := range 4 {
		vertex, name, operators := sourceVertex, "Source: events", []api.OperatorID{sourceOp}
		if i >= 2 {
			vertex, name, operators = keyedVertex, "Keyed Reduce -> Sink: print", []api.OperatorID{reduceOp, sinkOp}
		}
		task := checkpoint.TaskToCheckpoint{
			AttemptID: api.ExecutionAttemptID{ExecutionGraphID: graph,
				ExecutionVertexID: api.ExecutionVertexID{JobVertexID: vertex, SubtaskIndex: i % 2}},
			JobVertexID: vertex, TaskNameWithSubtask: fmt.Sprintf("%s (%d/2)#0", name, i%2+1),
			Location: fmt.Sprintf("tm-%d @ localhost", i%2), Parallelism: 2, MaxParallelism: maxParallelism, OperatorIDs: operators,
		}
		task.TriggerCheckpoint = func(id, _ int64, options checkpoint.CheckpointOptions) {
			j.locations[id] = options.TargetLocation
		}
		task.NotifyCheckpointComplete = func(id, _ int64) {
			j.completes[id] = append(j.completes[id], task.TaskNameWithSubtask)
		}
		j.tasks = append(j.tasks, task)
	}

	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Timeout = time.Minute
	cfg.CheckpointsDir = j.dir
	storage, err := state.NewCheckpointStorageAccess(j.dir, j.id)
	require.NoError(t, err)
	j.do(func() {
		j.coord = checkpoint.NewCheckpointCoordinator(checkpoint.CoordinatorDeps{
			JobID: j.id, Config: cfg, Storage: storage,
			Schedule: j.schedule,
			Logger:   slog.New(slog.NewTextHandler(j.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			Trace:    j.trace,
			CalculateCheckpointPlan: func() (checkpoint.CheckpointPlan, error) {
				return checkpoint.CheckpointPlan{TasksToTrigger: j.tasks[:2], TasksToWaitFor: j.tasks, TasksToCommitTo: j.tasks}, nil
			},
		})
	})
	return j
}

// do runs fn on the main thread and waits for it. A panic of fn fails the
// test, saying what was being done.
func (j *job) do(fn func()) {
	j.t.Helper()
	panicked := make(chan any, 1)
	j.mainThread <- func() {
		defer func() { panicked <- recover() }()
		fn()
	}
	if r := <-panicked; r != nil {
		j.t.Fatalf("the coordinator must not panic on its main thread: %v", r)
	}
}

// schedule runs fn on the main thread after delay, unless cancelled.
func (j *job) schedule(fn func(), delay time.Duration) func() {
	timer := time.AfterFunc(delay, func() {
		select {
		case j.mainThread <- fn:
		case <-j.stopped:
		}
	})
	return func() { timer.Stop() }
}

// trigger triggers a checkpoint and returns its ID.
func (j *job) trigger() int64 {
	j.t.Helper()
	var id int64
	j.do(func() {
		before := len(j.locations)
		j.coord.TriggerCheckpoint(checkpoint.Checkpoint, "", func(c *checkpoint.CompletedCheckpoint, err error) {
			switch {
			case err != nil:
				j.outcomes[id] = append(j.outcomes[id], "failed: "+err.Error())
			default:
				j.outcomes[id] = append(j.outcomes[id], fmt.Sprintf("completed %d", c.CheckpointID))
			}
		})
		require.Len(j.t, j.locations, before+1, "the checkpoint is triggered at the sources")
		for cp := range j.locations {
			id = max(id, cp)
		}
	})
	return id
}

// snapshot writes what task i snapshots for checkpoint id into the
// checkpoint's directory, as the task would, and returns its handles.
// Each stateful operator's state is one element of operator state, which
// names the operator, the subtask, its attempt and the checkpoint.
func (j *job) snapshot(i int, id int64) *checkpoint.TaskStateSnapshot {
	j.t.Helper()
	var task checkpoint.TaskToCheckpoint
	var location state.CheckpointStorageLocation
	j.do(func() { task, location = j.tasks[i], j.locations[id] })
	return writeState(j.t, task.AttemptID, id, location)
}

// writeState writes the state of attempt's operators for checkpoint id
// into location.
func writeState(t *testing.T, attempt api.ExecutionAttemptID, id int64, location state.CheckpointStorageLocation) *checkpoint.TaskStateSnapshot {
	t.Helper()
	snapshot := &checkpoint.TaskStateSnapshot{SubtaskStateMappings: map[api.OperatorID]checkpoint.OperatorSubtaskState{}}
	op := sourceOp
	if attempt.ExecutionVertexID.JobVertexID == keyedVertex {
		op = reduceOp // the sink keeps no state
	}
	data, offset := state.AppendElement(nil, []byte(label(op, attempt, id)))
	if op == reduceOp {
		data, _ = state.AppendElement(data, make([]byte, state.DefaultMemoryThreshold)) // into a file of its own
	}
	handle, err := location.WriteState(data)
	require.NoError(t, err)
	snapshot.SubtaskStateMappings[op] = checkpoint.OperatorSubtaskState{ManagedOperatorState: []state.OperatorStateHandle{{
		StateNameToPartitionOffsets: map[string]state.StateMetaInfo{
			"state": {Offsets: []int64{offset}, DistributionMode: state.SplitDistribute}},
		Delegate: handle,
	}}}
	return snapshot
}

// label is the state operator op of attempt keeps for checkpoint id.
func label(op api.OperatorID, attempt api.ExecutionAttemptID, id int64) string {
	return fmt.Sprintf("%s of subtask %d, attempt %d, checkpoint %d",
		operatorName(op), attempt.ExecutionVertexID.SubtaskIndex, attempt.AttemptNumber, id)
}

// ack sends task i's acknowledgement of checkpoint id, with snapshot.
func (j *job) ack(i int, id int64, snapshot *checkpoint.TaskStateSnapshot) {
	j.t.Helper()
	var attempt api.ExecutionAttemptID
	j.do(func() { attempt = j.tasks[i].AttemptID })
	j.receive(checkpoint.AcknowledgeCheckpoint{JobID: j.id, TaskExecutionID: attempt, CheckpointID: id, SubtaskState: snapshot})
}

// receive hands an acknowledgement to the coordinator, as the JobMaster
// does when the RPC arrives, and requires that no completion failed.
func (j *job) receive(ack checkpoint.AcknowledgeCheckpoint) {
	j.t.Helper()
	var err error
	j.do(func() { err = j.coord.ReceiveAcknowledgeMessage(ack, "tm @ localhost") })
	require.NoError(j.t, err)
}

// completed returns the checkpoints in the store, oldest first.
func (j *job) completed() []*checkpoint.CompletedCheckpoint {
	var all []*checkpoint.CompletedCheckpoint
	j.do(func() { all = j.coord.CheckpointStore().GetAllCheckpoints() })
	return all
}

// pending returns how many checkpoints wait for acknowledgements.
func (j *job) pending() int {
	var n int
	j.do(func() { n = j.coord.NumberOfPendingCheckpoints() })
	return n
}

// acknowledgedSubtasks returns how many subtasks acknowledged checkpoint
// id, as GET /jobs/:jobid/checkpoints shows it.
func (j *job) acknowledgedSubtasks(id int64) int {
	j.t.Helper()
	var stats checkpoint.CheckpointStatsSnapshot
	j.do(func() { stats = j.coord.Stats() })
	for _, c := range stats.History {
		if c.ID == id {
			return c.NumAcknowledgedSubtasks
		}
	}
	j.t.Fatalf("no statistics of checkpoint %d", id)
	return 0
}

// told returns the tasks told of checkpoint id's completion, and what the
// caller who triggered it heard.
func (j *job) told(id int64) (tasks, outcomes []string) {
	j.do(func() { tasks, outcomes = j.completes[id], j.outcomes[id] })
	return tasks, outcomes
}

// restored restores the latest completed checkpoint to the job, as after
// a failover, and returns the state each subtask gets back, by
// "vertex subtask" ("keyed 1"), operator and element.
func (j *job) restored() map[string][]string {
	j.t.Helper()
	vertices := []checkpoint.VertexToRestore{
		{JobVertexID: sourceVertex, Name: "Source: events", Parallelism: 2, MaxParallelism: maxParallelism, OperatorIDs: []api.OperatorID{sourceOp}},
		{JobVertexID: keyedVertex, Name: "Keyed Reduce -> Sink: print", Parallelism: 2, MaxParallelism: maxParallelism,
			OperatorIDs: []api.OperatorID{reduceOp, sinkOp}},
	}
	var restores map[api.ExecutionVertexID]*checkpoint.JobManagerTaskRestore
	var ok bool
	var err error
	j.do(func() { restores, ok, err = j.coord.RestoreLatestCheckpointedStateToSubtasks(vertices) })
	require.NoError(j.t, err, "the completed checkpoint must restore the job it was taken of")
	require.True(j.t, ok, "there is a completed checkpoint to restore")
	got := map[string][]string{}
	for vertexID, restore := range restores {
		name := map[api.JobVertexID]string{sourceVertex: "source", keyedVertex: "keyed"}[vertexID.JobVertexID]
		key := fmt.Sprintf("%s %d", name, vertexID.SubtaskIndex)
		for op, subtaskState := range restore.TaskStateSnapshot.SubtaskStateMappings {
			for _, h := range subtaskState.ManagedOperatorState {
				elements, err := h.Elements("state")
				require.NoError(j.t, err, "the state of %s, %s", key, operatorName(op))
				if len(elements) > 0 {
					got[key] = append(got[key], string(elements[0]))
				}
			}
		}
	}
	return got
}

// exists reports whether a state handle's file is still there.
func exists(snapshot *checkpoint.TaskStateSnapshot) bool {
	path := snapshot.SubtaskStateMappings[reduceOp].ManagedOperatorState[0].Delegate.FilePath
	_, err := os.Stat(path)
	return err == nil
}

// A checkpoint waits for every task of its plan. After three of four
// acknowledgements nothing is complete: no _metadata, nothing in the
// store, no task told, no "Completed checkpoint" line. The fourth
// completes it, once: one CompletedCheckpoint in the store, one line, one
// _metadata, each task told once, the caller who triggered it answered
// once. An acknowledgement after that, sent again by a TaskExecutor that
// did not hear back, changes nothing.
func TestACheckpointCompletesWhenItsLastTaskAcknowledgesAndOnlyThen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := newJob(t)
		id := j.trigger()
		metadata := filepath.Join(j.dir, j.id.String(), "chk-1", state.MetadataFileName)
		snapshots := map[int]*checkpoint.TaskStateSnapshot{}
		for n, i := range []int{3, 0, 2} {
			snapshots[i] = j.snapshot(i, id)
			j.ack(i, id, snapshots[i])
			assert.Equal(t, n+1, j.acknowledgedSubtasks(id), "the statistics count the subtasks that acknowledged")
			require.Empty(t, j.completed(),
				"after %d acknowledgements of 4 the checkpoint must not be complete: task 1 has not acknowledged", n+1)
			assert.Equal(t, 1, j.pending(), "it is still pending")
			assert.NotContains(t, j.logs.String(), "Completed checkpoint", "no Completed line before the last acknowledgement")
			assert.NoFileExists(t, metadata, "no _metadata before the last acknowledgement")
		}

		j.ack(1, id, j.snapshot(1, id))
		completed := j.completed()
		require.Len(t, completed, 1, "the last acknowledgement completes the checkpoint: one CompletedCheckpoint in the store")
		assert.Equal(t, id, completed[0].CheckpointID)
		assert.Equal(t, 0, j.pending(), "a completed checkpoint is pending no more")
		assert.FileExists(t, metadata, "a completed checkpoint has its _metadata")
		assert.Equal(t, 1, strings.Count(j.logs.String(), fmt.Sprintf("Completed checkpoint %d for job %s", id, j.id)),
			"one Completed line")
		tasks, outcomes := j.told(id)
		assert.ElementsMatch(t, []string{"Source: events (1/2)#0", "Source: events (2/2)#0",
			"Keyed Reduce -> Sink: print (1/2)#0", "Keyed Reduce -> Sink: print (2/2)#0"}, tasks,
			"every task hears of the completion, once")
		assert.Equal(t, []string{"completed 1"}, outcomes, "the caller who triggered the checkpoint hears of its completion, once")

		j.ack(3, id, snapshots[3]) // sent again, after the completion
		assert.Len(t, j.completed(), 1, "an acknowledgement after the completion does not complete the checkpoint again")
		assert.Equal(t, 1, strings.Count(j.logs.String(), "Completed checkpoint"), "one Completed line, however many acknowledgements")
		tasks, outcomes = j.told(id)
		assert.Len(t, tasks, 4, "the tasks hear of the completion once")
		assert.Len(t, outcomes, 1)
		assert.True(t, exists(snapshots[3]), "the state of a completed checkpoint stays where it is")
		assert.Equal(t, []trace.Step{trace.K1, trace.K5, trace.K5, trace.K5, trace.K5, trace.K6, trace.K7, trace.K7, trace.K7, trace.K7},
			trace.Steps(j.trace.JobEvents(j.id)),
			"the job's trace: the trigger (k1), one acknowledgement (k5) for each task, the completion (k6), the tasks told (k7)")
	})
}

// The state of each task goes under each operator of its chain, at the
// task's subtask index, whatever the order of the acknowledgements: here
// the second subtask of each vertex acknowledges first. Every operator of
// the chain has an OperatorState with the vertex's parallelism and max
// parallelism, the stateless sink too; and a restore gives each subtask
// back its own state, and no other's.
func TestEachOperatorsStateIsFiledUnderItsSubtask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := newJob(t)
		id := j.trigger()
		for _, i := range []int{3, 1, 2, 0} {
			j.ack(i, id, j.snapshot(i, id))
		}
		completed := j.completed()
		require.Len(t, completed, 1, "every task acknowledged: the checkpoint must complete")

		var operators []string
		for op, s := range completed[0].OperatorStates {
			operators = append(operators, operatorName(op))
			assert.Equal(t, 2, s.Parallelism, "%s: the parallelism of its vertex", operatorName(op))
			assert.Equal(t, maxParallelism, s.MaxParallelism, "%s: the max parallelism of its vertex, which its key groups need", operatorName(op))
		}
		assert.ElementsMatch(t, []string{"source", "reduce", "sink"}, operators,
			"every operator of every task's chain has an OperatorState in the checkpoint, the stateless sink too")
		for _, op := range []api.OperatorID{sourceOp, reduceOp} {
			require.Contains(t, completed[0].OperatorStates, op)
			assert.Len(t, completed[0].OperatorStates[op].SubtaskStates, 2, "%s: the state of both its subtasks", operatorName(op))
		}

		assert.Equal(t, map[string][]string{
			"source 0": {"source of subtask 0, attempt 0, checkpoint 1"},
			"source 1": {"source of subtask 1, attempt 0, checkpoint 1"},
			"keyed 0":  {"reduce of subtask 0, attempt 0, checkpoint 1"},
			"keyed 1":  {"reduce of subtask 1, attempt 0, checkpoint 1"},
		}, j.restored(), "a restore must give each subtask the state it acknowledged: each under its own subtask index")
	})
}

// A task that keeps no state at all acknowledges without a snapshot. It
// counts like any other, and its operators still get their OperatorState.
func TestAStatelessTaskAcknowledgesWithoutASnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := newJob(t)
		id := j.trigger()
		j.ack(0, id, nil)
		j.ack(1, id, nil)
		j.ack(2, id, j.snapshot(2, id))
		require.Empty(t, j.completed(), "task 3 has not acknowledged")
		j.ack(3, id, j.snapshot(3, id))
		completed := j.completed()
		require.Len(t, completed, 1, "the sources acknowledged without a snapshot, and that counts: the checkpoint must complete")
		assert.Contains(t, completed[0].OperatorStates, sourceOp, "the stateless sources' operator has its OperatorState")
		assert.False(t, completed[0].OperatorStates[sourceOp].HasState())
	})
}

// Acknowledgements that do not count. Each leaves the checkpoint pending,
// and when all the right ones have come, it completes with their state,
// and only theirs.
func TestAcknowledgementsThatDoNotCount(t *testing.T) {
	// A TaskExecutor that did not hear back sends the same
	// acknowledgement again: the same state handles. It must not count
	// twice, and its state must not be deleted, for it is the state the
	// checkpoint holds.
	t.Run("a duplicate", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			j := newJob(t)
			id := j.trigger()
			snapshot := j.snapshot(2, id)
			j.ack(2, id, snapshot)
			j.ack(2, id, snapshot)
			assert.Equal(t, 1, j.acknowledgedSubtasks(id), "a task that acknowledges twice has acknowledged once")
			assert.Contains(t, j.logs.String(), fmt.Sprintf("Received a duplicate acknowledge message for checkpoint %d", id))
			assert.True(t, exists(snapshot), "a duplicate carries the state the checkpoint holds already: it must not be deleted")
			for _, i := range []int{0, 1} {
				j.ack(i, id, j.snapshot(i, id))
			}
			require.Empty(t, j.completed(), "four acknowledgements, but task 3 has not acknowledged: the checkpoint must wait")
			j.ack(3, id, j.snapshot(3, id))
			require.Len(t, j.completed(), 1, "the fourth task acknowledged")
			assert.Equal(t, []string{"reduce of subtask 0, attempt 0, checkpoint 1"}, j.restored()["keyed 0"],
				"the checkpoint restores the state the duplicate sent again")
		})
	})

	// Task 2 was restarted: the checkpoint waits for its attempt 1. An
	// acknowledgement of its attempt 0 arrives, a message of the attempt
	// that was replaced. It is no task of this checkpoint: its
	// acknowledgement must not count, and its state, which nothing will
	// ever read, is deleted.
	t.Run("an attempt the checkpoint does not wait for", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			j := newJob(t)
			var old api.ExecutionAttemptID
			j.do(func() {
				old = j.tasks[2].AttemptID
				j.tasks[2].AttemptID.AttemptNumber = 1
				j.tasks[2].TaskNameWithSubtask = "Keyed Reduce -> Sink: print (1/2)#1"
			})
			id := j.trigger()
			var location state.CheckpointStorageLocation
			j.do(func() { location = j.locations[id] })
			stale := writeState(t, old, id, location)
			j.receive(checkpoint.AcknowledgeCheckpoint{JobID: j.id, TaskExecutionID: old, CheckpointID: id, SubtaskState: stale})
			assert.Equal(t, 0, j.acknowledgedSubtasks(id), "an attempt the checkpoint does not wait for has not acknowledged it")
			assert.Contains(t, j.logs.String(), fmt.Sprintf("Could not acknowledge the checkpoint %d for task %s of job %s at tm @ localhost, "+
				"because the task's execution attempt id was unknown. Discarding the state handle to avoid lingering state.", id, old, j.id))
			assert.False(t, exists(stale), "the state of an unknown attempt must be deleted: no checkpoint will ever hold it")
			for _, i := range []int{0, 1, 3} {
				j.ack(i, id, j.snapshot(i, id))
			}
			require.Empty(t, j.completed(), "task 2's attempt 1 has not acknowledged: the checkpoint must wait")
			j.ack(2, id, j.snapshot(2, id))
			require.Len(t, j.completed(), 1, "every attempt of the plan acknowledged")
			assert.Equal(t, []string{"reduce of subtask 0, attempt 1, checkpoint 1"}, j.restored()["keyed 0"],
				"the checkpoint holds the state of the attempt it waited for")
		})
	})

	// An acknowledgement meant for another job's coordinator.
	t.Run("another job's", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			j := newJob(t)
			id := j.trigger()
			for _, i := range []int{0, 1, 2} {
				j.ack(i, id, j.snapshot(i, id))
			}
			var attempt api.ExecutionAttemptID
			j.do(func() { attempt = j.tasks[3].AttemptID })
			other := api.NewJobID()
			j.receive(checkpoint.AcknowledgeCheckpoint{JobID: other, TaskExecutionID: attempt, CheckpointID: id, SubtaskState: j.snapshot(3, id)})
			assert.Empty(t, j.completed(), "an acknowledgement of another job must not complete this job's checkpoint")
			assert.Contains(t, j.logs.String(), fmt.Sprintf("Received wrong AcknowledgeCheckpoint message for job %s", j.id))
		})
	})

	// Checkpoint 1 is aborted (task 3 declines it) while task 2 writes
	// its state. Task 2's acknowledgement comes after: the checkpoint is
	// gone, and the acknowledgement is refused, its state deleted. (Its
	// state is where the task keeps what it owns, taskowned/, which the
	// abort, deleting chk-1, does not touch.) The next checkpoint is not
	// disturbed by it.
	t.Run("one for a checkpoint that was aborted", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			j := newJob(t)
			id := j.trigger()
			j.ack(0, id, j.snapshot(0, id))
			var attempt3, attempt2 api.ExecutionAttemptID
			j.do(func() { attempt3, attempt2 = j.tasks[3].AttemptID, j.tasks[2].AttemptID })
			taskOwned := state.CheckpointStorageLocation{Directory: filepath.Join(j.dir, j.id.String(), state.CheckpointTaskOwnedStateDir)}
			late := writeState(t, attempt2, id, taskOwned)
			j.do(func() {
				j.coord.ReceiveDeclineMessage(checkpoint.DeclineCheckpoint{JobID: j.id, TaskExecutionID: attempt3, CheckpointID: id,
					Reason: checkpoint.CheckpointDeclined.Name, Message: "the disk is full"}, "tm-1 @ localhost")
			})
			require.Equal(t, 0, j.pending(), "a declined checkpoint is aborted")

			j.receive(checkpoint.AcknowledgeCheckpoint{JobID: j.id, TaskExecutionID: attempt2, CheckpointID: id, SubtaskState: late})
			assert.Contains(t, j.logs.String(), fmt.Sprintf("Received late message for now expired checkpoint attempt %d from task %s", id, attempt2),
				"an acknowledgement of a checkpoint that ended is late, and said so")
			assert.False(t, exists(late), "the state of a late acknowledgement must be deleted: no checkpoint will ever hold it")
			assert.Empty(t, j.completed(), "an aborted checkpoint never completes")

			next := j.trigger()
			for i := range 4 {
				j.ack(i, next, j.snapshot(i, next))
			}
			require.Len(t, j.completed(), 1, "the next checkpoint completes")
			assert.Equal(t, next, j.completed()[0].CheckpointID)
		})
	})
}
