package rest

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/vertices/{vertexid} — Flink's JobVertexDetailsHandler
// ---------------------------------------------------------------------------

// handleJobVertexDetails answers one vertex of a job with the current
// attempt of each of its subtasks: its state, where it runs, since when,
// and how long it spent in each state.
func (s *Server) handleJobVertexDetails(_ http.ResponseWriter, r *http.Request) (any, error) {
	// Flink resolves every path parameter before the handler runs, the job
	// ID first: a malformed vertex ID is a 400 even for an unknown job.
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	vertexID, err := vertexIDParam(r)
	if err != nil {
		return nil, err
	}
	g, err := s.requestGraph(r, jobID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(g.Vertices, func(v gateway.ArchivedExecutionJobVertex) bool { return v.ID == vertexID })
	if i < 0 {
		// JobVertexDetailsHandler's own NotFoundException. (Flink's
		// handlers built on AbstractJobVertexHandler say "No vertex with
		// ID '%s' exists."; this one is not built on it.)
		return nil, notFound(fmt.Sprintf("JobVertex %s not found", vertexID))
	}
	v := g.Vertices[i]

	now := s.now()
	bySubtask := func(a, b gateway.ArchivedExecution) int { return cmp.Compare(a.SubtaskIndex, b.SubtaskIndex) }
	subtasks := make([]SubtaskExecutionAttemptDetailsInfo, 0, len(v.Subtasks))
	for _, e := range slices.SortedFunc(slices.Values(v.Subtasks), bySubtask) {
		subtasks = append(subtasks, subtaskDetailsOf(e, now))
	}
	return JobVertexDetailsInfo{
		ID:             v.ID,
		Name:           v.Name,
		Parallelism:    v.Parallelism,
		MaxParallelism: v.MaxParallelism,
		Now:            now.UnixMilli(),
		Subtasks:       subtasks,
		Aggregated:     aggregatedOf(subtasks),
	}, nil
}

// vertexIDParam parses the {vertexid} path parameter, with Flink's answer
// for a malformed ID (400), as jobIDParam does for {jobid}.
func vertexIDParam(r *http.Request) (api.JobVertexID, error) {
	raw := r.PathValue("vertexid")
	var vertexID api.JobVertexID
	if err := vertexID.UnmarshalText([]byte(raw)); err != nil {
		return api.JobVertexID{}, badRequest(
			fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve path parameter (vertexid) from value %q.", raw),
			err.Error())
	}
	return vertexID, nil
}

// subtaskDetailsOf mirrors Flink's SubtaskExecutionAttemptDetailsInfo.create:
// the attempt started when it was deployed, and ended when it reached a
// terminal state; the duration runs until the end, or until now.
func subtaskDetailsOf(e gateway.ArchivedExecution, now time.Time) SubtaskExecutionAttemptDetailsInfo {
	start := stateTime(e, api.ExecutionDeploying)
	end := int64(-1)
	if e.State.IsTerminal() {
		end = stateTime(e, e.State)
	}
	duration := int64(-1)
	if start >= 0 {
		finish := now.UnixMilli()
		if end >= 0 {
			finish = end
		}
		duration = finish - start
	}
	taskManagerID := Unassigned
	if e.TaskManager != "" {
		taskManagerID = string(e.TaskManager)
	}
	return SubtaskExecutionAttemptDetailsInfo{
		Subtask: e.SubtaskIndex,
		Status:  e.State,
		Attempt: e.AttemptNumber,
		// Differs from Flink: Flink shows the TaskManager's
		// "hostname:dataPort" and hostname here. A flinklab TaskExecutor
		// has an RPC address, no host and data port, and the archived
		// graph keeps only its ResourceID (taskmanager-id), so both read
		// Flink's "(unassigned)".
		Endpoint:  Unassigned,
		Host:      Unassigned,
		StartTime: start,
		EndTime:   end,
		Duration:  duration,
		// Differs from Flink: no metrics are collected yet; all are zero.
		Metrics:        IOMetricsInfo{},
		TaskManagerID:  taskManagerID,
		StatusDuration: statusDurations(e, now),
		// One attempt at a time: no speculative execution, so no
		// OtherConcurrentAttempts.
	}
}

// stateTime returns when the attempt entered state s, in ms since the
// epoch, or -1 if it never did (Flink: Execution.getStateTimestamp, which
// says 0).
func stateTime(e gateway.ArchivedExecution, s api.ExecutionState) int64 {
	if t, ok := e.StateTimestamps[s]; ok {
		return t.UnixMilli()
	}
	return -1
}

// durationStates are the states whose durations Flink reports, in
// SubtaskExecutionAttemptDetailsInfo's status-duration and in the
// aggregated statistics.
var durationStates = []api.ExecutionState{
	api.ExecutionCreated, api.ExecutionScheduled, api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionRunning,
}

// statusDurations mirrors Flink's StatusDurationUtils: how long, in ms, the
// attempt was in each of the durationStates: until now for the state it is
// in, until it left it for the others, and -1 for a state it never entered.
func statusDurations(e gateway.ArchivedExecution, now time.Time) map[api.ExecutionState]int64 {
	durations := make(map[api.ExecutionState]int64, len(durationStates))
	for _, s := range durationStates {
		durations[s] = -1
		entered, ok := e.StateTimestamps[s]
		if !ok {
			continue
		}
		if s == e.State {
			durations[s] = now.UnixMilli() - entered.UnixMilli()
		} else if left, ok := leftAt(e, s); ok {
			durations[s] = left.UnixMilli() - entered.UnixMilli()
		}
	}
	return durations
}

// lifecycle lists the execution states in the order an attempt can pass
// through them: every move api.CheckExecutionTransition allows goes
// forward in this list (a test checks it), so an attempt is in each state
// at most once.
var lifecycle = []api.ExecutionState{
	api.ExecutionCreated, api.ExecutionReconciling, api.ExecutionScheduled, api.ExecutionDeploying,
	api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished, api.ExecutionCanceling,
	api.ExecutionCanceled, api.ExecutionFailed,
}

// leftAt returns when the attempt left state s: when it entered the state
// it moved to, which is the next state of the lifecycle it has a timestamp
// for. Flink's Execution also records when it left each state
// (getStateEndTimestamp); ours records only the entries, and the two are
// the same moment.
func leftAt(e gateway.ArchivedExecution, s api.ExecutionState) (time.Time, bool) {
	for _, next := range lifecycle[slices.Index(lifecycle, s)+1:] {
		if t, ok := e.StateTimestamps[next]; ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// aggregatedMetrics are the I/O metrics Flink's AggregatedTaskDetailsInfo
// summarizes, under IOMetricsInfo's JSON names.
var aggregatedMetrics = []struct {
	name  string
	value func(IOMetricsInfo) int64
}{
	{"read-bytes", func(m IOMetricsInfo) int64 { return m.ReadBytes }},
	{"write-bytes", func(m IOMetricsInfo) int64 { return m.WriteBytes }},
	{"read-records", func(m IOMetricsInfo) int64 { return m.ReadRecords }},
	{"write-records", func(m IOMetricsInfo) int64 { return m.WriteRecords }},
	{"accumulated-backpressured-time", func(m IOMetricsInfo) int64 { return m.AccumulatedBackpressuredTime }},
	{"accumulated-busy-time", func(m IOMetricsInfo) int64 {
		if math.IsNaN(m.AccumulatedBusyTime) {
			return -1 // as Flink: busy time is a double, NaN when unknown
		}
		return int64(m.AccumulatedBusyTime)
	}},
	{"accumulated-idle-time", func(m IOMetricsInfo) int64 { return m.AccumulatedIdleTime }},
}

// aggregatedOf mirrors Flink's AggregatedTaskDetailsInfo.create: the
// statistics of each I/O metric and of the time spent in each of the
// durationStates, over the subtasks. Like Flink, it counts a -1 duration
// (a state never entered) as a value.
func aggregatedOf(subtasks []SubtaskExecutionAttemptDetailsInfo) AggregatedTaskDetailsInfo {
	agg := AggregatedTaskDetailsInfo{
		Metrics:        make(map[string]MetricStatistics, len(aggregatedMetrics)),
		StatusDuration: make(map[api.ExecutionState]MetricStatistics, len(durationStates)),
	}
	values := make([]int64, len(subtasks))
	for _, metric := range aggregatedMetrics {
		for i, st := range subtasks {
			values[i] = metric.value(st.Metrics)
		}
		agg.Metrics[metric.name] = statisticsOf(values)
	}
	for _, state := range durationStates {
		for i, st := range subtasks {
			values[i] = st.StatusDuration[state]
		}
		agg.StatusDuration[state] = statisticsOf(values)
	}
	return agg
}

// statisticsOf mirrors Flink's AggregatedTaskDetailsInfo.MetricsStatistics.
func statisticsOf(values []int64) MetricStatistics {
	if len(values) == 0 {
		return MetricStatistics{}
	}
	sorted := slices.Sorted(slices.Values(values))
	var sum int64
	for _, v := range sorted {
		sum += v
	}
	return MetricStatistics{
		Min:    sorted[0],
		Max:    sorted[len(sorted)-1],
		Avg:    sum / int64(len(sorted)),
		Sum:    sum,
		Median: percentile(sorted, 50),
		P25:    percentile(sorted, 25),
		P75:    percentile(sorted, 75),
		P95:    percentile(sorted, 95),
	}
}

// percentile returns the p-th percentile of sorted values (at least one) as
// Flink computes it, with Apache Commons Math's Percentile in its default
// (LEGACY) estimation: the value at position p(n+1)/100, counting from 1,
// interpolated between its neighbours, truncated to an integer.
func percentile(sorted []int64, p float64) int64 {
	n := len(sorted)
	pos := p * float64(n+1) / 100
	switch {
	case pos < 1:
		return sorted[0]
	case pos >= float64(n):
		return sorted[n-1]
	}
	whole, frac := math.Modf(pos)
	lower, upper := float64(sorted[int(whole)-1]), float64(sorted[int(whole)])
	return int64(lower + frac*(upper-lower))
}
