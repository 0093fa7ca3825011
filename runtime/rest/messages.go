package rest

import (
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/trace"
)

// The request and response bodies, named as in Flink (and in the OpenAPI
// spec rest_v1_dispatcher.yml) with the JSON field names of the spec. A Go
// client may use them to talk to a flinklab or a Flink cluster.

// ErrorResponseBody is the body of every failed request (Flink's
// ErrorResponseBody): one or more messages, the first for humans.
type ErrorResponseBody struct {
	Errors []string `json:"errors"`
}

// UploadStatusSuccess is the only value of JarUploadResponseBody.Status.
const UploadStatusSuccess = "success"

// JarUploadResponseBody answers POST /jars/upload.
type JarUploadResponseBody struct {
	// Filename is the absolute path the jar was stored at; its base name,
	// "<uuid>_<name>.jar", is the jar ID of the other /jars endpoints.
	Filename string `json:"filename"`
	Status   string `json:"status"`
}

// JarListInfo answers GET /jars: the REST address and the uploaded jars,
// newest first.
type JarListInfo struct {
	Address string        `json:"address"`
	Files   []JarFileInfo `json:"files"`
}

// JarFileInfo describes one uploaded jar.
type JarFileInfo struct {
	ID       string         `json:"id"`       // "<uuid>_<name>.jar", the jar ID
	Name     string         `json:"name"`     // "<name>.jar", as the client sent it
	Uploaded int64          `json:"uploaded"` // ms since the epoch
	Entry    []JarEntryInfo `json:"entry"`    // the programs it can run; empty if unreadable
}

// JarEntryInfo names a program a jar can run (Flink: an entry class).
type JarEntryInfo struct {
	Name        string  `json:"name"`
	Description *string `json:"description"` // always null: programs have no description
}

// JarRunRequestBody is the body of POST /jars/{jarid}/run. Every field is
// optional; the body itself may be empty. Fields that are not set fall
// back to the query parameters (entry-class, parallelism, programArg,
// program-args) and then to defaults, as in Flink.
//
// SavepointPath and AllowNonRestoredState (or the query parameters of the
// same names) make the job start from a savepoint, as in Flink.
// RestoreMode, ClaimMode and FlinkConfiguration are accepted so that
// Flink clients work, and ignored with a warning: a savepoint is always
// restored NO_CLAIM, and there is no per-job configuration.
type JarRunRequestBody struct {
	EntryClass      *string    `json:"entryClass,omitempty"`
	ProgramArgs     *string    `json:"programArgs,omitempty"` // deprecated in Flink: one string, split like a shell would
	ProgramArgsList []string   `json:"programArgsList,omitempty"`
	Parallelism     *int       `json:"parallelism,omitempty"`
	JobID           *api.JobID `json:"jobId,omitempty"`

	AllowNonRestoredState *bool             `json:"allowNonRestoredState,omitempty"`
	SavepointPath         *string           `json:"savepointPath,omitempty"`
	RestoreMode           *string           `json:"restoreMode,omitempty"`
	ClaimMode             *string           `json:"claimMode,omitempty"`
	FlinkConfiguration    map[string]string `json:"flinkConfiguration,omitempty"`
}

// JarRunResponseBody answers POST /jars/{jarid}/run.
type JarRunResponseBody struct {
	JobID api.JobID `json:"jobid"`
}

// MultipleJobsDetails answers GET /jobs/overview.
type MultipleJobsDetails struct {
	Jobs []JobDetails `json:"jobs"`
}

// JobDetails is one job in the overview (Flink's JobDetails). Times are ms
// since the epoch; EndTime is -1 until the job is globally terminal, and
// Duration runs until now while the job runs.
type JobDetails struct {
	JobID            api.JobID     `json:"jid"`
	Name             string        `json:"name"`
	State            api.JobStatus `json:"state"`
	StartTime        int64         `json:"start-time"`
	EndTime          int64         `json:"end-time"`
	Duration         int64         `json:"duration"`
	LastModification int64         `json:"last-modification"`
	Tasks            TaskCounts    `json:"tasks"`
}

