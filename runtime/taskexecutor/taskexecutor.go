package taskexecutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/network"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

// DefaultRPCTimeout is Flink's pekko.ask.timeout: how long the TaskExecutor
// waits for the answer to a call it makes.
const DefaultRPCTimeout = 10 * time.Second

// DefaultTaskCancellationTimeout is Flink's task.cancellation.timeout: how
// long a cancelled task may take to stop.
const DefaultTaskCancellationTimeout = 180 * time.Second

// Config configures a TaskExecutor. Zero values take the defaults.
type Config struct {
	// ResourceID names this TaskExecutor; empty means a random
	// "taskexecutor-xxxxxx".
	ResourceID api.ResourceID
	// NumberOfSlots is taskmanager.numberOfTaskSlots (default 1).
	NumberOfSlots int
	// TotalResourceProfile is what the slots share: the TaskManager's CPU
	// cores and task heap, task off-heap, managed and network memory
	// (Flink: TaskManagerConfiguration#getTotalResourceProfile). Every
	// slot, static or dynamic, is carved out of it. The TaskExecutor
	// registers at the ResourceManager with it, and with
	// MemoryConfiguration and Hardware, for the REST endpoint to report.
	// The zero value, UnknownResourceProfile, puts no bound on the slots.
	TotalResourceProfile api.ResourceProfile
	// DefaultSlotProfile is the profile of each static slot (Flink:
	// TaskManagerConfiguration#getDefaultSlotResourceProfile). The zero
	// value means TotalResourceProfile divided by NumberOfSlots
	// (clusterframework.DefaultSlotResourceProfile), or unknown if the
	// total is.
	DefaultSlotProfile api.ResourceProfile
	// MemoryConfiguration is the size of each part of the TaskManager's
	// memory (Flink's TaskExecutorMemoryConfiguration).
	MemoryConfiguration clusterframework.TaskExecutorMemoryConfiguration
	// Hardware describes the machine (Flink's HardwareDescription).
	Hardware gateway.HardwareDescription
	// RPCTimeout bounds every call the TaskExecutor makes (DefaultRPCTimeout).
	RPCTimeout time.Duration
	// Registration is how registrations at the ResourceManager and the
	// JobManagers are retried (Flink's cluster.registration.* defaults).
	Registration registration.Config
	// TaskCancellationTimeout is task.cancellation.timeout: how long Close
	// waits for the tasks to stop before it gives up on them
	// (DefaultTaskCancellationTimeout). Unlike Flink, 0 takes the default
	// and does not disable the wait.
	TaskCancellationTimeout time.Duration
	// SlotTimeout is taskmanager.slot.timeout: how long a slot may stay
	// allocated to a job without being used (offered and accepted, or
	// running tasks) before it is freed again. Zero takes RPCTimeout, as
	// Flink falls back to pekko.ask.timeout.
	SlotTimeout time.Duration
	// Heartbeat holds the heartbeat.* options with which the TaskExecutor
	// watches its JobMasters and the ResourceManager. Zero fields take
	// Flink's defaults (10 s, 50 s, 2); New rejects invalid ones.
	Heartbeat heartbeat.HeartbeatServices
	// DataAddress is the host:port of the network.PartitionRequestServer
	// that serves this TaskExecutor's partitions to other processes. It is
	// advertised in the TaskManagerLocation the TaskExecutor registers at
	// each JobMaster with, so that consumers elsewhere know where to read
	// (Flink: taskmanager.data.port, in the TaskManagerLocation). Empty, as
	// in the embedded cluster, means the partitions are read in-process.
	DataAddress string
	// FixedBlobServer keeps the BlobCache on the BlobServer it was made
	// with. Otherwise the cache downloads from the BlobServer each
	// ResourceManager names when the TaskExecutor registers (Flink's only
	// way: its ClusterInformation), which under HA is the new leader's
	// after a failover.
	FixedBlobServer bool
	// Logger is the TaskManager's logger; nil means slog.Default().
	Logger *slog.Logger
}

// Deps are the services a TaskExecutor uses.
type Deps struct {
	// RPC is where the TaskExecutor serves its gateway and finds the others.
	RPC rpc.Service
	// HA tells who leads the ResourceManager and each job.
	HA highavailability.Services
	// BlobCache fetches the jobs' jars (step m10). Nil only if no task has jars.
	BlobCache *blob.PermanentBlobCache
	// Shuffle is the data plane of the tasks. Nil only if no task has
	// partitions or inputs.
	Shuffle *network.ShuffleEnvironment
	// Trace records step m9 here and steps m10 and m11 in the tasks; nil
	// records nothing.
	Trace *trace.Recorder
	// Faults may break step m9 here (the TaskExecutor dies) and step m11
	// in the tasks; nil injects nothing. (Step m10 breaks in the BlobCache.)
	Faults *fault.Injector
}

