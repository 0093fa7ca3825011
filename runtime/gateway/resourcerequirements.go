package gateway

import (
	"errors"
	"strings"

	"flinklab/runtime/api"
)

// Errors of a job's resource requirements (GET and PUT
// /jobs/{jobid}/resource-requirements), which the DispatcherGateway and
// the JobMasterGateway answer with. They may cross processes (errors.go).
var (
	// ErrUnavailableDispatcherOperation: the job has no JobMaster to ask
	// yet, because it is still initializing (Flink's
	// UnavailableDispatcherOperationException).
	ErrUnavailableDispatcherOperation = errors.New("UnavailableDispatcherOperationException")
	// ErrJobResourceRequirementsUpdateInProgress answers
	// UpdateJobResourceRequirements while another update of the same job's
	// requirements has not finished. Its text is Flink's message, which
	// Flink never fills in: it hands the format string to a
	// RestHandlerException as it is, "[%s]" and all. The REST endpoint
	// answers it 409 Conflict, as Flink's Dispatcher asks.
	ErrJobResourceRequirementsUpdateInProgress = errors.New("Another update to the job [%s] resource requirements is in progress.")
	// ErrUnsupportedOperation: the JobMaster's scheduler cannot do what it
	// was asked (Flink's UnsupportedOperationException), as the
	// DefaultScheduler cannot change the parallelism of a running job. The
	// REST endpoint answers it 500, as Flink's handlers do: they map no
	// such exception.
	ErrUnsupportedOperation = errors.New("UnsupportedOperationException")
)

// InvalidJobResourceRequirementsError answers UpdateJobResourceRequirements
// of requirements that do not fit the job: Errors says what is wrong, in
// the words of jobgraph.ValidateJobResourceRequirements. Flink's
// Dispatcher fails such an update with a RestHandlerException (400 Bad
// Request) whose message is the errors, one per line; Error returns that
// message. Find it with errors.As; the REST endpoint answers it 400.
type InvalidJobResourceRequirementsError struct {
	JobID  api.JobID
	Errors []string
}

func (e *InvalidJobResourceRequirementsError) Error() string {
	return strings.Join(e.Errors, "\n") // Flink joins them with System.lineSeparator()
}
