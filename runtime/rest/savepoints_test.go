package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/rest"
)

// savepointEndpoint is a REST endpoint served in-process, so that it runs
// in a synctest bubble: a savepoint operation's goroutine waits for the
// fake Dispatcher, and synctest.Wait sees it come to rest.
type savepointEndpoint struct {
	t          *testing.T
	handler    http.Handler
	dispatcher *gatewaytest.DispatcherGateway
}

// newSavepointEndpoint serves d, whose jobs are job (any other is not
// found), with the savepoint answers the test gives d.
func newSavepointEndpoint(t *testing.T, d *gatewaytest.DispatcherGateway) *savepointEndpoint {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	blobServer, err := blob.NewBlobServer(blob.ServerConfig{StorageDir: filepath.Join(t.TempDir(), "blobs"), Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobServer.Close() })
	server, err := rest.NewServer(rest.Config{UploadDir: filepath.Join(t.TempDir(), "web"), Logger: quiet}, rest.Deps{
		Dispatcher: d, ResourceManager: &gatewaytest.ResourceManagerGateway{}, BlobServer: blobServer, Programs: &fakeProgramRunner{},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, server.Close(context.Background())) })
	return &savepointEndpoint{t: t, handler: server.Handler(), dispatcher: d}
}

func (e *savepointEndpoint) serve(method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(context.Background(), method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// trigger posts body to path and returns the trigger ID of the 202.
func (e *savepointEndpoint) trigger(path, body string) string {
	e.t.Helper()
	rec := e.serve(http.MethodPost, path, body)
	require.Equal(e.t, http.StatusAccepted, rec.Code, "POST %s: %s", path, rec.Body)
	var answer rest.TriggerResponse
	require.NoError(e.t, json.Unmarshal(rec.Body.Bytes(), &answer))
	require.Regexp(e.t, `^[0-9a-f]{32}$`, answer.RequestID)
	return string(answer.RequestID)
}

// status returns the body of GET path, which must answer 200.
func (e *savepointEndpoint) status(path string) string {
	e.t.Helper()
	rec := e.serve(http.MethodGet, path, "")
	require.Equal(e.t, http.StatusOK, rec.Code, "GET %s: %s", path, rec.Body)
	return rec.Body.String()
}

// savepointCall is one call of the fake Dispatcher's savepoints, which
// answers when the test sends on answer.
type savepointCall struct {
	jobID  api.JobID
	dir    string
	mode   gateway.TriggerSavepointMode
	answer chan error
}

// blockingSavepoints makes d's savepoints wait for the test's answer:
// each call goes to calls, and returns savepointPath, or the error sent
// (or the ctx's, when the endpoint closes).
func blockingSavepoints(d *gatewaytest.DispatcherGateway, savepointPath string) chan savepointCall {
	calls := make(chan savepointCall, 8)
	answer := func(ctx context.Context, jobID api.JobID, dir string, mode gateway.TriggerSavepointMode) (string, error) {
		call := savepointCall{jobID: jobID, dir: dir, mode: mode, answer: make(chan error, 1)}
		calls <- call
		select {
		case err := <-call.answer:
			if err != nil {
				return "", err
			}
			return savepointPath, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	d.TriggerSavepointAndGetLocationFunc = answer
	d.StopWithSavepointAndGetLocationFunc = answer
	return calls
}

// A savepoint is an asynchronous operation: the trigger answers 202 with
// a trigger ID at once, the status is IN_PROGRESS (operation null) while
// the Dispatcher works, then COMPLETED with the location; five minutes
// after it ended (rest.async.store-duration) the trigger ID is unknown.
func TestSavepointTriggerAndStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &gatewaytest.DispatcherGateway{}
		calls := blockingSavepoints(d, "/savepoints/savepoint-8d4f2a-0123456789ab")
		e := newSavepointEndpoint(t, d)
		jobID := api.NewJobID()
		job := "/jobs/" + jobID.String()

		triggerID := e.trigger(job+"/savepoints", `{"target-directory": "/savepoints"}`)
		synctest.Wait()
		call := <-calls
		assert.Equal(t, savepointCall{jobID: jobID, dir: "/savepoints", mode: gateway.ModeSavepoint, answer: call.answer}, call)
		assert.JSONEq(t, `{"status": {"id": "IN_PROGRESS"}, "operation": null}`, e.status(job+"/savepoints/"+triggerID))

		call.answer <- nil
		synctest.Wait()
		assert.JSONEq(t, `{"status": {"id": "COMPLETED"},
			"operation": {"location": "/savepoints/savepoint-8d4f2a-0123456789ab", "failure-cause": null}}`,
			e.status(job+"/savepoints/"+triggerID))

		time.Sleep(rest.DefaultAsyncOperationStoreDuration + time.Second)
		rec := e.serve(http.MethodGet, job+"/savepoints/"+triggerID, "")
		assert.Equal(t, http.StatusNotFound, rec.Code)
		assert.JSONEq(t, fmt.Sprintf(`{"errors": ["There is no savepoint operation with triggerId=%s for job %s."]}`, triggerID, jobID),
			rec.Body.String())
	})
}

// Each request asks the Dispatcher for Flink's TriggerSavepointMode: a
// savepoint, a cancel with savepoint, a stop (suspend), a stop with
// drain (terminate); an empty body takes state.savepoints.dir. Stops are
// polled at the savepoint status URL, as in Flink.
func TestSavepointModes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &gatewaytest.DispatcherGateway{}
		calls := blockingSavepoints(d, "/savepoints/savepoint-8d4f2a-0123456789ab")
		e := newSavepointEndpoint(t, d)
		job := "/jobs/" + api.NewJobID().String()

		tests := []struct {
			path, body string
			wantDir    string
			wantMode   gateway.TriggerSavepointMode
		}{
			{"/savepoints", ``, "", gateway.ModeSavepoint},
			{"/savepoints", `{"cancel-job": true, "formatType": "CANONICAL"}`, "", gateway.ModeCancelWithSavepoint},
			{"/stop", `{"targetDirectory": "/savepoints"}`, "/savepoints", gateway.ModeSuspendWithSavepoint},
			{"/stop", `{"drain": true, "formatType": "NATIVE"}`, "", gateway.ModeTerminateWithSavepoint},
		}
		for _, tt := range tests {
			triggerID := e.trigger(job+tt.path, tt.body)
			synctest.Wait()
			call := <-calls
			assert.Equal(t, tt.wantDir, call.dir, "%s %s", tt.path, tt.body)
			assert.Equal(t, tt.wantMode, call.mode, "%s %s", tt.path, tt.body)
			call.answer <- nil
			synctest.Wait()
			assert.Contains(t, e.status(job+"/savepoints/"+triggerID), `"COMPLETED"`)
		}
	})
}

