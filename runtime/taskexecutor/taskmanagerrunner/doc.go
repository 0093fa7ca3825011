// Package taskmanagerrunner builds a TaskManager: StartTaskManager makes
// the services a TaskExecutor needs and the TaskExecutor itself, and starts
// it. It is the one place where a TaskExecutor is wired, for both kinds of
// cluster: the MiniCluster calls it once per TaskManager
// (MiniCluster.StartTaskManager), and a TaskManager process calls it once
// (entrypoint.TaskManagerRunner).
//
// It mirrors the static method TaskManagerRunner#startTaskManager of
// Flink's org.apache.flink.runtime.taskexecutor, which Flink's MiniCluster
// and its TaskManagerRunner both call. Flink's TaskManagerRunner class is
// two things: the main part of a TaskManager process (its RPC service, HA
// services, BlobCacheService, the signal handlers), and this static
// builder. Here the process is entrypoint.TaskManagerRunner and the
// builder is this package.
//
// # The TaskManager's memory
//
// Before anything is built, the caller computes the TaskManager's CPU
// cores, memory and slots from its configuration with ProcessSpec, and
// passes the result as Config.ProcessSpec. ProcessSpec is
// clusterframework.ProcessSpecFromConfig with the default of Flink's
// distribution: its configuration file sets
// taskmanager.memory.process.size: 1728m, and so does ProcessSpec when
// the configuration sizes the memory in none of Flink's three ways
// (process size, Flink size, or task heap and managed memory). A
// configuration that cannot work stops the TaskManager before it starts,
// with Flink's IllegalConfigurationException ("TaskManager memory
// configuration failed: ..."), as Flink's start script does.
//
// From the spec, StartTaskManager gives the TaskExecutor what it
// registers at the ResourceManager with (Flink's TaskExecutorRegistration):
// the total its slots share (clusterframework.TotalResourceProfile), the
// size of each part of its memory
// (clusterframework.NewTaskExecutorMemoryConfiguration) and the machine's
// hardware (Flink's HardwareDescription#extractFromSystem), and the
// profile of each static slot, the total divided by the number of slots
// (clusterframework.DefaultSlotResourceProfile).
//
// A Go process has no JVM: nothing of the spec is enforced. The numbers
// are computed, registered and reported, to the byte as Flink computes
// them.
//
// # What it builds, in which order
//
//  1. the BlobCache (Flink's PermanentBlobCache, in the BlobCacheService
//     the caller makes in Flink), which downloads the jobs' jars at step
//     m10 from Deps.BlobSource;
//  2. the TaskExecutor (Flink: TaskManagerServices.fromConfiguration, then
//     new TaskExecutor), with its slots, the shuffle environment the
//     caller made and the RPC and HA services of its process;
//  3. and starts it: "Starting TaskManager with ResourceID: …", then the
//     registration at the ResourceManager, in the background.
//
// What differs between the two callers is only what they pass: an
// in-process RPC service, embedded HA services and the BlobServer itself
// as the BlobSource in the MiniCluster; a TCP RPC service, the standalone
// HA services pointing at the JobManager, a blob.TCPSource and a data
// plane with a server of its own in a TaskManager process.
//
// # Differs from Flink
//
// Flink's MiniCluster does not use the distribution's configuration file:
// it computes its TaskManagers' memory for local execution
// (TaskExecutorResourceUtils#adjustForLocalExecution), giving them
// practically unlimited task heap, task off-heap and CPU cores and small
// fixed network (64m) and managed (128m) memory, unless configured. Ours
// computes the MiniCluster's TaskManagers with ProcessSpec, the
// distribution's 1728m by default, so that what a learner reads in REST
// is what a real standalone TaskManager reports.
//
// # Why a package of its own
//
// Flink keeps the builder in the package of the TaskExecutor. Here it sits
// below runtime/taskexecutor, which it imports, so that the endpoint's
// package stays about the endpoint; it imports neither the MiniCluster nor
// the entrypoint, so both can import it without a cycle, and the
// MiniCluster need not depend on the code of the processes (package
// entrypoint).
package taskmanagerrunner
