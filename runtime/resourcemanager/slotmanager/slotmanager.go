package slotmanager

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// Defaults, as in Flink.
const (
	// DefaultRequirementCheckDelay is slotmanager.requirement-check.delay.
	DefaultRequirementCheckDelay = 50 * time.Millisecond
	// DefaultTaskManagerRequestTimeout is how long requestSlot may take:
	// pekko.ask.timeout, which taskmanager.slot.timeout falls back to.
	DefaultTaskManagerRequestTimeout = 10 * time.Second
)

// Config configures a FineGrainedSlotManager. Zero fields take the
// defaults above.
type Config struct {
	// RequirementCheckDelay is how long the SlotManager waits after a
	// change before it matches requirements to slots, so that several
	// changes are handled by one check.
	RequirementCheckDelay time.Duration
	// TaskManagerRequestTimeout bounds each requestSlot call.
	TaskManagerRequestTimeout time.Duration
	// FailUnfulfillableRequests makes the SlotManager report jobs whose
	// requirements no registered slot can serve ("Could not fulfill
	// resource requirements of job ...") through Deps.NotEnoughResources.
	// When false, as in a standalone ResourceManager during its start-up
	// period, such jobs simply wait for TaskManagers to arrive. The
	// ResourceManager turns it on when the period ends
	// (SetFailUnfulfillableRequest).
	FailUnfulfillableRequests bool
	// Logger is the base logger; nil means slog.Default().
	Logger *slog.Logger
}

// Deps are the SlotManager's collaborators.
type Deps struct {
	// Trace records step m7; nil records nothing.
	Trace *trace.Recorder
	// Faults may break step m7; nil injects nothing.
	Faults *fault.Injector
	// NotEnoughResources is told about a job whose requirements cannot be
	// met, while FailUnfulfillableRequests is on, with the number of slots
	// the job holds (Flink: ResourceEventListener#notEnoughResourceAvailable).
	// Nil tells nobody.
	NotEnoughResources func(jobID api.JobID, acquired int)
}

// RegistrationResult says what RegisterTaskManager did.
type RegistrationResult int

const (
	// RegistrationSuccess: the TaskExecutor and its slots are now known.
	RegistrationSuccess RegistrationResult = iota
	// RegistrationIgnored: the TaskExecutor was registered already; its
	// report was handled as a slot report.
	RegistrationIgnored
)

// FineGrainedSlotManager is the ResourceManager's slot bookkeeper and
// matchmaker (Flink's FineGrainedSlotManager). It knows every registered
// TaskExecutor and its slots, every job's declared requirements, and it
// asks TaskExecutors for slots when a job lacks some.
//
// It is not an endpoint: every method must be called on the
// ResourceManager's main thread, which it also uses for its timers and for
// the answers to its RPCs (see Start).
type FineGrainedSlotManager struct {
	cfg       Config
	log       *slog.Logger
	strategy  ResourceAllocationStrategy
	tracker   *taskManagerTracker
	resources *resourceTracker
	syncer    *slotStatusSyncer

	deps Deps
	// starved holds the jobs for which an injected fault (step m7) hides
	// every free slot, until they have been reported as unfulfillable.
	starved map[api.JobID]bool

	// Set by Start, cleared by Suspend.
	started    bool
	mainThread *rpc.Endpoint
	// requirementsCheck is the scheduled requirement check; nil while none
	// is scheduled.
	requirementsCheck *scheduledCheck
}

// scheduledCheck is one requirement check waiting for its timer. The timer
// may fire after the check was cancelled (its message already sits in the
// mailbox), so the check runs only while it is still the current one.
type scheduledCheck struct{ cancel func() }

