// Package drill produces the logs of a log-detective drill: a real
// MiniCluster runs WordCount with a fault the learner does not see, the
// job ends as it ends, and what an engineer on call would have is written
// to a directory: the JobManager's log and each TaskManager's log, named
// as Flink names its log files, and what the client was told.
//
//	log/flink-flinklab-standalonesession-0-localhost.log   the JobManager
//	log/flink-flinklab-taskexecutor-0-localhost.log        TaskManager 0
//	log/flink-flinklab-taskexecutor-1-localhost.log        TaskManager 1
//	client.txt                                             what the client was told: the REST answers
//	                                                       (the job's overview and exceptions) and
//	                                                       `flink list -a`
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
// logs'. What the learner must not see is left out or reworded, in this
// package only: the fault injector's own lines, and the words "fault
// injected at step …" at the end of an injected error, which read instead
// as the cause a real cluster would give (Spec.Cause, or the kind's usual
// one).
// The trace of steps m1–m11 and the diagnosis are not written at all.
//
// `go run ./tools/learn start dNN` runs TestProduce with the drill's Spec
// in the environment (see Env) on the complete runtime, once: the logs
// are kept, so the drill shows the same logs every time. IDs (JobID,
// AllocationIDs) are fresh in each production; the seed fixes the clock
// and the drill's outcome.
package drill
