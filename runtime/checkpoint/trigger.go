package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"flinklab/runtime/fault"
	"flinklab/runtime/state"
	"flinklab/runtime/trace"
)

// ErrNoSavepointDirectory is the failure of a savepoint requested without
// a directory when state.savepoints.dir is not set either (Flink's
// message, from the scheduler's triggerSavepoint).
var ErrNoSavepointDirectory = errors.New("No savepoint directory configured. You can either specify a directory " +
	"while cancelling via -s :targetDirectory or configure a cluster-wide default via key '" + KeySavepointDir + "'.")

// TriggerCheckpoint triggers a checkpoint or savepoint now, outside the
// periodic schedule (Flink: triggerCheckpoint(false), triggerSavepoint and
// triggerSynchronousSavepoint). A savepoint goes to targetDir, or
// Config.SavepointDir when targetDir is empty.
//
// done is called once, on the coordinator's goroutine, with the completed
// snapshot or why there is none (a *CheckpointException, or
// ErrNoSavepointDirectory), maybe before TriggerCheckpoint returns. It
// runs in the middle of the coordinator's work: it must not call the
// coordinator, but schedule what follows on the main thread.
//
// A checkpoint waits while MaxConcurrent checkpoints are pending; a
// savepoint does not wait (it is forced). A SavepointSuspend savepoint is
// stop-with-savepoint's: the caller stops the periodic checkpoints first
// (StopCheckpointScheduler), as Flink's scheduler does.
func (c *CheckpointCoordinator) TriggerCheckpoint(checkpointType CheckpointType, targetDir string,
	done func(*CompletedCheckpoint, error)) {
	if done == nil {
		done = func(*CompletedCheckpoint, error) {}
	}
	request := &checkpointTriggerRequest{props: c.checkpointProperties, onCompletion: done}
	switch checkpointType {
	case Savepoint, SavepointSuspend:
		request.props = PropertiesForSavepoint()
		if checkpointType == SavepointSuspend {
			request.props = PropertiesForSyncSavepoint()
		}
		request.externalSavepointLocation = targetDir
		if targetDir == "" {
			request.externalSavepointLocation = c.config.SavepointDir
		}
		if request.externalSavepointLocation == "" {
			done(nil, ErrNoSavepointDirectory)
			return
		}
	case Checkpoint:
	default:
		done(nil, fmt.Errorf("unknown checkpointType: %s", checkpointType))
		return
	}
	c.triggerCheckpoint(request)
}

// triggerCheckpoint hands a request to the decider and starts the one it
// picks.
func (c *CheckpointCoordinator) triggerCheckpoint(request *checkpointTriggerRequest) {
	c.requests++
	request.timestamp, request.seq = c.now(), c.requests
	if chosen := c.requestDecider.chooseRequestToExecute(request, c.isTriggering, c.lastCheckpointCompletion); chosen != nil {
		c.startTriggeringCheckpoint(chosen)
	}
}

// executeQueuedRequest starts a waiting request, if one may run now.
func (c *CheckpointCoordinator) executeQueuedRequest() {
	if chosen := c.requestDecider.chooseQueuedRequestToExecute(c.isTriggering, c.lastCheckpointCompletion); chosen != nil {
		c.startTriggeringCheckpoint(chosen)
	}
}

// scheduleTriggerRequest looks at the waiting requests again soon, once
// the current message is handled (Flink: checkpointTimer.execute).
func (c *CheckpointCoordinator) scheduleTriggerRequest() {
	if c.shutdown {
		c.log.Debug("Skip scheduling trigger request because the CheckpointCoordinator is shut down")
		return
	}
	c.schedule(c.executeQueuedRequest, 0)
}

