// Exercise h02: what a new leader recovers.
//
// Each test runs the Dispatcher's part of the leader election, the
// dispatcher.Runner, of one or two JobManagers in this process. They share
// what an HA cluster keeps outside its JobManagers: an election (the
// embedded one: the first to enter leads, the next takes over when it
// leaves), a JobGraphStore and a JobResultStore. A job's JobManagerRunner
// is a stand-in that only records that it was started: what the tests
// look at is which jobs a new leader runs, what it leaves in the stores,
// and what it logs.
package h02_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
)

// cluster is what the JobManagers of an HA cluster share.
type cluster struct {
	election *highavailability.EmbeddedLeaderService
	store    jobmanager.JobGraphStore
	results  *highavailability.EmbeddedJobResultStore
}

func newCluster(store jobmanager.JobGraphStore) *cluster {
	return &cluster{election: highavailability.NewEmbeddedLeaderService(), store: store, results: highavailability.NewEmbeddedJobResultStore()}
}

// jobManager is one JobManager process's Dispatcher runner.
type jobManager struct {
	runner *dispatcher.Runner
	logs   *scenario.Logs
	mu     sync.Mutex
	jobs   map[api.JobID]*jobRunner // the jobs it started
}

// start enters a JobManager into the cluster's election. Call it inside
// a synctest bubble; it returns once the election has settled.
func (c *cluster) start(t *testing.T) *jobManager {
	t.Helper()
	jm := &jobManager{logs: &scenario.Logs{}, jobs: map[api.JobID]*jobRunner{}}
	jm.runner = dispatcher.NewRunner(dispatcher.Config{Logger: slog.New(slog.NewTextHandler(jm.logs, nil))}, dispatcher.Deps{
		RPC:            rpc.NewLocalService(),
		JobGraphStore:  c.store,
		JobResultStore: c.results,
		CreateJobManagerRunner: func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
			jm.mu.Lock()
			defer jm.mu.Unlock()
			r := &jobRunner{id: g.JobID, done: make(chan struct{})}
			jm.jobs[g.JobID] = r
			return r, nil
		},
	}, c.election.NewLeaderElection())
	require.NoError(t, jm.runner.Start())
	t.Cleanup(func() { _ = jm.runner.Close() })
	synctest.Wait()
	return jm
}

// runs reports whether the JobManager started the job.
func (jm *jobManager) runs(id api.JobID) bool {
	jm.mu.Lock()
	defer jm.mu.Unlock()
	r, ok := jm.jobs[id]
	return ok && r.started
}

// dies is the process's end: it leaves the election, and its Dispatcher
// stops its jobs (SUSPENDED, their JobGraphs stay stored).
func (jm *jobManager) dies() {
	_ = jm.runner.Close()
	synctest.Wait()
}

func job(name string) *jobgraph.JobGraph {
	g := jobgraph.New(name)
	g.AddVertex(jobgraph.NewJobVertex("Source: "+name, "test.Source", 1))
	return g
}

func stored(t *testing.T, store jobmanager.JobGraphStore, graphs ...*jobgraph.JobGraph) {
	t.Helper()
	for _, g := range graphs {
		require.NoError(t, store.PutJobGraph(g))
	}
}

// A job submitted to the leader outlives it: the next leader finds it in
// the JobGraphStore and runs it, and says so in its log.
func TestTheNextLeaderRunsTheJobTheLastOneLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(jobmanager.NewInMemoryJobGraphStore())
		a := c.start(t)
		b := c.start(t)
		require.NotNil(t, a.runner.Leader(), "the first JobManager leads with nothing to recover: its recovery must not fail")
		require.Nil(t, b.runner.Leader(), "the second waits")
		ticker := job("ticker")
		require.NoError(t, a.runner.Leader().SubmitJob(context.Background(), ticker))
		require.True(t, a.runs(ticker.JobID))

		a.dies()
		require.NotNil(t, b.runner.Leader(), "the standby leads once the leader is gone; its recovery must not fail")
		assert.True(t, b.runs(ticker.JobID), "the new leader must run the job the last one left")
		assert.Contains(t, b.logs.String(), "Recover all persisted job graphs that are not finished, yet.")
		assert.Contains(t, b.logs.String(), "Trying to recover job with job id "+ticker.JobID.String()+".")
		assert.Contains(t, b.logs.String(), "Successfully recovered 1 persisted job graphs.")
		ids, err := c.store.JobIDs()
		require.NoError(t, err)
		assert.Equal(t, []api.JobID{ticker.JobID}, ids, "the job stays stored while it runs")
	})
}

// Every stored job without a result is recovered, each once.
func TestEveryStoredJobIsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(jobmanager.NewInMemoryJobGraphStore())
		jobs := []*jobgraph.JobGraph{job("a"), job("b"), job("c")}
		stored(t, c.store, jobs...)

		leader := c.start(t)
		require.NotNil(t, leader.runner.Leader(), "the recovery must not fail")
		for _, g := range jobs {
			assert.True(t, leader.runs(g.JobID), "job %s must run", g.Name)
		}
		listed, err := leader.runner.Leader().ListJobs(context.Background())
		require.NoError(t, err)
		assert.Len(t, listed, 3, "each job once")
		assert.Contains(t, leader.logs.String(), "Successfully recovered 3 persisted job graphs.")
	})
}

