// Package heartbeat lets a component notice that a peer it is connected to
// has died or hangs: a JobMaster its TaskExecutors, a ResourceManager its
// TaskExecutors and JobMasters, and the other way round. It mirrors Flink's
// org.apache.flink.runtime.heartbeat: HeartbeatManagerImpl,
// HeartbeatManagerSenderImpl, DefaultHeartbeatMonitor, HeartbeatTarget,
// HeartbeatListener, HeartbeatServices and NoOpHeartbeatManager.
//
// # Who asks and who answers
//
// Heartbeats in Flink are pulled, not pushed. Of each connected pair, one
// side is the sender: every heartbeat.interval it asks the other for a
// heartbeat (requestHeartbeat). The other side, the receiver, answers each
// request with a heartbeat of its own (receiveHeartbeat). Both sides watch
// the other: a request tells the receiver that the sender is alive, an
// answer tells the sender that the receiver is.
//
//	sender           receiver          request carries        answer carries
//	JobMaster        ─► TaskExecutor   AllocatedSlotReport    accumulators and deployed executions
//	ResourceManager  ─► TaskExecutor   nothing                SlotReport and ClusterPartitionReport
//	ResourceManager  ─► JobMaster      nothing                nothing
//
// The managers are created when a component starts, and targets are
// monitored when a connection is established: the JobMaster monitors a
// TaskExecutor once it registered (registerTaskManager), and the
// TaskExecutor monitors that JobMaster once its registration succeeded;
// the ResourceManager monitors TaskExecutors and JobMasters when they
// register, and they monitor it back. Each side uses the gateway of the
// other for the RPCs: the JobMaster's target for a TaskExecutor calls
// TaskExecutorGateway.heartbeatFromJobManager, whose handler on the
// TaskExecutor calls its manager's RequestHeartbeat; the answer calls
// JobMasterGateway.heartbeatFromTaskManager, whose handler calls the
// JobMaster's manager's ReceiveHeartbeat.
//
// # Payloads
//
// A heartbeat is also the regular channel on which two components compare
// their views of shared state, so the other messages need not be perfectly
// reliable. HeartbeatManager[I, O] has two payload types: I arrives with
// heartbeats and goes to the listener's ReportPayload; O is what the
// listener's RetrievePayload returns for the next heartbeat out.
//
//   - The JobMaster sends each TaskExecutor an AllocatedSlotReport, the slots
//     the job holds there; the TaskExecutor frees slots the JobMaster no
//     longer knows of (syncSlotsWithSnapshotFromJobMaster).
//   - The TaskExecutor answers with its accumulators and the executions
//     deployed on it (TaskExecutorToJobManagerHeartbeatPayload); the
//     JobMaster updates the accumulators and reconciles the deployments:
//     executions it does not know are cancelled, and executions the
//     TaskExecutor no longer reports are failed.
//   - To the ResourceManager the TaskExecutor answers with a SlotReport,
//     which corrects the SlotManager's view of free and allocated slots,
//     and a ClusterPartitionReport.
//
// Payloads the pair does not need are Go's struct{} (Flink's Void).
// Differs from Flink: in flinklab every payload is struct{} for now, so
// heartbeats only prove that the peer is alive; the reconciliations above
// do not happen (see the "Differs from Flink" notes of the jobmaster,
// resourcemanager and taskexecutor packages).
//
// # The timeline of a timeout
//
// Every monitored target has a timer of heartbeat.timeout. Each heartbeat
// from the target restarts it; if it runs out, the listener's
// NotifyHeartbeatTimeout is called. With the defaults (interval 10 s,
// timeout 50 s) and a TaskExecutor that dies at 12 s:
//
//	 t   JobMaster (sender)                       TaskExecutor (receiver)
//	 0   requestHeartbeat(slot report) ─────────► restarts its JobManager timer,
//	     restarts its TaskManager timer ◄──────── answers: receiveHeartbeat(payload)
//	10   requestHeartbeat ──────────────────────► (same)
//	     restarts its TaskManager timer ◄────────
//	12                                            the process dies
//	20   requestHeartbeat: no answer
//	30   requestHeartbeat: no answer
//	...
//	60   50 s after the answer at 10 the timer fires:
//	     "Heartbeat of TaskManager with id tm-1 timed out."
//
// So a dead TaskManager is noticed between 40 and 50 s after it died. A
// receiver watches the same way: a TaskExecutor whose JobMaster stops
// asking times it out 50 s after the last request.
//
// # Unreachable targets
//
// A dead process whose RPCs fail at once (its RPC service answers "the
// recipient is unreachable", rpc.ErrRecipientUnreachable) need not wait
// for the timeout. Each heartbeat RPC's outcome comes back to the manager:
// a success resets a count, an unreachable recipient adds one, and when the
// count reaches heartbeat.rpc-failure-threshold (2) the listener's
// NotifyTargetUnreachable is called. In the timeline above, the requests at
// 20 and 30 would fail and the JobMaster would log "TaskManager with id
// tm-1 is no longer reachable." at 30, 18 s after the death: about
// threshold × interval. Only unreachable recipients count, as in Flink: a
// heartbeat RPC that merely timed out (a TaskExecutor stuck in a long
// garbage collection, say) is left to the timeout. -1 turns the check off.
//
// # What each side does
//
// The listener logs the message at INFO and closes the connection, with
// the message as the cause. The exported constants are the messages:
//
//	JobMaster        TaskExecutor lost      TaskManagerTimedOutAtJobMaster / TaskManagerUnreachable:
//	                                        "Disconnect TaskExecutor {} because: {}", its slots are
//	                                        released and the tasks in them fail
//	                 ResourceManager lost   ResourceManagerTimedOut / ResourceManagerUnreachable: reconnect
//	ResourceManager  TaskExecutor lost      TaskManagerTimedOut / TaskManagerUnreachable:
//	                                        "Closing TaskExecutor connection {} because: {}"
//	                 JobMaster lost         JobManagerTimedOut / JobManagerUnreachable:
//	                                        "Disconnect job manager {}@{} for job {} from the resource manager."
//	TaskExecutor     JobMaster lost         JobManagerTimedOut / JobManagerUnreachable: disconnect from
//	                                        the job's JobMaster: its tasks fail, its slots are freed
//	                 ResourceManager lost   ResourceManagerTimedOut / ResourceManagerUnreachable: reconnect
//
// # After a timeout
//
// A monitor notifies its listener once. After a timeout or an unreachable
// verdict it is spent: it stays in the manager, but its timer is not
// re-armed and it never notifies again. Heartbeats from the target still
// update LastHeartbeatFrom and still reach ReportPayload, and a sender
// still sends it requests. Nothing else happens until the owner calls
// UnmonitorTarget, which is part of closing the connection in every Flink
// listener (disconnectTaskManager, closeTaskManagerConnection, ...). A
// target that registers again is then monitored afresh. MonitorTarget for
// an id that is still monitored, even by a spent monitor, does nothing.
//
// # Threads
//
// A manager belongs to its owner's main thread. It is built with the
// owner's endpoint as its MainThreadExecutor: timeouts and the sender's
// rounds are ScheduleRunAsync timers, so they fire as mailbox messages;
// every method is called on the main thread, and so is the listener.
// Heartbeat RPCs must not block the main thread, so each runs on a
// goroutine of its own (the pattern of rpc.Ask), with a ctx that ends after
// the heartbeat interval, or when the manager stops; its outcome comes
// back as a mailbox message.
//
// # Differs from Flink
//
//   - Go methods cannot have type parameters, so the factories are the
//     functions CreateHeartbeatManager and CreateHeartbeatManagerSender,
//     which take the HeartbeatServices as their first argument. Invalid
//     services panic there, as Flink's checkArgument throws; Validate them
//     when the configuration is read.
//   - A HeartbeatManager is not itself a HeartbeatTarget: its
//     ReceiveHeartbeat and RequestHeartbeat run on the owner's main thread
//     and return nothing, and the RPC that reaches them is the owner's
//     gateway method.
//   - Heartbeat RPCs are bounded by heartbeat.interval. Flink's heartbeat
//     gateway methods have no @RpcTimeout and get pekko.ask.timeout, which
//     is 10 s too by default.
//   - There are no null payloads: ReportPayload is called for every
//     heartbeat from a monitored target, and a heartbeat from a target that
//     is not monitored is ignored entirely. Flink still passes a
//     receiveHeartbeat payload from an unknown target to reportPayload,
//     where the listeners ignore it.
//   - An RPC outcome counts only for the monitor that sent the RPC; Flink
//     looks the monitor up by ResourceID, so a late outcome can count for a
//     new monitor of the same target.
//   - LastHeartbeatFrom returns a time.Time, zero for "never" and for an
//     unknown target (Flink: 0 and -1).
//   - The sender visits its targets in the order of their ResourceIDs.
package heartbeat
