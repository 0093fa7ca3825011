package checkpoint

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/state"
	"flinklab/runtime/trace"
)

// numGhostCheckpointIDs is how many ended checkpoints are remembered, to
// tell a late message from an unknown one (Flink: NUM_GHOST_CHECKPOINT_IDS).
const numGhostCheckpointIDs = 16

// maxMinPause caps the min pause at a year, against overflows.
const maxMinPause = 365 * 24 * time.Hour

// CoordinatorDeps is what a CheckpointCoordinator is built from.
type CoordinatorDeps struct {
	JobID api.JobID
	// Config is the checkpointing configuration, from FromMap or
	// DefaultCheckpointCoordinatorConfiguration (a Timeout of 0 is the
	// default's 10 minutes).
	Config CheckpointCoordinatorConfiguration
	// Storage is where checkpoints go: made by the caller with
	// state.NewCheckpointStorageAccess(Config.CheckpointsDir, JobID).
	Storage state.CheckpointStorageAccess
	// IDCounter hands out checkpoint IDs; nil: NewStandaloneCheckpointIDCounter().
	IDCounter CheckpointIDCounter
	// Store keeps the completed checkpoints; nil:
	// NewStandaloneCompletedCheckpointStore(Config.NumRetained).
	Store CompletedCheckpointStore
	// Schedule runs fn on the coordinator's goroutine (the JobMaster's main
	// thread) after delay, which may be 0: then as soon as the current work
	// is done, never from inside Schedule. cancel stops fn if it has not
	// run yet; a cancelled fn that runs anyway does no harm. Required.
	Schedule func(fn func(), delay time.Duration) (cancel func())
	// Now reads the clock; nil: time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	Trace  *trace.Recorder // may be nil
	// Faults may break steps k1 (the triggers are lost on their way to
	// the sources) and k6 (_metadata cannot be written); nil injects
	// nothing.
	Faults *fault.Injector
	// CalculateCheckpointPlan returns the tasks of the next checkpoint, or
	// a *CheckpointException with NotAllRequiredTasksRunning when a task
	// is not RUNNING (Flink's DefaultCheckpointPlanCalculator).
	CalculateCheckpointPlan func() (CheckpointPlan, error)
	// FailJob fails the job when more checkpoints failed in a row than
	// tolerated (the cause wraps ErrExceededCheckpointTolerableFailure), or
	// when a task fails the savepoint of stop-with-savepoint. As in Flink
	// (failGlobal) it is a global failure, which the restart strategy may
	// recover from: the scheduler restarts every task. It is called in the
	// middle of the coordinator's work: like Flink's scheduler, it should
	// fail the job a moment later, from the main thread's queue.
	FailJob func(cause error)
}

// CheckpointCoordinator triggers a job's checkpoints, collects the tasks'
// acknowledgements, and keeps the completed checkpoints to restore from
// (Flink's CheckpointCoordinator). See the package documentation.
//
// It is not safe for concurrent use: every method, and every function
// given to Schedule, runs on one goroutine, the JobMaster's main thread.
// That is why it has no lock, where Flink's has one.
type CheckpointCoordinator struct {
	job                  api.JobID
	config               CheckpointCoordinatorConfiguration
	checkpointProperties CheckpointProperties // of periodic checkpoints
	checkpointStorage    state.CheckpointStorageAccess
	checkpointIDCounter  CheckpointIDCounter
	store                CompletedCheckpointStore

	baseInterval, checkpointTimeout, minPauseBetweenCheckpoints time.Duration

	pendingCheckpoints       map[int64]*PendingCheckpoint
	recentPendingCheckpoints []int64 // ended checkpoints, oldest first
	requestDecider           *checkpointRequestDecider
	failureManager           *CheckpointFailureManager
	statsTracker             *CheckpointStatsTracker
	isTriggering             bool
	requests                 uint64 // trigger requests so far, to order them

	periodicScheduling             bool
	currentPeriodicTrigger         *periodicTrigger
	lastCheckpointCompletion       time.Time // zero until a checkpoint completes
	shutdown                       bool
	getRandomCheckpointInitDelay   func() time.Duration
	schedule                       func(fn func(), delay time.Duration) (cancel func())
	now                            func() time.Time
	calculateCheckpointPlan        func() (CheckpointPlan, error)
	log, restoreLog, checkpointLog *slog.Logger
	trace                          *trace.Recorder
	faults                         *fault.Injector
}

