package dispatcher

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rpc"
)

// handElection is an election the test decides: it grants and revokes by
// hand, and remembers what the contender confirmed.
type handElection struct {
	mu        sync.Mutex
	contender highavailability.LeaderContender
	confirmed chan string
}

func (e *handElection) StartLeaderElection(c highavailability.LeaderContender) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.contender = c
	return nil
}
func (e *handElection) ConfirmLeadership(_ api.LeaderSessionID, address string) {
	e.confirmed <- address
}
func (e *handElection) HasLeadership(api.LeaderSessionID) bool { return false }
func (e *handElection) Close() error                           { return nil }

func (e *handElection) awaitConfirmed(t *testing.T) string {
	t.Helper()
	select {
	case address := <-e.confirmed:
		return address
	case <-time.After(10 * time.Second):
		t.Fatal("the leadership was never confirmed")
		return ""
	}
}

// runnerHarness is one JobManager process's Dispatcher runner, with the
// stores a next leader would share.
type runnerHarness struct {
	runner   *Runner
	election *handElection
	logs     *bytes.Buffer
	mu       sync.Mutex
	runners  map[api.JobID]*fakeRunner
}

func newRunnerHarness(t *testing.T, store jobmanager.JobGraphStore, results highavailability.JobResultStore) *runnerHarness {
	t.Helper()
	h := &runnerHarness{election: &handElection{confirmed: make(chan string, 4)}, logs: &bytes.Buffer{}, runners: map[api.JobID]*fakeRunner{}}
	h.runner = NewRunner(Config{Logger: slog.New(slog.NewTextHandler(syncWriter{w: h.logs, mu: &h.mu}, nil))}, Deps{
		RPC:            rpc.NewLocalService(),
		JobGraphStore:  store,
		JobResultStore: results,
		CreateJobManagerRunner: func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			r := newFakeRunner(g.JobID)
			h.runners[g.JobID] = r
			return r, nil
		},
	}, h.election)
	require.NoError(t, h.runner.Start())
	t.Cleanup(func() { _ = h.runner.Close() })
	return h
}

type syncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (h *runnerHarness) log() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.logs.String()
}

func (h *runnerHarness) jobRunner(id api.JobID) *fakeRunner {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runners[id]
}

// A new leader runs the stored jobs that have no result, finishes the
// cleanup of those whose result is dirty, and confirms its leadership
// only then; its Dispatcher's fencing token is the leader session.
func TestANewLeaderRecoversTheStoredJobsThatAreNotFinished(t *testing.T) {
	store, results := jobmanager.NewInMemoryJobGraphStore(), highavailability.NewEmbeddedJobResultStore()
	running, finished := validJob(), validJob()
	require.NoError(t, store.PutJobGraph(running))
	require.NoError(t, store.PutJobGraph(finished))
	require.NoError(t, results.CreateDirtyResult(api.JobResult{JobID: finished.JobID, JobStatus: api.JobFinished}))

	h := newRunnerHarness(t, store, results)
	assert.Nil(t, h.runner.Leader(), "no Dispatcher before the leadership")

	session := api.NewLeaderSessionID()
	h.election.contender.GrantLeadership(session)
	address := h.election.awaitConfirmed(t)
	d := h.runner.Leader()
	require.NotNil(t, d)
	assert.Equal(t, d.Address(), address)
	assert.Equal(t, api.DispatcherID(session), d.DispatcherID())

	jobs, err := d.ListJobs(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{running.JobID}, jobs, "the finished job is not run again")
	require.NotNil(t, h.jobRunner(running.JobID))
	assert.True(t, h.jobRunner(running.JobID).started)
	ids, err := store.JobIDs()
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{running.JobID}, ids, "the finished job's JobGraph is cleaned up")
	dirty, err := results.DirtyResults()
	require.NoError(t, err)
	assert.Empty(t, dirty, "and its result marked clean")

	log := h.log()
	for _, line := range []string{
		"DefaultDispatcherRunner was granted leadership with leader id " + session.String() + ". Creating new DispatcherLeaderProcess.",
		"Start SessionDispatcherLeaderProcess.",
		"Recover all persisted job graphs that are not finished, yet.",
		"Skipping recovery of a job with job id " + finished.JobID.String() + ", because it already reached a globally terminal state",
		"Trying to recover job with job id " + running.JobID.String() + ".",
		"Successfully recovered 1 persisted job graphs.",
	} {
		assert.Contains(t, log, line)
	}
}

// A revoked leader's jobs are SUSPENDED, not failed: their JobGraphs stay
// for the next leader, and they have no result.
func TestARevokedLeaderSuspendsItsJobsAndKeepsThemStored(t *testing.T) {
	store, results := jobmanager.NewInMemoryJobGraphStore(), highavailability.NewEmbeddedJobResultStore()
	h := newRunnerHarness(t, store, results)
	session := api.NewLeaderSessionID()
	h.election.contender.GrantLeadership(session)
	h.election.awaitConfirmed(t)
	g := validJob()
	require.NoError(t, h.runner.Leader().SubmitJob(context.Background(), g))

	h.election.contender.RevokeLeadership()
	h.runner.barrier()
	assert.Nil(t, h.runner.Leader())
	assert.True(t, h.jobRunner(g.JobID).closed)
	assert.Contains(t, h.log(), "Job "+g.JobID.String()+" reached terminal state SUSPENDED.")
	assert.Contains(t, h.log(), "DefaultDispatcherRunner was revoked the leadership with leader id "+session.String()+". Stopping the SessionDispatcherLeaderProcess.")
	ids, err := store.JobIDs()
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{g.JobID}, ids)
	assert.False(t, results.HasJobResultEntry(g.JobID))

	// Granted again: the job runs again, recovered from the store.
	h.election.contender.GrantLeadership(api.NewLeaderSessionID())
	h.election.awaitConfirmed(t)
	jobs, err := h.runner.Leader().ListJobs(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []api.JobID{g.JobID}, jobs)
}
