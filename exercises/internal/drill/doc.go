// Package drill produces the logs of a log-detective drill: a real
// MiniCluster runs WordCount, or the ticker, with a fault the learner
// does not see, the job ends as it ends, and what an engineer on call
// would have is written to a directory: the JobManager's log and each
// TaskManager's log, named as Flink names its log files, and what the
// client was told. A drill of a failover runs real processes instead (see
// Failover drills below).
//
//	log/flink-flinklab-standalonesession-0-localhost.log   the JobManager
//	log/flink-flinklab-taskexecutor-0-localhost.log        TaskManager 0
//	log/flink-flinklab-taskexecutor-1-localhost.log        TaskManager 1
//	client.txt                                             what the client was told: the REST answers
//	                                                       (the job's overview and exceptions), a
//	                                                       checkpointed job's checkpoints as the web
//	                                                       UI shows them, and `flink list -a`
//
// The cluster is the MiniCluster of `make run`, each TaskManager writing
// a log of its own (minicluster.Config.TaskManagerLogger), with the
// demo's short timeouts and fixed-delay restarts. A Spec may shape it
// (TaskManagers, slots), pick its scheduler (the AdaptiveScheduler, with
// its resource wait timeout) and run WordCount in BATCH, stage after
// stage, on the DefaultScheduler's pipelined regions. It runs in a synctest
// bubble, so a drill takes as long as its work, not its timeouts, and
// its clock starts at a time its seed picks.
//
// Every time is on the drill's clock, the REST answers' as well as the
// logs', and those in a log line's text. What the learner must not see is left out or reworded, in this
// package only: the fault injector's own lines, and the words "fault
// injected at step …" at the end of an injected error, which read instead
// as the cause a real cluster would give (Spec.Cause, or the kind's usual
// one).
// The trace of steps m1–m11 and the diagnosis are not written at all.
//
// # Checkpoint drills
//
// A Spec with Checkpointing (Flink's execution.checkpointing.* keys)
// checkpoints its job, and may break a checkpoint's step (k1 …). Its job
// is then the ticker (Spec.Job), an unbounded keyed running count whose
// running-count task reads from every source subtask:
//
//	Source: sensor-events ─HASH(sensor)─► running-count -> Sink: collect-sink
//
// The fault's after= lets the first checkpoints complete, so that the
// logs show a healthy "Completed checkpoint" before the failure; times
// says how long it lasts. A job that never ends is followed for two
// minutes of its clock. An expired checkpoint reads alike in the logs
// whatever step it stopped at, so client.txt shows what the web UI's
// Checkpoints tab would (GET /jobs/:jobid/checkpoints, and
// /checkpoints/details/:id of each failed checkpoint): the counts, the
// latest checkpoints, the history, and under each failed checkpoint how
// many subtasks of each vertex acknowledged it, a row each that begins
// with the checkpoint's ID (showCheckpoints).
//
// # Failover drills
//
// A drill of high availability (Spec.Failover) cannot run in a bubble: its
// incident spans processes and a real ZooKeeper. ProduceFailover starts a
// ZooKeeper server, two JobManagers and two TaskManagers of the flink
// command (tools/flink/flinktest), runs the ticker at parallelism 2 under
// the first JobManager, and then ends that leader's leadership as the
// Spec says: SIGKILL ("leader-killed"), or SIGSTOP for longer than the 2 s
// session timeout and SIGCONT once the standby runs the job
// ("leader-paused"), or nothing ("none", the run a drill is compared
// with). Once every TaskManager has registered at the leader of the end,
// the four logs are written, named as Flink names them:
//
//	log/flink-flinklab-standalonesession-0-localhost.log   the JobManager that led first
//	log/flink-flinklab-standalonesession-1-localhost.log   the standby
//	log/flink-flinklab-taskexecutor-0-localhost.log        TaskManager 0
//	log/flink-flinklab-taskexecutor-1-localhost.log        TaskManager 1
//
// Every wait is on what a process says, in its log or over REST, bounded
// in time. The lines keep their order and their spacing, moved to the
// drill's clock; what would name the machine or the test is reworded:
// its directories, the cluster-id it drew, the host's name, the user.
//
// `go run ./tools/learn start dNN` runs TestProduce with the drill's Spec
// in the environment (see Env) on the complete runtime, once: the logs
// are kept, so the drill shows the same logs every time. IDs (JobID,
// AllocationIDs) are fresh in each production; the seed fixes the clock
// and the drill's outcome.
package drill
