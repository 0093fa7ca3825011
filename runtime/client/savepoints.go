package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"flinklab/runtime/api"
)

// TriggerSavepoint takes a savepoint of a running job and returns its
// path once it completed, as Flink's RestClusterClient#triggerSavepoint
// does: POST /jobs/{jobid}/savepoints with the target directory ("": the
// cluster's state.savepoints.dir), then GET
// /jobs/{jobid}/savepoints/{triggerid} until the operation is COMPLETED.
// A savepoint that failed comes back as a *SavepointFailure.
func (c *RestClusterClient) TriggerSavepoint(ctx context.Context, jobID api.JobID, savepointDirectory string) (string, error) {
	body := map[string]any{"cancel-job": false}
	if savepointDirectory != "" {
		body["target-directory"] = savepointDirectory
	}
	return c.savepointOperation(ctx, jobID, "/savepoints", body)
}

// StopWithSavepoint stops a running job with a savepoint and returns its
// path once the job has stopped, as Flink's
// RestClusterClient#stopWithSavepoint does: POST /jobs/{jobid}/stop, then
// the same polling as TriggerSavepoint. advanceToEndOfTime drains the job
// first (flink stop --drain).
func (c *RestClusterClient) StopWithSavepoint(ctx context.Context, jobID api.JobID, advanceToEndOfTime bool,
	savepointDirectory string) (string, error) {
	body := map[string]any{"drain": advanceToEndOfTime}
	if savepointDirectory != "" {
		body["targetDirectory"] = savepointDirectory
	}
	return c.savepointOperation(ctx, jobID, "/stop", body)
}

// SavepointFailure is a savepoint operation that failed: the failure-cause
// of its status, the exception's class and its text (Flink's
// SerializedThrowable, which Flink's client throws again).
type SavepointFailure struct {
	Class      string `json:"class"`
	StackTrace string `json:"stack-trace"`
}

func (e *SavepointFailure) Error() string { return e.StackTrace }

// savepointOperation triggers the operation at /jobs/{jobid}<trigger> and
// polls its status until it ended.
func (c *RestClusterClient) savepointOperation(ctx context.Context, jobID api.JobID, trigger string, body map[string]any) (string, error) {
	job := "/jobs/" + url.PathEscape(jobID.String())
	payload, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	var triggered struct {
		RequestID string `json:"request-id"`
	}
	if err := c.do(ctx, http.MethodPost, job+trigger, "application/json", bytes.NewReader(payload), &triggered); err != nil {
		return "", err
	}
	status := job + "/savepoints/" + url.PathEscape(triggered.RequestID)
	for wait := initialPollWait; ; wait = min(2*wait, maxPollWait) {
		var answer struct {
			Status struct {
				ID string `json:"id"`
			} `json:"status"`
			Operation *struct {
				Location     *string           `json:"location"`
				FailureCause *SavepointFailure `json:"failure-cause"`
			} `json:"operation"`
		}
		if err := c.do(ctx, http.MethodGet, status, "", nil, &answer); err != nil {
			return "", err
		}
		if answer.Status.ID == "COMPLETED" {
			switch {
			case answer.Operation == nil:
				return "", errors.New("the savepoint operation completed without a result")
			case answer.Operation.FailureCause != nil:
				return "", answer.Operation.FailureCause
			case answer.Operation.Location == nil:
				return "", errors.New("the savepoint operation completed without a location")
			}
			return *answer.Operation.Location, nil
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return "", fmt.Errorf("stopped waiting for the savepoint of job %s: %w", jobID, ctx.Err())
		case <-timer.C:
		}
	}
}

// The waits between two polls of an asynchronous operation: 10 ms first,
// twice as long each time, at most 2 s (Flink's ExponentialWaitStrategy(10,
// 2000) of RestClusterClient#pollResourceAsync).
const (
	initialPollWait = 10 * time.Millisecond
	maxPollWait     = 2 * time.Second
)
