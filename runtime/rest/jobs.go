package rest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// jobTypeStreaming is the job type of every flinklab job (Flink: JobType).
const jobTypeStreaming = "STREAMING"

// ---------------------------------------------------------------------------
// GET /jobs/overview — Flink's JobsOverviewHandler
// ---------------------------------------------------------------------------

// handleJobsOverview summarizes every job the Dispatcher knows, newest
// first, and drops the plans of the jobs it no longer knows. As Flink's,
// it asks the Dispatcher once (requestMultipleJobDetails), which answers
// ended jobs from what its job store keeps in memory.
func (s *Server) handleJobsOverview(_ http.ResponseWriter, r *http.Request) (any, error) {
	listed := s.plans.generation()
	details, err := s.deps.Dispatcher.RequestMultipleJobDetails(r.Context())
	if err != nil {
		return nil, fmt.Errorf("request job details: %w", err)
	}
	jobIDs := make([]api.JobID, len(details))
	for i, d := range details {
		jobIDs[i] = d.JobID
	}
	s.plans.retain(jobIDs, listed)
	now := s.now()
	jobs := make([]JobDetails, 0, len(details))
	for _, d := range details {
		jobs = append(jobs, jobDetailsOf(d, now))
	}
	slices.SortFunc(jobs, func(a, b JobDetails) int {
		return cmp.Or(cmp.Compare(b.StartTime, a.StartTime), strings.Compare(a.JobID.String(), b.JobID.String()))
	})
	return MultipleJobsDetails{Jobs: jobs}, nil
}

// jobDetailsOf writes a job's summary as Flink's JobDetails serializes
// it, with its duration as of now.
func jobDetailsOf(d gateway.JobDetails, now time.Time) JobDetails {
	start, end, duration := jobTimesOf(d.StartTime, d.EndTime, d.State, now)
	lastModification := end
	if !d.LastModification.IsZero() {
		lastModification = max(lastModification, d.LastModification.UnixMilli())
	}
	counts := zeroCounts()
	for state, n := range d.TasksPerState {
		counts[state] = n
	}
	return JobDetails{
		JobID:            d.JobID,
		Name:             d.JobName,
		State:            d.State,
		StartTime:        start,
		EndTime:          end,
		Duration:         duration,
		LastModification: lastModification,
		Tasks: TaskCounts{
			Total:        d.NumTasks,
			Created:      counts[api.ExecutionCreated],
			Scheduled:    counts[api.ExecutionScheduled],
			Deploying:    counts[api.ExecutionDeploying],
			Running:      counts[api.ExecutionRunning],
			Finished:     counts[api.ExecutionFinished],
			Canceling:    counts[api.ExecutionCanceling],
			Canceled:     counts[api.ExecutionCanceled],
			Failed:       counts[api.ExecutionFailed],
			Reconciling:  counts[api.ExecutionReconciling],
			Initializing: counts[api.ExecutionInitializing],
		},
	}
}

// jobTimes returns a job's start and end time and its duration in ms, as
// Flink computes them (see jobTimesOf).
func jobTimes(g *gateway.ArchivedExecutionGraph, now time.Time) (start, end, duration int64) {
	return jobTimesOf(g.StatusTimestamps[api.JobInitializing], g.StatusTimestamps[g.State], g.State, now)
}

// jobTimesOf is jobTimes from a job's INITIALIZING time and the time it
// reached its state (zero if it never did): the start is when the job
// became INITIALIZING; the end is -1 until the job is globally terminal;
// the duration runs until the end, or until now.
func jobTimesOf(initialized, reached time.Time, state api.JobStatus, now time.Time) (start, end, duration int64) {
	start, end, duration = -1, -1, -1
	if !initialized.IsZero() {
		start = initialized.UnixMilli()
	}
	if !reached.IsZero() && state.IsGloballyTerminalState() {
		end = reached.UnixMilli()
	}
	if start >= 0 {
		finish := now.UnixMilli()
		if end >= 0 {
			finish = end
		}
		duration = finish - start
	}
	return start, end, duration
}

// subtaskCounts counts the subtasks of every vertex per ExecutionState,
// with every state present.
func subtaskCounts(g *gateway.ArchivedExecutionGraph) map[api.ExecutionState]int {
	counts := zeroCounts()
	for _, v := range g.Vertices {
		for _, st := range v.Subtasks {
			counts[st.State]++
		}
	}
	return counts
}

