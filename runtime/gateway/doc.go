// Package gateway is the API between the runtime's components: four Go
// interfaces, one per component, and the messages they carry. Reading a
// gateway tells you everything one component may ask of another.
//
// It mirrors Flink's DispatcherGateway, JobMasterGateway,
// ResourceManagerGateway and TaskExecutorGateway, and the messages of
// org.apache.flink.runtime.{taskexecutor,jobmaster,resourcemanager,deployment}
// (SlotOffer, SlotReport, ResourceRequirements, TaskDeploymentDescriptor,
// TaskExecutionState, the registration responses).
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
// RequestJobStatus, RequestJob and Cancel: only the job's own
// JobManagerRunner calls them, in the same process, on the JobMaster it
// created for its current leadership.
// The TaskExecutor is not fenced, but SubmitTask and RequestSlot carry the
// sender's token and the TaskExecutor checks it, as Flink does.
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
// ResourceManager (DisconnectJobManager).
package gateway
