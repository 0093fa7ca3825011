// Package minicluster runs a whole Flink cluster in one process: one
// JobManager side (Dispatcher, ResourceManager, BlobServer) and N
// TaskExecutors with M slots each, connected by the in-process RPC service.
// It is the embedded default of flinklab: `make run` and the tests use it.
//
// It mirrors Flink's MiniCluster (org.apache.flink.runtime.minicluster),
// which Flink's own tests and IDE runs use. As in Flink, nothing in it is
// a mock: the components are the same ones a distributed cluster runs, the
// JobGraphStore and the BLOBs are real files in a working directory, and
// data between tasks goes through real result partitions.
//
// # Starting and stopping
//
//	cluster, err := minicluster.New(minicluster.Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2})
//	if err := cluster.Start(); err != nil { ... }
//	defer cluster.Close()
//
//	jobID, err := cluster.SubmitJob(ctx, jobGraph)   // step m3 and what follows
//	result, err := cluster.RequestJobResult(ctx, jobID)
//
// Start brings the services up in Flink's order: the BlobServer, the
// ResourceManager (with its SlotManager), the Dispatcher and the REST
// endpoint, then the TaskExecutors, which register at the ResourceManager
// on their own. Close stops them in reverse order, except that the
// TaskExecutors leave after the Dispatcher and before the ResourceManager;
// it returns once every goroutine the cluster started has ended.
//
// The MiniCluster wires nothing by hand that a cluster of processes also
// has: as Flink's MiniCluster, it builds the ResourceManager, the
// Dispatcher and the REST endpoint with component.Create (Flink's
// DispatcherResourceManagerComponentFactory#create) and each TaskExecutor
// with taskmanagerrunner.StartTaskManager (Flink's
// TaskManagerRunner#startTaskManager), the two functions a JobManager
// process and a TaskManager process (package entrypoint) call. Its own
// part is the services it passes them: an in-process RPC service,
// embedded HA services, the BlobServer as every BlobCache's source, and
// one ResultPartitionManager, so that records between TaskManagers stay
// in memory.
//
// Differs from Flink: Flink's MiniCluster starts its TaskManagers before
// the components and closes them all at the same time; here they start
// after the components and close between the Dispatcher and the
// ResourceManager, so that they say goodbye to a ResourceManager that
// still runs.
//
// The trace of every job (steps m3…m11) is kept in Trace().
//
// # The TaskManagers' memory
//
// Each TaskManager's CPU cores and memory come from Config.Configuration
// (Flink's keys: taskmanager.memory.*, taskmanager.cpu.cores) and
// NumSlotsPerTaskManager, computed as a TaskManager process computes its
// own (taskmanagerrunner.ProcessSpec). With nothing configured, a
// TaskManager has the 1728m of Flink's distribution and one core per
// slot, and GET /taskmanagers/{taskmanagerid} reports Flink's numbers for
// it: 402653174 bytes of task heap, 536870920 of managed memory, and so
// on (package clusterframework shows the derivation). New refuses a
// configuration that does not add up, with Flink's message:
//
//	minicluster: TaskManager memory configuration failed: Sum of configured Framework Heap Memory (…) … exceed configured Total Flink Memory (252.000mb (264241152 bytes)).
//
// Differs from Flink: Flink's MiniCluster computes memory for local
// execution instead (TaskExecutorResourceUtils#adjustForLocalExecution:
// practically unlimited task heap, task off-heap and CPU cores, 64m of
// network and 128m of managed memory, unless configured). Ours uses the
// distribution's default, so that it reports what a standalone
// TaskManager reports.
//
// # Losing a TaskManager
//
// The components watch each other with heartbeats, configured for all of
// them by Config.Heartbeat (Flink's defaults: a request every 10 s, a peer
// lost after 50 s of silence). KillTaskManager(i) kills a TaskManager as
// kill -9 would: it stops answering and tells nobody. Its JobMasters and
// the ResourceManager notice through their heartbeat timeouts:
//
//	INFO Killing TaskManager taskexecutor-1.
//	INFO Heartbeat of TaskManager with id taskexecutor-1 timed out.                 (JobMaster)
//	INFO Disconnect TaskExecutor taskexecutor-1 because: Heartbeat of TaskManager with id taskexecutor-1 timed out.
//	INFO The heartbeat of TaskManager with id taskexecutor-1 timed out.             (ResourceManager)
//	INFO Closing TaskExecutor connection taskexecutor-1 because: ...
//
// and the jobs that ran there fail over, if Config.RestartStrategy lets
// them: RUNNING → RESTARTING → RUNNING, in slots of the other
// TaskManagers. A TaskManager that is closed instead says goodbye, and the
// same happens at once.
//
// # Breaking a step on purpose
//
// Faults() is the cluster's fault injector (package fault): every component
// of the cluster asks it at its step. Arm a fault before submitting:
//
//	cluster.Faults().Inject(fault.Fault{Step: trace.M10, Kind: fault.JarCorrupted})
//
// and the job breaks there once, as it would in a real cluster, with the
// same log lines and the same recovery. Config.StartUpPeriod (how long the
// ResourceManager waits for TaskManagers before it tells a job its
// requirements cannot be met) matters for step m7, and
// Config.SlotRequestTimeout (how long a job's slot requests may stay
// unfulfillable before they fail on the JobMaster's side) for a fault at
// m5 or m6 that fires every time; Flink's default for both is 5 min.
package minicluster