// TaskExecutor is the TaskManager's RPC endpoint (Flink's TaskExecutor): it
// registers at the ResourceManager and reports its slots, takes slot
// requests from it, offers the slots to the job's JobMaster, runs the tasks
// the JobMaster deploys into them and reports their states back.
//
// Every field below the embedded Endpoint is touched only on its main
// thread. The exported gateway methods enter there with rpc.CallAsync.
type TaskExecutor struct {
	*rpc.Endpoint

	cfg     Config
	deps    Deps
	address string
	logger  *slog.Logger

	started   atomic.Bool
	closeOnce sync.Once
	killOnce  sync.Once
	killed    atomic.Bool // Kill was called: the gateway methods answer nothing

	// Main thread only.
	taskSlotTable                  *TaskSlotTable[*taskmanager.Task]
	resourceManagerLeaderRetriever highavailability.LeaderRetrievalService
	resourceManagerAddress         *resourceManagerAddress // the leader, once known
	resourceManagerConnection      *resourceManagerConnection
	jobLeaderService               *jobLeaderService
	jobTable                       map[api.JobID]*jobTableEntry
	currentSlotOfferPerJob         map[api.JobID]uint64
	// slotTimeouts holds, per allocated slot that is not in use, the ticket
	// of its pending timeout; a timeout whose ticket is gone is stale.
	slotTimeouts map[api.AllocationID]uint64
	slotTickets  uint64
	slotOffers   uint64 // numbers the slot offers
	stopping     bool
	// partitionTracker remembers the BLOCKING partitions the tasks
	// produced, per job, until they are released.
	partitionTracker *partitionTracker
	// The heartbeat managers (receivers: the JobMasters and the
	// ResourceManager ask, we answer), one target per connection.
	jobManagerHeartbeatManager      heartbeat.HeartbeatManager[gateway.AllocatedSlotReport, gateway.TaskExecutorToJobManagerHeartbeatPayload]
	resourceManagerHeartbeatManager heartbeat.HeartbeatManager[struct{}, gateway.TaskExecutorHeartbeatPayload]
}

var _ gateway.TaskExecutorGateway = (*TaskExecutor)(nil)