// New returns a slot manager that is not started yet.
func New(cfg Config, deps Deps) (*FineGrainedSlotManager, error) {
	if cfg.RequirementCheckDelay < 0 || cfg.TaskManagerRequestTimeout < 0 {
		return nil, errors.New("slot manager: delays and timeouts must not be negative")
	}
	if cfg.RequirementCheckDelay == 0 {
		cfg.RequirementCheckDelay = DefaultRequirementCheckDelay
	}
	if cfg.TaskManagerRequestTimeout == 0 {
		cfg.TaskManagerRequestTimeout = DefaultTaskManagerRequestTimeout
	}
	base := cfg.Logger
	if base == nil {
		base = slog.Default()
	}
	tracker := newTaskManagerTracker()
	return &FineGrainedSlotManager{
		cfg:       cfg,
		log:       base.With("logger", "FineGrainedSlotManager"),
		strategy:  DefaultResourceAllocationStrategy{},
		tracker:   tracker,
		resources: newResourceTracker(),
		deps:      deps,
		starved:   make(map[api.JobID]bool),
		syncer: &slotStatusSyncer{
			log:            base.With("logger", "DefaultSlotStatusSyncer"),
			trace:          deps.Trace,
			requestTimeout: cfg.TaskManagerRequestTimeout,
			tracker:        tracker,
		},
	}, nil
}

// Start makes the slot manager work for the ResourceManager leadership
// rmID. mainThread is the ResourceManager's endpoint: Start and every later
// call must run on its main thread, and the slot manager schedules its
// requirement checks and receives requestSlot answers there.
func (sm *FineGrainedSlotManager) Start(rmID api.ResourceManagerID, mainThread *rpc.Endpoint) {
	sm.log.Info("Starting the slot manager.")
	sm.mainThread = mainThread
	sm.syncer.initialize(rmID, mainThread)
	sm.started = true
}

// Suspend forgets everything: TaskExecutors, slots, requirements, pending
// requests. The ResourceManager suspends its slot manager when it loses
// leadership; the next leader learns the state again from TaskExecutors and
// JobMasters, which re-register with it.
func (sm *FineGrainedSlotManager) Suspend() {
	if !sm.started {
		return
	}
	sm.log.Info("Suspending the slot manager.")
	if sm.requirementsCheck != nil {
		sm.requirementsCheck.cancel()
		sm.requirementsCheck = nil
	}
	sm.syncer.close()
	sm.tracker.clear()
	sm.resources.clear()
	clear(sm.starved)
	sm.mainThread = nil
	sm.started = false
}

// Close suspends the slot manager for good.
func (sm *FineGrainedSlotManager) Close() {
	sm.log.Info("Closing the slot manager.")
	sm.Suspend()
}

// ProcessResourceRequirements replaces a job's requirements with the ones
// declared (step m6 arrives here) and schedules a requirement check. An
// empty declaration clears the job's requirements.
//
// Step m6: the SlotManager holds the job's requirements from now on; the
// check that matches them to free slots (step m7) runs after
// RequirementCheckDelay, together with every other change of that time.
func (sm *FineGrainedSlotManager) ProcessResourceRequirements(req gateway.ResourceRequirements) {
	sm.checkInit()
	if len(req.Requirements) == 0 && sm.resources.isRequirementEmpty(req.JobID) {
		return
	}
	if len(req.Requirements) == 0 {
		sm.log.Info(fmt.Sprintf("Clearing resource requirements of job %s", req.JobID))
	} else {
		sm.log.Info(fmt.Sprintf("Received resource requirements from job %s: %s",
			req.JobID, formatResourceRequirements(req.Requirements)))
	}
	sm.resources.notifyResourceRequirements(req)
	sm.checkResourceRequirementsWithDelay()
}

// ClearResourceRequirements forgets a job's requirements, for example when
// its JobMaster disconnects because the job is done. Slots the job holds
// stay allocated until their TaskExecutor frees them.
func (sm *FineGrainedSlotManager) ClearResourceRequirements(jobID api.JobID) {
	sm.checkInit()
	delete(sm.starved, jobID)
	if sm.resources.isRequirementEmpty(jobID) {
		return
	}
	sm.log.Info(fmt.Sprintf("Clearing resource requirements of job %s", jobID))
	sm.resources.remove(jobID)
}

