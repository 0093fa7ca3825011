// Package slotmanager is the ResourceManager's matchmaker: it knows the
// resources of every registered TaskExecutor and the slots cut out of
// them, it knows what every job has declared it needs, and it asks
// TaskExecutors for slots until each job has what it asked for (step m7 of
// a submission).
//
// It mirrors Flink's org.apache.flink.runtime.resourcemanager.slotmanager:
//
//	FineGrainedSlotManager             the SlotManager itself          slotmanager.go
//	DefaultResourceAllocationStrategy  whose resources serve which job  allocationstrategy.go
//	DefaultSlotStatusSyncer            requestSlot and slot reports     slotstatussyncer.go
//	FineGrainedTaskManagerTracker      TaskExecutors, resources, slots  taskmanagertracker.go
//	DefaultResourceTracker             each job's declared requirements resourcetracker.go
//	SlotState                          FREE, PENDING, ALLOCATED         slotstate.go
//
// # A short history, because Flink logs and blog posts mention all three
//
// Flink has had three slot managers, and a learner reading older material
// meets the older names:
//
//   - SlotManagerImpl: JobMasters asked for one slot at a time
//     (requestSlot with a SlotRequest). Removed in Flink 1.14 (FLINK-22627).
//   - DeclarativeSlotManager: added in Flink 1.12 (FLINK-19306). JobMasters
//     declare everything they need at once ("3 slots of any profile") and
//     the SlotManager works towards that. The default through Flink 1.17,
//     removed in 1.19 (FLINK-31449).
//   - FineGrainedSlotManager: added in Flink 1.13 (FLINK-20835), declarative
//     too, and able to cut slots of different sizes out of a TaskManager.
//     The default since Flink 1.18 (FLINK-31448) and the only one since
//     1.19. This package mirrors it.
//
// # How requirements become slots
//
// Since Flink 1.18 the SlotManager does not hand out the slots a
// TaskExecutor was started with. It knows each TaskExecutor's total
// resources (its TaskExecutorRegistration carries them) and cuts slots out
// of them on demand: a slot of exactly the requested ResourceProfile for a
// job whose slot sharing group has resources, a slot of the TaskExecutor's
// default slot profile (its total divided by taskmanager.numberOfTaskSlots)
// for a requirement of ResourceProfile{UNKNOWN}, which is what every job
// without fine-grained resources asks for. What no slot holds is the
// TaskExecutor's available resource; a free slot is not tracked at all.
//
//	JobMaster ──m6 declareRequiredResources──► ResourceManager
//	                                              │ ProcessResourceRequirements
//	                                              ▼
//	                           FineGrainedSlotManager (on the RM's main thread)
//	                                              │ wait RequirementCheckDelay (50 ms)
//	                                              ▼
//	         checkResourceRequirements: missing = required − held, per job
//	                                              │ DefaultResourceAllocationStrategy (pure)
//	                                              ▼
//	   allocateSlot: a new slot, PENDING ──m7 requestSlot(dynamic)──► TaskExecutor
//	                                              │ answer, back on the main thread
//	                                              ▼
//	                 ALLOCATED, or freed again and another check
//
// Declarations are complete, not deltas: a job that declares "3 slots"
// twice needs 3 slots, not 6. ProcessResourceRequirements replaces the
// job's requirements and schedules one check after
// slotmanager.requirement-check.delay; everything else that arrives within
// that delay (more declarations, TaskExecutors registering, slots freed)
// is handled by the same check, so a burst of changes costs one matching
// run.
//
// The check computes what each job lacks (its requirements minus the slots
// it holds, PENDING or ALLOCATED; see MissingRequirements), logs Flink's
// "Matching resource requirements against available resources." block
// (each TaskManager's Available and Total ResourceProfile), and hands the
// missing requirements and the TaskManagers' resources to the strategy.
// The strategy is a pure function: it decides, and the SlotManager acts.
// Its rule is documented on DefaultResourceAllocationStrategy; in short,
// jobs first come first served, and each TaskManager filled before the
// next.
//
// For each decision the slot status syncer picks a fresh AllocationID,
// records a PENDING slot of the decided profile (so the next check does not
// hand the same resources out twice), logs "Starting allocation of slot
// ..." and sends requestSlot with a dynamic SlotID (api.DynamicSlotID,
// printed "<resource id>_dynamic"): the TaskExecutor's TaskSlotTable cuts
// the slot out of its own budget. If the TaskExecutor refuses or does not
// answer within the RPC timeout, it logs "Slot allocation for allocation
// ... failed.", the slot is freed again, and another check is scheduled.
//
// A job that no TaskManager has the resources for waits. When a TaskExecutor registers or
// a slot is freed, the next check serves it. That is so during the
// ResourceManager's start-up period (resourcemanager.standalone.start-up-time:
// TaskManagers are still arriving); once it is over, the ResourceManager
// turns on FailUnfulfillableRequests, and a check that cannot serve a job
// logs "Could not fulfill resource requirements of job …" and tells its
// JobMaster (Deps.NotEnoughResources), whose waiting slot requests fail with
// "NoResourceAvailableException: Could not acquire the minimum required
// resources." — the job restarts or fails, as its restart strategy says.
//
// Step m7's injected fault ("no-matching-slot", see package fault) hides
// every TaskManager's resources from one job until the job has been told
// so: with it, a learner sees exactly this sequence on a cluster with
// plenty of room.
//
// # Who calls what, on which goroutine
//
// The SlotManager is not an rpc.Endpoint and has no goroutine of its own.
// It lives on the ResourceManager's main thread, as Flink's does, and every
// method must be called there. Start receives the ResourceManager's
// endpoint, which the SlotManager uses for exactly two things:
//
//   - ScheduleRunAsync, for the delayed requirement check;
//   - rpc.Ask, to call TaskExecutorGateway.RequestSlot without blocking
//     the main thread. The call runs on a short-lived goroutine; its
//     answer comes back to the main thread as a mailbox message.
//
// An answer may arrive after the world has moved on: the slot was freed, a
// slot report already confirmed it, the TaskExecutor unregistered, the
// ResourceManager lost leadership. The syncer remembers which allocations
// it is still waiting for and ignores answers for any other.
//
// # Lifecycle
//
//	New ──► Start(rmID, mainThread) ──► ... ──► Suspend ──► Start(newRmID, ...) ──► ... ──► Close
//
// The ResourceManager starts its SlotManager when it is granted leadership
// and suspends it when it loses leadership; suspending forgets everything,
// because the next leader learns it again from re-registering
// TaskExecutors and JobMasters.
//
// # Standalone and active resource managers
//
// In a standalone cluster TaskManagers are started by hand (or a script),
// so the SlotManager only ever works with the resources it is given. An active
// ResourceManager (Kubernetes, YARN) also asks for new TaskManagers: where
// checkResourceRequirements is left with unfulfilled jobs, Flink's strategy
// plans PendingTaskManagers and the ResourceManager's
// ResourceManagerDriver starts them. That seam is marked in
// checkResourceRequirements; flinklab does not have an active mode yet.
//
// # Differs from Flink
//
//   - The requirements of one job are served specific profiles first, and
//     the TaskManagers are taken in registration order (see
//     DefaultResourceAllocationStrategy); Flink's come out of hash maps.
//   - No idle-TaskManager timeout (resourcemanager.taskmanager-timeout), no
//     max-total-resource limits, no blocked TaskManagers, no metrics.
package slotmanager