// New creates a TaskExecutor that is not started yet.
func New(cfg Config, deps Deps) (*TaskExecutor, error) {
	if deps.RPC == nil || deps.HA == nil {
		return nil, errors.New("create TaskExecutor: Deps.RPC and Deps.HA must be set")
	}
	if cfg.NumberOfSlots < 0 {
		return nil, fmt.Errorf("create TaskExecutor: the number of slots must not be negative, got %d", cfg.NumberOfSlots)
	}
	if cfg.NumberOfSlots == 0 {
		cfg.NumberOfSlots = 1
	}
	if cfg.DefaultSlotProfile.IsUnknown() && !cfg.TotalResourceProfile.IsUnknown() {
		cfg.DefaultSlotProfile = clusterframework.DefaultSlotResourceProfile(cfg.TotalResourceProfile, cfg.NumberOfSlots)
	}
	if cfg.ResourceID == "" {
		cfg.ResourceID = api.NewResourceID("taskexecutor")
	}
	if cfg.RPCTimeout <= 0 {
		cfg.RPCTimeout = DefaultRPCTimeout
	}
	if cfg.SlotTimeout <= 0 {
		cfg.SlotTimeout = cfg.RPCTimeout
	}
	if cfg.TaskCancellationTimeout <= 0 {
		cfg.TaskCancellationTimeout = DefaultTaskCancellationTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Heartbeat = cfg.Heartbeat.WithDefaults()
	if err := cfg.Heartbeat.Validate(); err != nil {
		return nil, fmt.Errorf("create TaskExecutor: %w", err)
	}

	te := &TaskExecutor{
		Endpoint:               rpc.NewEndpoint("TaskExecutor"),
		deps:                   deps,
		address:                deps.RPC.Address("taskmanager_" + string(cfg.ResourceID)),
		jobTable:               make(map[api.JobID]*jobTableEntry),
		currentSlotOfferPerJob: make(map[api.JobID]uint64),
	}
	// Everything the TaskExecutor and its tasks log goes silent with Kill.
	cfg.Logger = slog.New(untilKilled{cfg.Logger.Handler(), &te.killed})
	te.cfg = cfg
	te.logger = cfg.Logger.With("logger", "TaskExecutor")
	te.taskSlotTable = NewTaskSlotTable[*taskmanager.Task](cfg.NumberOfSlots, cfg.TotalResourceProfile, cfg.DefaultSlotProfile, cfg.Logger)
	te.partitionTracker = newPartitionTracker(te.releasePartitionsLocally, cfg.Logger.With("logger", "TaskExecutorPartitionTrackerImpl"))
	te.jobLeaderService = &jobLeaderService{
		owner:      te.Endpoint,
		logger:     cfg.Logger.With("logger", "DefaultJobLeaderService"),
		ha:         deps.HA,
		rpcService: deps.RPC,
		location:   gateway.TaskManagerLocation{ResourceID: cfg.ResourceID, Address: te.address, DataAddress: cfg.DataAddress},
		config:     cfg.Registration,
		rpcTimeout: cfg.RPCTimeout,
		listener:   te,
		jobs:       make(map[api.JobID]*jobManagerLeaderListener),
	}
	// Created with the TaskExecutor, as in Flink's constructor; they do
	// nothing until a connection's target is monitored.
	te.jobManagerHeartbeatManager = heartbeat.CreateHeartbeatManager[gateway.AllocatedSlotReport, gateway.TaskExecutorToJobManagerHeartbeatPayload](
		cfg.Heartbeat, cfg.ResourceID, jobManagerHeartbeatListener{te}, te.Endpoint, te.logger)
	te.resourceManagerHeartbeatManager = heartbeat.CreateHeartbeatManager[struct{}, gateway.TaskExecutorHeartbeatPayload](
		cfg.Heartbeat, cfg.ResourceID, resourceManagerHeartbeatListener{te}, te.Endpoint, te.logger)
	te.SetLogger(cfg.Logger)
	return te, nil
}

// Address returns the RPC address the TaskExecutor serves at.
func (te *TaskExecutor) Address() string { return te.address }

// ResourceID returns the TaskExecutor's ResourceID.
func (te *TaskExecutor) ResourceID() api.ResourceID { return te.cfg.ResourceID }

// Start makes the TaskExecutor reachable at Address, starts its main thread
// and starts looking for the ResourceManager leader.
func (te *TaskExecutor) Start() error {
	if err := te.deps.RPC.Register(te.address, te); err != nil {
		return fmt.Errorf("start TaskExecutor %s: %w", te.cfg.ResourceID, err)
	}
	te.started.Store(true)
	te.Endpoint.Start(te.onStart)
	return nil
}

// onStart is Flink's TaskExecutor#onStart → startTaskExecutorServices.
func (te *TaskExecutor) onStart() {
	te.logger.Info(fmt.Sprintf("Starting TaskManager with ResourceID: %s", te.cfg.ResourceID))
	te.resourceManagerLeaderRetriever = te.deps.HA.ResourceManagerLeaderRetriever()
	err := te.resourceManagerLeaderRetriever.Start(leaderListenerFunc(func(address string, session api.LeaderSessionID) {
		te.RunAsync(func() { te.notifyOfNewResourceManagerLeader(address, api.ResourceManagerID(session)) })
	}))
	if err != nil {
		te.logger.Error("Could not start the ResourceManager leader retriever.", "cause", err)
	}
}

// Close stops the TaskExecutor: it fails every task, tells the
// ResourceManager and the JobMaster of each job that it is leaving (each
// within the RPC timeout), waits for the tasks' goroutines (at most
// Config.TaskCancellationTimeout; a task still running then is logged at
// ERROR and left behind), stops being reachable and stops its main thread.
// Close must not be called from the main thread. Closing twice does
// nothing; closing a killed TaskExecutor only releases what is left.
func (te *TaskExecutor) Close() error {
	te.closeOnce.Do(te.close)
	return nil
}

func (te *TaskExecutor) close() {
	if !te.started.Load() {
		te.Endpoint.Close(nil)
		return
	}
	stop, err := rpc.CallAsync(context.Background(), te.Endpoint, func() (shutdown, error) { return te.onStop(), nil })
	if err == nil { // not stopped (or killed) before
		te.deregister(stop)
		te.waitForTasksToStop(stop.tasks)
		if te.deps.BlobCache != nil {
			for _, jobID := range stop.jobs {
				_ = te.deps.BlobCache.ReleaseJob(jobID)
			}
		}
	}
	te.deps.RPC.Unregister(te.address)
	te.Endpoint.Close(nil)
	te.logger.Info(fmt.Sprintf("Stopped TaskExecutor %s.", te.address))
}

// deregister tells the ResourceManager and every connected JobMaster that
// the TaskExecutor is shutting down, all at once, and returns when each has
// answered or its RPC timeout has passed. They release its slots at once
// (the JobMasters fail the tasks that ran in them over to other slots)
// instead of waiting heartbeat.timeout to notice that it is gone.
func (te *TaskExecutor) deregister(stop shutdown) {
	var wg sync.WaitGroup
	tell := func(call func(ctx context.Context) error) {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), te.cfg.RPCTimeout)
			defer cancel()
			_ = call(ctx) // best effort: a peer that does not answer times us out
		})
	}
	if rm := stop.resourceManager; rm != nil {
		tell(func(ctx context.Context) error {
			return rm.DisconnectTaskManager(ctx, stop.resourceManagerID, te.cfg.ResourceID, stop.cause)
		})
	}
	for _, conn := range stop.jobManagers {
		tell(func(ctx context.Context) error {
			return conn.gateway.DisconnectTaskManager(ctx, conn.jobMasterID, te.cfg.ResourceID, stop.cause)
		})
	}
	wg.Wait()
}

