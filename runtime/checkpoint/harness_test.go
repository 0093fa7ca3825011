package checkpoint

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
	"flinklab/runtime/trace"
)

// The test job: a source of parallelism 2 and a keyed chain (reduce →
// sink) of parallelism 2, max parallelism 128.
var (
	sourceVertex = api.NewJobVertexID()
	keyedVertex  = api.NewJobVertexID()
	sourceOp     = opID(1)
	reduceOp     = opID(2)
	sinkOp       = opID(3)
)

func opID(n byte) api.OperatorID { return api.OperatorIDFromBytes([16]byte{15: n}) }

// harness runs a CheckpointCoordinator the way the JobMaster does: every
// call, and every scheduled function, on one goroutine (mainThread).
// Build it inside a synctest bubble: Schedule uses the bubble's clock, so
// timeouts are exact and take no time.
type harness struct {
	t          *testing.T
	job        api.JobID
	graph      api.ExecutionGraphID
	coord      *CheckpointCoordinator
	mainThread chan func()
	stopped    chan struct{}
	log        *logCapture
	trace      *trace.Recorder
	checkpoint string // state.checkpoints.dir

	// Set on the main thread:
	tasks     []TaskToCheckpoint
	planErr   error
	triggered []triggerCall
	completes []notification
	aborts    []notification
	failJob   []error
}

type triggerCall struct {
	task         string
	checkpointID int64
	timestamp    int64
	options      CheckpointOptions
}

type notification struct {
	task         string
	checkpointID int64
}

// newHarness starts a coordinator with cfg, whose first periodic
// checkpoint comes exactly one interval after StartCheckpointScheduler.
func newHarness(t *testing.T, cfg CheckpointCoordinatorConfiguration) *harness {
	h := &harness{t: t, job: api.NewJobID(), graph: api.NewExecutionGraphID(), mainThread: make(chan func()),
		stopped: make(chan struct{}), log: &logCapture{}, trace: trace.NewRecorder()}
	go func() {
		for {
			select {
			case fn := <-h.mainThread:
				fn()
			case <-h.stopped:
				return
			}
		}
	}()
	t.Cleanup(func() { close(h.stopped) })

	if cfg.CheckpointsDir == "" {
		cfg.CheckpointsDir = t.TempDir()
	}
	h.checkpoint = cfg.CheckpointsDir
	storage, err := state.NewCheckpointStorageAccess(cfg.CheckpointsDir, h.job)
	if err != nil {
		t.Fatal(err)
	}
	h.tasks = append(h.newTasks(sourceVertex, "Source: numbers", []api.OperatorID{sourceOp}),
		h.newTasks(keyedVertex, "Keyed Reduce -> Sink: print", []api.OperatorID{reduceOp, sinkOp})...)
	h.do(func() {
		h.coord = NewCheckpointCoordinator(CoordinatorDeps{
			JobID: h.job, Config: cfg, Storage: storage,
			Schedule: h.schedule,
			Logger:   slog.New(logHandler{capture: h.log}),
			Trace:    h.trace,
			CalculateCheckpointPlan: func() (CheckpointPlan, error) {
				if h.planErr != nil {
					return CheckpointPlan{}, h.planErr
				}
				return CheckpointPlan{TasksToTrigger: h.tasks[:2], TasksToWaitFor: h.tasks, TasksToCommitTo: h.tasks}, nil
			},
			FailJob: func(cause error) { h.failJob = append(h.failJob, cause) },
		})
		h.coord.getRandomCheckpointInitDelay = func() time.Duration { return h.coord.baseInterval }
	})
	return h
}

// schedule runs fn on the main thread after delay, unless cancelled.
func (h *harness) schedule(fn func(), delay time.Duration) func() {
	timer := time.AfterFunc(delay, func() {
		select {
		case h.mainThread <- fn:
		case <-h.stopped:
		}
	})
	return func() { timer.Stop() }
}

func (h *harness) newTasks(vertex api.JobVertexID, name string, operators []api.OperatorID) []TaskToCheckpoint {
	var tasks []TaskToCheckpoint
	for i := range 2 {
		task := TaskToCheckpoint{
			AttemptID: api.ExecutionAttemptID{ExecutionGraphID: h.graph,
				ExecutionVertexID: api.ExecutionVertexID{JobVertexID: vertex, SubtaskIndex: i}},
			JobVertexID: vertex, TaskNameWithSubtask: fmt.Sprintf("%s (%d/2)#0", name, i+1),
			Location: fmt.Sprintf("tm-%d @ localhost", i), Parallelism: 2, MaxParallelism: 128, OperatorIDs: operators,
		}
		task.TriggerCheckpoint = func(id, ts int64, options CheckpointOptions) {
			h.triggered = append(h.triggered, triggerCall{task.TaskNameWithSubtask, id, ts, options})
		}
		task.NotifyCheckpointComplete = func(id, _ int64) {
			h.completes = append(h.completes, notification{task.TaskNameWithSubtask, id})
		}
		task.NotifyCheckpointAborted = func(id, _, _ int64) {
			h.aborts = append(h.aborts, notification{task.TaskNameWithSubtask, id})
		}
		tasks = append(tasks, task)
	}
	return tasks
}