// TaskCounts counts a job's subtasks per ExecutionState, under the
// lower-cased state names, plus their total (Flink's JobDetails "tasks").
type TaskCounts struct {
	Total        int `json:"total"`
	Created      int `json:"created"`
	Scheduled    int `json:"scheduled"`
	Deploying    int `json:"deploying"`
	Running      int `json:"running"`
	Finished     int `json:"finished"`
	Canceling    int `json:"canceling"`
	Canceled     int `json:"canceled"`
	Failed       int `json:"failed"`
	Reconciling  int `json:"reconciling"`
	Initializing int `json:"initializing"`
}

// JobDetailsInfo answers GET /jobs/{jobid}.
type JobDetailsInfo struct {
	JobID          api.JobID     `json:"jid"`
	Name           string        `json:"name"`
	IsStoppable    bool          `json:"isStoppable"` // always false, as in Flink 1.20 (the old StoppableFunction's; stop is POST /jobs/{jobid}/stop)
	State          api.JobStatus `json:"state"`
	JobType        string        `json:"job-type"` // always "STREAMING"
	StartTime      int64         `json:"start-time"`
	EndTime        int64         `json:"end-time"`
	Duration       int64         `json:"duration"`
	MaxParallelism int64         `json:"maxParallelism"`
	Now            int64         `json:"now"`
	// Timestamps holds when the job entered each JobStatus, 0 for the ones
	// it never entered.
	Timestamps map[api.JobStatus]int64 `json:"timestamps"`
	Vertices   []JobDetailsVertexInfo  `json:"vertices"`
	// StatusCounts counts the subtasks of all vertices per ExecutionState.
	StatusCounts map[api.ExecutionState]int `json:"status-counts"`
	Plan         *JobPlan                   `json:"plan"`
}

// JobDetailsVertexInfo is one vertex of JobDetailsInfo. StartTime is when
// its first subtask was deployed, EndTime when its last subtask reached a
// terminal state (-1 until all have), and Duration runs until the end, or
// until now; all three are -1 until a subtask is deployed.
type JobDetailsVertexInfo struct {
	ID             api.JobVertexID            `json:"id"`
	Name           string                     `json:"name"`
	MaxParallelism int                        `json:"maxParallelism"`
	Parallelism    int                        `json:"parallelism"`
	Status         api.ExecutionState         `json:"status"`
	StartTime      int64                      `json:"start-time"`
	EndTime        int64                      `json:"end-time"`
	Duration       int64                      `json:"duration"`
	Tasks          map[api.ExecutionState]int `json:"tasks"`
	Metrics        IOMetricsInfo              `json:"metrics"`
}

// IOMetricsInfo holds the I/O metrics of a vertex or a subtask. flinklab
// collects none yet, so every field is zero and no count is "complete".
type IOMetricsInfo struct {
	ReadBytes                    int64   `json:"read-bytes"`
	ReadBytesComplete            bool    `json:"read-bytes-complete"`
	WriteBytes                   int64   `json:"write-bytes"`
	WriteBytesComplete           bool    `json:"write-bytes-complete"`
	ReadRecords                  int64   `json:"read-records"`
	ReadRecordsComplete          bool    `json:"read-records-complete"`
	WriteRecords                 int64   `json:"write-records"`
	WriteRecordsComplete         bool    `json:"write-records-complete"`
	AccumulatedBackpressuredTime int64   `json:"accumulated-backpressured-time"`
	AccumulatedIdleTime          int64   `json:"accumulated-idle-time"`
	AccumulatedBusyTime          float64 `json:"accumulated-busy-time"`
}

// JobVertexDetailsInfo answers GET /jobs/{jobid}/vertices/{vertexid}: one
// vertex and the current attempt of each of its subtasks, in subtask order.
type JobVertexDetailsInfo struct {
	ID             api.JobVertexID                      `json:"id"`
	Name           string                               `json:"name"`
	Parallelism    int                                  `json:"parallelism"`
	MaxParallelism int                                  `json:"maxParallelism"`
	Now            int64                                `json:"now"`
	Subtasks       []SubtaskExecutionAttemptDetailsInfo `json:"subtasks"`
	Aggregated     AggregatedTaskDetailsInfo            `json:"aggregated"`
}

