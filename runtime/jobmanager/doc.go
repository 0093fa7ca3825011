// Package jobmanager holds what the Dispatcher keeps for each job: the
// JobGraphStore, where submitted jobs are persisted, and the
// JobManagerRunner, which turns leadership over a job into a running
// JobMaster.
//
// It mirrors Flink's JobGraphStore (org.apache.flink.runtime.jobmanager)
// and JobMasterServiceLeadershipRunner with DefaultJobMasterServiceProcess
// (org.apache.flink.runtime.jobmaster), which replaced JobManagerRunnerImpl
// in Flink 1.13 (FLINK-22001).
//
// # From submission to a running JobMaster (step m4)
//
// The Dispatcher persists the JobGraph, creates a JobManagerRunner and starts
// it, and acknowledges the submission right away. Everything after that is
// asynchronous:
//
//  1. Start enters the job's leader election (one election per job: with
//     high availability, a standby JobManager could lead the job instead).
//  2. GrantLeadership arrives with a leader session ID. The runner checks the
//     JobResultStore (a job that is already done is not run again), then
//     creates the JobMaster through its JobMasterServiceFactory. The session
//     ID becomes the JobMaster's fencing token, its JobMasterID.
//  3. The runner confirms leadership with the JobMaster's address, so
//     TaskExecutors can find it, and forwards the JobMaster's result.
//
// Until a JobMaster exists, the runner itself answers for the job: its
// status is INITIALIZING. If the JobMaster cannot be created (its
// ExecutionGraph cannot be built, say), the job ends FAILED with
// "Could not start the JobMaster." and the submission, long since
// acknowledged, is not affected: this is Flink's non-blocking submission
// (FLINK-16866, Flink 1.12).
//
// The runner guards its state with a mutex, as Flink's does with a lock: it
// is not an RPC endpoint, and its callers (the Dispatcher's gateway methods)
// call it from their own goroutines.
//
// # Lifecycle
//
// The runner's lifecycle is Flink's JobMasterServiceLeadershipRunner.State:
//
//	RUNNING ──the result is known──► JOB_COMPLETED ──Close──► STOPPED
//	   │                                                         ▲
//	   └──────────────────────────Close──────────────────────────┘
//
// Leadership comes and goes while the runner is RUNNING: a grant builds a
// JobMaster, a revocation stops it, and a JobMaster is published only
// while the runner is RUNNING and its session is the current one. Once
// the job's result is known the runner is JOB_COMPLETED and ignores
// grants; Close makes it STOPPED for good, and a job without a result
// ends SUSPENDED.
//
// # Cancelling a job that is still INITIALIZING
//
// A cancel reaches the job through its JobMaster, so one that comes while
// the JobMaster is still being built waits for it (Flink's
// jobMasterGatewayFuture). The runner remembers it meanwhile (Flink's
// hasCurrentLeaderBeenCancelled) and answers CANCELLING instead of
// INITIALIZING. Once the JobMaster runs, the cancel goes on to it, and the
// job moves as any cancelled job does: CREATED or RUNNING → CANCELLING →
// CANCELED. There is no move from INITIALIZING straight to CANCELED. If
// there will be no JobMaster (it could not start, the leadership was
// revoked, the runner was closed) the cancel fails with "Cancellation
// failed."; a revoked leadership also forgets the cancel, as Flink's
// runner does, and the next leader starts the job anew.
//
// A request for the job's resource requirements does not wait: while the
// JobMaster is being built it fails at once with Flink's
// UnavailableDispatcherOperationException ("Unable to get
// JobMasterGateway for initializing job. …"), as Flink's Dispatcher
// answers for a runner that is not initialized; once the job's result is
// known, the job is not found.
package jobmanager
