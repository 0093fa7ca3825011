// Exercise c03: when the AdaptiveScheduler stops waiting for resources.
//
// Each test runs a real AdaptiveScheduler on a JobMaster's main thread of
// its own, with a slot pool whose slots the test offers as TaskExecutors
// would (scenario.StartAdaptiveScheduler), inside a synctest bubble: the
// clock is fake, and time.Sleep moves it on at once. The job is
//
//	Source (4) ─keyBy─► Count (4)      one slot sharing group
//
// so it wants 4 slots (every vertex at its upper bound, 4) and needs 1
// (every vertex at its lower bound, 1). The tests look at the scheduler's
// state, "WaitingForResources" or "Executing", and at the parallelism it
// chose.
package c03_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/scheduler/adaptive"
)

// Flink's defaults: resource-stabilization-timeout 10 s,
// resource-wait-timeout 5 min.
const (
	stabilization = 10 * time.Second
	resourceWait  = 5 * time.Minute
)

// job is Source (4) ─keyBy─► Count (4) in one slot sharing group.
func job() *jobgraph.JobGraph {
	source := scenario.Vertex("Source", 4, "default")
	count := scenario.Vertex("Count", 4, "default")
	count.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	return scenario.Job(source, count)
}

// run is a started AdaptiveScheduler and its job.
type run struct {
	*scenario.Scheduling
	t   *testing.T
	job *jobgraph.JobGraph
}

// start creates the scheduler with settings and starts scheduling: it
// declares the slots it wants and waits for them.
func start(t *testing.T, settings adaptive.Settings) run {
	t.Helper()
	jg := job()
	s, _ := scenario.StartAdaptiveScheduler(t, jg, adaptive.Config{Settings: settings})
	require.NoError(t, s.StartScheduling())
	synctest.Wait()
	return run{Scheduling: s, t: t, job: jg}
}

// state returns the scheduler's state once everything due has run; a
// panic on the main thread fails the test here.
func (r run) state() string {
	r.t.Helper()
	synctest.Wait()
	require.Empty(r.t, r.Panics(), "checking the resources must not panic the JobMaster's main thread")
	var name string
	require.NoError(r.t, r.OnMain(func() { name = r.Scheduler.(*adaptive.AdaptiveScheduler).State() }))
	return name
}

// at sleeps until the bubble's clock reads since (counted from the
// test's start, start), and returns the state then.
func (r run) at(start time.Time, since time.Duration) string {
	r.t.Helper()
	time.Sleep(time.Until(start.Add(since)))
	return r.state()
}

// parallelism is the parallelism of the running job's vertices: "Source=2
// Count=2".
func (r run) parallelism() string {
	var out []string
	for _, v := range r.Job().Vertices {
		out = append(out, fmt.Sprintf("%s=%d", v.Name, v.Parallelism))
	}
	return strings.Join(out, " ")
}

// setLowerBounds changes every vertex's lower bound, as PUT
// /jobs/{jobid}/resource-requirements does; the upper bounds stay 4.
func (r run) setLowerBounds(lower int) {
	r.t.Helper()
	requirements := jobgraph.JobResourceRequirements{}
	for _, v := range r.job.Vertices() {
		requirements[v.ID] = jobgraph.JobVertexResourceRequirements{Parallelism: jobgraph.Parallelism{LowerBound: lower, UpperBound: 4}}
	}
	var err error
	require.NoError(r.t, r.OnMain(func() { err = r.Scheduler.UpdateJobResourceRequirements(requirements) }),
		"checking the resources must not panic the JobMaster's main thread")
	require.NoError(r.t, err)
}

// With every slot it wants, the job does not wait: it runs at once, at
// full parallelism.
func TestTheDesiredSlotsStartTheJobAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, adaptive.DefaultSettings())
		require.Equal(t, "WaitingForResources", r.state(), "no slot yet")
		r.Offer("tm-0", 4)
		assert.Equal(t, "Executing", r.state(), "with the 4 slots it wants, the job starts at once, without waiting for the stabilization timeout")
		assert.Equal(t, "Source=4 Count=4", r.parallelism())
		assert.Equal(t, api.JobRunning, r.JobStatus())
	})
}

// With fewer slots than it wants but enough to run, the job waits for
// resource-stabilization-timeout, in case more come, then runs with what
// it has.
func TestSufficientSlotsStartTheJobOnceStable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		r := start(t, adaptive.DefaultSettings())
		r.Offer("tm-0", 2)
		assert.Equal(t, "WaitingForResources", r.state(), "2 slots are enough, not all it wants: it waits in case more come")
		assert.Equal(t, "WaitingForResources", r.at(t0, stabilization-time.Millisecond),
			"the slots have been sufficient for less than the stabilization timeout")
		assert.Equal(t, api.JobCreated, r.JobStatus(), "a job that waits for resources is CREATED")
		assert.Equal(t, "Executing", r.at(t0, stabilization),
			"the slots have been sufficient for the stabilization timeout: the job runs with them")
		assert.Equal(t, "Source=2 Count=2", r.parallelism())
	})
}

