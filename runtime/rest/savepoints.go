package rest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
)

// DefaultAsyncOperationStoreDuration is Flink's rest.async.store-duration:
// how long the result of a savepoint operation may be asked for after the
// operation ended, 5 minutes. Then its trigger ID is unknown.
const DefaultAsyncOperationStoreDuration = 5 * time.Minute

// ---------------------------------------------------------------------------
// POST /jobs/{jobid}/savepoints, POST /jobs/{jobid}/stop and
// GET /jobs/{jobid}/savepoints/{triggerid} — Flink's SavepointHandlers
// ---------------------------------------------------------------------------

// A savepoint takes as long as its slowest task, so Flink's REST API makes
// it an asynchronous operation in two steps: a POST triggers it and
// answers 202 with a trigger ID at once; the client then polls
// GET /jobs/{jobid}/savepoints/{triggerid} until the status is COMPLETED,
// and reads the savepoint's location or why it failed:
//
//	POST /jobs/<id>/savepoints {"target-directory": "/savepoints"}   ◀── 202 {"request-id": "<trigger id>"}
//	GET  /jobs/<id>/savepoints/<trigger id>   ◀── {"status": {"id": "IN_PROGRESS"}, "operation": null}
//	GET  /jobs/<id>/savepoints/<trigger id>   ◀── {"status": {"id": "COMPLETED"},
//	                                                "operation": {"location": "/savepoints/savepoint-8d4f2a-…", "failure-cause": null}}
//
// POST /jobs/{jobid}/stop ({"targetDirectory": …, "drain": false}) is
// polled at the same status URL. Every failure, an unknown job's
// included, comes back in the status, as a failure-cause: the trigger
// itself only fails for a request that is malformed.

// handleSavepointTrigger starts a savepoint operation (Flink's
// SavepointTriggerHandler): a savepoint, or with "cancel-job" a cancel
// with savepoint, which the Dispatcher runs on the job's JobMaster.
func (s *Server) handleSavepointTrigger(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	const bodyType = "SavepointTriggerRequestBody"
	var body SavepointTriggerRequestBody
	if err := decodeJSONBody(r, &body, bodyType); err != nil {
		return nil, err
	}
	key, err := savepointOperationKeyOf(body.TriggerID, body.FormatType, jobID, bodyType)
	if err != nil {
		return nil, err
	}
	mode := gateway.ModeSavepoint
	if body.CancelJob {
		mode = gateway.ModeCancelWithSavepoint
	}
	targetDirectory := stringOrEmpty(body.TargetDirectory)
	s.savepoints.register(key, func(ctx context.Context) (string, error) {
		return s.deps.Dispatcher.TriggerSavepointAndGetLocation(ctx, jobID, targetDirectory, mode)
	})
	return accepted{TriggerResponse{RequestID: key.triggerID}}, nil
}

// handleStopWithSavepoint starts a stop-with-savepoint operation (Flink's
// StopWithSavepointHandler): "drain" asks for TERMINATE_WITH_SAVEPOINT,
// else SUSPEND_WITH_SAVEPOINT.
func (s *Server) handleStopWithSavepoint(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	const bodyType = "StopWithSavepointRequestBody"
	var body StopWithSavepointRequestBody
	if err := decodeJSONBody(r, &body, bodyType); err != nil {
		return nil, err
	}
	key, err := savepointOperationKeyOf(body.TriggerID, body.FormatType, jobID, bodyType)
	if err != nil {
		return nil, err
	}
	mode := gateway.ModeSuspendWithSavepoint
	if body.Drain {
		mode = gateway.ModeTerminateWithSavepoint
	}
	targetDirectory := stringOrEmpty(body.TargetDirectory)
	s.savepoints.register(key, func(ctx context.Context) (string, error) {
		return s.deps.Dispatcher.StopWithSavepointAndGetLocation(ctx, jobID, targetDirectory, mode)
	})
	return accepted{TriggerResponse{RequestID: key.triggerID}}, nil
}