// waitForTasksToStop waits until every task's goroutine has returned, or
// until the task cancellation timeout has passed. A task that ignores its
// ctx cannot be stopped from outside, so after the timeout it is logged
// and Close goes on without it.
//
// Differs from Flink: Flink's TaskCancelerWatchDog, started for each
// cancelled task, logs the same message and then kills the TaskManager
// process (notifyFatalError). A goroutine cannot be killed; it runs on and
// its reports go nowhere, as the TaskExecutor has stopped.
func (te *TaskExecutor) waitForTasksToStop(tasks []*taskmanager.Task) {
	timeout := te.cfg.TaskCancellationTimeout
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for i, task := range tasks {
		select {
		case <-task.Done():
			continue
		case <-deadline.C:
		}
		for _, stuck := range tasks[i:] {
			select {
			case <-stuck.Done():
			default:
				te.logger.Error(fmt.Sprintf("Task did not exit gracefully within %d + seconds.", int(timeout.Seconds())),
					"task", stuck.TaskNameWithSubtaskAndAttempt(), "attempt", stuck.ExecutionID().String())
			}
		}
		return
	}
}

// shutdown is what Close does off the main thread: say goodbye to the
// ResourceManager and the JobMasters, wait for the tasks, release the
// jobs' BLOBs.
type shutdown struct {
	cause             error
	tasks             []*taskmanager.Task
	resourceManager   gateway.ResourceManagerGateway
	resourceManagerID api.ResourceManagerID
	jobManagers       []*jobManagerConnection
	jobs              []api.JobID
}

// onStop is Flink's TaskExecutor#onStop, on the main thread: every
// connection is closed here, and the goodbyes are left to Close, which
// sends them from its own goroutine and waits for the answers.
func (te *TaskExecutor) onStop() shutdown {
	te.logger.Info(fmt.Sprintf("Stopping TaskExecutor %s.", te.address))
	stop := shutdown{cause: errors.New("The TaskExecutor is shutting down.")}
	te.stopServices()
	te.jobLeaderService.stop()

	if conn := te.resourceManagerConnection; conn != nil {
		conn.registration.Cancel()
		if conn.established {
			stop.resourceManager, stop.resourceManagerID = conn.gateway, conn.rmID
		}
		te.resourceManagerConnection = nil
	}
	for jobID, job := range te.jobTable {
		if job.connection != nil {
			stop.jobManagers = append(stop.jobManagers, te.closeJobManagerConnection(job, stop.cause))
		}
		stop.jobs = append(stop.jobs, jobID)
	}
	for _, task := range te.taskSlotTable.AllTasks() {
		task.FailExternally(stop.cause)
		stop.tasks = append(stop.tasks, task)
	}
	// Closing a JobManager connection released that job's partitions;
	// whatever is left goes now.
	te.partitionTracker.stopTrackingAndReleaseAllPartitions()
	return stop
}

// stopServices stops everything that could still make the TaskExecutor
// act on its own: leader retrieval and the heartbeat managers. Main thread
// only.
func (te *TaskExecutor) stopServices() {
	te.stopping = true
	if te.resourceManagerLeaderRetriever != nil {
		_ = te.resourceManagerLeaderRetriever.Stop()
	}
	te.jobManagerHeartbeatManager.Stop()
	te.resourceManagerHeartbeatManager.Stop()
}

// Kill simulates kill -9 of the TaskManager process, for tests and fault
// injection. From now on the TaskExecutor answers nothing: every gateway
// method blocks until its ctx ends and returns an error wrapping
// rpc.ErrTimeout, so its callers time out, as they do with Pekko when a
// process has died. Its heartbeat answers stop with it. Its running tasks
// stop without reporting anything, and nobody is told: the ResourceManager
// and the JobMasters must notice through their heartbeat timeouts (or
// through RPCs that time out). Calls already waiting in its mailbox get
// no answer either; work it had queued for itself may still run, as if the
// signal had come a moment later, but writes nothing to its log.
//
// Kill returns once the main thread and the tasks have stopped. Close
// after Kill releases what is left. Kill after Close does nothing.
func (te *TaskExecutor) Kill() {
	te.killOnce.Do(func() {
		select {
		case <-te.Endpoint.Terminated():
			return // closed already
		default:
		}
		te.killed.Store(true)
		var tasks []*taskmanager.Task
		te.Endpoint.Stop(func() { tasks = te.onKill() })
		<-te.Endpoint.Terminated()
		te.waitForTasksToStop(tasks)
	})
}

