// Package trace records the submission sequence as it happens: one Event
// per step m1…m11, emitted at the line marked "// Step mN:" in the
// component that performs the step.
//
// The steps (the README has the whole table):
//
//	m1  client → REST                the job's jar is uploaded (POST /jars/upload)
//	m2  client → REST                the run request arrives
//	m3  client → Dispatcher          submitJob: reject duplicates, validate, persist (the client is REST or the MiniCluster)
//	m4  JobManagerRunner → JobMaster leadership granted, JobMaster and ExecutionGraph created
//	m5  JobMaster → ResourceManager  registerJobMaster
//	m6  JobMaster → ResourceManager  resource requirements declared
//	m7  SlotManager → TaskExecutor   a free slot matched, requestSlot
//	m8  TaskExecutor → JobMaster     offerSlots
//	m9  JobMaster → TaskExecutor     submitTask
//	m10 TaskExecutor → BlobServer    the jar downloaded through the BlobCache
//	m11 Task → JobMaster             operators opened, RUNNING reported
//
// A job's events read back in the order they happened, which is a
// readable story of one submission: tests assert on it and the demo prints
// it. Most steps are recorded as they happen (Emit). A few are recorded
// after the moment they are about (EmitAt): an upload belongs to no job
// yet, and a jar may be run many times, so the REST endpoint records the
// upload (m1) and the run request (m2) for each job the jar is run as,
// once the Dispatcher has accepted the job; the JobMaster records a slot
// offer (m8) once it has handled it. Such an event takes its place as of
// its Moment (Recorder.Now): after what was recorded before, before what
// was recorded since, even when the clock stood still in between, as it
// does in a synctest bubble. Await waits, without polling, until a
// job's events satisfy a condition. A Recorder keeps everything until
// Forget drops a job's events, which a long-running cluster does for jobs
// it no longer needs to show. A nil *Recorder records nothing: components
// may run without one, and Await on it waits only for its ctx.
//
// A failover has steps of its own, h1…h5, marked "// Step hN:" in the
// code as the submission's are (lessons/02b-high-availability.md):
//
//	h1  LeaderLatch                      the lowest latch node leads: its process is granted the leadership
//	h2  leader election service          the leader publishes its address and session (connection_info)
//	h3  leader retrieval                 TaskManagers, JobMasters and REST endpoints read it, and watch it
//	h4  SessionDispatcherLeaderProcess   the new leader recovers the jobs the last one left
//	h5  TaskExecutor                     the TaskManagers register at the new leader and offer their slots
//
// They span processes, and they are not recorded here: package
// highavailability/hatrace reads them from the logs of the JobManagers and
// TaskManagers, where each leaves Flink's lines (flink ha-trace).
//
// This package is ours; Flink has no such trace. The closest thing in Flink
// is reading the JobManager and TaskManager logs side by side, which is
// exactly what the trace is meant to teach.
package trace