// Unassigned is what Flink shows for where an attempt runs when it does not
// know: the attempt has no slot yet. See SubtaskExecutionAttemptDetailsInfo.
const Unassigned = "(unassigned)"

// SubtaskExecutionAttemptDetailsInfo is one attempt of one subtask. Times
// are ms since the epoch, -1 when unknown: StartTime is when the attempt
// was deployed, EndTime when it reached its terminal state, and Duration
// runs from the start until the end, or until now.
//
// Endpoint and Host are always Unassigned: Flink shows the TaskManager's
// "hostname:dataPort" and hostname, but a flinklab TaskExecutor has an RPC
// address, not a host and a data port, and the archived graph keeps only
// its ResourceID. TaskManagerID says which TaskExecutor the attempt runs
// on, or Unassigned before it has a slot.
type SubtaskExecutionAttemptDetailsInfo struct {
	Subtask  int                `json:"subtask"`
	Status   api.ExecutionState `json:"status"`
	Attempt  int                `json:"attempt"`
	Endpoint string             `json:"endpoint"`
	// Host is deprecated in Flink since 1.19 and removed in 2.0; the spec
	// (1.20) still has it.
	Host          string        `json:"host"`
	StartTime     int64         `json:"start-time"`
	EndTime       int64         `json:"end-time"`
	Duration      int64         `json:"duration"`
	Metrics       IOMetricsInfo `json:"metrics"`
	TaskManagerID string        `json:"taskmanager-id"`
	// StatusDuration holds how long the attempt spent in CREATED,
	// SCHEDULED, DEPLOYING, INITIALIZING and RUNNING, in ms: so far for
	// its current state, -1 for a state it never entered.
	StatusDuration map[api.ExecutionState]int64 `json:"status-duration"`
	// OtherConcurrentAttempts lists the other attempts of the subtask
	// running at the same time (Flink's speculative execution). flinklab
	// runs one attempt at a time, so it is always empty and left out, as
	// Flink leaves it out when empty.
	OtherConcurrentAttempts []SubtaskExecutionAttemptDetailsInfo `json:"other-concurrent-attempts,omitempty"`
}

// AggregatedTaskDetailsInfo summarizes the subtasks of a vertex: the
// statistics of each I/O metric, under IOMetricsInfo's field names, and of
// the time spent in each state of SubtaskExecutionAttemptDetailsInfo's
// StatusDuration.
type AggregatedTaskDetailsInfo struct {
	Metrics        map[string]MetricStatistics             `json:"metrics"`
	StatusDuration map[api.ExecutionState]MetricStatistics `json:"status-duration"`
}

// MetricStatistics are the statistics of one value over the subtasks, as
// Flink computes them: avg is the integer mean, and the percentiles are
// Apache Commons Math's (see percentile). All are 0 for no subtasks.
type MetricStatistics struct {
	Min    int64 `json:"min"`
	Max    int64 `json:"max"`
	Avg    int64 `json:"avg"`
	Sum    int64 `json:"sum"`
	Median int64 `json:"median"`
	P25    int64 `json:"p25"`
	P75    int64 `json:"p75"`
	P95    int64 `json:"p95"`
}

// JobTraceInfo answers GET /jobs/{jobid}/trace, flinklab's own endpoint:
// the steps of the job's submission that trace.Recorder recorded, in time
// order, e.g. {"events": [{"step": "m3", "from": "REST", "to":
// "Dispatcher", …}]}. Flink has nothing like it.
type JobTraceInfo struct {
	Events []trace.Event `json:"events"`
}

// JobStatusInfo answers GET /jobs/{jobid}/status: the job's current
// JobStatus, e.g. {"status": "RUNNING"}.
type JobStatusInfo struct {
	Status api.JobStatus `json:"status"`
}

// JobPlanInfo answers GET /jobs/{jobid}/plan.
type JobPlanInfo struct {
	Plan *JobPlan `json:"plan"`
}

// JobPlan is the dataflow plan of a job as Flink's JsonPlanGenerator
// writes it: one node per JobVertex, each naming the vertices it reads.
type JobPlan struct {
	JobID api.JobID     `json:"jid"`
	Name  string        `json:"name"`
	Type  string        `json:"type"` // always "STREAMING"
	Nodes []JobPlanNode `json:"nodes"`
}