// onKill is the last thing a killed TaskExecutor's main thread does, and
// it does it without a word (its log is silent already: untilKilled). The
// end of the main thread is queued right behind it, so the final states
// its tasks report when they stop are dropped. (What it stops would simply
// vanish with a real process; here it must be stopped, or it would go on
// acting for the dead TaskExecutor.)
func (te *TaskExecutor) onKill() []*taskmanager.Task {
	te.stopServices()
	te.jobLeaderService.abandon()
	killed := errors.New("The TaskManager process was killed.")
	var tasks []*taskmanager.Task
	for _, task := range te.taskSlotTable.AllTasks() {
		task.FailExternally(killed)
		tasks = append(tasks, task)
	}
	// A dead process's partitions cannot be read any more. Its files
	// would stay on its disk; here they are deleted, so that no consumer
	// reads from a dead TaskExecutor and nothing is left behind.
	te.partitionTracker.stopTrackingAndReleaseAllPartitions()
	return tasks
}

// RequestSlot allocates a slot for a job and offers it to the job's
// JobMaster (Flink's TaskExecutor#requestSlot).
func (te *TaskExecutor) RequestSlot(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
	profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
	return te.callAsync(ctx, func() error {
		return te.requestSlot(slotID, jobID, allocationID, profile, jobMasterAddress, rmID)
	})
}

func (te *TaskExecutor) requestSlot(slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
	profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
	// Step m7 arrives here: the SlotManager matched one of our slots to the
	// job's requirement (it records the step when it sends the request).
	te.logger.Info(fmt.Sprintf("Receive slot request %s for job %s from resource manager with leader id %s.",
		allocationID, jobID, rmID))
	if !te.isConnectedToResourceManager(rmID) {
		msg := fmt.Sprintf("TaskManager is not connected to the resource manager %s.", rmID)
		te.logger.Debug(msg)
		return newException(gateway.ErrTaskManager, nil, "%s", msg)
	}

	if err := te.taskSlotTable.AllocateSlot(slotID.SlotNumber, jobID, allocationID, profile); err != nil {
		te.logger.Debug(fmt.Sprintf("Could not allocate slot for allocation id %s.", allocationID), "cause", err)
		return err
	}
	te.startSlotTimeout(allocationID)

	if !te.jobLeaderService.containsJob(jobID) {
		// Find the job's JobMaster and register there; the slot is offered
		// once that succeeds (jobManagerGainedLeadership).
		if err := te.jobLeaderService.addJob(jobID); err != nil {
			_, _ = te.taskSlotTable.FreeSlot(allocationID)
			return newException(gateway.ErrTaskManager, err, "Could not create new job.")
		}
	}
	// Like Flink's jobTable.getOrCreateJob, a new job enters the table only
	// once its leader is watched: a failed addJob leaves no entry behind.
	job, known := te.jobTable[jobID]
	if !known {
		job = &jobTableEntry{id: jobID, jobMasterAddress: jobMasterAddress}
		te.jobTable[jobID] = job
	}
	if job.connection != nil {
		te.internalOfferSlotsToJobManager(job)
	}
	return nil
}

// SubmitTask deploys a task into one of the job's slots (step m9; Flink's
// TaskExecutor#submitTask).
func (te *TaskExecutor) SubmitTask(ctx context.Context, tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	err := te.callAsync(ctx, func() error {
		if kind, ok := te.injectedSubmitTaskFault(tdd, jobMasterID); ok {
			te.killed.Store(true) // dead from here on: no call queued behind this one is served
			return &diesBeforeTask{kind: kind}
		}
		return te.submitTask(tdd, jobMasterID)
	})
	var dies *diesBeforeTask
	if errors.As(err, &dies) {
		// Step m9 (fault): the TaskManager process dies between offering
		// its slots and receiving this task, as with kill -9. The task
		// never arrives, and the JobMaster's call times out. A killed
		// process writes nothing: only the fault injector said so.
		te.deps.Trace.EmitFailure(trace.M9, "JobMaster", "TaskExecutor", tdd.JobID,
			"submitTask %s: TaskManager %s died before the task arrived: %v", tdd.ExecutionAttemptID, te.cfg.ResourceID, fault.Injected(trace.M9, dies.kind))
		go te.Kill()
		return te.noAnswer(ctx)
	}
	return err
}

// diesBeforeTask is what the main thread answers a deployment that step
// m9's fault breaks; SubmitTask then lets the TaskExecutor die.
type diesBeforeTask struct{ kind fault.Kind }

func (e *diesBeforeTask) Error() string { return fault.Injected(trace.M9, e.kind).Error() }

// injectedSubmitTaskFault asks whether step m9's fault fires for a
// deployment, on the main thread. It is asked only where the deployment
// would really be lost: after the checks Flink's submitTask makes first
// (a JobManager connection for the job, the JobMasterID of that
// connection, a slot allocated to the job), without changing anything. A
// deployment those checks refuse is refused by submitTask as without the
// fault, which stays armed.
func (te *TaskExecutor) injectedSubmitTaskFault(tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) (fault.Kind, bool) {
	if !te.isJobManagerConnectionValid(tdd.JobID, jobMasterID) || !te.taskSlotTable.IsAllocatedToJob(tdd.JobID, tdd.AllocationID) {
		return "", false
	}
	return te.deps.Faults.Fire(trace.M9, tdd.JobID)
}

