package rest

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/exceptions — Flink's JobExceptionsHandler
// ---------------------------------------------------------------------------

// DefaultMaxExceptions is how many exceptions GET /jobs/{jobid}/exceptions
// reports when the request has no maxExceptions: Flink's
// JobExceptionsHandler.MAX_NUMBER_EXCEPTION_TO_REPORT.
const DefaultMaxExceptions = 20

// Flink's names of the query parameters (UpperLimitExceptionParameter.KEY,
// FailureLabelFilterParameter.KEY).
const (
	maxExceptionsKey      = "maxExceptions"
	failureLabelFilterKey = "failureLabelFilter"
)

// handleJobExceptions answers the job's failures: its exception history,
// newest first, and Flink 1.20's deprecated first-level members (the newest
// root failure and the failed attempts). This is where an engineer looks
// first when a job restarts or fails.
func (s *Server) handleJobExceptions(_ http.ResponseWriter, r *http.Request) (any, error) {
	// Flink resolves the path parameter, then the query parameters in the
	// order JobExceptionsMessageParameters lists them, before it asks for
	// the job: a malformed parameter is a 400 even for an unknown job.
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	query := r.URL.Query()
	limit, err := maxExceptionsParam(query)
	if err != nil {
		return nil, err
	}
	filter, err := failureLabelFilterParam(query)
	if err != nil {
		return nil, err
	}
	g, err := s.requestGraph(r, jobID)
	if err != nil {
		return nil, err
	}
	return jobExceptionsOf(g, limit, filter), nil
}

// jobExceptionsOf mirrors Flink's JobExceptionsHandler.createJobExceptionsInfo.
// A job that never failed has an empty history and null root-exception and
// timestamp; otherwise the root exception is the newest history entry,
// which is Flink's ArchivedExecutionGraph.getFailureInfo (set on every
// failure the scheduler handles, the last one kept).
func jobExceptionsOf(g *gateway.ArchivedExecutionGraph, limit int, filter []failureLabel) JobExceptionsInfoWithHistory {
	history := exceptionHistoryOf(g)
	info := JobExceptionsInfoWithHistory{
		AllExceptions:    []ExecutionExceptionInfo{},
		ExceptionHistory: jobExceptionHistoryOf(history, limit, filter),
	}
	if len(history) == 0 {
		return info
	}
	root := history[0]
	timestamp := millisOrUnknown(root.Timestamp)
	info.RootException, info.Timestamp = &root.Exception, &timestamp
	info.AllExceptions, info.Truncated = allExceptionsOf(g, limit)
	return info
}

// exceptionHistoryOf returns the job's root failures, newest first: the
// scheduler's ExceptionHistory, and in front of it the job's FailureCause
// as a global failure if the history does not start with it, at the time
// the job FAILED (or began FAILING, if it has not FAILED yet).
//
// That covers a job that failed before its scheduler recorded anything (a
// JobMaster that could not start: the Dispatcher's sparse graph has a
// FailureCause and no history) and a job the scheduler failed without a
// task failure (a slot it could not assign). Flink does the same:
// ExecutionGraphInfo(ArchivedExecutionGraph) makes the history of a graph
// without one from its failure info, RootExceptionHistoryEntry
// .fromGlobalFailure, and the scheduler archives a global failure at the
// FAILED timestamp (SchedulerBase#archiveGlobalFailure).
func exceptionHistoryOf(g *gateway.ArchivedExecutionGraph) []gateway.ExceptionHistoryEntry {
	history := g.ExceptionHistory
	if g.FailureCause == "" || (len(history) > 0 && history[0].Exception == g.FailureCause) {
		return history
	}
	failedAt, ok := g.StatusTimestamps[api.JobFailed]
	if !ok {
		failedAt = g.StatusTimestamps[api.JobFailing] // zero if unknown: a timestamp of -1
	}
	global := gateway.ExceptionHistoryEntry{Exception: g.FailureCause, Timestamp: failedAt}
	return slices.Concat([]gateway.ExceptionHistoryEntry{global}, history)
}

// jobExceptionHistoryOf mirrors Flink's createJobExceptionHistory: the
// entries the filter lets through, at most limit of them, newest first,
// and whether some of those were left out. (Flink keeps its history
// oldest first and reverses it; ours is newest first already.)
func jobExceptionHistoryOf(history []gateway.ExceptionHistoryEntry, limit int, filter []failureLabel) JobExceptionHistory {
	var matching []gateway.ExceptionHistoryEntry
	for _, e := range history {
		// flinklab has no failure enrichers: no entry has labels, so
		// only an empty filter lets entries through.
		if hasFailureLabels(nil, filter) {
			matching = append(matching, e)
		}
	}
	n := min(limit, len(matching))
	entries := make([]RootExceptionInfo, 0, n)
	for _, e := range matching[:n] {
		concurrent := make([]ExceptionInfo, 0, len(e.ConcurrentExceptions))
		for _, c := range e.ConcurrentExceptions {
			concurrent = append(concurrent, exceptionInfoOf(c))
		}
		entries = append(entries, RootExceptionInfo{ExceptionInfo: exceptionInfoOf(e), ConcurrentExceptions: concurrent})
	}
	return JobExceptionHistory{Entries: entries, Truncated: n < len(matching)}
}