// Slots that come while the clock runs do not start it again: the
// stabilization timeout counts from the moment the slots became
// sufficient.
func TestMoreSlotsDoNotStartTheClockAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		r := start(t, adaptive.DefaultSettings())
		r.Offer("tm-0", 1)
		assert.Equal(t, "WaitingForResources", r.at(t0, 4*time.Second))
		r.Offer("tm-1", 1)
		assert.Equal(t, "WaitingForResources", r.at(t0, stabilization-time.Millisecond))
		assert.Equal(t, "Executing", r.at(t0, stabilization),
			"sufficient since the first slot: the clock started then, and a second slot 4 s later does not start it again")
		assert.Equal(t, "Source=2 Count=2", r.parallelism())
	})
}

// The desired slots end the wait at once, also while the stabilization
// clock runs.
func TestTheDesiredSlotsEndTheStabilizationAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		r := start(t, adaptive.DefaultSettings())
		r.Offer("tm-0", 2)
		assert.Equal(t, "WaitingForResources", r.at(t0, 3*time.Second))
		r.Offer("tm-1", 2)
		assert.Equal(t, "Executing", r.state(), "the 4 slots it wants are there 3 s into the stabilization: the job starts at once")
		assert.Equal(t, "Source=4 Count=4", r.parallelism())
	})
}

// Slots that go away stop the clock: when enough are there again, the
// stabilization timeout counts from then.
func TestTheClockStartsAgainWhenTheSlotsAreNoLongerSufficient(t *testing.T) {
	t.Run("a TaskManager is lost", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			t0 := time.Now()
			r := start(t, adaptive.DefaultSettings())
			r.Offer("tm-0", 1)
			assert.Equal(t, "WaitingForResources", r.at(t0, 5*time.Second))
			require.NoError(t, r.LoseTaskManager("tm-0"))
			assert.Equal(t, "WaitingForResources", r.at(t0, 12*time.Second), "no slot since 5 s")
			r.Offer("tm-1", 1)
			assert.Equal(t, "WaitingForResources", r.state(),
				"sufficient again at 12 s: the clock starts again there, it does not go on from the first slot's")
			assert.Equal(t, "WaitingForResources", r.at(t0, 12*time.Second+stabilization-time.Millisecond),
				"sufficient again since 12 s: the stabilization timeout has not passed since then")
			assert.Equal(t, "Executing", r.at(t0, 12*time.Second+stabilization))
			assert.Equal(t, "Source=1 Count=1", r.parallelism())
		})
	})
	t.Run("the minimum is raised above the slots", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			t0 := time.Now()
			r := start(t, adaptive.DefaultSettings())
			r.Offer("tm-0", 2)
			assert.Equal(t, "WaitingForResources", r.at(t0, 5*time.Second))
			r.setLowerBounds(3)
			assert.Equal(t, "WaitingForResources", r.at(t0, 8*time.Second), "2 slots, a minimum of 3: not enough")
			r.setLowerBounds(1)
			assert.Equal(t, "WaitingForResources", r.at(t0, 8*time.Second+stabilization-time.Millisecond),
				"sufficient again since 8 s, when the minimum went back to 1: the clock started again there")
			assert.Equal(t, "Executing", r.at(t0, 8*time.Second+stabilization))
			assert.Equal(t, "Source=2 Count=2", r.parallelism())
		})
	})
}

// With too few slots the job waits, CREATED and silent at INFO, until
// resource-wait-timeout; then it tries with what it has and, below its
// minimum, fails. This is the stuck job of the lesson.
func TestTooFewSlotsWaitUntilTheResourceWaitTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		r := start(t, adaptive.DefaultSettings())
		assert.Equal(t, "WaitingForResources", r.state(), "no slot: nothing to run with, so it waits")
		r.setLowerBounds(3)
		r.Offer("tm-0", 2)
		assert.Equal(t, "WaitingForResources", r.at(t0, resourceWait-time.Millisecond),
			"2 slots, a minimum of 3: it waits, however long, until the resource wait timeout")
		assert.Equal(t, api.JobCreated, r.JobStatus())
		assert.Nil(t, r.Final())
		assert.Equal(t, "Finished", r.at(t0, resourceWait))
		final := r.Final()
		require.NotNil(t, final)
		assert.Equal(t, api.JobFailed, final.State)
		assert.Equal(t, "NoResourceAvailableException: Not enough resources available for scheduling.", final.FailureCause)
	})
}

// Reactive mode has no stabilization timeout: as soon as the minimum is
// there, the job runs, with as many slots as there are.
func TestReactiveModeStartsAsSoonAsTheMinimumIsThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, adaptive.ReactiveSettings())
		assert.Equal(t, "WaitingForResources", r.state())
		r.Offer("tm-0", 3)
		assert.Equal(t, "Executing", r.state(), "reactive mode: resource-stabilization-timeout 0")
		assert.Equal(t, "Source=3 Count=3", r.parallelism())
	})
}
