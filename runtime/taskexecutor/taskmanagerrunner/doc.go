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
// # Why a package of its own
//
// Flink keeps the builder in the package of the TaskExecutor. Here it sits
// below runtime/taskexecutor, which it imports, so that the endpoint's
// package stays about the endpoint; it imports neither the MiniCluster nor
// the entrypoint, so both can import it without a cycle, and the
// MiniCluster need not depend on the code of the processes (package
// entrypoint).
package taskmanagerrunner