// exceptionInfoOf mirrors Flink's JobExceptionsHandler.createExceptionInfo.
// A global failure names no task and no TaskExecutor, and those fields are
// left out; so are the location fields of a task that had no TaskExecutor.
func exceptionInfoOf(e gateway.ExceptionHistoryEntry) ExceptionInfo {
	info := ExceptionInfo{
		ExceptionName: exceptionName(e.Exception),
		Stacktrace:    e.Exception, // Differs from Flink: a Go error has no stack trace
		Timestamp:     millisOrUnknown(e.Timestamp),
		FailureLabels: map[string]string{}, // no failure enrichers: {}, never null
	}
	if e.TaskName == "" {
		return info // a global failure
	}
	info.TaskName = e.TaskName
	if e.TaskManagerID != "" {
		// Differs from Flink: Flink shows the TaskManager's
		// "hostname:dataPort"; a flinklab TaskExecutor has neither, so
		// both read Flink's "(unassigned)", as in the vertex details.
		info.Location, info.Endpoint = Unassigned, Unassigned
		info.TaskManagerID = string(e.TaskManagerID)
	}
	return info
}

// allExceptionsOf mirrors the deprecated all-exceptions of Flink's
// createJobExceptionsInfo: the current attempts that failed, vertex by
// vertex in the graph's order and subtask by subtask, at most limit of
// them, and whether there were more.
func allExceptionsOf(g *gateway.ArchivedExecutionGraph, limit int) ([]ExecutionExceptionInfo, bool) {
	all := []ExecutionExceptionInfo{}
	bySubtask := func(a, b gateway.ArchivedExecution) int { return cmp.Compare(a.SubtaskIndex, b.SubtaskIndex) }
	for _, v := range g.Vertices {
		for _, e := range slices.SortedFunc(slices.Values(v.Subtasks), bySubtask) {
			if e.FailureCause == "" {
				continue
			}
			taskManagerID := Unassigned
			if e.TaskManager != "" {
				taskManagerID = string(e.TaskManager)
			}
			all = append(all, ExecutionExceptionInfo{
				Exception: e.FailureCause,
				// Flink's getTaskNameWithSubtaskIndex.
				Task:          fmt.Sprintf("%s (%d/%d)", v.Name, e.SubtaskIndex+1, v.Parallelism),
				Location:      Unassigned,
				Endpoint:      Unassigned,
				Timestamp:     stateTime(e, api.ExecutionFailed), // -1 if unknown, as Flink's 0 becomes -1
				TaskManagerID: taskManagerID,
			})
		}
	}
	if len(all) > limit {
		return all[:limit], true
	}
	return all, false
}

// millisOrUnknown returns t in ms since the epoch, or -1 for the zero time.
func millisOrUnknown(t time.Time) int64 {
	if t.IsZero() {
		return -1
	}
	return t.UnixMilli()
}

// exceptionNamePattern matches what a Java Throwable's toString starts
// with: a class name ending in Exception or Error, simple
// ("JobException") or fully qualified ("java.io.IOException").
var exceptionNamePattern = regexp.MustCompile(`^(?:[A-Za-z_$][A-Za-z0-9_$]*\.)*[A-Z][A-Za-z0-9_$]*(?:Exception|Error)$`)

// javaClassNames maps the simple names of Flink's well-known exceptions,
// the ones flinklab's errors start with and facts.md §3 quotes, to their
// fully qualified class names, which Flink reports as exceptionName.
var javaClassNames = map[string]string{
	"JobException":                       "org.apache.flink.runtime.JobException",
	"JobSubmissionException":             "org.apache.flink.runtime.client.JobSubmissionException",
	"DuplicateJobSubmissionException":    "org.apache.flink.runtime.client.DuplicateJobSubmissionException",
	"JobInitializationException":         "org.apache.flink.runtime.client.JobInitializationException",
	"JobMasterException":                 "org.apache.flink.runtime.jobmaster.JobMasterException",
	"SuppressRestartsException":          "org.apache.flink.runtime.execution.SuppressRestartsException",
	"NoResourceAvailableException":       "org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException",
	"StreamTaskException":                "org.apache.flink.streaming.runtime.tasks.StreamTaskException",
	"TimeoutException":                   "java.util.concurrent.TimeoutException",
	"IOException":                        "java.io.IOException",
	"FileNotFoundException":              "java.io.FileNotFoundException",
	"ClassNotFoundException":             "java.lang.ClassNotFoundException",
	"IllegalArgumentException":           "java.lang.IllegalArgumentException",
	"RuntimeException":                   "java.lang.RuntimeException",
	"IllegalStateException":              "java.lang.IllegalStateException",
	"FlinkJobNotFoundException":          "org.apache.flink.runtime.messages.FlinkJobNotFoundException",
	"CheckpointException":                "org.apache.flink.runtime.checkpoint.CheckpointException",
	"StopWithSavepointStoppingException": "org.apache.flink.runtime.scheduler.stopwithsavepoint.StopWithSavepointStoppingException",
}