// JobPlanNode is one JobVertex in the plan.
type JobPlanNode struct {
	ID               api.JobVertexID `json:"id"`
	Parallelism      int             `json:"parallelism"`
	Operator         string          `json:"operator"`          // "" (Flink: set by the batch optimizer only)
	OperatorStrategy string          `json:"operator_strategy"` // ""
	// Description is the vertex name, HTML-escaped as Flink does, e.g.
	// "Source: numbers -&gt; Map".
	Description string `json:"description"`
	// Inputs lists the edges the vertex reads. An input vertex (a source)
	// has none, and the field is left out, as Flink's JsonPlanGenerator
	// does.
	Inputs              []JobPlanInput `json:"inputs,omitempty"`
	OptimizerProperties struct{}       `json:"optimizer_properties"` // always {}
}

// JobPlanInput is one input edge of a plan node.
type JobPlanInput struct {
	Num          int             `json:"num"` // the input's index at the consumer
	ID           api.JobVertexID `json:"id"`  // the producing vertex
	ShipStrategy string          `json:"ship_strategy,omitempty"`
	Exchange     string          `json:"exchange"` // the result partition type, lower case: "pipelined_bounded"
}

// JobExceptionsInfoWithHistory answers GET /jobs/{jobid}/exceptions: the
// job's failures, in the shape of Flink 1.20. ExceptionHistory is what
// clients should read; the other four fields are Flink's deprecated
// first-level members (removed in Flink 2.0), kept for old clients.
//
// RootException and Timestamp are the newest root failure and when it
// happened, both null (not left out, as in Flink) for a job that never
// failed. AllExceptions lists the current attempts that failed, at most
// maxExceptions of them; Truncated says whether there were more.
type JobExceptionsInfoWithHistory struct {
	RootException    *string                  `json:"root-exception"`
	Timestamp        *int64                   `json:"timestamp"`
	AllExceptions    []ExecutionExceptionInfo `json:"all-exceptions"`
	Truncated        bool                     `json:"truncated"`
	ExceptionHistory JobExceptionHistory      `json:"exceptionHistory"`
}

// ExecutionExceptionInfo is one failed attempt in the deprecated
// all-exceptions (Flink's JobExceptionsInfo.ExecutionExceptionInfo). Task
// reads "<vertex name> (<subtask+1>/<parallelism>)"; Timestamp is when the
// attempt became FAILED, -1 if unknown. Location and Endpoint are always
// Unassigned, as in SubtaskExecutionAttemptDetailsInfo; TaskManagerID is
// Unassigned when the attempt had no slot.
type ExecutionExceptionInfo struct {
	Exception     string `json:"exception"`
	Task          string `json:"task"`
	Location      string `json:"location"` // deprecated in Flink 1.19 for endpoint
	Endpoint      string `json:"endpoint"`
	Timestamp     int64  `json:"timestamp"`
	TaskManagerID string `json:"taskManagerId"`
}

// JobExceptionHistory is the job's exception history, newest first: at most
// maxExceptions entries of those the failureLabelFilter lets through, and
// whether there were more (Truncated).
type JobExceptionHistory struct {
	Entries   []RootExceptionInfo `json:"entries"`
	Truncated bool                `json:"truncated"`
}

// ExceptionInfo is one failure (Flink's JobExceptionsInfoWithHistory
// .ExceptionInfo, the JSON of an ExceptionHistoryEntry).
//
// ExceptionName is the Java class the failure would be in Flink, read from
// the start of the error text (see exceptionName), and Stacktrace is the
// whole error text: a Go error has no stack trace. Timestamp is in ms
// since the epoch. FailureLabels is always {}: flinklab has no failure
// enrichers.
//
// A global failure (one no task caused) has no TaskName, Location,
// Endpoint or TaskManagerID: they are left out, as Flink leaves out its
// nulls. A task's failure has its TaskName ("Map (2/4)#1"); if the task
// had a TaskExecutor, TaskManagerID names it and Location and Endpoint
// read Unassigned (Flink: "host:dataPort", which a flinklab TaskExecutor
// does not have); if it had none, all three are left out.
type ExceptionInfo struct {
	ExceptionName string            `json:"exceptionName"`
	Stacktrace    string            `json:"stacktrace"`
	Timestamp     int64             `json:"timestamp"`
	FailureLabels map[string]string `json:"failureLabels"`
	TaskName      string            `json:"taskName,omitempty"`
	Location      string            `json:"location,omitempty"` // deprecated in Flink 1.19 for endpoint
	Endpoint      string            `json:"endpoint,omitempty"`
	TaskManagerID string            `json:"taskManagerId,omitempty"`
}

