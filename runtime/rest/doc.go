// Package rest is the cluster's REST endpoint: the HTTP API through which a
// client uploads a job jar, runs it and watches the job. It mirrors Flink's
// DispatcherRestEndpoint (org.apache.flink.runtime.dispatcher), a
// WebMonitorEndpoint and RestServerEndpoint, with its first seven handlers.
// Paths, methods, status codes and JSON field names follow Flink's OpenAPI
// spec, rest_v1_dispatcher.yml, so Flink's own clients can talk to it.
//
// # The endpoints
//
//	method path                  answer                   Flink handler
//	POST   /jars/upload          JarUploadResponseBody    webmonitor.handlers.JarUploadHandler
//	GET    /jars                 JarListInfo              webmonitor.handlers.JarListHandler
//	POST   /jars/{jarid}/run     JarRunResponseBody       webmonitor.handlers.JarRunHandler
//	GET    /jobs/overview        MultipleJobsDetails      rest.handler.job.JobsOverviewHandler
//	GET    /jobs/{jobid}         JobDetailsInfo           rest.handler.job.JobDetailsHandler
//	GET    /jobs/{jobid}/plan    JobPlanInfo              rest.handler.job.JobPlanHandler
//	GET    /jobs/{jobid}/status  JobStatusInfo            rest.handler.job.JobStatusHandler
//
// Each also answers under /v1 (/v1/jars/upload, …), the version prefix of
// clients generated from the spec. Anything else gets 404
// {"errors": ["Not found: <uri>"]}, as from Flink's router.
//
// # A job's way in: steps m1 and m2
//
//	client ──POST /jars/upload (multipart, field "jarfile")──▶ REST      m1
//	         stored as <UploadDir>/flink-web-upload/<uuid>_wordcount.jar
//	client ──POST /jars/<uuid>_wordcount.jar/run──────────────▶ REST      m2
//	         ProgramRunner.JobGraph(jar, entry class, args, parallelism)
//	         BlobServer.PutPermanent(jobID, jar)  → JobGraph.UserJarBlobKeys
//	         Dispatcher.SubmitJob(jobGraph)                               m3…
//	◀── {"jobid": "<32 hex>"}
//
// Step m1, the upload, happens before any job exists, and a jar may be run
// many times, each run a new job. So the upload traces nothing; the server
// keeps the time each jar arrived with the jar, and every run the
// Dispatcher accepts records m1 for its job at that time, and m2 at the
// time the run request arrived (trace.Recorder.EmitAt). Both are recorded
// only once the Dispatcher has accepted the job, after its m3, yet the
// trace, which is kept in time order, reads m1, m2, m3.
//
// A run the Dispatcher refuses leaves nothing behind: no trace event, no
// plan, and no BLOB this request added. The handler notes whether the
// BlobServer held the jar under the JobID before (the same jar run again
// under a jobId that exists); if it did, the BLOB is not its to delete,
// otherwise it deletes exactly that one BLOB (BlobServer.DeletePermanent),
// never another BLOB of the job. Runs of one JobID through this endpoint
// take turns, so no run deletes a jar another one relies on.
//
// The run handler resolves each setting as Flink's JarHandlerContext does:
// the JSON body's field if set, else the query parameter (entry-class,
// parallelism, programArg, the deprecated program-args), else the default:
// the jar's Program-Class, client.ParallelismDefault, no arguments. The
// body is read strictly (an unknown field is a 400, as with Flink's strict
// object mapper) and may be empty. The answer comes once the Dispatcher has
// accepted the job, before the job runs: ask /jobs/{jobid} how it goes.
//
// # CVE-2020-17518: writing anywhere through an upload
//
// From Flink 1.5.1 to 1.11.2, the FileUploadHandler stored an uploaded file
// at uploadDir.resolve(<filename from the request>). A client that sent
// filename="../../../../../../tmp/success" wrote /tmp/success: any file the
// JobManager's user could write, such as a cron job or an authorized_keys
// file. Flink 1.11.3 and 1.12.0 fixed it (commit a5264a6f) by keeping only
// the last path element: new File(filename).getName(). The companion
// CVE-2020-17519 read any file through /jobmanager/logs/..%252f..%252f… and
// was fixed the same way.
//
// The upload handler does the same with filepath.Base before anything is
// written, and never writes under a client-chosen name at all: the body
// goes to a hidden temp file in the jar directory and is renamed to
// <uuid>_<base name> only once it has passed every check. So the exploit's
// request stores nothing and gets 400 "Only Jar files are allowed." (its
// name does not end in .jar), and a jar sent as "../../x.jar" is stored as
// <jarDir>/<uuid>_x.jar. Jar IDs in /jars/{jarid}/run get the same care: an
// ID that is not a plain file name of the jar directory is not found.
// (Go's multipart.Part.FileName already applies filepath.Base; the handler
// reads the raw header so that the fix stays visible here.)
//
// # Errors
//
// Every failure answers {"errors": [...]}, Flink's ErrorResponseBody.
// Handlers return Go errors; statusOf, in errors.go, is the one place they
// become HTTP statuses (400, 404, 413, 500), and errorResponse the one
// place they become bodies. A 500 reads as in Flink:
//
//	{"errors": ["Internal server error.", "<Exception on server side:\n…\nEnd of exception on server side>"]}
//
// Messages are Flink's where Flink has one: "Exactly 1 file must be sent,
// received 2.", "Only Jar files are allowed.", "Request did not match
// expected format JarRunRequestBody.", "Could not execute application.",
// "No jobs included in application.", "Job <id> not found", "Bad request,
// could not parse parameters: Cannot resolve path parameter (jobid) from
// value …". Where Flink adds a Java stack trace, we add the Go error as a
// second message.
//
// # Concurrency and lifecycle
//
// NewServer prepares the upload directory; Start binds (logging "Starting
// rest endpoint." and "Rest endpoint listening at <host>:<port>", Flink's
// lines); Close shuts the HTTP server down gracefully, for at most
// Config.ShutdownTimeout (10 seconds by default) even when its ctx has no
// deadline, then cuts the connections of requests still running, waits
// (at most another ShutdownTimeout) for their handlers to return, and
// only then removes the upload directory if NewServer created it, so no
// handler writes into a removed directory or outlives Close. Requests are
// served concurrently, one goroutine each, as Flink's handlers run on Netty's
// threads; the little state they share (the jar cache, the JobIDs being
// run, the job plans) sits behind mutexes. Unlike the Dispatcher, the
// endpoint has no mailbox: it owns nothing a job depends on, and every
// decision about a job is the Dispatcher's.
//
// # Differs from Flink
//
//   - The default address is 127.0.0.1:0: loopback and a free port. Flink
//     binds rest.port 8081 (FlinkDefaultPort) on rest.bind-address.
//   - Uploads are checked with client.ReadPackagedProgram before they are
//     stored; Flink stores any *.jar and fails only when it is run.
//   - An unknown jar ID answers 404 "Jar file <path> does not exist"; Flink
//     answers the same message with 400.
//   - Flink runs a jar through its application runner: the user's main
//     runs inside the JobManager and env.execute() submits through an
//     EmbeddedExecutor, so any failure, including the Dispatcher's, comes
//     back as 400 "Could not execute application.". Here the handler calls
//     ProgramRunner, the BlobServer and the Dispatcher itself; the program's
//     errors answer 400, the Dispatcher's 500 (as POST /jobs does in
//     Flink). A Dispatcher refusal leaves nothing behind (see above). A
//     job the Dispatcher accepted but whose jar could not then be stored
//     is cancelled (CancelJob) and the run answered 500; an error of the
//     Dispatcher other than "job not found" while the handler checks the
//     JobID answers 500 too, and stores nothing.
//   - allowNonRestoredState, savepointPath, restoreMode, claimMode and
//     flinkConfiguration are accepted and ignored with a warning: there are
//     no savepoints and no per-job configuration. The parallelism must be
//     positive or -1. A JSON body over 1 MiB answers 413, like an upload
//     over MaxUploadSize.
//   - The ArchivedExecutionGraph carries no edges, so the plan of a job run
//     through this endpoint is computed from its JobGraph at run time and
//     kept in memory, and forgotten when the Dispatcher no longer knows the
//     job (when /jobs/overview finds it gone from ListJobs, or a job
//     endpoint finds it unknown). At most Config.MaxJobPlans plans are kept
//     (1000 by default); storing one more drops the oldest. A job submitted
//     otherwise, before a restart, or whose plan was dropped, gets a plan
//     with its vertices and no inputs.
//   - JobDetailsInfo: per-vertex start-time, end-time and duration are -1
//     (the archived graph has no per-subtask timestamps), metrics are zero,
//     slotSharingGroupId is left out, and maxParallelism is the largest of
//     the vertices' (Flink: the job's configured value, -1 if unset).
//     last-modification is the latest job status change.
//   - The overview asks the Dispatcher for each job (ListJobs, then
//     RequestJob per job); Flink asks once.
//   - Plan descriptions are HTML-escaped for & < > " only (Flink uses
//     escapeHtml4, which also escapes non-ASCII letters).
package rest