// The last leader saw a job to its end and wrote its result (dirty), but
// died before its cleanup was done: its JobGraph is still stored. The new
// leader must not run it again; it finishes the cleanup instead.
func TestAJobThatEndedUnderTheLastLeaderIsNotRunAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(jobmanager.NewInMemoryJobGraphStore())
		finished, running := job("finished"), job("running")
		stored(t, c.store, finished, running)
		require.NoError(t, c.results.CreateDirtyResult(api.JobResult{JobID: finished.JobID, JobStatus: api.JobFinished}))

		leader := c.start(t)
		require.NotNil(t, leader.runner.Leader(), "the recovery must not fail")
		assert.False(t, leader.runs(finished.JobID), "a FINISHED job must never run again")
		assert.True(t, leader.runs(running.JobID))
		assert.Contains(t, leader.logs.String(), "Skipping recovery of a job with job id "+finished.JobID.String()+", because it already reached a globally terminal state")
		assert.Contains(t, leader.logs.String(), "Successfully recovered 1 persisted job graphs.")
		ids, err := c.store.JobIDs()
		require.NoError(t, err)
		assert.Equal(t, []api.JobID{running.JobID}, ids, "the finished job's JobGraph is cleaned up")
		dirty, err := c.results.DirtyResults()
		require.NoError(t, err)
		assert.Empty(t, dirty, "and its result is marked clean")
	})
}

// A JobGraph listed a moment ago may be gone when it is read: the job
// finished and was cleaned up meanwhile (Flink's "already finished in a
// previous execution"). That is not an error.
func TestAJobGraphThatIsGoneIsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gone, kept := job("gone"), job("kept")
		store := &storeWith{JobGraphStore: jobmanager.NewInMemoryJobGraphStore(), listedButGone: gone.JobID}
		c := newCluster(store)
		stored(t, c.store, gone, kept)

		leader := c.start(t)
		require.NotNil(t, leader.runner.Leader(), "a JobGraph that is gone must not fail the recovery")
		assert.True(t, leader.runs(kept.JobID))
		assert.False(t, leader.runs(gone.JobID))
		assert.Contains(t, leader.logs.String(), "Skipping recovery of job with job id "+gone.JobID.String()+", because it already finished in a previous execution")
		assert.Contains(t, leader.logs.String(), "Successfully recovered 1 persisted job graphs.")
	})
}

// A JobGraph that cannot be read (a storage directory that cannot be
// reached, a file that is damaged) fails the recovery: the process does
// not lead without a job it was given. Flink's leader process fails, and
// the JobManager exits; the job is still stored for the next leader.
func TestAJobGraphThatCannotBeReadFailsTheRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broken, fine := job("broken"), job("fine")
		store := &storeWith{JobGraphStore: jobmanager.NewInMemoryJobGraphStore(), unreadable: broken.JobID}
		c := newCluster(store)
		stored(t, c.store, broken, fine)

		leader := c.start(t)
		assert.Nil(t, leader.runner.Leader(), "no Dispatcher may run without a job it could not read")
		assert.False(t, leader.runs(fine.JobID), "nor run the other jobs as if nothing were wrong")
		assert.Contains(t, leader.logs.String(), "Could not recover job with job id "+broken.JobID.String()+".")
		ids, err := c.store.JobIDs()
		require.NoError(t, err)
		assert.Len(t, ids, 2, "both jobs stay stored for the next leader")
	})
}

// storeWith is a JobGraphStore that lists a job whose JobGraph is gone
// when it is read, or one whose JobGraph cannot be read.
type storeWith struct {
	jobmanager.JobGraphStore
	listedButGone api.JobID
	unreadable    api.JobID
}

func (s *storeWith) RecoverJobGraph(id api.JobID) (*jobgraph.JobGraph, error) {
	switch id {
	case s.listedButGone:
		return nil, jobmanager.ErrJobGraphNotFound
	case s.unreadable:
		return nil, errors.New("could not read submittedJobGraph5e21c2d3: unexpected EOF")
	}
	return s.JobGraphStore.RecoverJobGraph(id)
}

// jobRunner stands in for a job's JobManagerRunner: it records that it
// was started, and ends SUSPENDED when closed, as the real one does.
type jobRunner struct {
	id      api.JobID
	mu      sync.Mutex
	started bool
	done    chan struct{}
	result  jobmanager.JobManagerRunnerResult
}

func (r *jobRunner) Start() error     { r.mu.Lock(); r.started = true; r.mu.Unlock(); return nil }
func (r *jobRunner) JobID() api.JobID { return r.id }
func (r *jobRunner) RequestJobStatus(context.Context) (api.JobStatus, error) {
	return api.JobRunning, nil
}
func (r *jobRunner) RequestJob(context.Context) (*gateway.ArchivedExecutionGraph, error) {
	return &gateway.ArchivedExecutionGraph{JobID: r.id, State: api.JobRunning}, nil
}
func (r *jobRunner) Cancel(context.Context) error { return r.Close() }
func (r *jobRunner) RequestJobResourceRequirements(context.Context) (jobgraph.JobResourceRequirements, error) {
	return jobgraph.JobResourceRequirements{}, nil
}
func (r *jobRunner) UpdateJobResourceRequirements(context.Context, jobgraph.JobResourceRequirements) error {
	return nil
}
func (r *jobRunner) JobMasterGateway() (gateway.JobMasterGateway, error) {
	return nil, gateway.ErrUnavailableDispatcherOperation
}
func (r *jobRunner) Done() <-chan struct{} { return r.done }
func (r *jobRunner) Result() jobmanager.JobManagerRunnerResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.result
}
func (r *jobRunner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.done:
	default:
		r.result = jobmanager.JobManagerRunnerResult{ExecutionGraph: &gateway.ArchivedExecutionGraph{JobID: r.id, State: api.JobSuspended}}
		close(r.done)
	}
	return nil
}
