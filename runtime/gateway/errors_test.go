package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	_ "flinklab/runtime/gateway/remote"
	"flinklab/runtime/rpc"
)

// Every error registered for the wire (errors.go) reaches a caller in
// another process so that errors.Is, or errors.As for the typed one,
// still finds it, with the original text, and is not taken for any
// other. The answer crosses a real loopback connection between two
// rpc.TCPServices.
func TestEveryCrossProcessErrorReachesTheCaller(t *testing.T) {
	registered := gateway.CrossProcessErrors()
	require.NotEmpty(t, registered)
	jobID := api.NewJobID()

	var answer error // what the fake Dispatcher answers with; set before each call
	g := dispatcherOverTCP(t, &gatewaytest.DispatcherGateway{
		CancelJobFunc: func(context.Context, api.JobID) error { return answer },
	})
	cancel := func() error {
		ctx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		return g.CancelJob(ctx, jobID)
	}

	for _, e := range registered {
		t.Run(e.Code, func(t *testing.T) {
			answer = fmt.Errorf("%w: for job %s", e.Err, jobID)
			err := cancel()
			assert.EqualError(t, err, answer.Error())
			assert.ErrorIs(t, err, e.Err)
			for _, other := range registered {
				if other.Err != e.Err {
					assert.NotErrorIs(t, err, other.Err)
				}
			}
		})
	}

	t.Run("gateway.TimeoutException", func(t *testing.T) {
		sent := &gateway.TimeoutException{Message: "Heartbeat of TaskManager with id taskexecutor-3f2a9c timed out."}
		answer = fmt.Errorf("closing: %w", sent)
		err := cancel()
		var timeout *gateway.TimeoutException
		require.ErrorAs(t, err, &timeout)
		assert.Equal(t, sent, timeout)
		assert.EqualError(t, err, "closing: "+sent.Message)
	})

	t.Run("gateway.JobTerminatedWithoutCancellationException", func(t *testing.T) {
		sent := &gateway.JobTerminatedWithoutCancellationException{JobID: jobID, JobStatus: api.JobFinished}
		answer = sent
		err := cancel()
		var terminated *gateway.JobTerminatedWithoutCancellationException
		require.ErrorAs(t, err, &terminated)
		assert.Equal(t, sent, terminated, "the job's status crosses with it: the REST endpoint answers with it")
		assert.EqualError(t, err, "Flink job ("+jobID.String()+") was not canceled, but instead FINISHED.")
	})

	t.Run("gateway.InvalidJobResourceRequirementsError", func(t *testing.T) {
		sent := &gateway.InvalidJobResourceRequirementsError{JobID: jobID, Errors: []string{
			"Job vertex [ea632d67b7d595e5b851708ae9ad79d6] was not found in the JobGraph.",
			"The request is incomplete, missing job vertex [bc764cd8ddf7a0cff126f51c16239658] resource requirements.",
		}}
		answer = fmt.Errorf("update the resource requirements of job %s: %w", jobID, sent)
		err := cancel()
		var invalid *gateway.InvalidJobResourceRequirementsError
		require.ErrorAs(t, err, &invalid)
		assert.Equal(t, sent, invalid, "every error crosses: the REST endpoint answers with them")
		assert.EqualError(t, invalid, sent.Errors[0]+"\n"+sent.Errors[1], "one per line, as Flink's message")
	})

	t.Run("an unregistered error keeps its text only", func(t *testing.T) {
		// The Dispatcher's JobSubmissionException does not cross: the REST
		// endpoint that maps it runs in the Dispatcher's process.
		answer = errors.New("DuplicateJobSubmissionException: Job has already been submitted.")
		err := cancel()
		assert.EqualError(t, err, answer.Error())
		for _, other := range registered {
			assert.NotErrorIs(t, err, other.Err)
		}
	})
}

// dispatcherOverTCP serves dispatcher on one TCPService and returns the
// stub a second TCPService connects to it.
func dispatcherOverTCP(t *testing.T, dispatcher gateway.DispatcherGateway) gateway.DispatcherGateway {
	t.Helper()
	server, client := newTCPService(t), newTCPService(t)
	address := server.Address("dispatcher_0")
	require.NoError(t, server.Register(address, dispatcher))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g, err := rpc.Connect[gateway.DispatcherGateway](ctx, client, address)
	require.NoError(t, err)
	return g
}

func newTCPService(t *testing.T) *rpc.TCPService {
	t.Helper()
	s, err := rpc.NewTCPService(rpc.TCPConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