// A request that names its triggerId is idempotent: sent twice, it starts
// one savepoint, and both answers name the same operation.
func TestSavepointTriggerIDIsIdempotent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &gatewaytest.DispatcherGateway{}
		calls := blockingSavepoints(d, "/savepoints/savepoint-8d4f2a-0123456789ab")
		e := newSavepointEndpoint(t, d)
		job := "/jobs/" + api.NewJobID().String()
		body := `{"target-directory": "/savepoints", "triggerId": "00112233445566778899aabbccddeeff"}`

		assert.Equal(t, "00112233445566778899aabbccddeeff", e.trigger(job+"/savepoints", body))
		assert.Equal(t, "00112233445566778899aabbccddeeff", e.trigger(job+"/savepoints", body))
		synctest.Wait()
		(<-calls).answer <- nil
		synctest.Wait()
		assert.Empty(t, calls, "one savepoint")
	})
}

// Every failure of the savepoint itself is the operation's: the trigger
// answers 202, and the status COMPLETED with Flink's failure-cause.
func TestSavepointFailuresAreTheOperations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		unknown := api.NewJobID()
		d := &gatewaytest.DispatcherGateway{}
		calls := blockingSavepoints(d, "")
		e := newSavepointEndpoint(t, d)

		tests := []struct {
			name      string
			err       error
			wantClass string
			wantTrace string
		}{
			{"unknown job", fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, unknown),
				"org.apache.flink.runtime.messages.FlinkJobNotFoundException",
				"FlinkJobNotFoundException: Could not find Flink job (" + unknown.String() + ")"},
			{"no savepoint directory", checkpoint.ErrNoSavepointDirectory, "java.lang.IllegalStateException",
				"IllegalStateException: No savepoint directory configured. You can either specify a directory while " +
					"cancelling via -s :targetDirectory or configure a cluster-wide default via key 'execution.checkpointing.savepoint-dir'."},
			{"not checkpointed", gateway.ErrCheckpointingDisabled, "java.lang.IllegalStateException",
				"IllegalStateException: Checkpointing has not been enabled."},
			{"the savepoint expired", checkpoint.NewCheckpointException(checkpoint.CheckpointExpired, nil),
				"org.apache.flink.runtime.checkpoint.CheckpointException", "CheckpointException: Checkpoint expired before completing."},
			{"the job is not executing", gateway.ErrJobNotExecuting, "error", "The Flink job is currently not executing."},
		}
		for _, tt := range tests { // no t.Run in a bubble
			job := "/jobs/" + unknown.String()
			triggerID := e.trigger(job+"/stop", `{}`)
			synctest.Wait()
			(<-calls).answer <- tt.err
			synctest.Wait()
			var got rest.AsynchronousOperationResult
			require.NoError(t, json.Unmarshal([]byte(e.status(job+"/savepoints/"+triggerID)), &got), tt.name)
			assert.Equal(t, rest.QueueStatusCompleted, got.Status.ID, tt.name)
			require.NotNil(t, got.Operation, tt.name)
			assert.Nil(t, got.Operation.Location, tt.name)
			assert.Equal(t, &rest.SerializedThrowable{Class: tt.wantClass, StackTrace: tt.wantTrace}, got.Operation.FailureCause, tt.name)
		}
	})
}

