// Package entrypoint holds the main parts of a cluster's processes: what
// runs in a JobManager process and in a TaskManager process when the
// cluster is not a MiniCluster but separate OS processes talking RPC over
// TCP. It mirrors Flink's org.apache.flink.runtime.entrypoint
// (ClusterEntrypoint, StandaloneSessionClusterEntrypoint,
// StandaloneApplicationClusterEntryPoint) and TaskManagerRunner.
// tools/flink starts them: `flink start-cluster`, `flink jobmanager`,
// `flink standalone-job`, `flink taskmanager`.
//
// # A standalone cluster
//
//	            flink run / curl / web UI
//	                       │ HTTP (rest.port, 8081)
//	┌──────────────────────▼───────────────────────────────────┐
//	│ JobManager process: ClusterEntrypoint                    │
//	│   REST endpoint ── Dispatcher ── JobMaster (one per job) │
//	│   ResourceManager (SlotManager)      BlobServer          │
//	│   RPC service: pekko.tcp://flink@localhost:6123          │
//	└──────────────▲──────────────────────────────▲────────────┘
//	               │ RPC over TCP                 │
//	┌──────────────┴──────────────┐ ┌─────────────┴───────────────┐
//	│ TaskManager process:        │ │ TaskManager process:        │
//	│ TaskManagerRunner           │ │ TaskManagerRunner           │
//	│   TaskExecutor, its slots   │ │   TaskExecutor, its slots   │
//	│   BlobCache, data plane     │ │   BlobCache, data plane     │
//	│   RPC service: a free port  │ │   RPC service: a free port  │
//	└─────────────────────────────┘ └─────────────────────────────┘
//
// The MiniCluster (runtime/minicluster) runs the same components in one
// process, with an in-process RPC service and embedded leader election.
// Here each process has an rpc.TCPService of its own, and every gateway
// call between processes goes through the stubs of package gateway/remote.
// Both kinds of cluster build their components with the same two
// functions, as Flink's do: component.Create (Flink's
// DispatcherResourceManagerComponentFactory#create) builds the
// ResourceManager, the Dispatcher and the REST endpoint, and
// taskmanagerrunner.StartTaskManager (Flink's static
// TaskManagerRunner#startTaskManager) builds a TaskExecutor. What is left
// here is what a process has and the MiniCluster has not: its TCP
// services, its configuration, its logs and its signals.
//
// # Who leads
//
// high-availability.type picks the HA services (createHaServices): NONE,
// the default, is StandaloneHaServices (below); ZOOKEEPER is package
// zookeeper's, with high-availability.zookeeper.quorum and
// high-availability.storageDir: every JobManager of the cluster enters
// one election, the leader's Dispatcher recovers the stored jobs, and the
// others wait as standbys (see package dispatcher's Runner).
//
// # StandaloneHaServices
//
// A standalone cluster elects nothing (highavailability.StandaloneHaServices).
// Every leader's election grants highavailability.DefaultLeaderID at once,
// so that ID is the fencing token of the ResourceManager, the Dispatcher
// and every JobMaster; a log line "Resource manager service is granted
// leadership with session id 00000000000000000000000000000001." means
// just that. The ResourceManager
// is found at a fixed address, which a TaskManager builds from the
// JobManager's host and port (jobmanager.rpc.address and
// jobmanager.rpc.port):
//
//	pekko.tcp://flink@localhost:6123/user/rpc/resourcemanager_0
//
// A job's JobMaster has no fixed address (jobmanager_0, jobmanager_1, …
// in the JobManager's RPC service). A TaskManager learns it the way
// Flink's does: the ResourceManager sends it with every slot request
// (step m7), and the TaskManagerRunner publishes it to its HA services
// before the TaskExecutor looks for the job's leader (see
// taskExecutorGateway in taskmanagerrunner.go).
//
// # StandaloneSessionClusterEntrypoint: what starts, in which order
//
// Start follows Flink's ClusterEntrypoint#runCluster:
//
//  1. the environment banner: who starts, as which user, with which
//     arguments;
//  2. "Starting StandaloneSessionClusterEntrypoint.";
//  3. the cluster services ("Initializing cluster services."): the RPC
//     service ("Actor system started at pekko.tcp://flink@localhost:6123"),
//     the HA services, the BlobServer ("Started BLOB server at
//     localhost:6124");
//  4. the ResourceManager, granted leadership at once ("Starting the
//     resource manager.", "Starting the slot manager.");
//  5. the Dispatcher, with its JobGraphStore;
//  6. the REST endpoint ("Starting rest endpoint.", "Rest endpoint
//     listening at localhost:8081").
//
// Steps 4 to 6 are component.Create, which the MiniCluster calls too.
//
// Differs from Flink: Flink starts the REST endpoint first and answers
// "service temporarily unavailable" until the Dispatcher is elected; here
// the REST endpoint needs the Dispatcher when it is made, so it comes
// last, and a client that reaches it finds everything running.
//
// Close stops the same parts in the reverse order ("Shutting
// StandaloneSessionClusterEntrypoint down with application status
// UNKNOWN. Diagnostics Cluster entrypoint has been closed externally..",
// as Flink writes it): the REST endpoint, the Dispatcher (running jobs are
// suspended and give their slots back), the ResourceManager, the
// BlobServer, the RPC service; last "Terminating cluster entrypoint
// process … with exit code 0.".
//
// # StandaloneApplicationClusterEntryPoint: one job, then exit
//
// The same process, plus the application: once everything serves, the
// JobManager itself plans the program in the jar, stores the jar on the
// BlobServer and submits the job to the Dispatcher (Flink's
// ApplicationDispatcherBootstrap); no client is involved, so the trace
// has no steps m1 and m2. The REST endpoint refuses any other job. When
// the job is globally terminal, Done closes and the process shuts down
// with the job's ApplicationStatus ("Shutting
// StandaloneApplicationClusterEntryPoint down with application status
// SUCCEEDED.") and Flink's exit code for it (ExitCode).
//
// # TaskManagerRunner
//
// Start first computes the TaskManager's memory from its configuration
// (TaskManagerConfig.ProcessSpec: taskmanager.memory.*,
// taskmanager.cpu.cores, the slots; the distribution's
// taskmanager.memory.process.size of 1728m unless the memory is sized
// otherwise). In Flink the start script does this before the JVM starts
// (BashJavaUtils), and hands the TaskManager what it computed, which the
// TaskManager logs above its banner as " Preconfiguration: ":
//
//	INFO  TaskManagerRunner [] - --------------------------------------------------------------------------------
//	INFO  TaskManagerRunner [] -  Preconfiguration:
//	INFO  TaskManagerRunner [] -
//
//
//	RESOURCE_PARAMS extraction logs:
//	jvm_params: -Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456
//	dynamic_configs: -D taskmanager.memory.network.min=134217730b -D taskmanager.cpu.cores=1.0 … -D taskmanager.memory.jvm-overhead.max=201326592b
//	logs: INFO  [] - Final TaskExecutor Memory configuration:
//	INFO  [] -   Total Process Memory:          1.688gb (1811939328 bytes)
//	…
//
// So does ours (preconfiguration, in logging.go). A Go process has no
// JVM: the JVM parameters and dynamic properties are what Flink would
// pass to it, computed and logged, not applied. A memory configuration
// that does not add up stops the start with Flink's message ("TaskManager
// memory configuration failed: ..."); `flink start-cluster` checks it
// before it starts any process.
//
// Then: the banner ("Starting TaskManager"), the RPC service on a free
// port, the standalone HA services pointing at the JobManager, the data
// plane with its PartitionRequestServer on a free port; then, made by
// taskmanagerrunner.StartTaskManager as in the MiniCluster, the BlobCache
// (downloading from the JobManager's BlobServer) and the TaskExecutor
// ("Starting TaskManager with ResourceID: localhost:40531-3f2a9c"), which
// then connects to the ResourceManager ("Connecting to ResourceManager …", "Successful
// registration at resource manager …") and reports its slots. A
// TaskManager started before its JobManager retries the registration
// (after an error every 10 s, Flink's cluster.registration.error-delay).
//
// Close makes the TaskExecutor leave actively: it fails its tasks and
// tells the ResourceManager and its JobMasters that it is going, and they
// release its slots at once ("Closing TaskExecutor connection … because:
// The TaskExecutor is shutting down." in the JobManager's log) instead
// of waiting 50 s for its heartbeat to time out.
//
// # Configuration
//
// Config.Configuration and TaskManagerConfig.Configuration hold Flink's
// options as key → value, what config.yaml or `-D key=value` sets
// (tools/flink passes its -D options on to every process it starts). A
// process reads the options of its own components, and does not start
// if one of them is wrong, with Flink's message ("Could not parse value
// 'soon' for key 'heartbeat.interval'."):
//
//	heartbeat.interval, heartbeat.timeout,     both processes: how the ResourceManager,
//	heartbeat.rpc-failure-threshold            the JobMasters and the TaskExecutors watch each other
//	pekko.ask.timeout                          both processes: how long every component waits for
//	                                           the answer to an RPC (10 s)
//	cluster.registration.*                     both processes: how the JobMasters and the TaskExecutors
//	                                           retry their registrations (100 ms, doubling up to 30 s)
//	restart-strategy.type, restart-strategy.*  the JobManager: how every job restarts (none by default)
//	slotmanager.requirement-check.delay        the JobManager: the SlotManager's delay (50 ms)
//	slot.request.timeout                       the JobManager: how long a job's slot requests may stay
//	                                           unfulfillable before they fail (5 min); also the
//	                                           ResourceManager's start-up period
//	taskmanager.memory.*                       a TaskManager: its memory (the distribution's
//	                                           taskmanager.memory.process.size of 1728m by default)
//	taskmanager.cpu.cores                      a TaskManager: its CPU cores (one per slot)
//	taskmanager.numberOfTaskSlots              a TaskManager: its slots (1; TaskManagerConfig.NumberOfSlots,
//	                                           flink's --slots, wins over it)
//
// The JobManager hands these options to component.Create, which creates
// every JobMaster with them through jobmaster.CreateJobManagerRunner; the
// MiniCluster does the same with its own.
//
// heartbeat.interval and heartbeat.timeout are milliseconds, as Flink
// reads them ("200"), or durations with a unit ("200 ms", "1s"). Every
// process of a cluster should be given the same heartbeat options: each
// side watches the other with its own. GET /jobmanager/config lists the
// JobManager's options, other keys too, and the heartbeat options it
// runs with. With Flink's defaults (10 s, 50 s) a TaskManager that is
// killed is found out within 20 s (two heartbeat RPCs it refuses), and a
// TaskManager whose host is gone after 50 s; tools/flink's
// TestKilledTaskManagerEndToEnd shortens both to watch a job restart.
//
// # Stopping: SIGINT and SIGTERM
//
// Each process runs until WaitForShutdown returns: on SIGINT or SIGTERM
// ("RECEIVED SIGNAL 15: SIGTERM. Shutting down as requested.", Flink's
// SignalHandler), or, for an application cluster, when its job has
// ended. The process then closes gracefully. A second Ctrl-C during that
// ends it at once.
//
// # Reading the logs
//
// Each process logs in Flink's log4j pattern to stderr and to a file of
// the log directory named as Flink's scripts name it:
//
//	flink-<user>-standalonesession-<index>-<host>.log   the JobManager
//	flink-<user>-standalonejob-<index>-<host>.log       an application's JobManager
//	flink-<user>-taskexecutor-<index>-<host>.log        each TaskManager
//	flink-<user>-taskexecutor-<index>-<host>.out        what its tasks print (print sinks)
//
// A job's way through the logs, in order: the JobManager's
// "Received JobGraph submission", "Initializing job", "Registering job
// manager … for job", "Received resource requirements", "Starting
// allocation of slot … from <ResourceID>"; then in that TaskManager's
// log "Receive slot request", "Try to register at job manager
// pekko.tcp://…/jobmanager_N", "Offer reserved slots to the leader of
// job"; back in the JobManager's, the deployment; and in the TaskManager's,
// each task's "switched from DEPLOYING to INITIALIZING" and on. The
// submission trace (GET /jobs/{jobid}/trace, printed by flink run) is
// recorded by the JobManager: in a standalone cluster it holds steps m1 to
// m8, and steps m9 to m11 are in the TaskManagers' logs.
//
// # What crosses processes
//
// Everything a job needs: every RPC (the gateways' stubs over the
// rpc.TCPService of each process), the job's jar (the BlobServer listens
// on blob.server.port, 6124, and each TaskManager's BlobCache downloads
// through blob.TCPSource), and the records between TaskManagers (each
// TaskManager serves its partitions with a network.PartitionRequestServer
// and advertises its address as its TaskManagerLocation's DataAddress).
// crossprocess.go makes the TaskManager's ends of the last two. A task
// whose shuffle descriptor names a partition of another TaskManager but
// no data address to read it at is refused at deployment
// (gateway.ErrNoDataAddress) instead of waiting forever.
package entrypoint
