package rest

import "flinklab/runtime/api"

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
// AllowNonRestoredState, SavepointPath, RestoreMode, ClaimMode and
// FlinkConfiguration are accepted so that Flink clients work, and ignored
// with a warning: flinklab has no savepoints and no per-job configuration.
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
	IsStoppable    bool          `json:"isStoppable"` // always false: stop-with-savepoint is not supported
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

// JobDetailsVertexInfo is one vertex of JobDetailsInfo. StartTime, EndTime
// and Duration are -1: the archived graph carries no per-subtask
// timestamps.
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

// IOMetricsInfo holds a vertex's I/O metrics. flinklab collects none yet,
// so every field is zero and no count is "complete".
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
