package diagrams

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"regexp"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming/tasks"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/checkpoints"
	"flinklab/tools/graphs/dot"
)

// The checkpoint of diagrams/, which `-checkpoint` draws without a
// program too: the ticker, bounded, at parallelism 2, checkpointed every
// CheckpointSettings().Interval; the CheckpointDrawn-th completed
// checkpoint is drawn.
const (
	CheckpointProgram     = ticker.ProgramClass
	CheckpointParallelism = 2
	// CheckpointDrawn is the completed checkpoint drawn: the second, the
	// first of the steady rhythm (package checkpoints says why).
	CheckpointDrawn = 2
)

// CheckpointArgs bound the ticker at 1,000 events, 100 a second: ten
// seconds, far more than the checkpoints drawn need; the job is cancelled
// once its checkpoint is drawn.
var CheckpointArgs = []string{"--count", "1000", "--rate", "100", "--output", ticker.OutputCollect}

// CheckpointSettings are the checkpointing options of the run: Flink's
// defaults (EXACTLY_ONCE, aligned barriers, one checkpoint at a time,
// state in the JobManager's memory) with a checkpoint every 200 ms
// instead of none, and a min pause of 100 ms instead of 0. The first
// checkpoint comes after a random delay between the min pause and the
// interval: with no pause it may come within a millisecond of the job's
// start, find a source that is not running yet and be declined, and the
// drawn checkpoint would be number 3, not 2. The pause does not slow the
// rhythm: each checkpoint takes about a millisecond.
func CheckpointSettings() checkpoint.CheckpointCoordinatorConfiguration {
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = 200 * time.Millisecond
	cfg.MinPause = 100 * time.Millisecond
	return cfg
}

// CheckpointRun is one checkpoint of a run, to draw.
type CheckpointRun struct {
	// Name prefixes the files: the program's, or the JobID of a job on a
	// running cluster.
	Name       string
	Checkpoint *checkpoints.Checkpoint
	// Completed are the IDs of the checkpoints that had completed when it
	// was drawn, in order.
	Completed []int64
}

// CheckpointFile names the file of the checkpoint on the ExecutionGraph.
func CheckpointFile(name string) string { return name + "-checkpoint.dot" }

// CheckpointSequenceFile names the files of the checkpoint as a sequence,
// without the extension (.dot, .mmd).
func CheckpointSequenceFile(name string) string { return name + "-checkpoint-sequence" }

// Files draws the checkpoint: on the ExecutionGraph as DOT, and as a
// sequence in DOT and Mermaid (package dot).
func (r *CheckpointRun) Files() map[string][]byte {
	return map[string][]byte{
		CheckpointFile(r.Name):                  dot.Checkpoint(r.Checkpoint),
		CheckpointSequenceFile(r.Name) + ".dot": dot.CheckpointSequenceDOT(r.Checkpoint),
		CheckpointSequenceFile(r.Name) + ".mmd": dot.CheckpointSequence(r.Checkpoint),
	}
}

// RunCheckpoint runs the planned job with checkpoints (CheckpointSettings)
// on a fresh MiniCluster of one TaskManager with as many slots as the job
// needs, waits for its n-th completed checkpoint and its notifications
// (k7), and reads it from the trace. The job is then cancelled, unless it
// has ended: what it does after is not drawn. A job that ends before its
// n-th checkpoint completes is an error. Print sinks write to the
// TaskManager's standard output, which is discarded here.
//
// The checkpoint is Measured: the order is the run's own, the times are
// the trace's clock since the trigger. In a synctest bubble that clock
// stands still while the goroutines run, so every step is "+0.000 ms",
// and the order of the subtasks' steps still varies: Canonical is what
// stays the same from run to run.
func (p *Plan) RunCheckpoint(ctx context.Context, n int) (*CheckpointRun, error) {
	job, err := checkpoints.JobOf(p.JobGraph)
	if err != nil {
		return nil, err
	}
	slots, _ := p.JobGraph.SlotsNeeded()
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        1,
		NumSlotsPerTaskManager: slots,
		Checkpointing:          CheckpointSettings(),
		Logger:                 slog.New(slog.DiscardHandler), // the trace is what we draw
	})
	if err != nil {
		return nil, err
	}
	if err := cluster.Start(); err != nil {
		return nil, err
	}
	defer cluster.Close()
	defer tasks.SetStdout(io.Discard)()

	if err := cluster.UploadJar(p.JobGraph, p.Jar); err != nil {
		return nil, err
	}
	jobID, err := cluster.SubmitJob(ctx, p.JobGraph)
	if err != nil {
		return nil, err
	}
	ended, stop := watchJobEnd(ctx, cluster, jobID)
	defer stop()

	// Wait for the n-th completed checkpoint, or for the job to end
	// without one.
	awaitCtx, stopAwait := context.WithCancel(ctx)
	go func() {
		select {
		case <-ended:
			stopAwait()
		case <-awaitCtx.Done():
		}
	}()
	nth := func(events []trace.Event) bool { _, ok := checkpoints.NthCompleted(events, n); return ok }
	err = cluster.Trace().Await(awaitCtx, jobID, nth)
	stopAwait()
	events := cluster.Trace().JobEvents(jobID)
	id, ok := checkpoints.NthCompleted(events, n)
	switch {
	case !ok && ctx.Err() != nil:
		return nil, fmt.Errorf("job %s: waiting for checkpoint number %d to complete: %w", jobID, n, err)
	case !ok:
		return nil, fmt.Errorf("job %s ended after %d of the %d completed checkpoints it takes: let it run longer (the ticker: a larger --count, a lower --rate)",
			jobID, len(checkpoints.Completed(events)), n)
	}
	c, err := checkpoints.Read(events, id, job)
	if err != nil {
		return nil, err
	}
	if err := cancelUnlessEnded(ctx, cluster, jobID, ended); err != nil {
		return nil, err
	}
	return &CheckpointRun{Name: p.Name, Checkpoint: c, Completed: checkpoints.Completed(events)}, nil
}

