package gateway

import (
	"context"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
)

// The errors that may cross processes.
//
// A component answers a gateway call with an error, and its caller tests
// that error with errors.Is or errors.As. When the two run in different
// processes (a TaskExecutor and the JobManager, over rpc.TCPService), the
// error travels as its text plus the codes of the registered errors found
// in it (rpc.MarshalError): only the errors registered here are still
// found at the caller; anything else in the chain arrives as text.
//
// This file is the one place where they are registered, so it is also
// the list of what a caller on the other side of a connection may test
// for. Each is declared next to the gateway whose methods answer with it
// (ErrJobNotFound in dispatcher.go, ErrUnknownTaskManager in
// resourcemanager.go, ErrSlotOccupied in taskexecutor.go), except those of
// a job's resource requirements and of savepoints, which two gateways
// share (resourcerequirements.go, savepoints.go), and those of the
// transport (package rpc), of package context, of the JobGraph and of
// checkpoints, which this package registers for their owners. Package rpc cannot know the gateways, and a component
// package cannot register here without importing package gateway's
// importers, so the list lives at the API between components, where both
// sides already meet.
//
// A code is the error's qualified Go name. It is what the two processes
// agree on, so renaming a code changes the wire; every process of a
// cluster runs the same build, so that only matters to a reader of the
// frames.
//
// Differs from Flink: Flink serializes the exception with its cause chain
// (SerializedThrowable) and the caller's catch blocks match its class, so
// it needs no list. See package rpc for why Go needs one.

// crossProcessErrors are the sentinel errors registered for the wire,
// with their codes, grouped by the gateway that answers with them.
var crossProcessErrors = []struct {
	code string
	err  error
}{
	// The transport's own, answered to a call of any gateway.
	//
	// The receiver is not there, or does not serve the gateway asked for
	// (the handshake of rpc.Connect).
	{"rpc.ErrRecipientUnreachable", rpc.ErrRecipientUnreachable},
	// The receiver ran out of the caller's ctx deadline; it comes wrapped
	// together with context.DeadlineExceeded.
	{"rpc.ErrTimeout", rpc.ErrTimeout},
	// A fenced call carried a stale token (a JobMaster or ResourceManager
	// that lost its leadership, or one that has not yet been told).
	{"rpc.ErrFencingTokenMismatch", rpc.ErrFencingTokenMismatch},
	// The context package cannot register its errors itself. A call the
	// receiver ran out of time for answers with context.DeadlineExceeded.
	{"context.Canceled", context.Canceled},
	{"context.DeadlineExceeded", context.DeadlineExceeded},

	// Registrations: a JobMaster or a TaskExecutor at the ResourceManager,
	// a TaskExecutor at a JobMaster (RetryingRegistration).
	//
	// Not now: the registration is retried.
	{"gateway.ErrRegistrationFailure", ErrRegistrationFailure},
	// Never: the registration gives up.
	{"gateway.ErrRegistrationRejected", ErrRegistrationRejected},

	// DispatcherGateway.
	//
	// No job with that ID (Flink's FlinkJobNotFoundException).
	{"gateway.ErrJobNotFound", ErrJobNotFound},
	// SubmitJob of a JobGraph that fails validation (step m3).
	{"jobgraph.ErrInvalidJobGraph", jobgraph.ErrInvalidJobGraph},
	// A request for the JobMaster of a job that is still initializing
	// (Flink's UnavailableDispatcherOperationException).
	{"gateway.ErrUnavailableDispatcherOperation", ErrUnavailableDispatcherOperation},
	// UpdateJobResourceRequirements while another update of the job is
	// in progress.
	{"gateway.ErrJobResourceRequirementsUpdateInProgress", ErrJobResourceRequirementsUpdateInProgress},

	// JobMasterGateway.
	//
	// UpdateJobResourceRequirements that the scheduler cannot apply
	// (Flink's UnsupportedOperationException).
	{"gateway.ErrUnsupportedOperation", ErrUnsupportedOperation},
	// A savepoint of a job without a CheckpointCoordinator.
	{"gateway.ErrCheckpointingDisabled", ErrCheckpointingDisabled},
	// A savepoint while the AdaptiveScheduler runs no ExecutionGraph.
	{"gateway.ErrJobNotExecuting", ErrJobNotExecuting},
	// A savepoint without a directory, when state.savepoints.dir is not
	// set either; package checkpoint cannot register it itself.
	{"checkpoint.ErrNoSavepointDirectory", checkpoint.ErrNoSavepointDirectory},

	// ResourceManagerGateway.
	//
	// DeclareRequiredResources of a job without a registered JobMaster.
	{"gateway.ErrUnknownJobManager", ErrUnknownJobManager},
	// DeclareRequiredResources from a JobMaster that is not the job's
	// registered one.
	{"gateway.ErrJobLeaderIDMismatch", ErrJobLeaderIDMismatch},
	// SendSlotReport of a TaskExecutor registration that is not the
	// current one.
	{"gateway.ErrUnknownTaskManager", ErrUnknownTaskManager},

	// TaskExecutorGateway.
	//
	// SubmitTask refused the task (Flink's TaskSubmissionException).
	{"gateway.ErrTaskSubmission", ErrTaskSubmission},
	// The TaskExecutor cannot serve the request (Flink's
	// TaskManagerException).
	{"gateway.ErrTaskManager", ErrTaskManager},
	// A request about a task failed (Flink's TaskException).
	{"gateway.ErrTask", ErrTask},
	// RequestSlot could not allocate the slot (Flink's
	// SlotAllocationException).
	{"gateway.ErrSlotAllocation", ErrSlotAllocation},
	// RequestSlot for a slot that another allocation holds (Flink's
	// SlotOccupiedException).
	{"gateway.ErrSlotOccupied", ErrSlotOccupied},
	// SubmitTask into an allocation no slot holds (Flink's
	// SlotNotFoundException).
	{"gateway.ErrSlotNotFound", ErrSlotNotFound},
	// SubmitTask into a slot that is not ACTIVE for the job (Flink's
	// SlotNotActiveException).
	{"gateway.ErrSlotNotActive", ErrSlotNotActive},
	// SubmitTask of a task whose input a TaskManager produces without a
	// data address to read it from (a TaskManager in its own process).
	{"gateway.ErrNoDataAddress", ErrNoDataAddress},
}

func init() {
	for _, e := range crossProcessErrors {
		rpc.RegisterError(e.code, e.err)
	}
	// The typed errors. Callers find them with errors.As, and their
	// fields travel as JSON.
	//
	// The cause a component gives when a peer's heartbeat timed out.
	rpc.RegisterErrorType[*TimeoutException]("gateway.TimeoutException")
	// CancelJob of a job that ended otherwise than CANCELED.
	rpc.RegisterErrorType[*JobTerminatedWithoutCancellationException]("gateway.JobTerminatedWithoutCancellationException")
	// UpdateJobResourceRequirements of requirements that do not fit the job.
	rpc.RegisterErrorType[*InvalidJobResourceRequirementsError]("gateway.InvalidJobResourceRequirementsError")
}