// NewCheckpointCoordinator returns a coordinator for deps.JobID. Call
// StartCheckpointScheduler when the job is RUNNING and Shutdown when it
// ends.
func NewCheckpointCoordinator(deps CoordinatorDeps) *CheckpointCoordinator {
	logger := deps.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	now := deps.Now
	if now == nil {
		now = time.Now
	}
	cfg := deps.Config
	c := &CheckpointCoordinator{
		job:                        deps.JobID,
		config:                     cfg,
		checkpointProperties:       PropertiesForCheckpoint(cfg.Retention),
		checkpointStorage:          deps.Storage,
		checkpointIDCounter:        deps.IDCounter,
		store:                      deps.Store,
		checkpointTimeout:          cfg.Timeout,
		minPauseBetweenCheckpoints: min(cfg.MinPause, maxMinPause),
		pendingCheckpoints:         make(map[int64]*PendingCheckpoint),
		statsTracker:               NewCheckpointStatsTracker(DefaultHistorySize),
		schedule:                   deps.Schedule,
		now:                        now,
		calculateCheckpointPlan:    deps.CalculateCheckpointPlan,
		log:                        logger.With("logger", "CheckpointCoordinator"),
		restoreLog:                 logger.With("logger", "StateAssignmentOperation"),
		checkpointLog:              logger.With("logger", "Checkpoints"),
		trace:                      deps.Trace,
		faults:                     deps.Faults,
	}
	if c.checkpointTimeout <= 0 {
		c.checkpointTimeout = DefaultCheckpointCoordinatorConfiguration().Timeout
	}
	// It makes no sense to trigger checkpoints more often than the min
	// pause allows.
	if cfg.IsCheckpointingEnabled() {
		c.baseInterval = max(cfg.Interval, c.minPauseBetweenCheckpoints)
	}
	if c.checkpointIDCounter == nil {
		c.checkpointIDCounter = NewStandaloneCheckpointIDCounter()
	}
	if c.store == nil {
		if cfg.NumRetained < 1 {
			logger.With("logger", "DefaultCompletedCheckpointStoreUtils").Warn(fmt.Sprintf(
				"The setting for '%s : %d' is invalid. Using default value of %d", KeyNumRetained, cfg.NumRetained, DefaultNumRetained))
		}
		c.store = NewStandaloneCompletedCheckpointStore(cfg.NumRetained)
	}
	if err := c.checkpointIDCounter.Start(); err != nil {
		c.log.Error("Failed to start checkpoint ID counter: "+err.Error(), "cause", err.Error())
	}
	c.getRandomCheckpointInitDelay = func() time.Duration { // in ms, from the min pause to the interval
		minPause, interval := c.minPauseBetweenCheckpoints.Milliseconds(), c.baseInterval.Milliseconds()
		return time.Duration(minPause+rand.Int64N(interval-minPause+1)) * time.Millisecond
	}
	c.requestDecider = &checkpointRequestDecider{
		maxConcurrentCheckpointAttempts: max(cfg.MaxConcurrent, 1),
		rescheduleTrigger:               c.rescheduleTrigger,
		now:                             now,
		minPauseBetweenCheckpoints:      c.minPauseBetweenCheckpoints,
		pendingCheckpointsSize:          func() int { return len(c.pendingCheckpoints) },
		maxQueuedRequests:               defaultMaxQueuedRequests,
	}
	failJob := deps.FailJob
	if failJob == nil {
		failJob = func(error) {}
	}
	c.failureManager = NewCheckpointFailureManager(cfg.TolerableFailures, failJob,
		logger.With("logger", "CheckpointFailureManager"))
	return c
}