func zeroCounts() map[api.ExecutionState]int {
	counts := make(map[api.ExecutionState]int)
	for _, state := range api.ExecutionStates() {
		counts[state] = 0
	}
	return counts
}

// ---------------------------------------------------------------------------
// GET /jobs/{jobid} — Flink's JobDetailsHandler
// ---------------------------------------------------------------------------

func (s *Server) handleJobDetails(_ http.ResponseWriter, r *http.Request) (any, error) {
	g, err := s.requestJob(r)
	if err != nil {
		return nil, err
	}
	now := s.now()
	start, end, duration := jobTimes(g, now)

	timestamps := make(map[api.JobStatus]int64)
	for status := api.JobInitializing; status <= api.JobReconciling; status++ {
		timestamps[status] = 0
		if t, ok := g.StatusTimestamps[status]; ok {
			timestamps[status] = t.UnixMilli()
		}
	}

	// Differs from Flink: Flink reports the job's configured max
	// parallelism (-1 when not set); the archived graph has no job
	// configuration, so we report the largest of the vertices'.
	maxParallelism := int64(-1)
	vertices := make([]JobDetailsVertexInfo, 0, len(g.Vertices))
	for _, v := range g.Vertices {
		maxParallelism = max(maxParallelism, int64(v.MaxParallelism))
		tasks := zeroCounts()
		for _, st := range v.Subtasks {
			tasks[st.State]++
		}
		start, end, duration := vertexTimes(v, now)
		vertices = append(vertices, JobDetailsVertexInfo{
			ID:             v.ID,
			Name:           v.Name,
			MaxParallelism: v.MaxParallelism,
			Parallelism:    v.Parallelism,
			Status:         v.State,
			StartTime:      start,
			EndTime:        end,
			Duration:       duration,
			Tasks:          tasks,
		})
	}

	return JobDetailsInfo{
		JobID:          g.JobID,
		Name:           g.JobName,
		IsStoppable:    false,
		State:          g.State,
		JobType:        jobTypeStreaming,
		StartTime:      start,
		EndTime:        end,
		Duration:       duration,
		MaxParallelism: maxParallelism,
		Now:            now.UnixMilli(),
		Timestamps:     timestamps,
		Vertices:       vertices,
		StatusCounts:   subtaskCounts(g),
		Plan:           s.planOf(g),
	}, nil
}

// vertexTimes times a vertex as Flink's JobDetailsHandler does: it started
// when its first subtask was deployed and ended when its last subtask
// reached a terminal state, once all of them have; until then the end is
// -1 and the duration runs until now. All three are -1 until a subtask is
// deployed.
func vertexTimes(v gateway.ArchivedExecutionJobVertex, now time.Time) (start, end, duration int64) {
	start, end = math.MaxInt64, -1
	allTerminal := true
	for _, e := range v.Subtasks {
		if deployed := stateTime(e, api.ExecutionDeploying); deployed >= 0 {
			start = min(start, deployed)
		}
		allTerminal = allTerminal && e.State.IsTerminal()
		end = max(end, stateTime(e, e.State))
	}
	switch {
	case start == math.MaxInt64:
		return -1, -1, -1
	case allTerminal && end >= 0:
		return start, end, end - start
	default:
		return start, -1, now.UnixMilli() - start
	}
}

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/plan — Flink's JobPlanHandler
// ---------------------------------------------------------------------------

func (s *Server) handleJobPlan(_ http.ResponseWriter, r *http.Request) (any, error) {
	g, err := s.requestJob(r)
	if err != nil {
		return nil, err
	}
	return JobPlanInfo{Plan: s.planOf(g)}, nil
}

// requestJob parses the {jobid} path parameter and asks the Dispatcher for
// the job, with Flink's answers for a malformed ID (400) and an unknown
// job (404, AbstractExecutionGraphHandler's "Job %s not found").
func (s *Server) requestJob(r *http.Request) (*gateway.ArchivedExecutionGraph, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	return s.requestGraph(r, jobID)
}

