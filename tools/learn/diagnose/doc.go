// Package diagnose grades log-detective drills. A drill runs a real
// MiniCluster with one hidden fault (package runtime/fault: a step m1–m11
// of a submission or k1–k7 of a checkpoint, and a Kind) and shows the
// learner nothing but the cluster's log files and what the client was
// told. The learner answers three questions, as an engineer on call would:
//
//	step:      which step broke first?
//	component: which component do I open?
//	line:      which log line proves it?
//
// This package is the pure part of a drill: it reads the logs back, grades
// an answer, and proves a drill honest. It runs no cluster and reads no
// clock; the producer that runs the cluster and the `learn` commands that
// show a drill live elsewhere.
//
// # Reading the logs
//
// A drill's log/ directory holds one file per process, named as Flink
// names them: the JobManager's (JobManagerLogFile,
// flink-flinklab-standalonesession-0-localhost.log) and one per TaskManager
// (TaskManagerLogFile, flink-flinklab-taskexecutor-<i>-localhost.log).
// Each record is printed as runtime/logging.Handler prints it, a line that
// starts with its date, followed by lines that do not (the cause of an
// error, the rest of a multi-line message):
//
//	2026-11-30 10:16:02,475 ERROR BlobClient [] - Failed to fetch BLOB … No retries left.
//	Detected data corruption during transfer (SHA-256): expected …
//
// ParseLog turns a file back into fault.LogRecords whose Text is the
// printed text, so the clues of package fault match them as they match the
// records a LogCapture kept. LoadLogs reads every file and merges them into
// one story in time order, each Record remembering its file and line.
//
// # The key and the answer
//
// A Key is what the drill broke: its step, its kind and the component to
// open (ComponentOf). A component has one canonical name and the names of
// the Flink classes that make it up (CanonicalComponent): "BlobClient" and
// "PermanentBlobCache" both mean BlobServer/BlobCache. The slot pool is the
// JobMaster's part that declares resources, so "SlotPool" is right for m6
// and for m6 only. The steps of a checkpoint are the JobMaster's (k1 and
// k6: its CheckpointCoordinator triggers and completes) or a Task's (k2–k5
// and k7: a source takes the trigger, a CheckpointBarrierHandler aligns,
// the asynchronous part writes the state, a sink commits), and at k1–k7
// only "CheckpointCoordinator" names the JobMaster and
// "CheckpointBarrierHandler", "AsyncCheckpointRunnable" or
// "CheckpointStorage" a Task, the names package fault's diagnoses give
// them. A kind whose evidence names another component (a TaskManager
// that dies during a checkpoint, k5) is that component's (NewKey).
//
// An Answer is the learner's file of "step:", "component:" and "line:"
// (ParseAnswer). The step is "m7" (or "M7", "7", "m07") or "k4" (or
// "K4", "k04"). The line may be pasted whole, with its date, level and
// logger, or only the text after "[] - ", or a part of it.
//
// # Grading
//
// Grade checks each part on its own, so a learner who found the right
// line but named the step where the job gave up learns exactly that:
//
//   - the step is right when it is the key's. The step to name is where
//     the first failure happened, not where the job finally gave up: a
//     restart or a FAILED job is a consequence, and in a drill of a
//     checkpoint so is its expiry, where it was given up. A
//     wrong step's message says what a failure at the named step would
//     look like, and that these logs do not show that first;
//   - the component is right when it names the key's;
//   - the line is right when it is in exactly one record of the logs and
//     that record is one of the lines that prove the fault, those
//     fault.Evidence.Find returns for the key. Pasting 20 characters (or a
//     whole short line) is enough; fewer could match by chance.
//
// # When the logs cannot tell: the checkpoint statistics
//
// A checkpoint that expires leaves the same lines in the JobManager's log
// whatever step it stopped at, and package fault's evidence of k1
// (checkpoint-expired: the triggers never reach the sources) and of k4
// (barrier-lost: an alignment never ends) is the same five lines: the
// expiry, the failure the CheckpointFailureManager counts, the global
// failover. Where the checkpoint stopped is in its statistics, which a
// drill of a checkpointed job shows in its ClientFile as the web UI's
// Checkpoints tab does: a row per checkpoint of the history, and under
// each failed checkpoint a row per vertex with how many of its subtasks
// acknowledged it, each row beginning with the checkpoint's ID
// (CheckpointRows reads them back). For such a kind
// (Key.ProvedByStatistics) the rows are part of the proof
// (statisticsProof), and the line of the answer is one of them:
//
//   - k1: a row of an expired checkpoint with no subtask acknowledged,
//     the checkpoint's own in the history or a source's: no source took
//     the checkpoint;
//   - k4: the row of a vertex after the sources with subtasks that did
//     not acknowledge, in an expired checkpoint whose sources all did:
//     the vertex whose alignment hung.
//
// A pasted row is found as a log line is, in exactly one line of the
// ClientFile, with or without grep's "client.txt:57:" before it. A line
// of the logs that proves the expiry is not the answer: it is told that
// it reads alike whatever step the checkpoint stopped at, and to read the
// statistics; another row of them, that it does not show where the
// checkpoint stopped.
//
// A wrong part's message points the way without giving the answer away: it
// never names the right step or component, and never quotes the proving
// line. It may name the log the proof is in (that of the loudest proving
// lines, those at the highest level: the error the other lines set the
// scene for), since a learner who knows Flink's logs would look there
// first anyway; not the logger that writes it, which would name the
// component, another part of the answer.
//
// # Honest drills
//
// A drill is only fair if its logs prove its answer and nothing else.
// CheckHonest, behind `learn verify`, checks four things, given the logs
// of the same run without the fault:
//
//   - the key's evidence is complete: every line that must prove it is
//     there, and for a kind the statistics prove a row that shows where
//     the checkpoint stopped (ErrIncomplete);
//   - no line gives the fault away: no "fault", "inject", "diagnos…", kind
//     of fault or step name m1–m11 or k1–k7, which a real cluster never
//     writes (ErrGivesAway). The words are matched at the start of a word,
//     so Flink's DefaultScheduler is not a giveaway;
//   - the healthy run does not prove it too (ErrHealthyToo): lines that
//     every run writes are no proof. A JobMaster whose first registration
//     at the ResourceManager got no answer writes at INFO the same lines
//     as one that registered at once, only later: Flink logs the retry at
//     DEBUG. Such a failure shows in the timestamps, not in the lines;
//   - no other step's evidence, m1–m11 or k1–k7, is complete before the
//     answer's first proving line, unless the healthy run completes it
//     too (ErrAmbiguous): if the logs proved a failure at m7 as well as at
//     m10, "m7" would be a fair answer that Grade calls wrong. The
//     evidence of a kind the statistics prove is complete only with its
//     rows, so a drill of k4 does not prove k1 by the lines they share.
//
// # Failover drills
//
// A failover drill shows the logs of a cluster of processes, two
// JobManagers and two TaskManagers, after the leader stopped leading, and
// asks what an engineer asks after a failover:
//
//	cause:   what ended the old leader's leadership?
//	process: which JobManager was it?
//	line:    which log line proves it?
//
// Its FailoverKey is a cause, one of the kinds package hatrace tells apart
// (Causes), and a process named as its log file names it
// ("standalonesession-0"; hatrace.ProcessOf reads it from the file's name).
// ParseFailoverAnswer reads the answer file by the rules of ParseAnswer.
// A learner may name the cause in the words people use on call
// (CanonicalCause):
//
//	leader-killed         killed, kill, kill -9, SIGKILL, crash, crashed, died, dead, OOM, OOM killer, OOM-killed
//	leader-paused         paused, pause, GC, GC pause, long GC, garbage collection, SIGSTOP, frozen, froze, frozen VM, fenced, fenced off
//	connection-suspended  suspended, connection suspended, network partition, partitioned, cut off
//	session-expired       expired, session expired, lost, connection lost, session lost
//	zookeeper-down        ZooKeeper down, ZK down, ZooKeeper outage, ZooKeeper unreachable, ZooKeeper failed
//	suspension-tolerated  tolerated, suspension tolerated
//	leader-stopped        stopped, shut down, shutdown, SIGTERM, stop-cluster
//
// Case, spaces, hyphens and underscores do not count. "stopped" is a
// leader that was shut down: one stopped with SIGSTOP was paused. The
// process may be written "standalonesession-0", "StandaloneSession 0" or
// as the log file's name, with its directory or without
// (CanonicalProcess).
//
// GradeFailover asks hatrace.Explain for the cause the logs show and
// grades each part on its own, as Grade does: the cause and the process
// against the key's, the line against the lines Explain quotes as its
// proof, but for its context lines: a grant of the leadership is never
// the answer (every failover writes one, whatever ended the leadership
// before it), nor is the last line a leader wrote before it went silent
// (a dead leader and a frozen one both leave one). A wrong cause is told what that cause
// would look like in the logs; a wrong process, why it is not the one
// (a TaskManager never leads, the last grant is the new leader's); a
// wrong line, whether it is a grant, context, from before anything
// happened, or a consequence. No message names the right cause or process, or quotes a
// proving line. A line that two logs have alike, to the millisecond, is
// told apart by its file's name pasted before it, as grep prints it.
//
// CheckFailoverHonest proves such a drill honest, given the logs of the
// same cluster with nothing happening to its leader: Explain reads the
// key's cause and process from the logs, each proving line that is no
// grant can be pasted and found, no line names how the incident was made
// (a signal's name, "kill -9", "drill", a cause's kind), and the healthy
// run shows no cause at all.
//
// Flink has no drills; the nearest thing is its end-to-end tests, which
// read a cluster's log files after a run (check_logs_for_errors in
// flink-end-to-end-tests/test-scripts/common.sh).
package diagnose
