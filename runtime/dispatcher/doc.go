// Package dispatcher is the JobManager's front door: it accepts jobs, starts
// one JobManagerRunner per job, answers questions about jobs, and remembers
// how they ended.
//
// It mirrors Flink's Dispatcher and StandaloneDispatcher
// (org.apache.flink.runtime.dispatcher). Logs are named
// "StandaloneDispatcher", as in a Flink session cluster's log.
//
// # Submitting a job (step m3)
//
// submitJob runs on the Dispatcher's main thread and checks, in Flink's
// order:
//
//  1. Is the job globally terminated already? The JobResultStore remembers
//     every job that reached FINISHED, CANCELED or FAILED; its JobID cannot be
//     used again (DuplicateJobSubmissionException, globally terminated).
//  2. Is the job running already? (DuplicateJobSubmissionException)
//  3. Is the JobGraph valid, and are resources configured on all vertices or
//     on none? (JobSubmissionException)
//  4. Persist the JobGraph in the JobGraphStore, create the job's
//     JobManagerRunner, start it and register it.
//
// The submission is acknowledged right after step 4, before any JobMaster
// exists: building the ExecutionGraph and scheduling happen asynchronously
// in the runner (step m4). A job that fails there ends FAILED, and the
// client learns it by asking for the job's status or result.
//
// # Routing
//
// Every other request names a JobID. The main thread only looks up the
// job's runner; the question itself (RequestJobStatus, RequestJob, Cancel)
// is then put to the runner from the caller's goroutine, so a slow JobMaster
// never holds up the Dispatcher. Flink composes futures the same way.
//
// When a runner's result arrives, the Dispatcher logs "Job <id> reached
// terminal state <state>.", writes the result to the JobResultStore, puts
// the final ExecutionGraph in its job store for later questions, and
// cleans up: the JobGraph is removed from the JobGraphStore and the runner
// closed.
//
// # The job store: what the Dispatcher remembers of ended jobs
//
// A job that ended is only what the job store (ExecutionGraphInfoStore,
// executiongraphinfostore.go) holds of it: its ArchivedExecutionGraph.
// Every question about it (RequestJob, RequestJobStatus,
// RequestJobResult, CancelJob, ListJobs and so the jobs overview) is
// answered from there. Such a graph has every subtask of the job: a job
// of parallelism 32768 leaves about 15 MB of them. Kept forever, the
// graphs of a busy session cluster would fill the JobManager's memory,
// so the store forgets a job when it expires or when the store is full,
// and the Dispatcher then answers as for a job it never knew:
// FlinkJobNotFoundException (404 at the REST endpoint). Only the
// JobResultStore still knows the job ran, and refuses its JobID.
//
// Flink has two stores, chosen with jobstore.type (File or Memory, in
// any case):
//
//   - FileExecutionGraphInfoStore, a session cluster's default: each
//     graph in a file of its own, in a directory executionGraphStore-*
//     of the JobManager's working directory, which is removed when the
//     Dispatcher closes. In memory stay the JobDetails of every stored
//     job (for the overview) and the graphs used last, up to
//     jobstore.cache-size bytes of their files (52428800, 50 MiB); the
//     others are read back from disk when asked for. A job that leaves
//     the store leaves the disk too.
//   - MemoryExecutionGraphInfoStore: every graph in memory. Flink's
//     MiniCluster and application clusters use one without bounds.
//
// Both forget a job jobstore.expiration-time seconds after it ended
// (3600) and, once jobstore.max-capacity jobs are stored
// (2147483647: no bound), the oldest when one more ends. The Dispatcher
// asks the store to clean up every expiration time, on its main thread,
// so expired graphs go even if nobody asks for them. The store belongs to
// the main thread and needs no lock.
//
// # Resource requirements
//
// RequestJobResourceRequirements and UpdateJobResourceRequirements are
// routed the same way, but only to a job that runs: Flink asks its
// runners for them, not its archive, so a job that has ended is not
// found. An update is checked first (resourcerequirements.go): at most
// one update per job at a time, and requirements that fit the max
// parallelism of each vertex of the job's ExecutionGraph
// (jobgraph.ValidateJobResourceRequirements). Only then does the
// JobMaster's scheduler see them, to apply them (the AdaptiveScheduler)
// or refuse them (the DefaultScheduler). Flink also persists them in the
// JobGraphStore, for the JobMaster of a failover; here they are not.
//
// # Savepoints and checkpoint statistics
//
// TriggerSavepointAndGetLocation and StopWithSavepointAndGetLocation go to
// the running job's JobMaster (savepoints.go; Flink's
// performOperationOnJobMasterGateway), with cancelJob or terminate as the
// TriggerSavepointMode says, and wait for the savepoint's path on the
// caller's goroutine; a job that has ended is not found. RequestCheckpointStats
// asks the JobMaster of a running job, and answers a job that has ended
// with the statistics its final ExecutionGraph kept in the job store.
//
// Differs from Flink: Flink 1.20's Dispatcher keeps the savepoint
// operations of the REST API, with their trigger IDs
// (DispatcherCachedOperationsHandler); here the REST endpoint does, as
// Flink's did before 1.15 (see package rest).
//
// # With high availability
//
// In a cluster with several JobManagers (high-availability.type:
// zookeeper), no Dispatcher runs by itself: a Runner (Flink's
// DefaultDispatcherRunner) enters the Dispatcher into the election, and
// each time the process is granted the leadership it recovers the jobs
// the last leader left in the JobGraphStore, finishes the cleanup of
// those whose result is in the JobResultStore, and starts a Dispatcher
// with the others, under a DispatcherID that is the leader session. When
// the leadership is revoked, that Dispatcher closes: its jobs are
// SUSPENDED, their JobGraphs stay for the next leader, and this process
// gives up its lock on them. Every JobManager's REST endpoint reaches
// the Dispatcher that leads now, in its process or another's, through a
// LeaderGateway that follows the leader in ZooKeeper; its calls are
// fenced with the leader session (the Dispatcher is an
// rpc.FencedGateway), and it answers 503 while no leader is known.
//
// Differs from Flink, for the job store: Flink's ClusterEntrypoint makes
// one store for the process, which outlives the Dispatchers of successive
// leader sessions; here each Dispatcher makes its own from Config.JobStore
// and closes it, so a JobManager that lost and regained the leadership
// has forgotten the jobs it stored. Flink also stores SUSPENDED jobs; we
// store only the globally terminal ones. A full store evicts the oldest
// job, where Guava evicts the one used least recently. A graph whose file
// cannot be read gives an error that says why (Flink answers as if the
// job were unknown), and the graphs are JSON, not Java serialization. The
// store has no getStoredJobsOverview: GET /overview counts the jobs the
// Dispatcher lists, not every job that ever ended.
//
// Differs from Flink: Flink's Dispatcher does not validate the JobGraph; a
// vertex without an invokable fails later, when the JobMaster builds the
// ExecutionGraph. We check the whole graph at step m3 so that a malformed
// job is refused where it enters, before anything is persisted. Without
// high availability the Dispatcher is not elected (Flink's is, by the
// standalone services, which grant at once).
package dispatcher
