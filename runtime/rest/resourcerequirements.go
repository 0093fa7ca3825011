package rest

import (
	"errors"
	"fmt"
	"net/http"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/resource-requirements — Flink's JobResourceRequirementsHandler
// ---------------------------------------------------------------------------

// handleJobResourceRequirements answers the parallelism bounds of the
// job's vertices, as its JobMaster's scheduler has them: a
// JobResourceRequirementsBody. Only a job with a running JobMaster can
// answer.
//
// Flink's handler maps no failure, so every one is a 500: a job the
// Dispatcher does not run (unknown, or ended) with its
// FlinkJobNotFoundException, a job still initializing with its
// UnavailableDispatcherOperationException. Unlike GET /jobs/{jobid},
// which answers an unknown job 404.
func (s *Server) handleJobResourceRequirements(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	requirements, err := s.deps.Dispatcher.RequestJobResourceRequirements(r.Context(), jobID)
	if err != nil {
		return nil, unhandled(fmt.Errorf("request the resource requirements of job %s: %w", jobID, err))
	}
	if requirements == nil {
		requirements = JobResourceRequirementsBody{} // {}, not null
	}
	return requirements, nil
}

// ---------------------------------------------------------------------------
// PUT /jobs/{jobid}/resource-requirements — Flink's JobResourceRequirementsUpdateHandler
// ---------------------------------------------------------------------------

// jobResourceRequirementsBodyName names the body in the answer to one
// that is not of its format.
const jobResourceRequirementsBodyName = "JobResourceRequirementsBody"

// jobVertexResourceRequirementsRequest is one vertex's entry of the body
// of PUT /jobs/{jobid}/resource-requirements, as it is read: Flink's
// JobVertexResourceRequirements refuses an entry without "parallelism"
// (checkNotNull) while its JSON is read, so that is a body not of the
// expected format. A bound left out is 0, as Jackson reads a missing int,
// and the Dispatcher refuses it.
type jobVertexResourceRequirementsRequest struct {
	Parallelism *jobgraph.Parallelism `json:"parallelism"`
}

// handleJobResourceRequirementsUpdate asks the Dispatcher to give the job
// new parallelism bounds, and answers 200 {} once its JobMaster's
// scheduler has taken them. The body is a JobResourceRequirementsBody with
// an entry for every vertex of the job:
//
//	PUT /jobs/<32 hex>/resource-requirements
//	{"<vertex id>": {"parallelism": {"lowerBound": 1, "upperBound": 4}}, …}
//	   ◀── 200 {}
//
// The answers are Flink's, in the order Flink checks:
//
//   - a body that is not a JobResourceRequirementsBody: 400 "Request did
//     not match expected format JobResourceRequirementsBody." (Flink's
//     AbstractHandler reads the body before the path);
//   - a malformed job ID: 400;
//   - an empty body, or {}: 400 "Request body does not specify resource
//     requirements.";
//   - another update of the job in progress: 409 "Another update to the
//     job [%s] resource requirements is in progress." (sic: Flink never
//     fills in the job);
//   - requirements that do not fit the job: 400, with the Dispatcher's
//     errors, one per line, in one message;
//   - anything else is passed on unmapped, a 500: a job that the
//     Dispatcher does not run (FlinkJobNotFoundException), one still
//     initializing, and the DefaultScheduler's refusal to change the
//     parallelism of a running job (UnsupportedOperationException: "The
//     DefaultScheduler does not support changing the parallelism without
//     a job restart. …").
func (s *Server) handleJobResourceRequirementsUpdate(_ http.ResponseWriter, r *http.Request) (any, error) {
	var body map[api.JobVertexID]jobVertexResourceRequirementsRequest
	if err := decodeJSONBody(r, &body, jobResourceRequirementsBodyName); err != nil {
		return nil, err
	}
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	requirements := make(jobgraph.JobResourceRequirements, len(body))
	for vertexID, entry := range body {
		if entry.Parallelism == nil {
			return nil, badRequest(fmt.Sprintf("Request did not match expected format %s.", jobResourceRequirementsBodyName),
				fmt.Sprintf("the requirements of job vertex %s have no parallelism", vertexID))
		}
		requirements[vertexID] = jobgraph.JobVertexResourceRequirements{Parallelism: *entry.Parallelism}
	}
	if len(requirements) == 0 {
		return nil, badRequest("Request body does not specify resource requirements.")
	}

	err = s.deps.Dispatcher.UpdateJobResourceRequirements(r.Context(), jobID, requirements)
	var invalid *gateway.InvalidJobResourceRequirementsError
	switch {
	case err == nil:
		return EmptyResponseBody{}, nil
	case errors.As(err, &invalid):
		return nil, badRequest(invalid.Error())
	case errors.Is(err, gateway.ErrJobResourceRequirementsUpdateInProgress):
		return nil, conflict(gateway.ErrJobResourceRequirementsUpdateInProgress.Error())
	default:
		return nil, unhandled(fmt.Errorf("update the resource requirements of job %s: %w", jobID, err))
	}
}