// startTriggeringCheckpoint triggers the checkpoint of a request: the
// plan, an ID, the PendingCheckpoint with its timeout, the directory, and
// the RPCs to the sources.
func (c *CheckpointCoordinator) startTriggeringCheckpoint(request *checkpointTriggerRequest) {
	if err := c.preCheckGlobalState(request.isPeriodic); err != nil {
		c.onTriggerFailure(request, nil, err)
		return
	}
	c.isTriggering = true
	timestamp := c.nowMillis()

	plan, err := c.calculateCheckpointPlan()
	if err != nil {
		c.onTriggerFailure(request, nil, err)
		return
	}
	checkpointID, err := c.checkpointIDCounter.GetAndIncrement()
	if err != nil {
		c.onTriggerFailure(request, nil, err)
		return
	}
	pending := c.createPendingCheckpoint(timestamp, request, plan, checkpointID)

	location, err := c.initializeCheckpointLocation(checkpointID, request)
	if err != nil {
		c.onTriggerFailure(request, pending, NewCheckpointException(IOException, err))
		return
	}
	pending.targetLocation = location
	c.triggerTasks(pending, location)

	// A plan with no task to wait for completes at once.
	if pending.IsFullyAcknowledged() {
		if err := c.completePendingCheckpoint(pending); err != nil {
			c.log.Warn(fmt.Sprintf("Could not complete checkpoint %d for job %s.", checkpointID, c.job), "cause", err.Error())
		}
	}
	c.onTriggerSuccess()
}

// preCheckGlobalState refuses to trigger once the coordinator is shut down,
// and a periodic checkpoint once the scheduler is stopped.
func (c *CheckpointCoordinator) preCheckGlobalState(isPeriodic bool) error {
	if c.shutdown {
		return NewCheckpointException(CheckpointCoordinatorShutdown, nil)
	}
	if isPeriodic && !c.periodicScheduling {
		return NewCheckpointException(PeriodicSchedulerShutdown, nil)
	}
	return nil
}

// createPendingCheckpoint creates the PendingCheckpoint and its timeout.
func (c *CheckpointCoordinator) createPendingCheckpoint(timestamp int64, request *checkpointTriggerRequest,
	plan CheckpointPlan, checkpointID int64) *PendingCheckpoint {
	// Step k1: the coordinator triggers checkpoint checkpointID: a
	// PendingCheckpoint that waits for every task of the plan.
	stats := c.statsTracker.reportPendingCheckpoint(checkpointID, timestamp, request.props, plan)
	onCompletion := request.onCompletion
	request.onCompletion = nil // the pending checkpoint answers the caller now
	pending := newPendingCheckpoint(c.job, checkpointID, timestamp, plan, request.props, onCompletion, stats)
	c.pendingCheckpoints[checkpointID] = pending

	cancel := c.schedule(func() { c.expire(pending) }, c.checkpointTimeout)
	if !pending.setCancellerHandle(cancel) {
		cancel()
	}

	message := fmt.Sprintf("Triggering checkpoint %d (type=%s) @ %d for job %s.",
		checkpointID, request.props.CheckpointType, timestamp, c.job)
	c.log.Info(message)
	c.trace.Emit(trace.K1, "CheckpointCoordinator", "CheckpointCoordinator", c.job, "%s", message)
	return pending
}

// expire aborts a checkpoint that took longer than the timeout (Flink's
// CheckpointCanceller).
func (c *CheckpointCoordinator) expire(pending *PendingCheckpoint) {
	if pending.IsDisposed() {
		return // completed or aborted meanwhile
	}
	message := fmt.Sprintf("Checkpoint %d of job %s expired before completing.", pending.CheckpointID(), c.job)
	c.log.Info(message)
	c.trace.EmitFailure(trace.K6, "CheckpointCoordinator", "CheckpointCoordinator", c.job, "%s", message)
	c.abortPendingCheckpoint(pending, NewCheckpointException(CheckpointExpired, nil), nil)
}

// initializeCheckpointLocation creates the directory of the checkpoint
// (chk-<id>) or savepoint.
func (c *CheckpointCoordinator) initializeCheckpointLocation(checkpointID int64, request *checkpointTriggerRequest) (state.CheckpointStorageLocation, error) {
	if request.props.IsSavepoint() {
		return c.initializeLocationForSavepoint(request.externalSavepointLocation)
	}
	return c.checkpointStorage.InitializeLocationForCheckpoint(checkpointID)
}

