package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// inProcess is a RoundTripper that serves each request with a handler in
// this goroutine: no socket, so that a test's fake clock runs.
type inProcess struct{ http.Handler }

func (p inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// savepointServer answers a savepoint operation as Flink's REST API does:
// the trigger with a trigger ID, the status IN_PROGRESS for the first
// inProgress polls, then COMPLETED with result. It records the trigger's
// path and body, and when each poll came.
type savepointServer struct {
	inProgress int
	result     string
	trigger    string
	body       map[string]any
	polls      []time.Time
}

func (s *savepointServer) client(t *testing.T) *RestClusterClient {
	mux := http.NewServeMux()
	trigger := func(w http.ResponseWriter, r *http.Request) {
		s.trigger = r.URL.Path
		require.NoError(t, json.NewDecoder(r.Body).Decode(&s.body))
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"request-id": "00112233445566778899aabbccddeeff"}`)
	}
	mux.HandleFunc("POST /jobs/{jobid}/savepoints", trigger)
	mux.HandleFunc("POST /jobs/{jobid}/stop", trigger)
	mux.HandleFunc("GET /jobs/{jobid}/savepoints/00112233445566778899aabbccddeeff", func(w http.ResponseWriter, r *http.Request) {
		s.polls = append(s.polls, time.Now())
		if len(s.polls) <= s.inProgress {
			_, _ = io.WriteString(w, `{"status": {"id": "IN_PROGRESS"}, "operation": null}`)
			return
		}
		_, _ = io.WriteString(w, `{"status": {"id": "COMPLETED"}, "operation": `+s.result+`}`)
	})
	c := NewRestClusterClient("jobmanager:8081")
	c.http = &http.Client{Transport: inProcess{mux}}
	return c
}

// TriggerSavepoint posts the savepoint and polls its status as Flink's
// RestClusterClient does: 10 ms, then twice as long each time, until it
// is COMPLETED; the answer is the savepoint's location.
func TestTriggerSavepointPollsUntilTheSavepointCompleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &savepointServer{inProgress: 3, result: `{"location": "/savepoints/savepoint-8d4f2a-0123456789ab", "failure-cause": null}`}
		jobID := api.NewJobID()
		start := time.Now()

		path, err := s.client(t).TriggerSavepoint(context.Background(), jobID, "/savepoints")

		require.NoError(t, err)
		assert.Equal(t, "/savepoints/savepoint-8d4f2a-0123456789ab", path)
		assert.Equal(t, "/jobs/"+jobID.String()+"/savepoints", s.trigger)
		assert.Equal(t, map[string]any{"target-directory": "/savepoints", "cancel-job": false}, s.body)
		var waits []time.Duration
		for _, poll := range s.polls {
			waits = append(waits, poll.Sub(start))
		}
		assert.Equal(t, []time.Duration{0, 10 * time.Millisecond, 30 * time.Millisecond, 70 * time.Millisecond}, waits)
	})
}

// StopWithSavepoint posts to /stop, without a directory when none is
// given (the cluster's state.savepoints.dir), and with drain; a failed
// savepoint comes back as its failure-cause.
func TestStopWithSavepointReportsAFailedSavepoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &savepointServer{result: `{"location": null, "failure-cause": {"class": "java.lang.IllegalStateException",
			"stack-trace": "IllegalStateException: No savepoint directory configured."}}`}
		jobID := api.NewJobID()

		_, err := s.client(t).StopWithSavepoint(context.Background(), jobID, true, "")

		var failure *SavepointFailure
		require.ErrorAs(t, err, &failure)
		assert.Equal(t, &SavepointFailure{Class: "java.lang.IllegalStateException",
			StackTrace: "IllegalStateException: No savepoint directory configured."}, failure)
		assert.Equal(t, "/jobs/"+jobID.String()+"/stop", s.trigger)
		assert.Equal(t, map[string]any{"drain": true}, s.body)
	})
}

// A savepoint the client stops waiting for (Ctrl-C) ends with ctx's error.
func TestTriggerSavepointStopsWaitingWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &savepointServer{inProgress: 1 << 30}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := s.client(t).TriggerSavepoint(ctx, api.NewJobID(), "")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, map[string]any{"cancel-job": false}, s.body)
	})
}