// RegisterTaskManager makes a TaskExecutor and its resources known. The
// slot report lists every slot of the TaskExecutor, free or allocated, as
// Flink's does; its allocated slots are taken out of the resources. A
// TaskExecutor that is registered already (same InstanceID) is not
// registered again; its report is handled like ReportSlotStatus.
func (sm *FineGrainedSlotManager) RegisterTaskManager(conn TaskExecutorConnection, initialSlotReport gateway.SlotReport,
	resources TaskManagerResources) RegistrationResult {
	sm.checkInit()
	sm.log.Info(fmt.Sprintf("Registering task executor %s under %s at the slot manager.", conn.ResourceID, conn.InstanceID))
	if _, registered := sm.tracker.taskManager(conn.InstanceID); registered {
		sm.log.Debug(fmt.Sprintf("Task executor %s was already registered.", conn.ResourceID))
		sm.ReportSlotStatus(conn.InstanceID, initialSlotReport)
		return RegistrationIgnored
	}
	// An active ResourceManager would first match the new TaskExecutor to a
	// PendingTaskManager it asked its driver for (Flink:
	// findMatchingPendingTaskManager); a standalone one has none.
	tm := sm.tracker.addTaskManager(conn, resources)
	sm.syncer.reportSlotStatus(tm, initialSlotReport)
	sm.checkResourceRequirementsWithDelay()
	return RegistrationSuccess
}

// UnregisterTaskManager forgets a TaskExecutor and its slots. Allocations
// on it are lost (their pending requestSlot answers will be ignored); the
// jobs that held them still declare the same requirements, so the next
// check looks for other slots for them.
func (sm *FineGrainedSlotManager) UnregisterTaskManager(instanceID api.InstanceID) bool {
	sm.checkInit()
	sm.log.Info(fmt.Sprintf("Unregistering task executor %s from the slot manager.", instanceID))
	tm, ok := sm.tracker.taskManager(instanceID)
	if !ok {
		sm.log.Debug(fmt.Sprintf("There is no task executor registered with instance ID %s. Ignoring this message.", instanceID))
		return false
	}
	hadAllocations := len(tm.slots) > 0
	sm.syncer.dropTaskManager(tm)
	sm.tracker.removeTaskManager(instanceID)
	if hadAllocations {
		sm.checkResourceRequirementsWithDelay()
	}
	return true
}

// ReportSlotStatus reconciles the slots of a TaskExecutor with its report
// (see slotStatusSyncer.reportSlotStatus). It returns false for an unknown
// TaskExecutor.
func (sm *FineGrainedSlotManager) ReportSlotStatus(instanceID api.InstanceID, report gateway.SlotReport) bool {
	sm.checkInit()
	tm, ok := sm.tracker.taskManager(instanceID)
	if !ok {
		sm.log.Debug(fmt.Sprintf("Received slot report for unknown task manager with instance id %s. Ignoring this report.", instanceID))
		return false
	}
	if sm.syncer.reportSlotStatus(tm, report) {
		sm.checkResourceRequirementsWithDelay()
	}
	return true
}

// FreeSlot frees the slot of allocationID, if it is still held (a late or
// repeated notification for an older allocation is ignored), then
// schedules a requirement check so a waiting job can have its resources.
// Like Flink's, it goes by the allocation alone and ignores slotID.
func (sm *FineGrainedSlotManager) FreeSlot(_ api.SlotID, allocationID api.AllocationID) {
	sm.checkInit()
	slot, ok := sm.tracker.allocatedOrPendingSlot(allocationID)
	if !ok {
		sm.log.Debug(fmt.Sprintf("Trying to free a slot %s which has not been allocated. Ignoring this message.", allocationID))
		return
	}
	sm.syncer.freeSlot(slot)
	sm.checkResourceRequirementsWithDelay()
}

// NumberOfRegisteredSlots returns how many static slots all registered
// TaskExecutors have: taskmanager.numberOfTaskSlots of each, whatever slots
// were cut out of them.
func (sm *FineGrainedSlotManager) NumberOfRegisteredSlots() int {
	return sm.tracker.numberOfRegisteredSlots()
}

// NumberOfFreeSlots returns, summed over the TaskExecutors, how many of
// their static slots no slot holds.
func (sm *FineGrainedSlotManager) NumberOfFreeSlots() int { return sm.tracker.numberOfFreeSlots() }