// IsPeriodicCheckpointingConfigured reports whether the job checkpoints
// periodically.
func (c *CheckpointCoordinator) IsPeriodicCheckpointingConfigured() bool { return c.baseInterval > 0 }

// StartCheckpointScheduler starts the periodic checkpoints: the first
// after a random delay between the min pause and the interval, so that
// the jobs of a cluster do not all checkpoint at once, then one every
// interval. The job's transition to RUNNING calls it (Flink's
// CheckpointCoordinatorDeActivator). It does nothing when checkpointing is
// disabled or the coordinator is shut down.
func (c *CheckpointCoordinator) StartCheckpointScheduler() {
	if c.shutdown || !c.IsPeriodicCheckpointingConfigured() {
		return
	}
	c.StopCheckpointScheduler() // make sure all prior timers are cancelled
	c.periodicScheduling = true
	c.currentPeriodicTrigger = c.scheduleCheckpointTriggerWithDelay(c.getRandomCheckpointInitDelay())
}

// StopCheckpointScheduler stops the periodic checkpoints and aborts the
// pending ones (CHECKPOINT_COORDINATOR_SUSPEND). The job's leaving RUNNING
// calls it.
func (c *CheckpointCoordinator) StopCheckpointScheduler() {
	c.periodicScheduling = false
	c.cancelPeriodicTrigger()
	c.abortPendingAndQueuedCheckpoints(NewCheckpointException(CheckpointCoordinatorSuspend, nil))
}

// IsPeriodicCheckpointingStarted reports whether the periodic checkpoints
// run.
func (c *CheckpointCoordinator) IsPeriodicCheckpointingStarted() bool { return c.periodicScheduling }

// Shutdown stops the coordinator for good once its job ended in jobStatus:
// it aborts the pending checkpoints (CHECKPOINT_COORDINATOR_SHUTDOWN),
// stops its timers, and shuts the store and the ID counter down. The store
// deletes the completed checkpoints the job's end calls for (see
// CheckpointProperties); savepoints are never deleted. Flink's
// CheckpointCoordinator#shutdown and the scheduler's
// shutDownCheckpointServices in one.
func (c *CheckpointCoordinator) Shutdown(jobStatus api.JobStatus) {
	if c.shutdown {
		return
	}
	c.ShutdownKeepingCheckpointServices()
	c.ShutdownCheckpointServices(jobStatus)
}

// ShutdownKeepingCheckpointServices stops the coordinator (no more
// triggers, the pending checkpoints aborted) and leaves the store of
// completed checkpoints and the ID counter as they are, for the job's next
// coordinator: the AdaptiveScheduler ends one ExecutionGraph to rescale
// or restart and restores the next one from the same store. Flink's
// ExecutionGraph shuts its coordinator down the same way; the scheduler
// shuts the checkpoint services down when the job ends
// (SchedulerBase#shutDownCheckpointServices).
func (c *CheckpointCoordinator) ShutdownKeepingCheckpointServices() {
	if c.shutdown {
		return
	}
	c.shutdown = true
	c.log.Info(fmt.Sprintf("Stopping checkpoint coordinator for job %s.", c.job))
	c.periodicScheduling = false
	c.cancelPeriodicTrigger()
	c.abortPendingAndQueuedCheckpoints(NewCheckpointException(CheckpointCoordinatorShutdown, nil))
}

