package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/rpc"
)

// serveJSON serves a request with a JSON body in-process.
func (e *endpointOverARealDispatcher) serveJSON(method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(context.Background(), method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// errorsOf decodes the messages of an ErrorResponseBody.
func errorsOf(t *testing.T, rec *httptest.ResponseRecorder) []string {
	t.Helper()
	var body struct{ Errors []string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return body.Errors
}

// requirementsOf writes the bounds of the source and the sink of
// smallJobGraph as a JobResourceRequirementsBody.
func requirementsOf(g *jobgraph.JobGraph, sourceLower, sourceUpper, sinkLower, sinkUpper int) string {
	return fmt.Sprintf(`{%q: {"parallelism": {"lowerBound": %d, "upperBound": %d}}, %q: {"parallelism": {"lowerBound": %d, "upperBound": %d}}}`,
		g.Vertices()[0].ID, sourceLower, sourceUpper, g.Vertices()[1].ID, sinkLower, sinkUpper)
}

// An update goes REST → Dispatcher → JobManagerRunner → JobMaster, each of
// them real but the JobMaster, which keeps what it is given, as a
// scheduler that can rescale does. The Dispatcher checks the requirements
// against the job's ExecutionGraph and answers with Flink's messages;
// while the JobMaster is being built, there is no one to hand them to.
func TestResourceRequirementsThroughARealDispatcher(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		job := smallJobGraph("WordCount", 2)
		job.Vertices()[1].MaxParallelism = 4
		jm := &rescalingJobMaster{job: job, release: make(chan struct{})}
		endpoint := newEndpointOverARealDispatcher(t, jm.create)
		require.NoError(t, endpoint.dispatcher.SubmitJob(context.Background(), job))
		synctest.Wait() // the JobMaster is being built
		path := "/jobs/" + job.JobID.String() + "/resource-requirements"

		rec := endpoint.serveJSON(http.MethodPut, path, requirementsOf(job, 1, 2, 1, 4))
		assert.Equal(t, http.StatusInternalServerError, rec.Code, "initializing: %s", rec.Body)
		assert.Contains(t, errorsOf(t, rec)[1], "UnavailableDispatcherOperationException: Unable to get JobMasterGateway for initializing job.")
		rec = endpoint.serve(http.MethodGet, path)
		assert.Equal(t, http.StatusInternalServerError, rec.Code, "initializing: %s", rec.Body)

		close(jm.release)
		synctest.Wait() // the JobMaster runs

		rec = endpoint.serveJSON(http.MethodPut, path, requirementsOf(job, 1, 2, 1, -1))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.JSONEq(t, `{}`, rec.Body.String())
		rec = endpoint.serve(http.MethodGet, path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.JSONEq(t, requirementsOf(job, 1, 2, 1, -1), rec.Body.String(), "the JobMaster got them")

		rec = endpoint.serveJSON(http.MethodPut, path, fmt.Sprintf(`{%q: {"parallelism": {"lowerBound": 3, "upperBound": 5}}}`, job.Vertices()[1].ID))
		assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
		assert.Equal(t, []string{fmt.Sprintf(
			"The newly requested parallelism 5 for the job vertex %s exceeds its maximum parallelism 4.\n"+
				"The request is incomplete, missing job vertex [%s] resource requirements.", job.Vertices()[1].ID, job.Vertices()[0].ID),
		}, errorsOf(t, rec))
		rec = endpoint.serve(http.MethodGet, path)
		assert.JSONEq(t, requirementsOf(job, 1, 2, 1, -1), rec.Body.String(), "refused requirements never reach the JobMaster")
	})
}

// rescalingJobMaster is a JobMaster whose creation waits for release, and
// that keeps the resource requirements it is given. Its ExecutionGraph
// has the vertices of the job, with their max parallelism.
type rescalingJobMaster struct {
	job     *jobgraph.JobGraph
	release chan struct{}

	mu           sync.Mutex
	requirements jobgraph.JobResourceRequirements
}

func (m *rescalingJobMaster) create(api.JobID) jobmanager.JobMasterServiceFactory {
	return func(api.JobMasterID, func(*gateway.ArchivedExecutionGraph)) (jobmanager.JobMasterService, error) {
		<-m.release
		return m, nil
	}
}

func (m *rescalingJobMaster) Start() error    { return nil }
func (m *rescalingJobMaster) Address() string { return "local://jobmaster" }
func (m *rescalingJobMaster) Close() error    { return nil }

func (m *rescalingJobMaster) Gateway() gateway.JobMasterGateway {
	return &gatewaytest.JobMasterGateway{
		RequestJobFunc: func(context.Context) (*gateway.ArchivedExecutionGraph, error) {
			return &gateway.ArchivedExecutionGraph{State: api.JobRunning, Vertices: []gateway.ArchivedExecutionJobVertex{
				{ID: m.job.Vertices()[0].ID, Parallelism: 2, MaxParallelism: 128},
				{ID: m.job.Vertices()[1].ID, Parallelism: 2, MaxParallelism: 4},
			}}, nil
		},
		RequestJobResourceRequirementsFunc: func(context.Context) (jobgraph.JobResourceRequirements, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			return m.requirements, nil
		},
		UpdateJobResourceRequirementsFunc: func(_ context.Context, r jobgraph.JobResourceRequirements) error {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.requirements = r
			return nil
		},
	}
}

// With the real JobMaster, whose scheduler is the DefaultScheduler, the
// job answers each vertex's parallelism as both bounds, and an update is
// refused as Flink's DefaultScheduler refuses it, unmapped: 500.
func TestTheDefaultSchedulerRefusesNewResourceRequirements(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		job := smallJobGraph("WordCount", 2)
		quiet := slog.New(slog.DiscardHandler)
		jobMasterRPC, jobMasterHA := rpc.NewLocalService(), highavailability.NewEmbeddedHaServices()
		endpoint := newEndpointOverARealDispatcher(t, func(api.JobID) jobmanager.JobMasterServiceFactory {
			return func(id api.JobMasterID, onComplete func(*gateway.ArchivedExecutionGraph)) (jobmanager.JobMasterService, error) {
				return jobmaster.New(jobmaster.Config{Logger: quiet}, jobmaster.Deps{RPC: jobMasterRPC, HA: jobMasterHA}, job, id, onComplete)
			}
		})
		require.NoError(t, endpoint.dispatcher.SubmitJob(context.Background(), job))
		synctest.Wait() // the JobMaster runs, and waits for a ResourceManager
		require.Equal(t, "RUNNING", endpoint.jobState("/jobs/"+job.JobID.String()))
		path := "/jobs/" + job.JobID.String() + "/resource-requirements"

		rec := endpoint.serve(http.MethodGet, path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.JSONEq(t, requirementsOf(job, 2, 2, 2, 2), rec.Body.String())

		rec = endpoint.serveJSON(http.MethodPut, path, requirementsOf(job, 1, 4, 1, 4))
		assert.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())
		assert.Equal(t, []string{"Internal server error.", serverSide(fmt.Sprintf(
			"update the resource requirements of job %s: UnsupportedOperationException: The DefaultScheduler does not support "+
				"changing the parallelism without a job restart. This feature is currently only expected to work with the AdaptiveScheduler.", job.JobID)),
		}, errorsOf(t, rec))

		rec = endpoint.serve(http.MethodGet, path)
		assert.JSONEq(t, requirementsOf(job, 2, 2, 2, 2), rec.Body.String(), "nothing changed")
	})
}