// RootExceptionInfo is one entry of the exception history: a failure that
// made the job restart or fail, and the failures that happened while it
// was being handled (ConcurrentExceptions, [] when none).
type RootExceptionInfo struct {
	ExceptionInfo
	ConcurrentExceptions []ExceptionInfo `json:"concurrentExceptions"`
}

// FaultInjectionRequestBody is the body of POST /cluster/faults, flinklab's
// own endpoint: one fault in fault.Parse's form,
// STEP[:KIND][,times=N|always][,after=N][,job=JOBID], e.g.
// {"fault": "m10:jar-corrupted,times=2"}.
type FaultInjectionRequestBody struct {
	Fault string `json:"fault"`
}

// ArmedFaultsInfo answers POST and DELETE /cluster/faults: the faults
// armed now, in the order they were armed.
type ArmedFaultsInfo struct {
	Armed []ArmedFaultInfo `json:"armed"`
}

// ClusterFaultsInfo answers GET /cluster/faults: the faults armed now, and
// every pass on which one fired, in order.
type ClusterFaultsInfo struct {
	Armed []ArmedFaultInfo `json:"armed"`
	Fired []FiredFaultInfo `json:"fired"`
}

// ArmedFaultInfo is one armed fault (a fault.Fault). Times is the number
// of passes it will still fire on, -1 (fault.Always) for every pass, After
// the number it still lets go by before it fires; JobID
// is the one job it applies to, null for any job. Spec is the fault in
// fault.Parse's form, with the passes left: what to POST to arm it again.
type ArmedFaultInfo struct {
	Step  trace.Step `json:"step"`
	Kind  fault.Kind `json:"kind"`
	Times int        `json:"times"`
	After int        `json:"after"`
	JobID *api.JobID `json:"jobId"`
	Spec  string     `json:"spec"`
}

// FiredFaultInfo is one pass on which a fault fired (a fault.Firing): the
// step and kind, the job the component asked about (null when the step
// was not tied to a job yet, as at m1 and m2), and when.
type FiredFaultInfo struct {
	Step  trace.Step `json:"step"`
	Kind  fault.Kind `json:"kind"`
	JobID *api.JobID `json:"jobId"`
	Time  time.Time  `json:"time"`
}

// EmptyResponseBody is Flink's EmptyResponseBody, {}: the answer of
// DELETE /jars/{jarid} (200), PATCH /jobs/{jobid} (202) and PUT
// /jobs/{jobid}/resource-requirements (200).
type EmptyResponseBody struct{}

// JobResourceRequirementsBody answers GET, and is the body of PUT,
// /jobs/{jobid}/resource-requirements (Flink's
// JobResourceRequirementsBody): the parallelism bounds of each vertex, by
// vertex ID. It is jobgraph.JobResourceRequirements, whose JSON is
// Flink's:
//
//	{"<vertex id>": {"parallelism": {"lowerBound": 1, "upperBound": 4}}, …}
type JobResourceRequirementsBody = jobgraph.JobResourceRequirements

// JarPlanRequestBody is the body of GET and POST /jars/{jarid}/plan: a
// JarRunRequestBody without the savepoint settings. Every field is
// optional, and each falls back to the same query parameter and default as
// in the run request.
type JarPlanRequestBody struct {
	EntryClass         *string           `json:"entryClass,omitempty"`
	ProgramArgs        *string           `json:"programArgs,omitempty"` // deprecated in Flink, as in JarRunRequestBody
	ProgramArgsList    []string          `json:"programArgsList,omitempty"`
	Parallelism        *int              `json:"parallelism,omitempty"`
	JobID              *api.JobID        `json:"jobId,omitempty"`
	FlinkConfiguration map[string]string `json:"flinkConfiguration,omitempty"`
}