// ShutdownCheckpointServices shuts down the store of completed checkpoints
// and the ID counter for a job that ended in jobStatus: a globally
// terminal job's checkpoints are deleted unless they are retained.
func (c *CheckpointCoordinator) ShutdownCheckpointServices(jobStatus api.JobStatus) {
	for _, cp := range c.store.GetAllCheckpoints() {
		if !cp.ShouldBeDiscardedOnShutdown(jobStatus) {
			c.log.Info(fmt.Sprintf("Checkpoint with ID %d at '%s' not discarded.", cp.CheckpointID, cp.ExternalPointer))
		}
	}
	if err := c.store.Shutdown(jobStatus, c.discardCompletedCheckpoint); err != nil {
		c.log.Warn("Failed to shut down the completed checkpoint store.", "cause", err.Error())
	}
	if err := c.checkpointIDCounter.Shutdown(jobStatus); err != nil {
		c.log.Warn("Failed to shut down the checkpoint ID counter.", "cause", err.Error())
	}
}

// IsShutdown reports whether Shutdown was called.
func (c *CheckpointCoordinator) IsShutdown() bool { return c.shutdown }

// NumberOfPendingCheckpoints returns how many checkpoints wait for
// acknowledgements.
func (c *CheckpointCoordinator) NumberOfPendingCheckpoints() int { return len(c.pendingCheckpoints) }

// NumberOfQueuedRequests returns how many trigger requests wait.
func (c *CheckpointCoordinator) NumberOfQueuedRequests() int {
	return c.requestDecider.numQueuedRequests()
}

// LatestCompletedCheckpoint returns the newest completed checkpoint, nil if
// none (savepoints a user triggered are not kept in the store).
func (c *CheckpointCoordinator) LatestCompletedCheckpoint() *CompletedCheckpoint {
	return c.store.GetLatestCheckpoint()
}

// CheckpointStore returns the store of completed checkpoints.
func (c *CheckpointCoordinator) CheckpointStore() CompletedCheckpointStore { return c.store }

// Stats returns the checkpoint statistics, for the REST API.
func (c *CheckpointCoordinator) Stats() CheckpointStatsSnapshot { return c.statsTracker.Snapshot() }

// nowMillis reads the clock in ms since the epoch, as Flink's timestamps are.
func (c *CheckpointCoordinator) nowMillis() int64 { return c.now().UnixMilli() }

// rememberRecentCheckpointID remembers an ended checkpoint, so that a late
// message for it is told from a message for an unknown one.
func (c *CheckpointCoordinator) rememberRecentCheckpointID(id int64) {
	if len(c.recentPendingCheckpoints) >= numGhostCheckpointIDs {
		c.recentPendingCheckpoints = c.recentPendingCheckpoints[1:]
	}
	c.recentPendingCheckpoints = append(c.recentPendingCheckpoints, id)
}

// periodicTrigger is the periodic timer: it triggers a checkpoint every
// interval after a first delay (Flink: scheduleAtFixedRate of a
// ScheduledTrigger). Schedule fires once, so each firing schedules the
// next.
type periodicTrigger struct {
	cancel  func()
	stopped bool
}

func (c *CheckpointCoordinator) scheduleCheckpointTriggerWithDelay(initialDelay time.Duration) *periodicTrigger {
	t := &periodicTrigger{}
	var fire func()
	fire = func() {
		if t.stopped {
			return // cancelled after it was due
		}
		t.cancel = c.schedule(fire, c.baseInterval)
		c.triggerCheckpoint(&checkpointTriggerRequest{props: c.checkpointProperties, isPeriodic: true})
	}
	t.cancel = c.schedule(fire, initialDelay)
	return t
}

func (c *CheckpointCoordinator) cancelPeriodicTrigger() {
	if c.currentPeriodicTrigger != nil {
		c.currentPeriodicTrigger.stopped = true
		c.currentPeriodicTrigger.cancel()
		c.currentPeriodicTrigger = nil
	}
}

// rescheduleTrigger restarts the periodic timer, first firing after delay:
// when the min pause ends.
func (c *CheckpointCoordinator) rescheduleTrigger(delay time.Duration) {
	c.cancelPeriodicTrigger()
	c.currentPeriodicTrigger = c.scheduleCheckpointTriggerWithDelay(delay)
}