// do runs fn on the main thread and waits for it.
func (h *harness) do(fn func()) {
	done := make(chan struct{})
	h.mainThread <- func() { fn(); close(done) }
	<-done
}

// advance lets d pass on the bubble's clock and waits until everything
// due has run.
func (h *harness) advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// ack acknowledges checkpoint id for task i with a snapshot of its
// operators (nil: stateless).
func (h *harness) ack(i int, id int64, snapshot *TaskStateSnapshot) error {
	var err error
	h.do(func() {
		err = h.coord.ReceiveAcknowledgeMessage(AcknowledgeCheckpoint{JobID: h.job, TaskExecutionID: h.tasks[i].AttemptID,
			CheckpointID: id, SubtaskState: snapshot}, h.tasks[i].Location)
	})
	return err
}

// ackAll acknowledges checkpoint id for every task, with a small inline
// state for each operator.
func (h *harness) ackAll(id int64) {
	for i := range h.tasks {
		if err := h.ack(i, id, h.smallState(i)); err != nil {
			h.t.Fatalf("ack %d of checkpoint %d: %v", i, id, err)
		}
	}
}

// smallState is a snapshot of task i: one element of operator state per
// operator, inline.
func (h *harness) smallState(i int) *TaskStateSnapshot {
	snapshot := &TaskStateSnapshot{SubtaskStateMappings: make(map[api.OperatorID]OperatorSubtaskState)}
	for _, op := range h.tasks[i].OperatorIDs {
		data, offset := state.AppendElement(nil, []byte(fmt.Sprintf("%s-%d", op, i)))
		snapshot.SubtaskStateMappings[op] = OperatorSubtaskState{ManagedOperatorState: []state.OperatorStateHandle{{
			StateNameToPartitionOffsets: map[string]state.StateMetaInfo{
				"positions": {Offsets: []int64{offset}, DistributionMode: state.SplitDistribute}},
			Delegate: state.StreamStateHandle{Data: data, StateSize: int64(len(data))},
		}}}
	}
	return snapshot
}

func (h *harness) decline(i int, id int64, reason CheckpointFailureReason, message string) {
	h.do(func() {
		h.coord.ReceiveDeclineMessage(DeclineCheckpoint{JobID: h.job, TaskExecutionID: h.tasks[i].AttemptID,
			CheckpointID: id, Reason: reason.Name, Message: message}, h.tasks[i].Location)
	})
}

// trigger triggers a checkpoint of checkpointType by hand and returns a
// function that returns its outcome so far.
func (h *harness) trigger(checkpointType CheckpointType, targetDir string) func() (*CompletedCheckpoint, error, bool) {
	var (
		completed *CompletedCheckpoint
		err       error
		done      bool
	)
	h.do(func() {
		h.coord.TriggerCheckpoint(checkpointType, targetDir, func(c *CompletedCheckpoint, e error) {
			if done {
				h.t.Error("done called twice")
			}
			completed, err, done = c, e, true
		})
	})
	return func() (c *CompletedCheckpoint, e error, d bool) {
		h.do(func() { c, e, d = completed, err, done })
		return c, e, d
	}
}

// read runs fn on the main thread, to look at what it recorded.
func (h *harness) read(fn func()) { h.do(fn) }

func (h *harness) pending() (n int) {
	h.read(func() { n = h.coord.NumberOfPendingCheckpoints() })
	return n
}

func (h *harness) triggeredIDs() (ids []int64) {
	h.read(func() {
		for _, c := range h.triggered {
			if len(ids) == 0 || ids[len(ids)-1] != c.checkpointID {
				ids = append(ids, c.checkpointID)
			}
		}
	})
	return ids
}

func (h *harness) latest() (c *CompletedCheckpoint) {
	h.read(func() { c = h.coord.LatestCompletedCheckpoint() })
	return c
}

// logCapture keeps the log lines, "LEVEL logger - message", a cause on
// the next line.
type logCapture struct {
	mu    sync.Mutex
	lines []string
}

// logHandler writes a logger's records into the capture.
type logHandler struct {
	capture *logCapture
	logger  string
}

func (h logHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h logHandler) Handle(_ context.Context, r slog.Record) error {
	line := fmt.Sprintf("%s %s - %s", r.Level, h.logger, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "cause" {
			line += "\n" + a.Value.String()
		}
		return true
	})
	h.capture.mu.Lock()
	defer h.capture.mu.Unlock()
	h.capture.lines = append(h.capture.lines, line)
	return nil
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	for _, a := range attrs {
		if a.Key == "logger" {
			h.logger = a.Value.String()
		}
	}
	return h
}

func (h logHandler) WithGroup(string) slog.Handler { return h }

// contains reports whether a line contains all of parts.
func (l *logCapture) contains(parts ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if containsAll(line, parts) {
			return true
		}
	}
	return false
}

func (l *logCapture) count(part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, part) {
			n++
		}
	}
	return n
}

func (l *logCapture) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// testConfig is a configuration with a 10 s interval and a 60 s timeout.
func testConfig() CheckpointCoordinatorConfiguration {
	cfg := DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = 10 * time.Second
	cfg.Timeout = time.Minute
	return cfg
}