// runRequest returns the run request with the same settings, so that a
// plan resolves them exactly as a run does.
func (b JarPlanRequestBody) runRequest() JarRunRequestBody {
	return JarRunRequestBody{
		EntryClass:         b.EntryClass,
		ProgramArgs:        b.ProgramArgs,
		ProgramArgsList:    b.ProgramArgsList,
		Parallelism:        b.Parallelism,
		JobID:              b.JobID,
		FlinkConfiguration: b.FlinkConfiguration,
	}
}

// JobSubmitRequestBody is the JSON part, named "request", of the multipart
// POST /jobs: it names the request's file parts by their file names.
// JobGraphFileName is the job graph, in flinklab's JSON form (see package
// jobgraph); JobJarFileNames are the jars the BlobServer stores under the
// job's ID; JobArtifactFileNames are Flink's distributed cache files,
// accepted and ignored with a warning: flinklab has no distributed cache.
type JobSubmitRequestBody struct {
	JobGraphFileName     *string                `json:"jobGraphFileName"`
	JobJarFileNames      []string               `json:"jobJarFileNames"`
	JobArtifactFileNames []DistributedCacheFile `json:"jobArtifactFileNames"`
}

// DistributedCacheFile is one artifact of a JobSubmitRequestBody: the name
// the job looks it up by, and the name of its file part.
type DistributedCacheFile struct {
	EntryName string `json:"entryName"`
	FileName  string `json:"fileName"`
}

// JobSubmitResponseBody answers POST /jobs with 202: where to watch the
// job, e.g. {"jobUrl": "/jobs/<32 hex>"}.
type JobSubmitResponseBody struct {
	JobURL string `json:"jobUrl"`
}

// JobIdsWithStatusOverview answers GET /jobs: every job the Dispatcher
// knows, with its current status.
type JobIdsWithStatusOverview struct {
	Jobs []JobIDWithStatus `json:"jobs"`
}

// JobIDWithStatus is one job of JobIdsWithStatusOverview.
type JobIDWithStatus struct {
	ID     api.JobID     `json:"id"`
	Status api.JobStatus `json:"status"`
}

// The two values of QueueStatus.ID.
const (
	QueueStatusInProgress = "IN_PROGRESS"
	QueueStatusCompleted  = "COMPLETED"
)

// QueueStatus says whether an asynchronous result is there yet (Flink's
// QueueStatus): {"id": "IN_PROGRESS"} or {"id": "COMPLETED"}.
type QueueStatus struct {
	ID string `json:"id"`
}

// JobExecutionResultResponseBody answers GET /jobs/{jobid}/execution-result:
// {"status": {"id": "IN_PROGRESS"}} until the job is globally terminal,
// then {"status": {"id": "COMPLETED"}, "job-execution-result": {…}}.
type JobExecutionResultResponseBody struct {
	Status             QueueStatus         `json:"status"`
	JobExecutionResult *JobExecutionResult `json:"job-execution-result,omitempty"`
}

// JobExecutionResult is a finished job's JobResult as Flink 1.20's
// JobResultSerializer writes it: its ID, how it ended, its accumulators
// (flinklab has none: {}), how long it ran in ms, and, if it failed, why.
type JobExecutionResult struct {
	JobID              api.JobID             `json:"id"`
	ApplicationStatus  api.ApplicationStatus `json:"application-status"`
	AccumulatorResults map[string]string     `json:"accumulator-results"`
	NetRuntime         int64                 `json:"net-runtime"`
	FailureCause       *SerializedThrowable  `json:"failure-cause,omitempty"`
}

// SerializedThrowable is the failure of a JobExecutionResult, as Flink's
// SerializedThrowableSerializer writes it: the exception's class and its
// stack trace. Flink adds "serialized-throwable", the Java-serialized
// exception in base64, which a Go cluster cannot produce: it is left out.
type SerializedThrowable struct {
	Class      string `json:"class"`
	StackTrace string `json:"stack-trace"`
}