// submitTask makes the TaskExecutor's checks on a deployment in Flink's
// order, each refusing the task before anything changes, then creates the
// Task in its slot and starts it (Flink's TaskExecutor#submitTask).
//
// Step m9: the TaskExecutor decides here whether it takes the JobMaster's
// deployment; a refusal is recorded by rejectSubmission, the task it takes
// by logReceivedTask.
func (te *TaskExecutor) submitTask(tdd gateway.TaskDeploymentDescriptor, jobMasterID api.JobMasterID) error {
	jobID := tdd.JobID
	job := te.jobTable[jobID]
	if job == nil || job.connection == nil {
		return te.rejectSubmission(jobID, "Could not submit task because there is no JobManager associated for the job %s.", jobID)
	}
	conn := job.connection
	if conn.jobMasterID != jobMasterID {
		return te.rejectSubmission(jobID, "Rejecting the task submission because the job manager leader id %s does not match the expected job manager leader id %s.",
			jobMasterID, conn.jobMasterID)
	}
	if !te.taskSlotTable.TryMarkSlotActive(jobID, tdd.AllocationID) {
		return te.rejectSubmission(jobID, "No task slot allocated for job ID %s and allocation ID %s.", jobID, tdd.AllocationID)
	}
	te.stopSlotTimeout(tdd.AllocationID)

	task := te.createTask(tdd, conn)
	te.logReceivedTask(task)
	if err := te.taskSlotTable.AddTask(task); err != nil {
		if errors.Is(err, ErrDuplicateTask) {
			return te.rejectSubmission(jobID, "TaskManager already contains a task for id %s.", tdd.ExecutionAttemptID)
		}
		return newException(gateway.ErrTaskSubmission, err, "Could not submit task.")
	}
	task.Start()
	te.setupResultPartitionBookkeeping(task)
	return nil
}

// setupResultPartitionBookkeeping starts tracking the BLOCKING partitions
// a task will produce: they outlive the task, until the JobMaster releases
// them (ReleasePartitions) or the TaskExecutor lets go of the job. If the
// task does not finish it releases them itself, and they are forgotten
// (unregisterTaskAndNotifyFinalState). Pipelined partitions release
// themselves once consumed and are not tracked. Flink:
// TaskExecutor#setupResultPartitionBookkeeping.
func (te *TaskExecutor) setupResultPartitionBookkeeping(task *taskmanager.Task) {
	for _, id := range blockingPartitionsOf(task) {
		te.partitionTracker.startTrackingPartition(task.JobID(), id)
	}
}

// blockingPartitionsOf returns the IDs of the BLOCKING partitions a task
// produces.
func blockingPartitionsOf(task *taskmanager.Task) []api.ResultPartitionID {
	var ids []api.ResultPartitionID
	for _, pdd := range task.ProducedPartitions() {
		if pdd.PartitionType.IsBlocking() {
			ids = append(ids, pdd.PartitionID)
		}
	}
	return ids
}

// releasePartitionsLocally releases partitions in the data plane; the
// partition tracker calls it.
func (te *TaskExecutor) releasePartitionsLocally(ids ...api.ResultPartitionID) {
	if te.deps.Shuffle != nil {
		te.deps.Shuffle.ReleasePartitionsLocally(ids...)
	}
}

// createTask creates the Task of a deployment, in state CREATED, with the
// TaskExecutor's services; its states go to the JobMaster of conn, the
// connection the task was deployed through.
func (te *TaskExecutor) createTask(tdd gateway.TaskDeploymentDescriptor, conn *jobManagerConnection) *taskmanager.Task {
	return taskmanager.NewTask(tdd, taskmanager.Deps{
		BlobService: te.blobService(),
		Shuffle:     te.deps.Shuffle,
		Actions:     &taskManagerActions{taskExecutor: te, connection: conn},
		Trace:       te.deps.Trace,
		Faults:      te.deps.Faults,
		Logger:      te.cfg.Logger,

		CheckpointResponder: &checkpointResponder{taskExecutor: te, connection: conn},
	})
}

// logReceivedTask logs, as Flink does, that a deployment passed the checks
// and its task is created, and records step m9 in the trace.
func (te *TaskExecutor) logReceivedTask(task *taskmanager.Task) {
	// Step m9: the JobMaster's deployment arrived and passed the checks.
	received := fmt.Sprintf("Received task %s (%s), deploy into slot with allocation id %s.",
		task.TaskNameWithSubtaskAndAttempt(), task.ExecutionID(), task.AllocationID())
	te.logger.Info(received)
	te.deps.Trace.Emit(trace.M9, "JobMaster", "TaskExecutor", task.JobID(), "%s", received)
}

