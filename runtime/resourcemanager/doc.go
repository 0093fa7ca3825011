// Package resourcemanager is the JobManager's keeper of TaskManagers: it
// knows which TaskExecutors exist and how many slots each has, and it hands
// those slots to the jobs that need them. When a job's slots do not arrive,
// this is the component to look at (together with its SlotManager).
//
// It mirrors Flink's org.apache.flink.runtime.resourcemanager:
//
//	Flink                                        flinklab                  file
//	ResourceManager, StandaloneResourceManager   ResourceManager           resourcemanager.go
//	  registerJobMaster, declareRequired...      its JobMaster methods     jobmanagers.go
//	  registerTaskExecutor, sendSlotReport, ...  its TaskExecutor methods  taskexecutors.go
//	  requestResourceOverview, requestTaskMa...  its REST methods          overview.go
//	JobManagerRegistration                       jobManagerRegistration    jobmanagers.go
//	WorkerRegistration                           workerRegistration        taskexecutors.go
//
// and delegates the slot bookkeeping to package slotmanager
// (FineGrainedSlotManager).
//
// # Lifecycle
//
//	New ──► Start ──► (granted leadership) ──► leading ──► (revoked) ──► standby ──► ... ──► Close
//
// Start logs "Starting resource manager service.", registers the
// ResourceManager in the rpc.Service under "resourcemanager_0", starts its
// main thread and enters the leader election (it is a
// highavailability.LeaderContender). When leadership is granted, on the
// main thread, the ResourceManager:
//
//  1. logs "Resource manager service is granted leadership with session
//     id <session>." and turns the leader session ID into its fencing
//     token, the api.ResourceManagerID;
//  2. logs "Starting the resource manager." and starts its SlotManager
//     ("Starting the slot manager.");
//  3. confirms the leadership with its address. Only now does leader
//     retrieval tell JobMasters and TaskExecutors where the ResourceManager
//     is and which ResourceManagerID to put into their calls.
//
// When leadership is revoked ("Resource manager service is revoked
// leadership with session id <session>.") it suspends the SlotManager and
// forgets every registration: JobMasters and TaskExecutors register again
// with the next leader. Close logs "Stopping resource manager service.",
// leaves the election (the revocation that follows is ignored: "Resource
// manager service is not running. Ignore revoking leadership.") and stops
// the main thread.
//
// The leadership lines are those of Flink's ResourceManagerServiceImpl and
// carry its logger name; "Starting the resource manager." is
// ResourceManager#onStart's and carries StandaloneResourceManager.
//
// # The messages it handles
//
// Every gateway method but the heartbeat answers and the REST endpoint's
// questions is fenced: it runs only if the caller's ResourceManagerID is
// the current one (rpc.ErrFencingTokenMismatch otherwise, before anything
// else happens). The errors the methods answer with
// (gateway.ErrUnknownJobManager, ...) are declared next to the gateway.
//
//	from a JobMaster
//	  RegisterJobMaster          m5  remember the job's JobMaster (a new JobMasterID replaces the old one)
//	  DeclareRequiredResources   m6  the job's complete requirements → SlotManager.ProcessResourceRequirements
//	  DisconnectJobManager           forget the JobMaster; a finished job's requirements are cleared
//	from a TaskExecutor
//	  RegisterTaskExecutor           a fresh InstanceID for this registration
//	  SendSlotReport                 the first report registers its slots at the SlotManager,
//	                                 later ones reconcile them
//	  NotifySlotAvailable            a slot was freed → SlotManager.FreeSlot
//	  DisconnectTaskManager          forget the TaskExecutor and its slots
//	from both (not fenced)
//	  HeartbeatFromTaskManager,      answers to the ResourceManager's heartbeat requests
//	  HeartbeatFromJobManager
//	from the REST endpoint (not fenced)
//	  RequestResourceOverview        counts of TaskManagers, slots and free slots (GET /overview)
//	  RequestTaskManagerInfo         each TaskManager's address, slots, resources and memory (GET /taskmanagers)
//	to a TaskExecutor (through the SlotManager)
//	  RequestSlot                m7  give this slot to this job
//
// A submission meets the ResourceManager twice: the JobMaster registers
// (m5) and declares what it needs, say "3 slots of any profile" (m6). The
// SlotManager then matches the requirements to free slots and asks the
// chosen TaskExecutors for them (m7); the TaskExecutors offer the slots to
// the JobMaster themselves (m8), without the ResourceManager.
//
// Before any of that, each TaskExecutor registers and sends its slot report:
//
//	Registering TaskManager with ResourceID tm-1 (pekko://flink/user/rpc/taskmanager_0) at ResourceManager
//	Registering task executor tm-1 under 5b9f... at the slot manager.
//
// Its registration (gateway.TaskExecutorRegistration) also carries its
// resources, as Flink's does: the total its slots share
// (api.ResourceProfile: CPU cores and task heap, task
// off-heap, managed and network memory), the size of each part of its
// memory (clusterframework.TaskExecutorMemoryConfiguration) and its
// hardware. The SlotManager cuts every slot out of that total: a slot of
// the default slot profile (the total divided by the number of slots,
// clusterframework.DefaultSlotResourceProfile, Flink's
// SlotManagerUtils#generateDefaultSlotResourceProfile) for a job that
// configured no resources, a slot of exactly the requested profile for
// one that did. The REST endpoint (RequestTaskManagerInfo) answers the
// registration with the SlotManager's account of what is allocated and
// what is free. A registration without resources is refused: Flink's
// TaskExecutors always send them.
//
// # Heartbeats
//
// While it leads, the ResourceManager asks every registered TaskExecutor
// and JobMaster for a heartbeat every heartbeat.interval (package
// heartbeat; heartbeats.go). One that does not answer for
// heartbeat.timeout is lost, and handled as if it had said goodbye:
//
//	INFO The heartbeat of TaskManager with id tm-1 timed out.
//	INFO Closing TaskExecutor connection tm-1 because: The heartbeat of TaskManager with id tm-1 timed out.
//	     its slots leave the SlotManager; jobs that held them get slots elsewhere
//
//	INFO The heartbeat of JobManager with id jm-1 timed out.
//	INFO Disconnect job manager <jobMasterId>@<address> for job <jobId> from the resource manager.
//	     the job's requirements stay, for the JobMaster to find when it registers again
//
// The heartbeat managers start and stop with the leadership, as in Flink.
//
// # Which goroutine calls what
//
// The ResourceManager embeds an rpc.FencedEndpoint: one goroutine, the main
// thread, owns every field, and the SlotManager runs on that goroutine too.
// Gateway methods may be called from any goroutine; they enter the main
// thread through rpc.CallFenced and return its answer. A handler never
// waits for another component: requestSlot goes out through rpc.Ask and its
// answer comes back as a new mailbox message. The read-only helpers
// (RequestResourceOverview, NumberOfFreeSlots, ...) use rpc.CallAsync
// without fencing, as Flink's web UI queries do.
//
// Connecting back to a registering JobMaster or TaskExecutor (rpc.Connect)
// happens before the registration reaches the main thread, on the caller's
// goroutine: between processes it may dial, and the main thread must not
// wait for the network. Flink connects asynchronously and continues on the
// main thread the same way.
//
// # Standalone and active resource managers
//
// A standalone ResourceManager works with the TaskManagers someone else
// started (start-cluster.sh, a Kubernetes Deployment of a fixed size). If
// there are too few slots, jobs wait; after the start-up period
// (resourcemanager.standalone.start-up-time, default slot.request.timeout,
// 5 min) Flink tells their JobMasters that there are not enough resources.
//
// An active ResourceManager (Flink's ActiveResourceManager with a
// KubernetesResourceManagerDriver or YarnResourceManagerDriver) also
// starts and stops TaskManager processes itself: when the SlotManager is
// left with unfulfilled requirements it declares the workers it needs, and
// the ResourceManagerDriver asks Kubernetes for pods or YARN for containers.
// A new TaskManager then registers like any other, and idle ones are
// released after resourcemanager.taskmanager-timeout. In flinklab that
// driver would be a Deps field used at two seams, both marked in the code:
// where the SlotManager leaves requirements unfulfilled
// (slotmanager.FineGrainedSlotManager.checkResourceRequirements) and where
// a registering TaskExecutor is accepted (registerTaskExecutorInternal).
//
// # Differs from Flink
//
//   - One ResourceManager object handles every leadership. Flink's
//     ResourceManagerServiceImpl creates a new ResourceManager per
//     leadership; the effect (a clean state per leadership) is the same.
//   - The heartbeats carry no payloads (see
//     gateway.TaskExecutorHeartbeatPayload): later slot reports would
//     arrive through SendSlotReport, not with the TaskExecutors'
//     heartbeats.
//   - No JobLeaderIdService: Flink checks a registering JobMaster's
//     JobMasterID against the job's leader election; we trust it, and a
//     newer JobMasterID replaces the older one.
//   - The JobMaster and TaskExecutor are not told when the ResourceManager
//     disconnects them (their gateways have no disconnectResourceManager).
//     They notice when its heartbeat requests stop, and register again.
//   - Flink's SlotManager keeps the account of each TaskManager's
//     resources itself (getRegisteredResourceOf, getFreeResourceOf) and
//     matches requirements against what each TaskManager has left; ours
//     matches them against free static slots, so the ResourceManager
//     works the free resources out from the registration and the
//     allocated slots (SlotManager.AllocatedSlotsOf) when asked. Every
//     allocated slot takes the default share: jobs here configure no
//     resources.
package resourcemanager
