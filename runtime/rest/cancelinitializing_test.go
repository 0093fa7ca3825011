package rest_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/rest"
	"flinklab/runtime/rpc"
)

// A job cancelled while it is INITIALIZING reads CANCELLING on
// GET /jobs/{jobid} until its JobMaster runs; the cancel then reaches the
// JobMaster, which ends the job CANCELED (Flink's
// JobMasterServiceLeadershipRunner#cancel and #requestJob). The REST
// endpoint, the Dispatcher and the JobManagerRunner are the real ones;
// only the JobMaster is a stand-in, whose creation the test holds back.
func TestCancelWhileInitializingReadsCancellingUntilTheJobMasterRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		jm := newStandInJobMaster()
		endpoint := newEndpointOverARealDispatcher(t, jm.create)
		job := smallJobGraph("WordCount", 2)
		require.NoError(t, endpoint.dispatcher.SubmitJob(context.Background(), job))
		synctest.Wait() // the runner was granted leadership; the JobMaster is being built
		path := "/jobs/" + job.JobID.String()
		assert.Equal(t, "INITIALIZING", endpoint.jobState(path))

		cancelled := make(chan int, 1)
		go func() { cancelled <- endpoint.serve(http.MethodPatch, path).Code }()
		synctest.Wait()
		assert.Equal(t, "CANCELLING", endpoint.jobState(path), "cancelled, but no JobMaster yet to cancel it")
		assert.Equal(t, "CANCELLING", endpoint.jobState(path+"/status"))
		assert.Zero(t, jm.cancels(), "no JobMaster has been asked yet")

		close(jm.release) // the JobMaster is built, starts, and gets the cancel
		synctest.Wait()
		assert.Equal(t, http.StatusAccepted, <-cancelled, "the cancel is acknowledged once the JobMaster took it")
		assert.Equal(t, 1, jm.cancels())
		assert.Equal(t, "CANCELED", endpoint.jobState(path))
	})
}

// standInJobMaster is a JobMaster whose creation waits for release. Cancel
// takes its job CREATED → CANCELLING → CANCELED, as a JobMaster whose
// tasks are not deployed yet does, and reports the end to its runner.
type standInJobMaster struct {
	release chan struct{}

	mu         sync.Mutex
	state      api.JobStatus
	cancelled  int
	onComplete func(*gateway.ArchivedExecutionGraph)
	jobID      api.JobID
}

func newStandInJobMaster() *standInJobMaster {
	return &standInJobMaster{release: make(chan struct{}), state: api.JobCreated}
}

func (m *standInJobMaster) create(jobID api.JobID) jobmanager.JobMasterServiceFactory {
	return func(_ api.JobMasterID, onComplete func(*gateway.ArchivedExecutionGraph)) (jobmanager.JobMasterService, error) {
		<-m.release
		m.mu.Lock()
		defer m.mu.Unlock()
		m.jobID, m.onComplete = jobID, onComplete
		return m, nil
	}
}

func (m *standInJobMaster) Start() error    { return nil }
func (m *standInJobMaster) Address() string { return "local://jobmaster" }
func (m *standInJobMaster) Close() error    { return nil }

func (m *standInJobMaster) Gateway() gateway.JobMasterGateway {
	return &gatewaytest.JobMasterGateway{
		RequestJobStatusFunc: func(context.Context) (api.JobStatus, error) { return m.graph().State, nil },
		RequestJobFunc:       func(context.Context) (*gateway.ArchivedExecutionGraph, error) { return m.graph(), nil },
		CancelFunc: func(context.Context) error {
			// CREATED → CANCELLING → CANCELED: no task runs yet, so
			// there is none to wait for.
			m.mu.Lock()
			m.cancelled++
			m.state = api.JobCanceled
			onComplete := m.onComplete
			m.mu.Unlock()
			onComplete(m.graph())
			return nil
		},
	}
}

func (m *standInJobMaster) graph() *gateway.ArchivedExecutionGraph {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &gateway.ArchivedExecutionGraph{JobID: m.jobID, JobName: "WordCount", State: m.state}
}

func (m *standInJobMaster) cancels() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cancelled
}

// endpointOverARealDispatcher is a REST endpoint served in-process (no
// socket, so that synctest.Wait sees every goroutine come to rest) in
// front of a real Dispatcher, whose JobManagerRunners are real and create
// their JobMasters with the given factory.
type endpointOverARealDispatcher struct {
	t          *testing.T
	handler    http.Handler
	dispatcher *dispatcher.Dispatcher
}

func newEndpointOverARealDispatcher(t *testing.T, jobMasters func(api.JobID) jobmanager.JobMasterServiceFactory) *endpointOverARealDispatcher {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	ha := highavailability.NewEmbeddedHaServices()
	d, err := dispatcher.New(dispatcher.Config{Logger: quiet}, dispatcher.Deps{
		RPC:            rpc.NewLocalService(),
		JobGraphStore:  jobmanager.NewInMemoryJobGraphStore(),
		JobResultStore: ha.JobResultStore(),
		CreateJobManagerRunner: func(g *jobgraph.JobGraph) (jobmanager.JobManagerRunner, error) {
			return jobmanager.NewJobMasterServiceLeadershipRunner(jobmanager.RunnerConfig{
				JobGraph:         g,
				LeaderElection:   ha.JobManagerLeaderElection(g.JobID),
				JobResultStore:   ha.JobResultStore(),
				JobMasterFactory: jobMasters(g.JobID),
				Logger:           quiet,
			})
		},
	})
	require.NoError(t, err)
	require.NoError(t, d.Start())
	t.Cleanup(func() { _ = d.Close() })

	blobServer, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: filepath.Join(t.TempDir(), "blobs"), Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobServer.Close() })
	server, err := rest.NewServer(rest.Config{UploadDir: filepath.Join(t.TempDir(), "web"), Logger: quiet}, rest.Deps{
		Dispatcher: d, ResourceManager: &gatewaytest.ResourceManagerGateway{}, BlobServer: blobServer, Programs: &fakeProgramRunner{},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, server.Close(context.Background())) })
	return &endpointOverARealDispatcher{t: t, handler: server.Handler(), dispatcher: d}
}

func (e *endpointOverARealDispatcher) serve(method, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(context.Background(), method, path, nil)
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// jobState is the "state" (GET /jobs/{jobid}) or "status"
// (GET /jobs/{jobid}/status) of the answer.
func (e *endpointOverARealDispatcher) jobState(path string) string {
	e.t.Helper()
	rec := e.serve(http.MethodGet, path)
	require.Equal(e.t, http.StatusOK, rec.Code, "GET %s: %s", path, rec.Body)
	var answer struct {
		State  string `json:"state"`
		Status string `json:"status"`
	}
	require.NoError(e.t, json.Unmarshal(rec.Body.Bytes(), &answer), "GET %s: %s", path, rec.Body)
	return answer.State + answer.Status
}