// rejectSubmission refuses a deployment: it logs the reason at DEBUG, as
// Flink does, records a broken step m9 in the trace and returns the
// TaskSubmissionException.
func (te *TaskExecutor) rejectSubmission(jobID api.JobID, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	te.logger.Debug(msg)
	te.deps.Trace.EmitFailure(trace.M9, "JobMaster", "TaskExecutor", jobID, "submitTask rejected: %s", msg)
	return newException(gateway.ErrTaskSubmission, nil, "%s", msg)
}

// blobService returns the BlobCache as the tasks see it (nil stays a true
// nil interface).
func (te *TaskExecutor) blobService() taskmanager.PermanentBlobService {
	if te.deps.BlobCache == nil {
		return nil
	}
	return te.deps.BlobCache
}

// CancelTask cancels a task; its CANCELED state is reported when it has
// stopped (Flink's TaskExecutor#cancelTask).
func (te *TaskExecutor) CancelTask(ctx context.Context, attemptID api.ExecutionAttemptID) error {
	return te.callAsync(ctx, func() error {
		task, ok := te.taskSlotTable.Task(attemptID)
		if !ok {
			msg := fmt.Sprintf("Cannot find task to stop for execution %s.", attemptID)
			te.logger.Debug(msg)
			return newException(gateway.ErrTask, nil, "%s", msg)
		}
		task.Cancel()
		return nil
	})
}

// FreeSlot frees a slot: its tasks are failed with cause, and once they
// have stopped the slot is free and the ResourceManager is told (Flink's
// TaskExecutor#freeSlot). Freeing an unknown allocation is not an error.
// Only the JobMaster the slot's job is connected to may free it: a
// JobMaster of an older leader session, which lost the leadership without
// knowing it yet, must not free a slot the TaskExecutor has since offered
// to the job's new leader, and fail its tasks.
func (te *TaskExecutor) FreeSlot(ctx context.Context, allocationID api.AllocationID, jobMasterID api.JobMasterID, cause error) error {
	cause = orUnknownCause(cause)
	return te.callAsync(ctx, func() error {
		if jobID, ok := te.taskSlotTable.OwningJob(allocationID); ok {
			if job := te.jobTable[jobID]; job == nil || job.connection == nil || job.connection.jobMasterID != jobMasterID {
				te.logger.Debug(fmt.Sprintf("Ignore freeing slot %s of job %s by JobMaster %s: it is not the job's JobMaster here.", allocationID, jobID, jobMasterID))
				return nil
			}
		}
		te.freeSlotInternal(allocationID, cause)
		return nil
	})
}

// DisconnectJobManager is the JobMaster telling the TaskExecutor that it is
// gone (or done with it). The job's tasks fail, its slots are freed and the
// ResourceManager told, and the connection is forgotten.
//
// Differs from Flink: Flink only marks the slots inactive and reconnects to
// the job's leader; the slots are freed later by taskmanager.slot.timeout,
// which we do not have. So we free them at once.
func (te *TaskExecutor) DisconnectJobManager(ctx context.Context, jobID api.JobID, jobMasterID api.JobMasterID, cause error) error {
	cause = orUnknownCause(cause)
	return te.callAsync(ctx, func() error {
		job := te.jobTable[jobID]
		if job == nil || job.connection == nil {
			return nil
		}
		if job.connection.jobMasterID != jobMasterID {
			te.logger.Debug(fmt.Sprintf("Ignore the disconnection of job %s by JobMaster %s: connected to its leader %s.",
				jobID, jobMasterID, job.connection.jobMasterID))
			return nil
		}
		te.disconnectJobManager(job, cause)
		return nil
	})
}

// ReleasePartitions releases the job's BLOCKING partitions among
// partitionIDs that this TaskExecutor's tasks produced: the JobMaster knows
// that no consumer will read them again. Their files are deleted. IDs it
// does not track are ignored: unknown ones, pipelined ones, and, in the
// embedded cluster where every TaskExecutor shares one
// ResultPartitionManager, those of other TaskExecutors. A job that has
// neither slots nor partitions here any more is then closed. Flink:
// TaskExecutor#releasePartitions.
func (te *TaskExecutor) ReleasePartitions(ctx context.Context, jobID api.JobID, partitionIDs []api.ResultPartitionID) error {
	return te.callAsync(ctx, func() error {
		te.partitionTracker.stopTrackingAndReleaseJobPartitions(jobID, partitionIDs)
		te.closeJobManagerConnectionIfNoAllocatedResources(jobID)
		return nil
	})
}

// callAsync runs a handler with no result on the main thread: how every
// gateway method enters it. A killed TaskExecutor does not answer; see
// Kill.
func (te *TaskExecutor) callAsync(ctx context.Context, fn func() error) error {
	if te.killed.Load() {
		return te.noAnswer(ctx)
	}
	_, err := rpc.CallAsync(ctx, te.Endpoint, func() (struct{}, error) {
		if te.killed.Load() {
			return struct{}{}, errKilled
		}
		return struct{}{}, fn()
	})
	if errors.Is(err, errKilled) || errors.Is(err, rpc.ErrRecipientUnreachable) && te.killed.Load() {
		return te.noAnswer(ctx) // killed while the call waited
	}
	return err
}