// initializeLocationForSavepoint creates a new directory for a savepoint
// in baseDir, named as Flink names it: savepoint-<first 6 characters of
// the job ID>-<12 random hex digits> (Flink:
// AbstractFsCheckpointStorageAccess#initializeLocationForSavepoint).
func (c *CheckpointCoordinator) initializeLocationForSavepoint(baseDir string) (state.CheckpointStorageLocation, error) {
	base, err := filepath.Abs(LocalPath(baseDir))
	if err != nil {
		return state.CheckpointStorageLocation{}, fmt.Errorf("Failed to create savepoint directory at %s: %w", baseDir, err)
	}
	var latestErr error
	for range 10 {
		var random [6]byte
		_, _ = rand.Read(random[:])
		dir := filepath.Join(base, "savepoint-"+c.job.String()[:6]+"-"+hex.EncodeToString(random[:]))
		if latestErr = os.MkdirAll(filepath.Dir(dir), 0o755); latestErr == nil {
			if latestErr = os.Mkdir(dir, 0o755); latestErr == nil {
				return state.CheckpointStorageLocation{Directory: dir}, nil
			}
		}
	}
	return state.CheckpointStorageLocation{}, fmt.Errorf("Failed to create savepoint directory at %s: %w", baseDir, latestErr)
}

// triggerTasks sends triggerCheckpoint to the sources, the RPC of step k2.
func (c *CheckpointCoordinator) triggerTasks(pending *PendingCheckpoint, location state.CheckpointStorageLocation) {
	options := CheckpointOptions{CheckpointType: pending.Props().CheckpointType, TargetLocation: location,
		AlignmentType: AtLeastOnceAlignment}
	if c.config.Mode != AtLeastOnce {
		options.AlignmentType = Aligned
	}
	if kind, ok := c.triggersLost(pending); ok {
		// Step k1 (fault): checkpoint-expired: the triggers are lost on
		// their way to the sources, as over a network that drops them. No
		// source takes the checkpoint, no task acknowledges it, and nobody
		// here knows: the checkpoint waits until its timeout canceller
		// expires it (expire), and the CheckpointFailureManager counts it.
		c.trace.EmitFailure(trace.K1, "CheckpointCoordinator", "TaskExecutor", c.job,
			"triggerCheckpoint %d to %d sources lost: %v", pending.CheckpointID(), len(pending.plan.TasksToTrigger),
			fault.Injected(trace.K1, kind))
		return
	}
	for _, task := range pending.plan.TasksToTrigger {
		if task.TriggerCheckpoint != nil {
			task.TriggerCheckpoint(pending.CheckpointID(), pending.CheckpointTimestamp(), options)
		}
	}
}

// triggersLost asks step k1's fault whether the triggers of a checkpoint
// are lost: only for a checkpoint that has sources to trigger.
func (c *CheckpointCoordinator) triggersLost(pending *PendingCheckpoint) (fault.Kind, bool) {
	if len(pending.plan.TasksToTrigger) == 0 {
		return "", false
	}
	return c.faults.Fire(trace.K1, c.job)
}

// onTriggerSuccess ends a trigger and lets the next waiting request run.
func (c *CheckpointCoordinator) onTriggerSuccess() {
	c.isTriggering = false
	c.executeQueuedRequest()
}

// onTriggerFailure ends a trigger that failed: before there was a
// PendingCheckpoint (pending nil), the request's caller is told and the
// failure manager counts it; after, the pending checkpoint is aborted.
func (c *CheckpointCoordinator) onTriggerFailure(request *checkpointTriggerRequest, pending *PendingCheckpoint, err error) {
	defer func() {
		c.isTriggering = false
		c.executeQueuedRequest()
	}()
	exception := checkpointExceptionOf(TriggerCheckpointFailure, err)
	if pending != nil && !pending.IsDisposed() {
		c.trace.EmitFailure(trace.K1, "CheckpointCoordinator", "CheckpointCoordinator", c.job,
			"Failed to trigger checkpoint %d: %s", pending.CheckpointID(), exception)
		c.abortPendingCheckpoint(pending, exception, nil)
		return
	}
	request.complete(nil, exception)
	c.statsTracker.reportFailedCheckpointsWithoutInProgress()
	c.failureManager.HandleCheckpointException(nil, request.props, exception, nil, c.job)
}

// checkpointExceptionOf returns err as a *CheckpointException, with
// defaultReason if it is none (Flink: getCheckpointException; Flink also
// turns an IOException into IO_EXCEPTION, which the callers here do).
func checkpointExceptionOf(defaultReason CheckpointFailureReason, err error) *CheckpointException {
	var exception *CheckpointException
	if errors.As(err, &exception) {
		return exception
	}
	return NewCheckpointException(defaultReason, err)
}