// A request the endpoint cannot read is refused at once, and starts
// nothing; a trigger ID it never issued for the job is unknown.
func TestSavepointRequestErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &gatewaytest.DispatcherGateway{}
		calls := blockingSavepoints(d, "/savepoints/savepoint-8d4f2a-0123456789ab")
		e := newSavepointEndpoint(t, d)
		jobID, other := api.NewJobID(), api.NewJobID()
		job := "/jobs/" + jobID.String()
		triggerID := e.trigger(job+"/savepoints", `{}`)
		synctest.Wait()
		call := <-calls

		tests := []struct {
			name, method, path, body string
			wantStatus               int
			wantErrors               []string
		}{
			{"unknown field", "POST", job + "/savepoints", `{"targetDirectory": "/x"}`, 400,
				[]string{"Request did not match expected format SavepointTriggerRequestBody.", `json: unknown field "targetDirectory"`}},
			{"unknown format", "POST", job + "/stop", `{"formatType": "PARQUET"}`, 400,
				[]string{"Request did not match expected format StopWithSavepointRequestBody.",
					`formatType "PARQUET" is not one of the values accepted: [CANONICAL, NATIVE]`}},
			{"malformed triggerId", "POST", job + "/savepoints", `{"triggerId": "xyz"}`, 400,
				[]string{"Request did not match expected format SavepointTriggerRequestBody.", `triggerId "xyz" is not 32 hex digits`}},
			{"malformed job ID", "POST", "/jobs/nope/stop", `{}`, 400, nil},
			{"malformed trigger ID", "GET", job + "/savepoints/xyz", "", 400,
				[]string{`Bad request, could not parse parameters: Cannot resolve path parameter (triggerid) from value "xyz".`}},
			{"unknown trigger ID", "GET", job + "/savepoints/00112233445566778899aabbccddeeff", "", 404,
				[]string{"There is no savepoint operation with triggerId=00112233445566778899aabbccddeeff for job " + jobID.String() + "."}},
			{"another job's trigger ID", "GET", "/jobs/" + other.String() + "/savepoints/" + triggerID, "", 404,
				[]string{"There is no savepoint operation with triggerId=" + triggerID + " for job " + other.String() + "."}},
		}
		for _, tt := range tests { // no t.Run in a bubble
			rec := e.serve(tt.method, tt.path, tt.body)
			assert.Equal(t, tt.wantStatus, rec.Code, "%s: %s", tt.name, rec.Body)
			if tt.wantErrors != nil {
				var body rest.ErrorResponseBody
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), tt.name)
				assert.Equal(t, tt.wantErrors, body.Errors, tt.name)
			}
		}
		synctest.Wait()
		assert.Empty(t, calls, "no refused request started a savepoint")
		call.answer <- nil
	})
}

// Closing the endpoint ends the calls of the operations still running,
// and waits for them.
func TestClosingTheEndpointEndsItsSavepointOperations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &gatewaytest.DispatcherGateway{}
		calls := blockingSavepoints(d, "")
		e := newSavepointEndpoint(t, d)
		e.trigger("/jobs/"+api.NewJobID().String()+"/savepoints", `{}`)
		synctest.Wait()
		<-calls // never answered: Close (in the cleanup) ends it
	})
}