// errKilled is what a call that waited in the main thread's queue while
// the TaskExecutor was killed finds there; its caller gets no answer.
var errKilled = errors.New("the TaskExecutor was killed")

// noAnswer is the answer of a killed TaskExecutor: none. The caller waits
// until its ctx ends and gets the RPC timeout it would get from Pekko.
func (te *TaskExecutor) noAnswer(ctx context.Context) error {
	<-ctx.Done()
	return fmt.Errorf("%w: invocation at recipient [%s] timed out: %w", rpc.ErrTimeout, te.address, ctx.Err())
}

// askAck makes a call whose answer carries nothing, and hands its error to
// then (if not nil) on the main thread.
func (te *TaskExecutor) askAck(call func(ctx context.Context) error, then func(err error)) {
	rpc.Ask(te.Endpoint, te.cfg.RPCTimeout,
		func(ctx context.Context) (struct{}, error) { return struct{}{}, call(ctx) },
		func(_ struct{}, err error) {
			if then != nil {
				then(err)
			}
		})
}

// Read-only views for tests and tools. Each runs on the main thread.

// NumberOfFreeSlots returns how many static slots are free.
func (te *TaskExecutor) NumberOfFreeSlots(ctx context.Context) (int, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() (int, error) { return te.taskSlotTable.NumberOfFreeSlots(), nil })
}

// Slots returns a snapshot of every allocated slot, by index; a free slot
// is not in it.
func (te *TaskExecutor) Slots(ctx context.Context) ([]TaskSlot, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() ([]TaskSlot, error) { return te.taskSlotTable.Slots(), nil })
}

// IsSlotFree reports whether no slot holds index.
func (te *TaskExecutor) IsSlotFree(ctx context.Context, index int) (bool, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() (bool, error) { return te.taskSlotTable.IsSlotFree(index), nil })
}

// Tasks returns the state of every task the TaskExecutor holds.
func (te *TaskExecutor) Tasks(ctx context.Context) (map[api.ExecutionAttemptID]api.ExecutionState, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() (map[api.ExecutionAttemptID]api.ExecutionState, error) {
		states := make(map[api.ExecutionAttemptID]api.ExecutionState)
		for _, task := range te.taskSlotTable.AllTasks() {
			states[task.ExecutionID()] = task.State()
		}
		return states, nil
	})
}

// IsConnectedToResourceManager reports whether the TaskExecutor is
// registered at a ResourceManager.
func (te *TaskExecutor) IsConnectedToResourceManager(ctx context.Context) (bool, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() (bool, error) {
		conn := te.resourceManagerConnection
		return conn != nil && conn.established, nil
	})
}

// IsConnectedToJobManager reports whether the TaskExecutor is registered
// at the job's JobMaster.
func (te *TaskExecutor) IsConnectedToJobManager(ctx context.Context, jobID api.JobID) (bool, error) {
	return rpc.CallAsync(ctx, te.Endpoint, func() (bool, error) {
		job := te.jobTable[jobID]
		return job != nil && job.connection != nil, nil
	})
}

// leaderListenerFunc adapts a function to a LeaderRetrievalListener. The
// HA services call it synchronously, so it must only hand the news to the
// main thread.
type leaderListenerFunc func(address string, sessionID api.LeaderSessionID)

func (f leaderListenerFunc) NotifyLeaderAddress(address string, sessionID api.LeaderSessionID) {
	f(address, sessionID)
}

// startSlotTimeout frees an allocated slot that is still not in use after
// SlotTimeout: its job may never come for it (its JobMaster ended before
// the slot could be offered, say). Flink: TaskSlotTable's TimerService and
// TaskExecutor#timeoutSlot.
func (te *TaskExecutor) startSlotTimeout(allocationID api.AllocationID) {
	if te.slotTimeouts == nil {
		te.slotTimeouts = make(map[api.AllocationID]uint64)
	}
	te.slotTickets++
	ticket := te.slotTickets
	te.slotTimeouts[allocationID] = ticket
	te.ScheduleRunAsync(func() {
		if te.slotTimeouts[allocationID] != ticket {
			return // the slot was used, freed or timed again meanwhile
		}
		delete(te.slotTimeouts, allocationID)
		if _, ok := te.taskSlotTable.OwningJob(allocationID); ok {
			te.freeSlotInternal(allocationID, fmt.Errorf("The slot %s has timed out.", allocationID))
		}
	}, te.cfg.SlotTimeout)
}

// stopSlotTimeout cancels the slot's timeout: it is in use.
func (te *TaskExecutor) stopSlotTimeout(allocationID api.AllocationID) {
	delete(te.slotTimeouts, allocationID)
}