// goErrorName is the exceptionName of an error whose text does not start
// with an exception name: there was no Java exception, only a Go error,
// and we do not make a class up.
const goErrorName = "error"

// exceptionName names a failure as Flink would (SerializedThrowable
// .getOriginalErrorClassName): flinklab's errors read like Java's
// Throwable.toString, "JobException: Recovery is suppressed by …", so the
// name is the text before the first ": ". A well-known simple name becomes
// its fully qualified class name (javaClassNames); another simple or
// qualified name is reported as it is; a text that does not start with an
// exception name is goErrorName.
func exceptionName(text string) string {
	name, _, _ := strings.Cut(text, ":")
	if !exceptionNamePattern.MatchString(name) {
		return goErrorName
	}
	if qualified, ok := javaClassNames[name]; ok {
		return qualified
	}
	return name
}

// maxExceptionsParam parses the maxExceptions query parameter as Flink
// 1.20's UpperLimitExceptionParameter does: a comma-separated list of
// ints (several parameters are joined with commas), of which the handler
// uses the first; DefaultMaxExceptions without one.
func maxExceptionsParam(query url.Values) (int, error) {
	raw, ok := queryParam(query, maxExceptionsKey)
	if !ok {
		return DefaultMaxExceptions, nil
	}
	var limits []int
	for _, v := range splitLikeJava(raw, ",") {
		n, err := strconv.ParseInt(v, 10, 32) // Integer.valueOf
		if err != nil {
			return 0, queryParamError(maxExceptionsKey, raw, err.Error())
		}
		limits = append(limits, int(n))
	}
	if len(limits) == 0 { // "," splits into nothing: Flink then uses its default
		return DefaultMaxExceptions, nil
	}
	if limits[0] < 0 {
		// Differs from Flink: Flink passes the limit to Stream.limit,
		// which throws IllegalArgumentException, a 500.
		return 0, queryParamError(maxExceptionsKey, raw, fmt.Sprintf("%s must not be negative, got %d", maxExceptionsKey, limits[0]))
	}
	return limits[0], nil
}

// failureLabel is one key:value pair of the failureLabelFilter (Flink's
// FailureLabelFilterParameter.FailureLabel).
type failureLabel struct{ key, value string }

// failureLabelFilterParam parses the failureLabelFilter query parameter as
// Flink's FailureLabelFilterParameter does: comma-separated key:value
// pairs, each split at ':' into exactly two parts, with Java's
// String.split rules ("a:b:" is the pair a, b; "a:" and "a:b:c" are
// errors, and so is an empty value). No parameter is no filter.
func failureLabelFilterParam(query url.Values) ([]failureLabel, error) {
	raw, ok := queryParam(query, failureLabelFilterKey)
	if !ok {
		return nil, nil
	}
	var labels []failureLabel
	for _, v := range splitLikeJava(raw, ",") {
		tokens := splitLikeJava(v, ":")
		if len(tokens) != 2 {
			return nil, queryParamError(failureLabelFilterKey, raw,
				fmt.Sprintf("%s may be a `key:value` entry only (%s)", failureLabelFilterKey, v))
		}
		if !slices.Contains(labels, failureLabel{tokens[0], tokens[1]}) { // Flink collects them in a set
			labels = append(labels, failureLabel{tokens[0], tokens[1]})
		}
	}
	return labels, nil
}

// hasFailureLabels reports whether a failure with these labels passes the
// filter: it must have every label of the filter, with the same value.
func hasFailureLabels(labels map[string]string, filter []failureLabel) bool {
	for _, want := range filter {
		if got, ok := labels[want.key]; !ok || got != want.value {
			return false
		}
	}
	return true
}

// queryParam returns a query parameter's values joined with commas, as
// Flink's HandlerRequest joins them, and whether the request has it at all
// ("?maxExceptions=" has it, empty).
func queryParam(query url.Values, key string) (string, bool) {
	values, ok := query[key]
	if !ok || len(values) == 0 {
		return "", false
	}
	return strings.Join(values, ","), true
}

// queryParamError is Flink's 400 for a query parameter it cannot convert
// (HandlerRequest's "Cannot resolve query parameter", wrapped by
// AbstractHandler), with the reason as the second message where Flink
// adds its stack trace.
func queryParamError(key, raw, reason string) error {
	return badRequest(
		fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve query parameter (%s) from value %q.", key, raw),
		reason)
}

// splitLikeJava splits s around sep as Java's String.split(sep) does,
// which Flink's parameters use: trailing empty strings are dropped, and a
// string without sep, the empty string included, is one element.
func splitLikeJava(s, sep string) []string {
	if !strings.Contains(s, sep) {
		return []string{s}
	}
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
