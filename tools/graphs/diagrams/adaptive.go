package diagrams

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/scheduler/adaptive"
	"flinklab/runtime/streaming/tasks"
	"flinklab/tools/graphs/dot"
	"flinklab/tools/graphs/states"
)

// The AdaptiveScheduler's run: the ticker at parallelism 4 on TaskManagers
// of 2 slots each.
const (
	AdaptiveProgram     = ticker.ProgramClass
	AdaptiveParallelism = 4
	AdaptiveSlots       = 2
	// AdaptiveFile names the files of the AdaptiveScheduler's state
	// machine: adaptive-states.dot and adaptive-states.mmd.
	AdaptiveFile = "adaptive-states"
)

// AdaptiveSettings are the AdaptiveScheduler's options for the run: Flink's
// defaults, but a resource-stabilization-timeout of half a second instead
// of 10 s, and a scaling-interval.min of 1 s instead of 30 s, so that the
// run takes seconds, not a minute. A TaskManager's slots reach the job
// in milliseconds, well within scaling-interval.min, so the second
// TaskManager's two slots are both there when the job decides to rescale,
// and it rescales once, straight to 4.
func AdaptiveSettings() adaptive.Settings {
	s := adaptive.DefaultSettings()
	s.ResourceStabilizationTimeout = 500 * time.Millisecond
	s.ScalingIntervalMin = time.Second
	return s
}

// AdaptiveRun is what a run on the AdaptiveScheduler leaves to draw.
type AdaptiveRun struct {
	JobName string
	// Transitions are the scheduler's moves, read from its DEBUG lines.
	Transitions []adaptive.Transition
	// Parallelism is the job's parallelism each time it entered
	// Executing.
	Parallelism []int
	// Final is the job's final status.
	Final api.JobStatus
}

// RunAdaptive runs a real job on the AdaptiveScheduler and reads the moves
// it makes from its log, as `jobmanager.scheduler: adaptive` with the log
// at DEBUG would show them. The cluster is a MiniCluster with one
// TaskManager of AdaptiveSlots slots and jobmanager.scheduler Adaptive
// (AdaptiveSettings); the job is the unbounded ticker at
// AdaptiveParallelism, so it wants more slots than there are:
//
//  1. It declares the slots it wants, gets the 2 there are, which are
//     enough but not all it wants, and waits out the
//     resource-stabilization-timeout (Created → WaitingForResources →
//     CreatingExecutionGraph → Executing at parallelism 2).
//  2. A second TaskManager starts (MiniCluster.StartTaskManager) while the
//     job runs; its slots go to the job, and once scaling-interval.min has
//     passed since the job started running, the parallelism can grow:
//     Executing → Restarting → WaitingForResources, where the slots it
//     wants are all there, → CreatingExecutionGraph → Executing at 4.
//  3. The job is cancelled: Executing → Canceling → Finished, CANCELED.
//
// Print sinks write to the TaskManagers' standard output, which is
// discarded here.
func RunAdaptive(ctx context.Context) (*AdaptiveRun, error) {
	plan, err := PlanProgram(AdaptiveProgram, nil, AdaptiveParallelism)
	if err != nil {
		return nil, err
	}
	recorder := states.NewRecorder()
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        1,
		NumSlotsPerTaskManager: AdaptiveSlots,
		SchedulerType:          adaptive.SchedulerTypeAdaptive,
		AdaptiveScheduler:      AdaptiveSettings(),
		Logger:                 slog.New(recorder), // the transition lines and nothing else
	})
	if err != nil {
		return nil, err
	}
	if err := cluster.Start(); err != nil {
		return nil, err
	}
	defer cluster.Close()
	defer tasks.SetStdout(io.Discard)()

	if err := cluster.UploadJar(plan.JobGraph, plan.Jar); err != nil {
		return nil, err
	}
	jobID, err := cluster.SubmitJob(ctx, plan.JobGraph)
	if err != nil {
		return nil, err
	}
	run := &AdaptiveRun{JobName: plan.JobGraph.Name}
	// executing waits until the job has entered Executing n times, and
	// notes the parallelism it runs at.
	executing := func(n int) error {
		err := recorder.Await(ctx, func(ts []adaptive.Transition) bool {
			return states.Entered(ts, "Executing") >= n || states.Entered(ts, "Finished") > 0
		})
		if err != nil {
			return fmt.Errorf("job %s: waiting for it to run (%d): %w; the scheduler's moves: %v", jobID, n, err, recorder.Transitions())
		}
		graph, err := cluster.Dispatcher().RequestJob(ctx, jobID)
		if err != nil {
			return err
		}
		p := 0
		for _, v := range graph.Vertices {
			p = max(p, v.Parallelism)
		}
		run.Parallelism = append(run.Parallelism, p)
		return nil
	}

	// 1. Runs with the slots there are.
	if err := executing(1); err != nil {
		return nil, err
	}
	// 2. More slots come, and the job rescales.
	if err := cluster.StartTaskManager(); err != nil {
		return nil, err
	}
	if err := executing(2); err != nil {
		return nil, err
	}
	// 3. Cancelled.
	if err := cluster.CancelJob(ctx, jobID); err != nil {
		return nil, fmt.Errorf("cancel job %s: %w", jobID, err)
	}
	result, err := cluster.RequestJobResult(ctx, jobID)
	if err != nil {
		return nil, err
	}
	run.Final = result.JobStatus
	run.Transitions = recorder.Transitions()
	return run, states.AdaptiveScheduler.Check(run.Transitions)
}

// Title heads the diagram of the run: the job, its parallelism each time
// it ran, and how it ended.
func (r *AdaptiveRun) Title() string {
	ran := make([]string, len(r.Parallelism))
	for i, p := range r.Parallelism {
		ran[i] = fmt.Sprint(p)
	}
	return fmt.Sprintf("%s: states and transitions\nin green, a job's path: %s at parallelism %d on TaskManagers of %d slots, ran at %s, %s",
		states.AdaptiveScheduler.Name, r.JobName, AdaptiveParallelism, AdaptiveSlots, joinAnd(ran), r.Final)
}

// Files draws the run: the state machine with its path, as DOT and as
// Mermaid.
func (r *AdaptiveRun) Files() map[string][]byte {
	return map[string][]byte{
		AdaptiveFile + ".dot": dot.StateMachine(states.AdaptiveScheduler, r.Title(), r.Transitions),
		AdaptiveFile + ".mmd": dot.StateMachineMermaid(states.AdaptiveScheduler, r.Transitions),
	}
}

// joinAnd lists words as prose: "2", "2 then 4", "2, 4 then 3".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " then " + words[len(words)-1]
}