// watchJobEnd returns a channel closed when the job reaches a terminal
// state, and a stop that waits, after cancelling the wait, until the
// goroutine watching it is gone (as a synctest bubble requires).
func watchJobEnd(ctx context.Context, cluster *minicluster.MiniCluster, jobID api.JobID) (ended <-chan struct{}, stop func()) {
	done := make(chan struct{})
	watchCtx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(done)
		_, _ = cluster.RequestJobResult(watchCtx, jobID)
	}()
	return done, func() { cancel(); <-done }
}

// cancelUnlessEnded cancels the job and waits until it has ended; a job
// that ended meanwhile is left as it is.
func cancelUnlessEnded(ctx context.Context, cluster *minicluster.MiniCluster, jobID api.JobID, ended <-chan struct{}) error {
	select {
	case <-ended:
		return nil
	default:
	}
	if err := cluster.CancelJob(ctx, jobID); err != nil {
		status, serr := cluster.RequestJobStatus(ctx, jobID)
		if serr != nil || !status.IsGloballyTerminalState() {
			return fmt.Errorf("cancel job %s: %w", jobID, err)
		}
	}
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("job %s: waiting for it to end: %w", jobID, ctx.Err())
	}
}

// Canonical returns the run as diagrams/ draws it, the same on every run:
// the checkpoint in step order without times, alignments, state size and
// the order of acknowledgements (checkpoints.Checkpoint.Canonical), its
// messages without IDs, timestamps, sizes and milliseconds
// (SanitizeCheckpoint).
func (r *CheckpointRun) Canonical() *CheckpointRun {
	c := r.Checkpoint.Canonical()
	for i := range c.Events {
		c.Events[i].Message = SanitizeCheckpoint(c.Events[i].Message)
	}
	return &CheckpointRun{Name: r.Name, Checkpoint: c, Completed: r.Completed}
}

// The parts of checkpoint messages that change from run to run, besides
// IDs: timestamps in ms since the epoch ("@1700000000200", "@ 1700000000200"),
// sizes and milliseconds.
var (
	epochMillis = regexp.MustCompile(`@( ?)\d{10,}`)
	bytesSize   = regexp.MustCompile(`\b\d+ bytes\b`)
	millis      = regexp.MustCompile(`([= ])\d+ ms\b`)
)

// SanitizeCheckpoint is Sanitize for the messages of a checkpoint's
// steps: timestamps become <timestamp>, sizes <n> bytes, durations <n> ms.
func SanitizeCheckpoint(message string) string {
	message = epochMillis.ReplaceAllString(message, "@${1}<timestamp>")
	message = bytesSize.ReplaceAllString(message, "<n> bytes")
	message = millis.ReplaceAllString(message, "${1}<n> ms")
	return Sanitize(message)
}

// checkpointView is the drawn checkpoint, for the README.
type checkpointView struct {
	Name, Program, File, Sequence, Mermaid string
	Parallelism, Drawn                     int
	ID                                     int64
	Interval, MinPause                     time.Duration
}

// generateCheckpoint runs the ticker with checkpoints (RunCheckpoint),
// adds its checkpoint in canonical form to files, and returns it for the
// README. The committed drawing numbers the steps in step order, not in
// the run's: the order in which two sources take the trigger, or two
// subtasks acknowledge, changes from run to run, even in a synctest
// bubble, and there every step is at +0 ms. The command's own output keeps
// the run's order and its milliseconds.
func generateCheckpoint(ctx context.Context, files map[string][]byte) (checkpointView, error) {
	plan, err := PlanProgram(CheckpointProgram, CheckpointArgs, CheckpointParallelism)
	if err != nil {
		return checkpointView{}, err
	}
	ticker.Results.Clear()
	run, err := plan.RunCheckpoint(ctx, CheckpointDrawn)
	ticker.Results.Clear()
	if err != nil {
		return checkpointView{}, err
	}
	drawn := run.Canonical().Files()
	maps.Copy(files, drawn)
	return checkpointView{
		Name: plan.Name, Program: CheckpointProgram, Parallelism: CheckpointParallelism,
		Drawn: CheckpointDrawn, ID: run.Checkpoint.ID,
		Interval: CheckpointSettings().Interval, MinPause: CheckpointSettings().MinPause,
		File: strings.TrimSuffix(CheckpointFile(plan.Name), ".dot"), Sequence: CheckpointSequenceFile(plan.Name),
		Mermaid: strings.TrimRight(string(drawn[CheckpointSequenceFile(plan.Name)+".mmd"]), "\n"),
	}, nil
}