// requestGraph asks the Dispatcher for the job, with Flink's answer for an
// unknown job (404, AbstractExecutionGraphHandler's "Job %s not found").
func (s *Server) requestGraph(r *http.Request, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	g, err := s.deps.Dispatcher.RequestJob(r.Context(), jobID)
	if errors.Is(err, gateway.ErrJobNotFound) {
		return nil, s.jobNotFound(jobID, err)
	}
	if err != nil {
		return nil, fmt.Errorf("request job %s: %w", jobID, err)
	}
	if g == nil {
		return nil, fmt.Errorf("request job %s: the Dispatcher returned no graph", jobID)
	}
	return g, nil
}

// jobIDParam parses the {jobid} path parameter, with Flink's answer for a
// malformed ID (400).
func jobIDParam(r *http.Request) (api.JobID, error) {
	raw := r.PathValue("jobid")
	jobID, err := api.ParseJobID(raw)
	if err != nil {
		return api.JobID{}, badRequest(
			fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value %q.", raw),
			err.Error())
	}
	return jobID, nil
}

// jobNotFound answers a job the Dispatcher does not know (404,
// AbstractExecutionGraphHandler's "Job %s not found"), and drops its plan.
func (s *Server) jobNotFound(jobID api.JobID, cause error) error {
	s.plans.forget(jobID)
	return withMessages(cause, fmt.Sprintf("Job %s not found", jobID))
}

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/status — Flink's JobStatusHandler
// ---------------------------------------------------------------------------

// handleJobStatus answers the job's current JobStatus, and nothing else: a
// client polling for a job's end asks this, not for the whole
// JobDetailsInfo.
func (s *Server) handleJobStatus(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	status, err := s.requestJobStatus(r, jobID)
	if err != nil {
		return nil, err
	}
	return JobStatusInfo{Status: status}, nil
}

// requestJobStatus asks the Dispatcher for the job's status, with Flink's
// answer for an unknown job (404).
func (s *Server) requestJobStatus(r *http.Request, jobID api.JobID) (api.JobStatus, error) {
	status, err := s.deps.Dispatcher.RequestJobStatus(r.Context(), jobID)
	if errors.Is(err, gateway.ErrJobNotFound) {
		return 0, s.jobNotFound(jobID, err)
	}
	if err != nil {
		return 0, fmt.Errorf("request the status of job %s: %w", jobID, err)
	}
	return status, nil
}

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/trace — flinklab's own
// ---------------------------------------------------------------------------

// handleJobTrace answers the job's submission trace: the steps m1…m11 as
// the components recorded them (trace.Recorder.JobEvents), in time order.
// Flink has no such endpoint; its closest thing is the JobManager's and
// TaskManagers' logs, read side by side.
//
// The Dispatcher decides which jobs exist, as for the other job endpoints:
// a job it does not know is a 404 even if the recorder still holds events
// of it, and a job it knows has an empty trace when there is no recorder.
func (s *Server) handleJobTrace(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	if _, err := s.requestJobStatus(r, jobID); err != nil {
		return nil, err
	}
	events := s.deps.Trace.JobEvents(jobID)
	if events == nil {
		events = []trace.Event{} // {"events": []}, not null
	}
	return JobTraceInfo{Events: events}, nil
}

// ---------------------------------------------------------------------------
// GET /jobs — Flink's JobIdsHandler
// ---------------------------------------------------------------------------

// handleJobIDsOverview lists every job the Dispatcher knows with its
// status, in the Dispatcher's order (by JobID).
func (s *Server) handleJobIDsOverview(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobs, err := s.jobStatuses(r)
	if err != nil {
		return nil, err
	}
	return JobIdsWithStatusOverview{Jobs: jobs}, nil
}

// ---------------------------------------------------------------------------
// PATCH /jobs/{jobid} — Flink's JobCancellationHandler
// ---------------------------------------------------------------------------

// terminationModeKey is the query parameter of PATCH /jobs/{jobid}
// (Flink's TerminationModeQueryParameter).
const terminationModeKey = "mode"