// NumberOfRegisteredSlotsOf returns how many static slots one TaskExecutor
// has (Flink: its default number of slots).
func (sm *FineGrainedSlotManager) NumberOfRegisteredSlotsOf(instanceID api.InstanceID) int {
	if tm, ok := sm.tracker.taskManager(instanceID); ok {
		return tm.defaultNumSlots
	}
	return 0
}

// NumberOfFreeSlotsOf returns one TaskExecutor's static slots minus the
// slots it holds, never below zero (Flink's getNumberFreeSlotsOf).
func (sm *FineGrainedSlotManager) NumberOfFreeSlotsOf(instanceID api.InstanceID) int {
	if tm, ok := sm.tracker.taskManager(instanceID); ok {
		return tm.numberOfFreeSlots()
	}
	return 0
}

// RegisteredResourceOf returns one TaskExecutor's total resources (Flink's
// getRegisteredResourceOf); ZeroResourceProfile for an unknown one.
func (sm *FineGrainedSlotManager) RegisteredResourceOf(instanceID api.InstanceID) api.ResourceProfile {
	if tm, ok := sm.tracker.taskManager(instanceID); ok {
		return tm.total
	}
	return api.ZeroResourceProfile
}

// FreeResourceOf returns what is left of one TaskExecutor's resources
// once every slot it holds is taken out (Flink's getFreeResourceOf);
// ZeroResourceProfile for an unknown one.
func (sm *FineGrainedSlotManager) FreeResourceOf(instanceID api.InstanceID) api.ResourceProfile {
	if tm, ok := sm.tracker.taskManager(instanceID); ok {
		return tm.available
	}
	return api.ZeroResourceProfile
}

// AllocatedSlotsOf returns one TaskExecutor's slots, PENDING or ALLOCATED,
// in the order they were made (Flink's SlotManager#getAllocatedSlotsOf).
func (sm *FineGrainedSlotManager) AllocatedSlotsOf(instanceID api.InstanceID) []SlotInfo {
	return sm.tracker.allocatedSlotsOf(instanceID)
}

// Slots returns a snapshot of every slot jobs hold: TaskExecutors in
// registration order, each one's slots in the order they were made.
func (sm *FineGrainedSlotManager) Slots() []SlotInfo { return sm.tracker.slotInfos() }

// checkResourceRequirementsWithDelay schedules one requirement check after
// RequirementCheckDelay, unless one is scheduled already: all the changes
// that arrive within the delay (a TaskExecutor registering, two jobs
// declaring, a slot freed) are handled by that one check.
func (sm *FineGrainedSlotManager) checkResourceRequirementsWithDelay() {
	if sm.requirementsCheck != nil {
		return
	}
	check := &scheduledCheck{}
	sm.requirementsCheck = check
	check.cancel = sm.mainThread.ScheduleRunAsync(func() {
		if sm.requirementsCheck != check {
			return // cancelled while its message waited in the mailbox
		}
		sm.requirementsCheck = nil
		sm.checkResourceRequirements()
	}, sm.cfg.RequirementCheckDelay)
}

