// Package gateway is the API between the runtime's components: four Go
// interfaces, one per component, the messages they carry and the errors
// they answer with. Reading a gateway tells you everything one component
// (or the REST endpoint) may ask of another, and what it may get back.
//
// It mirrors Flink's DispatcherGateway, JobMasterGateway,
// ResourceManagerGateway and TaskExecutorGateway, and the messages of
// org.apache.flink.runtime.{taskexecutor,jobmaster,resourcemanager,deployment}
// (SlotOffer, SlotReport, ResourceRequirements, TaskDeploymentDescriptor,
// TaskExecutionState, the registration responses, ResourceOverview).
//
// Flink's `CompletableFuture<T> m(args, @RpcTimeout Time timeout)` becomes
// `M(ctx context.Context, args) (T, error)`: the ctx deadline is the RPC
// timeout, and the call returns when the answer arrives. Inside a component
// a gateway call is never made on the main thread; see rpc.Ask.
//
// # Fencing tokens
//
// The JobMaster and the ResourceManager are fenced: every method other
// components call on their gateways takes the receiver's fencing token
// (api.JobMasterID, api.ResourceManagerID) as its first argument after ctx,
// and the receiver rejects a stale token before doing anything else
// (rpc.ErrFencingTokenMismatch). The exceptions are the JobMaster's
// RequestJobStatus, RequestJob, Cancel, the two calls of its resource
// requirements, its savepoints and its checkpoint statistics: only the
// Dispatcher, through the job's own JobManagerRunner, calls them, in the
// same process, on the JobMaster the runner created for its current
// leadership. The ResourceManager's
// RequestResourceOverview and RequestTaskManagerInfo are not fenced
// either: the REST endpoint asks them of the ResourceManager of its own
// process.
// The TaskExecutor is not fenced, but SubmitTask and RequestSlot carry the
// sender's token and the TaskExecutor checks it, as Flink does.
//
// # Between processes
//
// All of a gateway's arguments and results are plain data that travel as
// JSON, so the same interfaces work over rpc.TCPService: package
// gateway/remote holds the stubs a caller gets for a remote endpoint. Two
// kinds of value need help on the wire: errors (a cause argument, a
// TaskExecutionState's FailureCause) travel in the RPC layer's error form,
// and the JobGraph in its own JSON codec.
//
// An error answered across processes keeps only its text, unless it is
// registered for the wire. errors.go registers, in one list, every error a
// caller may test for with errors.Is (ErrJobNotFound, ErrUnknownJobManager,
// ErrSlotOccupied, ..., the transport's rpc.ErrTimeout and
// rpc.ErrFencingTokenMismatch) or find with errors.As (TimeoutException),
// so these survive the trip. Each is declared next to the gateway whose
// methods answer with it, so that a caller, the REST endpoint among them,
// understands an answer without importing the component that gave it.
//
// # Who calls what during a submission
//
//	m3  REST/MiniCluster → Dispatcher      DispatcherGateway.SubmitJob
//	m5  JobMaster → ResourceManager        ResourceManagerGateway.RegisterJobMaster
//	m6  JobMaster → ResourceManager        ResourceManagerGateway.DeclareRequiredResources
//	m7  ResourceManager → TaskExecutor     TaskExecutorGateway.RequestSlot
//	    TaskExecutor → JobMaster           JobMasterGateway.RegisterTaskManager
//	m8  TaskExecutor → JobMaster           JobMasterGateway.OfferSlots
//	m9  JobMaster → TaskExecutor           TaskExecutorGateway.SubmitTask
//	m11 TaskExecutor → JobMaster           JobMasterGateway.UpdateTaskExecutionState
//
// Before any job arrives, each TaskExecutor registers at the
// ResourceManager (RegisterTaskExecutor) and reports its slots
// (SendSlotReport). At the end of a job the JobMaster frees its slots
// (TaskExecutorGateway.FreeSlot), the TaskExecutor tells the ResourceManager
// (NotifySlotAvailable), and the JobMaster disconnects from the
// ResourceManager (DisconnectJobManager). The BLOCKING partitions a
// finished task produced stay on its TaskExecutor, to be read by later
// consumers, until the JobMaster releases them
// (TaskExecutorGateway.ReleasePartitions) or disconnects.
//
// # Heartbeats
//
// Three pairs of components watch each other (package heartbeat). In each
// pair one side asks for a heartbeat every heartbeat.interval, the other
// answers, and each side times the other out after heartbeat.timeout:
//
//	JobMaster       ─HeartbeatFromJobManager─►      TaskExecutor ─HeartbeatFromTaskManager─► JobMaster
//	ResourceManager ─HeartbeatFromResourceManager─► TaskExecutor ─HeartbeatFromTaskManager─► ResourceManager
//	ResourceManager ─HeartbeatFromResourceManager─► JobMaster    ─HeartbeatFromJobManager─►  ResourceManager
//
// A lost peer is disconnected as if it had said goodbye (the code behind
// DisconnectTaskManager and DisconnectJobManager), with a TimeoutException
// as the cause when its heartbeat timed out. A TaskExecutor that shuts down does say goodbye, to the
// ResourceManager and to each of its JobMasters, so that nobody has to
// wait for the timeout.
//
// # Differs from Flink
//
//   - The heartbeat payloads (AllocatedSlotReport,
//     TaskExecutorToJobManagerHeartbeatPayload, TaskExecutorHeartbeatPayload)
//     are empty; their doc comment says why. The other three heartbeat
//     messages carry nothing in Flink either (Void), so they have no
//     payload argument here.
//   - The JobMaster's heartbeat methods are an interface of their own,
//     JobMasterHeartbeatGateway, next to JobMasterGateway.
//   - The heartbeat methods of the fenced gateways take no fencing token:
//     a heartbeat from a peer the receiver does not monitor is ignored
//     anyway. Flink sends them through the fenced gateway like every other
//     message.
//   - Neither do the ResourceManager's RequestResourceOverview and
//     RequestTaskManagerInfo: the REST endpoint holds the ResourceManager
//     of its process, not one it found by leader retrieval. Flink's REST
//     handlers retrieve the leader's gateway with its fencing token.
//   - RequestTaskManagerInfo answers every TaskManager with its allocated
//     slots (TaskManagerInfo.AllocatedSlots); Flink asks for one
//     TaskManager's slots with requestTaskManagerDetailsInfo, which
//     answers a TaskManagerInfoWithSlots.
//   - Errors are registered for the wire in a list (errors.go); Flink
//     serializes any exception with its cause chain.
package gateway