// handleJobCancel cancels a job: ?mode=cancel, Flink's default and the only
// mode left. It answers 202 and {} once the Dispatcher has passed the
// cancellation on; the job then moves through CANCELLING to CANCELED (ask
// /jobs/{jobid}/status).
//
// The other answers are Flink's: mode=stop is 308 (Flink removed it; a
// graceful stop is POST /jobs/{jobid}/stop, with a savepoint), another
// mode a 400, an unknown job 404 "Job
// could not be found.", a job that already ended otherwise than CANCELED
// 409, and a Dispatcher that does not answer in time 408.
func (s *Server) handleJobCancel(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	if raw, ok := queryParam(r.URL.Query(), terminationModeKey); ok {
		// Flink converts each comma-separated value with
		// TerminationMode.valueOf(value.toUpperCase()) and uses the first.
		modes := splitLikeJava(raw, ",")
		for _, mode := range modes {
			if m := strings.ToUpper(mode); m != "CANCEL" && m != "STOP" {
				return nil, queryParamError(terminationModeKey, raw,
					fmt.Sprintf("No enum constant TerminationMode.%s (want cancel)", m))
			}
		}
		if len(modes) > 0 && strings.EqualFold(modes[0], "stop") {
			return nil, removed(`The termination mode "stop" has been removed. For an ungraceful shutdown, please use "cancel" instead. ` +
				`For a graceful shutdown, please use "jobs/:jobId/stop" instead.`)
		}
	}

	err = s.deps.Dispatcher.CancelJob(r.Context(), jobID)
	var terminated *gateway.JobTerminatedWithoutCancellationException
	switch {
	case err == nil:
		return accepted{EmptyResponseBody{}}, nil
	case errors.Is(err, gateway.ErrJobNotFound):
		return nil, withMessages(err, "Job could not be found.")
	case errors.As(err, &terminated):
		return nil, conflict(fmt.Sprintf(
			"Job cancellation failed because the job has already reached another terminal state (%s).", terminated.JobStatus))
	case errors.Is(err, rpc.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return nil, timedOut("Job cancellation timed out.", err.Error())
	default:
		return nil, fmt.Errorf("Job cancellation failed: %w", err)
	}
}

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/execution-result — Flink's JobExecutionResultHandler
// ---------------------------------------------------------------------------

// handleJobExecutionResult answers {"status": {"id": "IN_PROGRESS"}} while
// the job is not globally terminal, and then {"status": {"id":
// "COMPLETED"}, "job-execution-result": {…}}: how it ended, how long it
// ran, and why it failed, if it did. Flink's RestClusterClient polls this
// to wait for a job. It never waits itself: it asks for the status first,
// and for the result only of a job that has ended, as Flink does.
func (s *Server) handleJobExecutionResult(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	// An unknown job is a 404 with the text of Flink's
	// FlinkJobNotFoundException, as its handler passes it on.
	notFoundText := fmt.Sprintf("org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job (%s)", jobID)
	status, err := s.deps.Dispatcher.RequestJobStatus(r.Context(), jobID)
	if errors.Is(err, gateway.ErrJobNotFound) {
		s.plans.forget(jobID)
		return nil, withMessages(err, notFoundText)
	}
	if err != nil {
		return nil, fmt.Errorf("request the status of job %s: %w", jobID, err)
	}
	if !status.IsGloballyTerminalState() {
		return JobExecutionResultResponseBody{Status: QueueStatus{ID: QueueStatusInProgress}}, nil
	}
	result, err := s.deps.Dispatcher.RequestJobResult(r.Context(), jobID)
	if errors.Is(err, gateway.ErrJobNotFound) {
		s.plans.forget(jobID)
		return nil, withMessages(err, notFoundText)
	}
	if err != nil {
		return nil, fmt.Errorf("request the result of job %s: %w", jobID, err)
	}
	return JobExecutionResultResponseBody{
		Status:             QueueStatus{ID: QueueStatusCompleted},
		JobExecutionResult: jobExecutionResultOf(result),
	}, nil
}

// jobExecutionResultOf writes a JobResult as Flink 1.20's
// JobResultSerializer does. The failure's class is read from its text as
// in the exception history (exceptionName); the stack trace is the text.
func jobExecutionResultOf(result api.JobResult) *JobExecutionResult {
	r := &JobExecutionResult{
		JobID:              result.JobID,
		ApplicationStatus:  result.ApplicationStatus,
		AccumulatorResults: map[string]string{}, // no accumulators: {}
		NetRuntime:         result.NetRuntime.Milliseconds(),
	}
	if result.FailureCause != "" {
		r.FailureCause = &SerializedThrowable{Class: exceptionName(result.FailureCause), StackTrace: result.FailureCause}
	}
	return r
}
