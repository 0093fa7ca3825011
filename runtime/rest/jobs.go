package rest

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// jobTypeStreaming is the job type of every flinklab job (Flink: JobType).
const jobTypeStreaming = "STREAMING"

// ---------------------------------------------------------------------------
// GET /jobs/overview — Flink's JobsOverviewHandler
// ---------------------------------------------------------------------------

// handleJobsOverview summarizes every job the Dispatcher knows, newest
// first. Flink asks the Dispatcher once (requestMultipleJobDetails); our
// gateway has ListJobs and RequestJob, so we ask once per job.
func (s *Server) handleJobsOverview(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobIDs, err := s.deps.Dispatcher.ListJobs(r.Context())
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	now := s.now()
	jobs := make([]JobDetails, 0, len(jobIDs))
	for _, jobID := range jobIDs {
		g, err := s.deps.Dispatcher.RequestJob(r.Context(), jobID)
		if errors.Is(err, dispatcher.ErrJobNotFound) {
			continue // gone between the two calls
		}
		if err != nil {
			return nil, fmt.Errorf("request job %s: %w", jobID, err)
		}
		jobs = append(jobs, jobDetailsOf(g, now))
	}
	slices.SortFunc(jobs, func(a, b JobDetails) int {
		return cmp.Or(cmp.Compare(b.StartTime, a.StartTime), strings.Compare(a.JobID.String(), b.JobID.String()))
	})
	return MultipleJobsDetails{Jobs: jobs}, nil
}

// jobDetailsOf mirrors Flink's JobDetails.createDetailsForJob.
func jobDetailsOf(g *gateway.ArchivedExecutionGraph, now time.Time) JobDetails {
	start, end, duration := jobTimes(g, now)
	lastModification := end
	for _, t := range g.StatusTimestamps {
		lastModification = max(lastModification, t.UnixMilli())
	}
	counts := subtaskCounts(g)
	return JobDetails{
		JobID:            g.JobID,
		Name:             g.JobName,
		State:            g.State,
		StartTime:        start,
		EndTime:          end,
		Duration:         duration,
		LastModification: lastModification,
		Tasks: TaskCounts{
			Total:        sumCounts(counts),
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
// Flink computes them: the start is when the job became INITIALIZING; the
// end is -1 until the job is globally terminal; the duration runs until
// the end, or until now.
func jobTimes(g *gateway.ArchivedExecutionGraph, now time.Time) (start, end, duration int64) {
	start, end, duration = -1, -1, -1
	if t, ok := g.StatusTimestamps[api.JobInitializing]; ok {
		start = t.UnixMilli()
	}
	if t, ok := g.StatusTimestamps[g.State]; ok && g.State.IsGloballyTerminalState() {
		end = t.UnixMilli()
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

func sumCounts(counts map[api.ExecutionState]int) int {
	total := 0
	for _, n := range counts {
		total += n
	}
	return total
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
		vertices = append(vertices, JobDetailsVertexInfo{
			ID:             v.ID,
			Name:           v.Name,
			MaxParallelism: v.MaxParallelism,
			Parallelism:    v.Parallelism,
			Status:         v.State,
			StartTime:      -1,
			EndTime:        -1,
			Duration:       -1,
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
	raw := r.PathValue("jobid")
	jobID, err := api.ParseJobID(raw)
	if err != nil {
		return nil, badRequest(
			fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value %q.", raw),
			err.Error())
	}
	g, err := s.deps.Dispatcher.RequestJob(r.Context(), jobID)
	if errors.Is(err, dispatcher.ErrJobNotFound) {
		s.forgetPlan(jobID)
		return nil, withMessages(err, fmt.Sprintf("Job %s not found", jobID))
	}
	if err != nil {
		return nil, fmt.Errorf("request job %s: %w", jobID, err)
	}
	if g == nil {
		return nil, fmt.Errorf("request job %s: the Dispatcher returned no graph", jobID)
	}
	return g, nil
}

// ---------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------

// newJobPlan mirrors Flink's JsonPlanGenerator.generatePlan: a node per
// vertex, in the JobGraph's order, each listing its inputs.
func newJobPlan(g *jobgraph.JobGraph) *JobPlan {
	plan := &JobPlan{JobID: g.JobID, Name: g.Name, Type: jobTypeStreaming, Nodes: []JobPlanNode{}}
	for _, v := range g.Vertices() {
		node := JobPlanNode{ID: v.ID, Parallelism: v.Parallelism, Description: escapeDescription(v.Name), Inputs: []JobPlanInput{}}
		for num, edge := range v.Inputs() {
			if edge.Source == nil || edge.Source.Producer == nil {
				continue // as Flink: an edge without a producer is skipped
			}
			node.Inputs = append(node.Inputs, JobPlanInput{
				Num:          num,
				ID:           edge.Source.Producer.ID,
				ShipStrategy: edge.ShipStrategyName,
				Exchange:     strings.ToLower(edge.Source.ResultType.String()),
			})
		}
		plan.Nodes = append(plan.Nodes, node)
	}
	return plan
}

// archivedPlan is the plan of a job this endpoint did not run (one the
// MiniCluster submitted directly, or one run before a restart). The
// archived graph has the vertices but not the edges, so its nodes have no
// inputs.
func archivedPlan(g *gateway.ArchivedExecutionGraph) *JobPlan {
	plan := &JobPlan{JobID: g.JobID, Name: g.JobName, Type: jobTypeStreaming, Nodes: []JobPlanNode{}}
	for _, v := range g.Vertices {
		plan.Nodes = append(plan.Nodes, JobPlanNode{ID: v.ID, Parallelism: v.Parallelism, Description: escapeDescription(v.Name), Inputs: []JobPlanInput{}})
	}
	return plan
}

// descriptionEscaper does what JsonPlanGenerator does to a description:
// StringEscapeUtils.escapeHtml4 (for the characters that matter), then line
// breaks to <br/> and backslashes to &#92;.
var descriptionEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "<br/>", `\`, "&#92;")

func escapeDescription(s string) string { return descriptionEscaper.Replace(s) }

func (s *Server) storePlan(jobID api.JobID, plan *JobPlan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.plans[jobID]; !ok { // a duplicate submission must not replace the first job's plan
		s.plans[jobID] = plan
	}
}

func (s *Server) forgetPlan(jobID api.JobID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.plans, jobID)
}

// planOf returns the plan stored when the job was run here, or else the
// plan the archived graph allows.
func (s *Server) planOf(g *gateway.ArchivedExecutionGraph) *JobPlan {
	s.mu.Lock()
	plan, ok := s.plans[g.JobID]
	s.mu.Unlock()
	if ok {
		return plan
	}
	return archivedPlan(g)
}