// DashboardConfiguration answers GET /config: what the web UI needs to
// know about the cluster.
type DashboardConfiguration struct {
	RefreshInterval int64             `json:"refresh-interval"` // ms, Flink's web.refresh-interval
	TimezoneName    string            `json:"timezone-name"`
	TimezoneOffset  int               `json:"timezone-offset"` // ms east of UTC
	FlinkVersion    string            `json:"flink-version"`
	FlinkRevision   string            `json:"flink-revision"`
	Features        DashboardFeatures `json:"features"`
}

// DashboardFeatures says which actions the web UI may offer.
type DashboardFeatures struct {
	WebSubmit  bool `json:"web-submit"`  // jars can be uploaded and run
	WebCancel  bool `json:"web-cancel"`  // jobs can be cancelled
	WebRescale bool `json:"web-rescale"` // jobs can be rescaled: on the AdaptiveScheduler, unless web.rescale.enable is false
	WebHistory bool `json:"web-history"` // this is a HistoryServer: never here
}

// ClusterOverviewWithVersion answers GET /overview: the TaskManagers and
// slots, the jobs per state, and the version.
type ClusterOverviewWithVersion struct {
	TaskManagers        int    `json:"taskmanagers"`
	SlotsTotal          int    `json:"slots-total"`
	SlotsAvailable      int    `json:"slots-available"`
	SlotsFreeAndBlocked int    `json:"slots-free-and-blocked"` // always 0: nothing is ever blocked
	TaskManagersBlocked int    `json:"taskmanagers-blocked"`   // always 0
	JobsRunning         int    `json:"jobs-running"`           // every job not globally terminal
	JobsFinished        int    `json:"jobs-finished"`
	JobsCancelled       int    `json:"jobs-cancelled"`
	JobsFailed          int    `json:"jobs-failed"`
	FlinkVersion        string `json:"flink-version"`
	FlinkCommit         string `json:"flink-commit"`
}

// ConfigurationInfoEntry is one option of GET /jobmanager/config, which
// answers a JSON array of them, sorted by key.
type ConfigurationInfoEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// TaskManagersInfo answers GET /taskmanagers.
type TaskManagersInfo struct {
	TaskManagers []TaskManagerInfo `json:"taskmanagers"`
}

// TaskManagerInfo describes one registered TaskExecutor, with the fields
// of Flink's TaskManagerInfo that flinklab has, in Flink's order.
// DataPort and JMXPort are -1, Flink's value for "none": a flinklab
// TaskExecutor advertises its data address in its TaskManagerLocation
// instead, and has no JMX. Blocked is always false. Flink's
// timeSinceLastHeartbeat is left out.
//
// TotalResource is what the TaskManager's slots share, and FreeResource
// what is left once each allocated slot has taken its share (the total
// divided by the number of slots); MemoryConfiguration is the size of each
// part of its memory, in bytes; Hardware is the machine it runs on. All
// are computed from the TaskManager's configuration as Flink computes
// them (package clusterframework): a default TaskManager
// (taskmanager.memory.process.size: 1728m) reports Flink's numbers to the
// byte.
type TaskManagerInfo struct {
	ID                  api.ResourceID                                   `json:"id"`
	Path                string                                           `json:"path"` // the TaskExecutor's RPC address
	DataPort            int                                              `json:"dataPort"`
	JMXPort             int                                              `json:"jmxPort"`
	SlotsNumber         int                                              `json:"slotsNumber"`
	FreeSlots           int                                              `json:"freeSlots"`
	TotalResource       ResourceProfileInfo                              `json:"totalResource"`
	FreeResource        ResourceProfileInfo                              `json:"freeResource"`
	Hardware            gateway.HardwareDescription                      `json:"hardware"`
	MemoryConfiguration clusterframework.TaskExecutorMemoryConfiguration `json:"memoryConfiguration"`
	Blocked             bool                                             `json:"blocked"`
}