// handleSavepointStatus answers how a savepoint operation stands (Flink's
// SavepointStatusHandler). A trigger ID this endpoint never issued for
// the job, or whose result has expired, is Flink's 404 "There is no
// savepoint operation with triggerId=<id> for job <id>.".
func (s *Server) handleSavepointStatus(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	raw := r.PathValue("triggerid")
	if !triggerIDPattern.MatchString(raw) {
		return nil, badRequest(fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve path parameter (triggerid) from value %q.", raw))
	}
	key := savepointOperationKey{triggerID: TriggerID(raw), jobID: jobID}
	op, ok := s.savepoints.get(key)
	switch {
	case !ok:
		return nil, notFound(fmt.Sprintf("There is no savepoint operation with triggerId=%s for job %s.", raw, jobID))
	case !op.done:
		return AsynchronousOperationResult{Status: QueueStatus{ID: QueueStatusInProgress}}, nil
	case op.err != nil:
		return AsynchronousOperationResult{Status: QueueStatus{ID: QueueStatusCompleted},
			Operation: &SavepointInfo{FailureCause: savepointFailureCause(op.err)}}, nil
	default:
		location := op.location
		return AsynchronousOperationResult{Status: QueueStatus{ID: QueueStatusCompleted},
			Operation: &SavepointInfo{Location: &location}}, nil
	}
}

// triggerIDPattern is the form of a TriggerId (the spec's "[0-9a-f]{32}").
var triggerIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// savepointOperationKeyOf checks the request's triggerId and formatType,
// and returns the operation's key: the request's trigger ID, or a new
// random one (Flink: createOperationKey, new TriggerId()).
func savepointOperationKeyOf(triggerID, formatType *string, jobID api.JobID, bodyType string) (savepointOperationKey, error) {
	notTheFormat := fmt.Sprintf("Request did not match expected format %s.", bodyType)
	if formatType != nil && *formatType != "CANONICAL" && *formatType != "NATIVE" {
		return savepointOperationKey{}, badRequest(notTheFormat,
			fmt.Sprintf("formatType %q is not one of the values accepted: [CANONICAL, NATIVE]", *formatType))
	}
	if triggerID != nil {
		if !triggerIDPattern.MatchString(*triggerID) {
			return savepointOperationKey{}, badRequest(notTheFormat, fmt.Sprintf("triggerId %q is not 32 hex digits", *triggerID))
		}
		return savepointOperationKey{triggerID: TriggerID(*triggerID), jobID: jobID}, nil
	}
	var random [16]byte
	_, _ = rand.Read(random[:])
	return savepointOperationKey{triggerID: TriggerID(hex.EncodeToString(random[:])), jobID: jobID}, nil
}

// savepointFailureCause writes why a savepoint operation failed as Flink's
// SerializedThrowable: the exception's class and the error's text. A
// checkpoint's failure reads as Flink's CheckpointException, a refusal as
// its IllegalStateException, when the text does not name its exception
// itself.
func savepointFailureCause(err error) *SerializedThrowable {
	text := err.Error()
	if exceptionName(text) == goErrorName {
		switch {
		case errors.Is(err, checkpoint.ErrCheckpoint):
			text = "CheckpointException: " + text
		case errors.Is(err, checkpoint.ErrNoSavepointDirectory), errors.Is(err, gateway.ErrCheckpointingDisabled):
			text = "IllegalStateException: " + text
		}
	}
	return &SerializedThrowable{Class: exceptionName(text), StackTrace: text}
}

func stringOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// savepointOperations are the savepoint operations this endpoint runs and
// ran (Flink's CompletedOperationCache): each runs on a goroutine of its
// own, which waits for the Dispatcher's answer; its result is kept for
// rest.async.store-duration after it ended. Safe for concurrent use.
type savepointOperations struct {
	storeDuration time.Duration
	now           func() time.Time
	ctx           context.Context // the operations' calls end with it
	cancel        context.CancelFunc
	running       sync.WaitGroup

	mu     sync.Mutex
	closed bool
	ops    map[savepointOperationKey]*savepointOperation
}

// savepointOperation is one operation: running, or done with its
// savepoint's location or its failure.
type savepointOperation struct {
	done     bool
	location string
	err      error
	ended    time.Time
}

func newSavepointOperations(storeDuration time.Duration, now func() time.Time) *savepointOperations {
	ctx, cancel := context.WithCancel(context.Background())
	return &savepointOperations{storeDuration: storeDuration, now: now, ctx: ctx, cancel: cancel,
		ops: make(map[savepointOperationKey]*savepointOperation)}
}

// register starts the operation key with run, unless it is known already
// (Flink: registerOperationIdempotently): a client that sends the same
// triggerId twice starts one savepoint.
func (o *savepointOperations) register(key savepointOperationKey, run func(ctx context.Context) (string, error)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.expireLocked()
	if _, known := o.ops[key]; known || o.closed {
		return
	}
	op := &savepointOperation{}
	o.ops[key] = op
	o.running.Go(func() {
		location, err := run(o.ctx)
		o.mu.Lock()
		defer o.mu.Unlock()
		op.done, op.location, op.err, op.ended = true, location, err, o.now()
	})
}

// get returns a copy of the operation key, if it is known.
func (o *savepointOperations) get(key savepointOperationKey) (savepointOperation, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.expireLocked()
	op, ok := o.ops[key]
	if !ok {
		return savepointOperation{}, false
	}
	return *op, true
}

// expireLocked forgets the results kept longer than the store duration.
func (o *savepointOperations) expireLocked() {
	now := o.now()
	for key, op := range o.ops {
		if op.done && now.Sub(op.ended) > o.storeDuration {
			delete(o.ops, key)
		}
	}
}

// close ends the operations' calls and waits for their goroutines: the
// endpoint is shutting down. An operation that ends so fails with the
// context's error.
func (o *savepointOperations) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.cancel()
	o.running.Wait()
}