// checkResourceRequirements matches what jobs lack to free slots and asks
// TaskExecutors for the chosen slots. Call it only through
// checkResourceRequirementsWithDelay.
func (sm *FineGrainedSlotManager) checkResourceRequirements() {
	if !sm.started {
		return
	}
	missing := sm.resources.missingResources(sm.tracker.acquiredProfiles)
	if len(missing) == 0 {
		return
	}
	sm.logMissingAndAvailableResources(missing)

	// Step m7 (fault): for a starved job no free slot matches.
	matchable, starved := sm.separateStarvedJobs(missing)
	// Step m7: the allocation strategy decides which TaskExecutor's free
	// resources serve which job; each allocation is sent to its
	// TaskExecutor as a request for a new slot of that profile.
	result := sm.strategy.TryFulfillRequirements(matchable, sm.tracker.resources())
	for _, allocation := range result.Allocations {
		sm.syncer.allocateSlot(allocation, sm.resources.targetAddress(allocation.JobID), sm.checkResourceRequirementsWithDelay)
	}

	// What is left waits. A standalone ResourceManager cannot make slots;
	// an active one would ask its ResourceManagerDriver for new
	// TaskManagers here (Flink: allocateTaskManagersAccordingTo →
	// declareNeededResources). After the start-up period the job is told.
	for _, job := range append(result.Unfulfilled, starved...) {
		if sm.cfg.FailUnfulfillableRequests {
			sm.log.Warn(fmt.Sprintf("Could not fulfill resource requirements of job %s.", job.JobID))
			delete(sm.starved, job.JobID)
			if sm.deps.NotEnoughResources != nil {
				sm.deps.NotEnoughResources(job.JobID, len(sm.tracker.acquiredProfiles(job.JobID)))
			}
			continue
		}
		sm.log.Debug(fmt.Sprintf("Job %s waits for resources that no registered TaskManager can offer now: %s",
			job.JobID, formatResourceRequirements(job.Requirements)))
	}
}

// separateStarvedJobs splits off the jobs an injected fault keeps from
// every free slot (step m7). A fault that fires starves its job until the
// job has been told that its requirements cannot be met, so the job sees
// what Flink shows when no TaskManager has a slot for it.
func (sm *FineGrainedSlotManager) separateStarvedJobs(missing []JobRequirements) (matchable, starved []JobRequirements) {
	for _, job := range missing {
		if !sm.starved[job.JobID] {
			if kind, ok := sm.deps.Faults.Fire(trace.M7, job.JobID); ok {
				sm.starved[job.JobID] = true
				sm.deps.Trace.EmitFailure(trace.M7, "SlotManager", "TaskExecutor", job.JobID,
					"no free slot matches the requirements of job %s (%s): %v", job.JobID,
					formatResourceRequirements(job.Requirements), fault.Injected(trace.M7, kind))
			}
		}
		if sm.starved[job.JobID] {
			starved = append(starved, job)
		} else {
			matchable = append(matchable, job)
		}
	}
	return matchable, starved
}

// SetFailUnfulfillableRequest turns the reporting of unfulfillable jobs on
// or off (Flink's setFailUnfulfillableRequest); turning it on checks the
// requirements again, so that the jobs waiting now are reported.
func (sm *FineGrainedSlotManager) SetFailUnfulfillableRequest(fail bool) {
	if sm.cfg.FailUnfulfillableRequests == fail {
		return
	}
	sm.cfg.FailUnfulfillableRequests = fail
	if fail && sm.started {
		sm.checkResourceRequirementsWithDelay()
	}
}

// logMissingAndAvailableResources logs Flink's multi-line INFO block:
// what each job lacks, and each TaskManager's available and total
// resources.
func (sm *FineGrainedSlotManager) logMissingAndAvailableResources(missing []JobRequirements) {
	var b strings.Builder
	b.WriteString("Matching resource requirements against available resources.\n")
	b.WriteString("Missing resources:")
	for _, job := range missing {
		fmt.Fprintf(&b, "\n\t Job %s", job.JobID)
		for _, r := range job.Requirements {
			fmt.Fprintf(&b, "\n\t\t%s", r.String())
		}
	}
	b.WriteString("\nCurrent resources:")
	if len(sm.tracker.taskManagers) == 0 {
		b.WriteString("\n\t(none)")
	}
	for _, tm := range sm.tracker.taskManagers {
		fmt.Fprintf(&b, "\n\tTaskManager %s", tm.conn.ResourceID)
		fmt.Fprintf(&b, "\n\t\tAvailable: %s", tm.available)
		fmt.Fprintf(&b, "\n\t\tTotal:     %s", tm.total)
	}
	sm.log.Info(b.String())
}

// checkInit panics when the slot manager is used before Start: the
// ResourceManager only talks to its slot manager while it leads, so this is
// a bug.
func (sm *FineGrainedSlotManager) checkInit() {
	if !sm.started {
		panic("The slot manager has not been started.")
	}
}
