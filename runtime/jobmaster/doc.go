// Package jobmaster runs one job: the JobMaster builds the job's
// ExecutionGraph, connects to the ResourceManager, collects slots and lets
// its scheduler deploy the tasks, then follows them to the end.
//
// It mirrors Flink's JobMaster (org.apache.flink.runtime.jobmaster), a
// FencedRpcEndpoint whose fencing token, the JobMasterID, is the leader
// session its JobManagerRunner was granted.
//
// # Lifecycle
//
//	New        "Initializing job 'name' (id)." — build the ExecutionGraph and
//	           the scheduler (Flink does this in the constructor, through
//	           createScheduler). An invalid graph fails here, and the runner
//	           reports "Could not start the JobMaster."
//	Start      onStart → startJobExecution: "Starting execution of job ...",
//	           leader retrieval of the ResourceManager, startScheduling.
//	           Slot requests wait in the slot pool until the ResourceManager
//	           is connected, and fail if they are not fulfilled within
//	           slot.request.timeout (Config.SlotRequestTimeout, 5 min).
//	(the job runs: see the scheduler package)
//	terminal   the JobMaster disconnects from the ResourceManager (which
//	           clears the job's requirements), then frees its slots at their
//	           TaskExecutors, and only then does the runner learn the result.
//	           In the other order a freed slot could be handed straight back
//	           to the finished job.
//	Close      a job that is not globally terminal is suspended: the
//	           JobMaster tells the ResourceManager (which keeps the job's
//	           requirements for a new leader) and frees its slots at their
//	           TaskExecutors, as Flink's onStop does; then the endpoint stops.
//
// # Messages
//
// From the ResourceManager side (step m5, step m6): the JobMaster registers
// with RegisterJobMaster, retried with Flink's backoff (package
// registration; the JobMaster retries forever, though its job's slot
// requests fail after slot.request.timeout), then declares its slot pool's
// requirements. From TaskExecutors: RegisterTaskManager, OfferSlots (step
// m8), UpdateTaskExecutionState (m11 and the other state reports). From its
// runner: RequestJobStatus, RequestJob, Cancel.
//
// All state lives on the JobMaster's main thread, including the scheduler's,
// the ExecutionGraph's and the slot pool's. Outgoing calls from the main
// thread go out with rpc.Ask, or rpc.AskInOrder where their order matters
// (declarations, then the final disconnect); only Close, which runs on its
// caller's goroutine, calls gateways directly.
//
// # Heartbeats
//
// The JobMaster watches its peers with package heartbeat (heartbeats.go),
// with the managers it creates when it starts:
//
//	TaskExecutors    it asks each registered one every heartbeat.interval (sender)
//	ResourceManager  it answers its requests (receiver)
//
// A TaskExecutor that does not answer for heartbeat.timeout is lost:
//
//	INFO Heartbeat of TaskManager with id tm-1 timed out.
//	INFO Disconnect TaskExecutor tm-1 because: Heartbeat of TaskManager with id tm-1 timed out.
//
// Its slots are released, the tasks that ran in them fail with that
// TimeoutException, and the restart strategy decides whether the job
// restarts (in other slots) or fails; the TaskExecutor is told
// (DisconnectJobManager), in case it is alive. A TaskExecutor that shuts
// down says so itself (DisconnectTaskManager) and is handled the same way
// at once. When the ResourceManager stops asking, the JobMaster logs "The
// heartbeat of ResourceManager with id rm timed out.", closes the
// connection ("Close ResourceManager connection rm: ..."), tells the
// ResourceManager, and registers at the leader again, which keeps the
// job's requirements meanwhile.
//
// # Differs from Flink
//
//   - The heartbeats carry no payloads (see gateway.AllocatedSlotReport):
//     the JobMaster does not reconcile its deployments with the
//     TaskExecutors' reports.
//   - No JobMaster-side partition tracker or shuffle master.
package jobmaster