// ResourceProfileInfo is Flink's ResourceProfileInfo: a ResourceProfile as
// the REST API shows it, CPU cores as a double and each memory in whole
// MiB, rounded down (Flink's MemorySize#getMebiBytes). That is why a
// default TaskManager's 402653174 bytes of task heap, 10 bytes short of
// 384 MiB, show as 383. ExtendedResources (GPUs, …) is always {}.
type ResourceProfileInfo struct {
	CPUCores          float64            `json:"cpuCores"`
	TaskHeapMemory    int                `json:"taskHeapMemory"`
	TaskOffHeapMemory int                `json:"taskOffHeapMemory"`
	ManagedMemory     int                `json:"managedMemory"`
	NetworkMemory     int                `json:"networkMemory"`
	ExtendedResources map[string]float64 `json:"extendedResources"`
}

// SlotInfo is one allocated slot of GET /taskmanagers/{taskmanagerid}: the
// job it is allocated to and the resources it takes (Flink's SlotInfo;
// Flink 2 adds assignedTasks).
type SlotInfo struct {
	Resource ResourceProfileInfo `json:"resource"`
	JobID    api.JobID           `json:"jobId"`
}

// TaskManagerDetailsInfo answers GET /taskmanagers/{taskmanagerid}: the
// TaskManagerInfo, the allocated slots, and the TaskManager's metrics,
// which are all zero, as Flink reports them for a TaskManager it has no
// metrics of.
type TaskManagerDetailsInfo struct {
	TaskManagerInfo
	AllocatedSlots []SlotInfo             `json:"allocatedSlots"`
	Metrics        TaskManagerMetricsInfo `json:"metrics"`
}

// TaskManagerMetricsInfo is Flink's TaskManagerMetricsInfo: JVM memory,
// network buffers and garbage collectors. flinklab collects none of them:
// every number is 0 and garbageCollectors is [], Flink's
// TaskManagerMetricsInfo.empty().
type TaskManagerMetricsInfo struct {
	HeapUsed                            int64                  `json:"heapUsed"`
	HeapCommitted                       int64                  `json:"heapCommitted"`
	HeapMax                             int64                  `json:"heapMax"`
	NonHeapUsed                         int64                  `json:"nonHeapUsed"`
	NonHeapCommitted                    int64                  `json:"nonHeapCommitted"`
	NonHeapMax                          int64                  `json:"nonHeapMax"`
	DirectCount                         int64                  `json:"directCount"`
	DirectUsed                          int64                  `json:"directUsed"`
	DirectMax                           int64                  `json:"directMax"`
	MappedCount                         int64                  `json:"mappedCount"`
	MappedUsed                          int64                  `json:"mappedUsed"`
	MappedMax                           int64                  `json:"mappedMax"`
	MemorySegmentsAvailable             int64                  `json:"memorySegmentsAvailable"` // deprecated in Flink
	MemorySegmentsTotal                 int64                  `json:"memorySegmentsTotal"`     // deprecated in Flink
	NettyShuffleMemorySegmentsAvailable int64                  `json:"nettyShuffleMemorySegmentsAvailable"`
	NettyShuffleMemorySegmentsUsed      int64                  `json:"nettyShuffleMemorySegmentsUsed"`
	NettyShuffleMemorySegmentsTotal     int64                  `json:"nettyShuffleMemorySegmentsTotal"`
	NettyShuffleMemoryAvailable         int64                  `json:"nettyShuffleMemoryAvailable"`
	NettyShuffleMemoryUsed              int64                  `json:"nettyShuffleMemoryUsed"`
	NettyShuffleMemoryTotal             int64                  `json:"nettyShuffleMemoryTotal"`
	GarbageCollectors                   []GarbageCollectorInfo `json:"garbageCollectors"`
}

// GarbageCollectorInfo is one JVM garbage collector; flinklab has none.
type GarbageCollectorInfo struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
	Time  int64  `json:"time"`
}

// LogListInfo answers GET /jobmanager/logs: the files of the log
// directory, sorted by name.
type LogListInfo struct {
	Logs []LogInfo `json:"logs"`
}

// LogInfo is one log file: its name (what to ask GET
// /jobmanager/logs/{filename} for), its size in bytes and when it was last
// modified, in ms since the epoch.
type LogInfo struct {
	Name  string `json:"name"`
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`
}
