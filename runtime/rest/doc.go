// Package rest is the cluster's REST endpoint: the HTTP API through which a
// client uploads a job jar, runs it and watches the job. It mirrors Flink's
// DispatcherRestEndpoint (org.apache.flink.runtime.dispatcher), a
// WebMonitorEndpoint and RestServerEndpoint, with thirty of its handlers
// and two endpoints of flinklab's own.
// Paths, methods, status codes and JSON field names follow Flink's OpenAPI
// spec, rest_v1_dispatcher.yml, so Flink's own clients can talk to it; a
// test checks every answer against the spec (see "Checked against Flink's
// spec" below).
//
// # The endpoints
//
//	method path                                  answer                          Flink handler
//	GET    /config                               DashboardConfiguration          rest.handler.cluster.DashboardConfigHandler
//	GET    /overview                             ClusterOverviewWithVersion      rest.handler.cluster.ClusterOverviewHandler
//	POST   /jars/upload                          JarUploadResponseBody           webmonitor.handlers.JarUploadHandler
//	GET    /jars                                 JarListInfo                     webmonitor.handlers.JarListHandler
//	DELETE /jars/{jarid}                         EmptyResponseBody               webmonitor.handlers.JarDeleteHandler
//	GET    /jars/{jarid}/plan                    JobPlanInfo                     webmonitor.handlers.JarPlanHandler
//	POST   /jars/{jarid}/plan                    JobPlanInfo                     webmonitor.handlers.JarPlanHandler
//	POST   /jars/{jarid}/run                     JarRunResponseBody              webmonitor.handlers.JarRunHandler
//	GET    /jobs                                 JobIdsWithStatusOverview        rest.handler.job.JobIdsHandler
//	POST   /jobs                                 JobSubmitResponseBody (202)     rest.handler.job.JobSubmitHandler
//	GET    /jobs/overview                        MultipleJobsDetails             rest.handler.job.JobsOverviewHandler
//	GET    /jobs/{jobid}                         JobDetailsInfo                  rest.handler.job.JobDetailsHandler
//	PATCH  /jobs/{jobid}?mode=cancel             EmptyResponseBody (202)         rest.handler.job.JobCancellationHandler
//	GET    /jobs/{jobid}/execution-result        JobExecutionResultResponseBody  rest.handler.job.JobExecutionResultHandler
//	GET    /jobs/{jobid}/plan                    JobPlanInfo                     rest.handler.job.JobPlanHandler
//	GET    /jobs/{jobid}/status                  JobStatusInfo                   rest.handler.job.JobStatusHandler
//	GET    /jobs/{jobid}/vertices/{vertexid}     JobVertexDetailsInfo            rest.handler.job.JobVertexDetailsHandler
//	GET    /jobs/{jobid}/exceptions              JobExceptionsInfoWithHistory    rest.handler.job.JobExceptionsHandler
//	GET    /jobs/{jobid}/resource-requirements   JobResourceRequirementsBody     rest.handler.job.JobResourceRequirementsHandler
//	PUT    /jobs/{jobid}/resource-requirements   EmptyResponseBody               rest.handler.job.JobResourceRequirementsUpdateHandler
//	GET    /jobs/{jobid}/checkpoints             CheckpointingStatistics         rest.handler.job.checkpoints.CheckpointingStatisticsHandler
//	GET    /jobs/{jobid}/checkpoints/config      CheckpointConfigInfo            rest.handler.job.checkpoints.CheckpointConfigHandler
//	GET    /jobs/{jobid}/checkpoints/details/{checkpointid}
//	                                             CheckpointStatistics            rest.handler.job.checkpoints.CheckpointStatisticDetailsHandler
//	POST   /jobs/{jobid}/savepoints              TriggerResponse (202)           rest.handler.job.savepoints.SavepointHandlers.SavepointTriggerHandler
//	GET    /jobs/{jobid}/savepoints/{triggerid}  AsynchronousOperationResult     rest.handler.job.savepoints.SavepointHandlers.SavepointStatusHandler
//	POST   /jobs/{jobid}/stop                    TriggerResponse (202)           rest.handler.job.savepoints.SavepointHandlers.StopWithSavepointHandler
//	GET    /taskmanagers                         TaskManagersInfo                rest.handler.taskmanager.TaskManagersHandler
//	GET    /taskmanagers/{taskmanagerid}         TaskManagerDetailsInfo          rest.handler.taskmanager.TaskManagerDetailsHandler
//	GET    /jobmanager/config                    [ConfigurationInfoEntry]        rest.handler.cluster.ClusterConfigHandler
//	GET    /jobmanager/logs                      LogListInfo                     rest.handler.cluster.JobManagerLogListHandler
//	GET    /jobmanager/logs/{filename}           the file, as text/plain         rest.handler.cluster.JobManagerCustomLogHandler
//	GET    /jobs/{jobid}/trace                   JobTraceInfo                    none: flinklab's own
//	GET    /cluster/faults                       ClusterFaultsInfo               none: flinklab's own
//	POST   /cluster/faults                       ArmedFaultsInfo                 none: flinklab's own
//	DELETE /cluster/faults                       ArmedFaultsInfo                 none: flinklab's own
//
// Each also answers under /v1 (/v1/jars/upload, …), the version prefix of
// clients generated from the spec. Anything else gets 404
// {"errors": ["Not found: <uri>"]}, as from Flink's router; so does a path
// with "." or ".." segments, which Go's ServeMux would otherwise redirect
// to its cleaned form, and Flink's router matches as sent.
//
// GET /jobs/{jobid}/trace is not Flink's: it answers the job's submission
// trace, the steps m1…m11 the components recorded in Deps.Trace, in time
// order, each a trace.Event (see package trace):
//
//	{"events": [{"step": "m3", "from": "REST", "to": "Dispatcher",
//	             "message": "submitJob 'wordcount': …", "jobId": "<32 hex>",
//	             "time": "2025-01-02T03:04:05.123456789Z"}, …]}
//
// A job the Dispatcher does not know is a 404, as on the other job
// endpoints; a job it knows, with no Recorder, has {"events": []}.
//
// # A job's failures: GET /jobs/{jobid}/exceptions
//
// The first place to look when a job restarts or fails. It answers Flink
// 1.20's JobExceptionsInfoWithHistory: exceptionHistory, the root
// failures newest first, each with the failures that happened while it
// was handled (concurrentExceptions), and Flink's four deprecated
// first-level members, which Flink 2.0 removed: root-exception and
// timestamp (the newest root failure; null for a job that never failed),
// all-exceptions (the current attempts that failed) and truncated.
//
//	{"root-exception": "JobException: Recovery is suppressed by …", "timestamp": 1735787065000,
//	 "all-exceptions": [{"exception": "RuntimeException: open() …", "task": "Map (2/2)",
//	                     "location": "(unassigned)", "endpoint": "(unassigned)",
//	                     "timestamp": 1735787065000, "taskManagerId": "taskexecutor-b"}],
//	 "truncated": false,
//	 "exceptionHistory": {"entries": [{"exceptionName": "org.apache.flink.runtime.JobException",
//	     "stacktrace": "JobException: Recovery is suppressed by …", "timestamp": 1735787065000,
//	     "failureLabels": {}, "taskName": "Map (2/2)#1", "location": "(unassigned)",
//	     "endpoint": "(unassigned)", "taskManagerId": "taskexecutor-b",
//	     "concurrentExceptions": []}, …], "truncated": false}}
//
// maxExceptions bounds both lists (DefaultMaxExceptions, 20, as Flink's
// MAX_NUMBER_EXCEPTION_TO_REPORT); their truncated flags say whether
// there were more. failureLabelFilter=key:value,… is parsed as Flink
// parses it, and a malformed one is Flink's 400, but flinklab's failures
// have no labels (there are no failure enrichers), so any filter lets no
// entry through. The data is the ArchivedExecutionGraph's
// ExceptionHistory; a job whose FailureCause the history does not start
// with (one that failed while initializing, or that the scheduler failed
// without a task failure) has that cause in front, as a global failure
// at the time the job FAILED, as Flink's ExecutionGraphInfo and
// archiveGlobalFailure do.
//
// # Checkpoints and savepoints
//
// GET /jobs/{jobid}/checkpoints answers how the job's checkpoints went
// (the Dispatcher's RequestCheckpointStats: a running job's JobMaster, an
// ended job's final ExecutionGraph): counts, a summary of the completed
// ones, the latest completed checkpoint, savepoint and failure, the
// checkpoint last restored, and the recent history, newest first. Each
// checkpoint is named by its className ("completed", "failed",
// "in_progress"), with the fields of its kind:
//
//	{"counts": {"restored": 0, "total": 12, "in_progress": 1, "completed": 10, "failed": 1},
//	 "summary": {"state_size": {"min": 812, "max": 1204, "avg": 998, "p50": 1001.0, …}, …},
//	 "latest": {"completed": {"className": "completed", "id": 11, "status": "COMPLETED",
//	                          "is_savepoint": false, "savepointFormat": null, …,
//	                          "checkpoint_type": "CHECKPOINT", "tasks": {},
//	                          "external_path": "/checkpoints/<job>/chk-11", "discarded": false},
//	            "savepoint": null, "failed": {…, "failure_message": "Checkpoint expired before completing."},
//	            "restored": null},
//	 "history": [{"className": "in_progress", "id": 12, …}, …]}
//
// /checkpoints/details/{checkpointid} is one of them with its tasks, by
// JobVertexID; /checkpoints/config how the job is checkpointed. A job
// without checkpointing answers 404 on all three ("Checkpointing has not
// been enabled.", "Checkpointing was not enabled for job <id>.",
// "Checkpointing is not enabled for this job (<id>).").
//
// A savepoint, and a stop with savepoint, is an asynchronous operation
// (savepoints.go): the POST answers 202 {"request-id": "<trigger id>"} at
// once, and GET /jobs/{jobid}/savepoints/{triggerid} answers
// {"status": {"id": "IN_PROGRESS"}, "operation": null} until it ended,
// then {"status": {"id": "COMPLETED"}, "operation": {"location": "<path>",
// "failure-cause": null}}, or the failure with a null location. Every
// failure of the savepoint is the operation's, an unknown job included;
// the POST itself fails only for a malformed request. A result is kept
// rest.async.store-duration (5 min) after the operation ended.
//
// # Breaking things on purpose: /cluster/faults
//
// /cluster/faults is not Flink's: it arms, lists and clears the faults of
// Deps.Faults, a fault.Injector (see package fault), so that a learner
// can make any step m1…m11 fail and watch the cluster react:
//
//	POST   /cluster/faults {"fault": "m10:jar-corrupted,times=2"}   (fault.Parse's form)
//	   ◀── {"armed": [{"step": "m10", "kind": "jar-corrupted", "times": 2, "after": 0,
//	                   "jobId": null, "spec": "m10:jar-corrupted,times=2"}]}
//	GET    /cluster/faults
//	   ◀── {"armed": […], "fired": [{"step": "m10", "kind": "jar-corrupted",
//	                                "jobId": "<32 hex>", "time": "2025-01-02T03:04:05.123456789Z"}]}
//	DELETE /cluster/faults   ◀── {"armed": []}   (what fired stays listed)
//
// "times" counts the passes a fault will still fire on, -1 for always;
// "after" the passes it still lets go by before it fires;
// "jobId" is null for a fault of any job, and for a firing at a step not
// tied to a job yet (m1, m2). A fault that does not parse is a 400 with
// fault.Parse's message; an unknown field in the body is a 400 as in the
// run request. Each armed fault is logged at INFO.
//
// Breaking a cluster is for its own machine only: all three methods
// answer 403 unless the endpoint listens on a loopback address
// (127.0.0.0/8 or ::1, read from the listener actually bound, so
// "0.0.0.0:8081" is refused), and 403 "Fault injection is not enabled on
// this cluster." when Deps.Faults is nil. And only for the machine's own
// clients, not for the web pages its browser shows: see "Who may ask".
//
// # Who may ask
//
// Flink's REST API has no protection of its own: no authentication, no
// check of where a request comes from. Any client that reaches the port
// may upload a jar and run it, which is running code on the JobManager;
// Flink's docs say to keep the port on a trusted network (rest.bind-address)
// or behind a proxy that authenticates. Two things make that worse for a
// browser on the same machine:
//
//   - Cross-site requests. A web page of any site may send a "simple"
//     request to any address without asking first: a POST with a
//     text/plain, multipart/form-data or url-encoded body. Flink parses a
//     body as JSON whatever its Content-Type, and accepts multipart
//     uploads, so a page of evil.example can upload a jar to
//     localhost:8081 and run it. And every answer carries
//     Access-Control-Allow-Origin from web.access-control-allow-origin,
//     "*" by default, so the page may read the answers too.
//   - DNS rebinding. A name of the attacker's resolves first to the
//     attacker's server, then to 127.0.0.1; the browser then sends the
//     page's requests to the cluster with "Host: evil.example:8081" and
//     treats the answers as the attacker's own.
//
// Flink's endpoints behave as Flink's do, web.access-control-allow-origin
// (Config.AccessControlAllowOrigin) included, so that Flink's web UI and
// clients work unchanged: the same exposure, and the same advice.
//
// flinklab's own endpoints, /cluster/faults and /jobs/{jobid}/trace, can
// break the cluster or show its workings, and have no Flink client to stay
// compatible with; they answer only the endpoint itself (checkSameOrigin,
// origin.go):
//
//   - Host must be an IP address, localhost, the machine's host name, or
//     the host of rest.address (Config.Address); any other is a 403. An
//     attacker's name is none of these, so DNS rebinding is refused.
//   - Origin, if sent, must be http://<the Host>: the same host, in any
//     case, and the same port (80 where none is written) that the request
//     was sent to, which is what a browser sends from a page of the
//     endpoint itself. Any other is a 403, a page of another IP address
//     or of another port of this machine too: "Origin:
//     http://203.0.113.5:8081" with "Host: 127.0.0.1:8081" is not this
//     endpoint, and neither is a page at localhost:8081 asking
//     127.0.0.1:8081. Browsers send Origin with every POST and
//     cross-origin request; curl and the flink CLI send none, and pass.
//     "Origin: null" is a 403.
//   - A POST or DELETE with a body must send it as application/json, or it
//     is a 415: a page cannot send JSON to another site without a CORS
//     preflight, which this endpoint never grants.
//   - Their answers carry no Access-Control-Allow-Origin, whatever
//     web.access-control-allow-origin says (ownHandler, server.go), so a
//     browser shows no page of another site what they answer: not the
//     faults armed, not a job's trace. The endpoint's own page needs no
//     such header to read them.
//
// They protect against web pages, not against clients: whoever reaches
// the port reaches these endpoints too, from curl.
//
// # Deadlines and limits
//
// A client that is slow on purpose, or a great many of them, must not be
// able to hold the endpoint's connections, memory or disk. The options,
// under their keys (the entrypoint reads them from -D; the MiniCluster
// takes the defaults):
//
//	key                              default     whose   what
//	rest.server.max-content-length   104857600   Flink   the largest request body; a larger one is a 413
//	web.access-control-allow-origin  *           Flink   the Access-Control-Allow-Origin of Flink's endpoints
//	rest.server.read-timeout         30 s        ours    the longest wait for the next bytes of a body
//	rest.server.idleness-timeout     30 s        ours    how long a kept-alive connection waits for a request
//	rest.server.max-connections      128         ours    the connections served at once
//
// Flink's server has no read or idle timeout and no bound on
// connections (its rest.idleness-timeout, 5 min, is the client's; its
// rest.server.numThreads, 4, sizes the pool its handlers run on, and
// web.timeout, 10 min, bounds a handler's asks of the Dispatcher: Go runs
// one goroutine per request, and the handlers here ask with the request's
// context, so neither applies). Besides those options:
//
//   - The headers of a request must arrive within 30 s (headerTimeout).
//   - The read timeout bounds the wait for the next bytes, not the whole
//     body: an upload that keeps sending may take as long as it needs, one
//     that stops is answered 408 "The request body stopped arriving: no
//     byte for 30s (rest.server.read-timeout)." and its connection closed.
//     A client that sends a byte every 29 s keeps its connection; the
//     connection bound limits how many can.
//   - The read timeout holds for a body no handler reads, too: a GET with
//     a body, an unknown path, a request one of flinklab's own endpoints
//     refuses. net/http reads what is left of such a body (up to 256 KiB)
//     before it sends the answer; a client that announces 100 bytes,
//     sends 10 and stops gets its answer 30 s later, with "Connection:
//     close", and gives its connection back (bodyDeadline, limits.go).
//   - Beyond rest.server.max-connections, new connections wait, not
//     accepted, until one closes.
//   - Uploads are never held in memory: a jar goes to a temp file as it
//     arrives and is checked from there (client.CheckJarFile), with at
//     most 10,000 entries (client.MaxJarEntries), a central directory of
//     at most 1 MiB (client.MaxJarDirectorySize) and a manifest of at most
//     64 KiB (client.MaxManifestSize). Only a complete, valid jar is
//     renamed to its final name; a refused or cut upload leaves no file,
//     and NewServer removes the temp files a crashed server left.
//     Four concurrent uploads of 90 MiB raise the heap by under 1 MiB
//     (BenchmarkConcurrentJarUploads). A run still reads its jar into
//     memory: the ProgramRunner reads resources from it.
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
// moment the run request arrived (trace.Recorder.EmitAt). Both are recorded
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
// # A built job's way in: POST /jobs
//
// Flink's CLI does not upload a jar and run it: it builds the JobGraph
// itself and submits it with its jars in one multipart request, whose
// JSON part "request" names the file parts:
//
//	client ──POST /jobs (multipart)──────────────────────────────────▶ REST   m1, m2
//	         request = {"jobGraphFileName": "job.json", "jobJarFileNames": ["wordcount.jar"]}
//	         job.json, wordcount.jar
//	         BlobServer.PutPermanent(jobID, jar)  → JobGraph.UserJarBlobKeys
//	         Dispatcher.SubmitJob(jobGraph)                                     m3…
//	◀── 202 {"jobUrl": "/jobs/<32 hex>"}
//
// The JobGraph file is in flinklab's JSON form (jobgraph.Encode and
// Decode). The jars are stored and the job submitted exactly as for a run
// (submitWithJars), so a submission the Dispatcher refuses leaves no BLOB
// it added, and no plan. The checks and their 400s are Flink's: "The
// jobGraphFileName field must not be omitted or be null.", "<JobGraph|Jar
// |Artifact> file <name> could not be found on the server.", "Failed to
// deserialize JobGraph.", and, for two files of one name, "The number of
// uploaded files was higher than the expected count. Expected: 1 Actual
// 2". Files are matched by the last element of the name they were sent
// with. Each file is streamed to a temp file of a directory of the
// request's own (<web.upload.dir>/.submission-*, removed when the request
// is answered), never under a client's name; only the JobGraph file is
// read into memory, up to 8 MiB (maxJobGraphFileSize), and a request may
// carry at most 1,000 files.
//
// # Stopping and waiting: PATCH /jobs/{jobid}, GET …/execution-result
//
// PATCH /jobs/{jobid} (mode=cancel, the default) asks the Dispatcher to
// cancel the job and answers 202 {}; the job then moves through
// CANCELLING to CANCELED. The other answers are Flink's: 308 for mode=stop
// ("The termination mode "stop" has been removed. …"), 400 for another
// mode, 404 "Job could not be found.", 409 "Job cancellation failed
// because the job has already reached another terminal state
// (FINISHED)." and 408 "Job cancellation timed out.". Cancelling a job
// that is CANCELED already is acknowledged, as in Flink.
//
// GET /jobs/{jobid}/execution-result is how Flink's RestClusterClient
// waits for a job: {"status": {"id": "IN_PROGRESS"}} until the job is
// globally terminal, then
//
//	{"status": {"id": "COMPLETED"},
//	 "job-execution-result": {"id": "<32 hex>", "application-status": "FAILED",
//	     "accumulator-results": {}, "net-runtime": 21000,
//	     "failure-cause": {"class": "org.apache.flink.runtime.JobException",
//	                       "stack-trace": "JobException: Recovery is suppressed by …"}}}
//
// in the shape of Flink's JobResultSerializer. The handler never waits: it
// asks for the status, and for the result only once the job has ended.
//
// # A job's parallelism: /jobs/{jobid}/resource-requirements
//
// GET answers the parallelism bounds of each vertex of the job, as its
// JobMaster's scheduler has them, in Flink's JobResourceRequirementsBody;
// PUT sends new ones in the same shape, with an entry for every vertex,
// and answers 200 {} once the scheduler has taken them (a bound of -1
// stands for the default: 1 below, the vertex's max parallelism above):
//
//	GET /jobs/<32 hex>/resource-requirements
//	   ◀── {"bc764cd8ddf7a0cff126f51c16239658": {"parallelism": {"lowerBound": 2, "upperBound": 2}},
//	        "0a448493b4782967b150582570326227": {"parallelism": {"lowerBound": 2, "upperBound": 2}}}
//	PUT /jobs/<32 hex>/resource-requirements
//	    {"bc764cd8ddf7a0cff126f51c16239658": {"parallelism": {"lowerBound": 1, "upperBound": 4}},
//	     "0a448493b4782967b150582570326227": {"parallelism": {"lowerBound": 1, "upperBound": 4}}}
//
// It is Flink's way to rescale a running job on the AdaptiveScheduler,
// which runs each vertex as wide as its bounds and its slots allow. The
// DefaultScheduler runs each vertex at exactly its parallelism: it
// answers that as both bounds, and refuses every update with Flink's
// UnsupportedOperationException, "The DefaultScheduler does not support
// changing the parallelism without a job restart. This feature is
// currently only expected to work with the AdaptiveScheduler.", a 500, as
// Flink's handler answers it.
//
// The Dispatcher checks an update before the JobMaster sees it, with
// Flink's rules and words (jobgraph.ValidateJobResourceRequirements)
// against the max parallelism of each vertex of the job's ExecutionGraph:
// a 400 whose one message has the errors one per line. It refuses a
// second update of a job while the first runs: 409 "Another update to
// the job [%s] resource requirements is in progress.", the "%s" as Flink
// sends it. A body that is not of the format is Flink's 400 "Request did
// not match expected format JobResourceRequirementsBody." (also an entry
// without "parallelism"), an empty one 400 "Request body does not specify
// resource requirements.". Flink's two handlers map no other failure:
// a job the Dispatcher does not run (unknown, or ended) is a 500 with
// FlinkJobNotFoundException, not the 404 of GET /jobs/{jobid}, and a job
// still initializing a 500 with UnavailableDispatcherOperationException.
//
// web.rescale.enable does not guard these routes, in Flink as here: it
// only says, in GET /config's features.web-rescale, whether the web UI
// should offer to rescale (on the AdaptiveScheduler, not in reactive
// mode, and unless the option is false).
//
// # The cluster: /overview, /config, /taskmanagers, /jobmanager/…
//
// GET /overview counts the ResourceManager's TaskManagers and slots
// (ResourceManagerGateway.RequestResourceOverview) and the Dispatcher's
// jobs per state; GET /config tells the
// web UI how often to poll, the time zone and the version, and that it
// may submit jars and cancel jobs, and rescale them where Flink would
// (see above). GET /taskmanagers lists the registered
// TaskExecutors, with their RPC address as "path", their slots, and their
// resources and memory; GET /taskmanagers/{taskmanagerid} adds the slots
// that are allocated, and to which job. A TaskManager with Flink's default
// configuration (taskmanager.memory.process.size: 1728m) and two slots
// answers, as a Flink 1.20 TaskManager does:
//
//	{"id": "localhost:40531-3f2a9c", "path": "pekko.tcp://flink@localhost:40531/user/rpc/taskmanager_…",
//	 "dataPort": -1, "jmxPort": -1, "slotsNumber": 2, "freeSlots": 1,
//	 "totalResource": {"cpuCores": 2, "taskHeapMemory": 383, "taskOffHeapMemory": 0,
//	                   "managedMemory": 512, "networkMemory": 128, "extendedResources": {}},
//	 "freeResource":  {"cpuCores": 1, "taskHeapMemory": 191, "taskOffHeapMemory": 0,
//	                   "managedMemory": 256, "networkMemory": 64, "extendedResources": {}},
//	 "hardware": {"cpuCores": 8, "physicalMemory": 16706215936, "freeMemory": 536870902, "managedMemory": 536870920},
//	 "memoryConfiguration": {"frameworkHeap": 134217728, "taskHeap": 402653174,
//	   "frameworkOffHeap": 134217728, "taskOffHeap": 0, "networkMemory": 134217730,
//	   "managedMemory": 536870920, "jvmMetaspace": 268435456, "jvmOverhead": 201326592,
//	   "totalFlinkMemory": 1342177280, "totalProcessMemory": 1811939328},
//	 "blocked": false,
//	 "allocatedSlots": [{"resource": {"cpuCores": 1, "taskHeapMemory": 191, …}, "jobId": "c36050…"}],
//	 "metrics": {…}}
//
// memoryConfiguration is in bytes (Flink's TaskExecutorMemoryConfiguration,
// package clusterframework derives it); the resources are Flink's
// ResourceProfileInfo, in whole MiB rounded down, which is why 402653174
// bytes of task heap (10 short of 384 MiB) show as 383. totalResource is
// what the slots share, cpuCores one per slot unless
// taskmanager.cpu.cores says otherwise; each allocated slot takes the
// total divided by the number of slots, and freeResource is what is left.
//
// GET /jobmanager/config lists, sorted by key, the options the cluster
// was started with (Deps.Configuration: the MiniCluster passes its
// TaskManagers, slots and heartbeat options) and the endpoint's own:
// rest.address and rest.port (as bound), rest.bind-address,
// rest.server.max-content-length, web.upload.dir and env.log.dir.
//
// GET /jobmanager/logs lists the regular files of Config.LogDir (none if
// it is ""), and GET /jobmanager/logs/{filename} sends one as text/plain.
//
// # CVE-2020-17519: reading anywhere through the log endpoint
//
// From Flink 1.11.0 to 1.11.2, JobManagerCustomLogHandler opened
// new File(logDir, <filename from the path>): GET
// /jobmanager/logs/..%252f..%252f..%252fetc%252fpasswd answered
// /etc/passwd, any file the JobManager's user could read. Flink 1.11.3
// and 1.12.0 fixed it (commit b561010b) by keeping only the last path
// element of the name. The handler does the same (filepath.Base), then
// opens the name through an os.Root of the log directory, which refuses
// any path out of it, through ".." or a symbolic link, and serves only a
// regular file. Everything else is Flink's 404, {"errors": ["This file
// does not exist in JobManager log dir."]}, so a file outside the
// directory cannot be told from one that does not exist. A test replays
// the request byte for byte, single-encoded and plain "../" too.
//
// # CVE-2020-17518: writing anywhere through an upload
//
// From Flink 1.5.1 to 1.11.2, the FileUploadHandler stored an uploaded file
// at uploadDir.resolve(<filename from the request>). A client that sent
// filename="../../../../../../tmp/success" wrote /tmp/success: any file the
// JobManager's user could write, such as a cron job or an authorized_keys
// file. Flink 1.11.3 and 1.12.0 fixed it (commit a5264a6f) by keeping only
// the last path element: new File(filename).getName(). Its companion,
// CVE-2020-17519, is above.
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
// Its messages never show the server's directories: the upload directory
// reads "<web.upload.dir>", the log directory "<env.log.dir>"
// (hideServerPaths); the log has the real paths.
// Handlers return Go errors; statusOf, in errors.go, is the one place they
// become HTTP statuses (308, 400, 403, 404, 408, 409, 413, 415, 500), and
// errorResponse the one place they become bodies. A 500 reads as in Flink:
//
//	{"errors": ["Internal server error.", "<Exception on server side:\n…\nEnd of exception on server side>"]}
//
// Messages are Flink's where Flink has one: "Exactly 1 file must be sent,
// received 2.", "Only Jar files are allowed.", "Request did not match
// expected format JarRunRequestBody.", "Could not execute application.",
// "No jobs included in application.", "Job <id> not found", "JobVertex
// <id> not found", "Bad request, could not parse parameters: Cannot
// resolve path parameter (jobid) from value …" (and (vertexid)), "Bad
// request, could not parse parameters: Cannot resolve query parameter
// (maxExceptions) from value …" (and (failureLabelFilter), with Flink's
// "failureLabelFilter may be a `key:value` entry only (…)"), "File <id>
// does not exist in <jarDir>.", "Could not find TaskExecutor <id>.", "This
// file does not exist in JobManager log dir.", and those of POST /jobs,
// PATCH /jobs/{jobid} and /jobs/{jobid}/resource-requirements above.
// Where Flink adds a Java stack trace, we add the Go error as a second
// message.
//
// Every JSON body (a run or plan request, a fault, the "request" part of
// POST /jobs) is read strictly, as by Flink's strict object mapper: a
// field its type does not have is a 400 "Request did not match expected
// format <type>.", and so is a body over 1 MiB, before it is parsed. A
// whole request over Config.MaxUploadSize (an upload, POST /jobs) is a
// 413, as Flink answers one over rest.server.max-content-length.
//
// # Checked against Flink's spec
//
// TestResponsesConformToFlinksSpec sends a request to every endpoint of
// Flink's that this one serves, for its success and its main errors, and
// validates each answer with kin-openapi against rest_v1_dispatcher.yml,
// the spec of Flink 1.20: the status must be one the spec lists for the
// operation, the body must match its schema, and an object may have no
// field the spec does not name. It runs when FLINK_REST_SPEC names the
// spec file (.ci/run sets it) and is skipped otherwise. It does not check
// /jobs/{jobid}/trace and /cluster/faults, which are not Flink's, nor GET
// /jobmanager/logs/{filename}, a plain file the spec does not list.
//
// The spec is not all of Flink's truth. The test corrects it where it does
// not describe what Flink 1.20 itself sends, and this endpoint follows
// Flink there, not the spec:
//
//   - It lists no error answers. Flink answers every failure with an
//     ErrorResponseBody; the test adds it as each operation's 4XX and 5XX.
//   - Its JobResult (the job-execution-result of GET
//     /jobs/{jobid}/execution-result) has the fields of Flink's Java
//     class: jobId, applicationStatus, accumulatorResults, netRuntime,
//     serializedThrowable, success. Flink writes the result with its
//     JobResultSerializer: id, application-status, accumulator-results,
//     net-runtime and failure-cause ({class, stack-trace,
//     serialized-throwable}), and its RestClusterClient reads only those.
//   - Its ResourceID must be 32 hex digits. Flink's TaskManager IDs are
//     not ("<host>:<port>-<6 hex>" for a standalone TaskManager), nor are
//     flinklab's ("taskexecutor-0").
//   - It does not allow null where Flink writes null: JarEntryInfo's
//     description (Flink's JarListHandler has none), and
//     JobExceptionsInfoWithHistory's root-exception and timestamp for a
//     job that never failed.
//   - GET /jars/{jarid}/plan is not listed; Flink serves it with the
//     answer of POST, and the test checks it against POST.
//   - Its CheckpointStatistics are allOf a base and each subclass's
//     fields, which no object matches once objects are closed; Flink
//     writes one object of both, named by className. It does not allow
//     the nulls Flink writes there (savepointFormat, the latest checkpoints
//     of a kind there is none of), in a savepoint operation's answer
//     (operation, and location or failure-cause), and its
//     SerializedThrowable has only serialized-throwable where Flink's
//     serializer writes class and stack-trace too. Its ProcessingMode is
//     upper case; Flink's serializer writes "exactly_once". The test
//     corrects these (correctCheckpointSchemas), and checks the savepoint
//     operation's answers in each of its states
//     (TestSavepointAnswersConformToFlinksSpec).
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
//   - Uploads are checked with client.CheckJarFile, from their temp file,
//     before they are stored; Flink stores any *.jar and fails only when it
//     is run. A jar's name may have at most 218 bytes (it is stored as
//     <uuid>_<name>, and a file name has at most 255): a longer one is a
//     400 "The file name is too long." before a byte is written; Flink
//     answers it 500, failing to move the file.
//   - An unknown jar ID answers 404 "Jar file <web.upload.dir>/
//     flink-web-upload/<id> does not exist" (to DELETE: "File <id> does
//     not exist in <web.upload.dir>/flink-web-upload."); Flink answers the
//     same messages with 400, and with the directory itself: no error
//     answer here shows where the server keeps its files (see "Errors").
//     The answer to an upload does show it, as Flink's
//     JarUploadResponseBody.filename does: Flink's clients take the jar
//     ID from it.
//   - Flink runs a jar through its application runner: the user's main
//     runs inside the JobManager and env.execute() submits through an
//     EmbeddedExecutor, so any failure, including the Dispatcher's, comes
//     back as 400 "Could not execute application.". Here the handler calls
//     ProgramRunner, the BlobServer and the Dispatcher itself; the
//     program's errors and the Dispatcher's refusals (a duplicate jobId:
//     "DuplicateJobSubmissionException: Job has already been submitted.")
//     answer 400 "Could not execute application." with the reason, as in
//     Flink; POST /jobs answers a refusal 500, as Flink's JobSubmitHandler
//     does. A Dispatcher refusal leaves nothing behind (see above); a jar
//     the BlobServer cannot store is a 500 "Could not upload job files.",
//     and no job is submitted. A jobId of all zeros is a 400: flinklab's
//     zero JobID stands for "no job" (Flink accepts it).
//   - restoreMode, claimMode and flinkConfiguration are accepted and
//     ignored with a warning: a savepoint is always restored NO_CLAIM,
//     and there is no per-job configuration. The parallelism must be
//     positive or -1. A JSON body over 1 MiB answers 400 (Flink reads
//     any body up to rest.server.max-content-length).
//   - The savepoint operations live in the REST endpoint, as they did in
//     Flink before 1.15 (SavepointHandlers' CompletedOperationCache);
//     Flink 1.20 keeps them in the Dispatcher
//     (DispatcherCachedOperationsHandler). So a trigger ID is known only
//     to the endpoint that issued it: with standby JobManagers, poll the
//     one you triggered at. Closing the endpoint ends the operations it
//     waits for (the savepoints themselves go on).
//   - The endpoint does not check the savepoint directory itself: Flink's
//     SavepointHandlers answer a request without a directory 400 "Config
//     key [execution.checkpointing.savepoint-dir] is not set. Property
//     [target-directory] must be provided." when the cluster has none.
//     Here the JobMaster refuses such a savepoint, and the operation
//     fails with Flink's JobMaster-side words: "No savepoint directory
//     configured. You can either specify a directory while cancelling via
//     -s :targetDirectory or configure a cluster-wide default via key
//     'execution.checkpointing.savepoint-dir'." (the key Flink 1.20 names;
//     the older state.savepoints.dir is still read).
//   - formatType is checked (CANONICAL or NATIVE) and otherwise ignored:
//     flinklab writes one savepoint format, and savepointFormat always
//     reads CANONICAL. A failure-cause has no serialized-throwable; its
//     class is read from the error's text as for the exceptions, and a
//     checkpoint's failure or a refusal whose text names no exception
//     reads as Flink's CheckpointException or IllegalStateException.
//   - A job without execution.checkpointing.interval has no checkpoint
//     statistics and no checkpoint config (404). Flink gives every
//     streaming job a CheckpointCoordinator, and answers such a job with
//     zero counts and an interval of 9223372036854775807 (Long.MAX_VALUE);
//     its 404s are a batch job's.
//   - Only the recent checkpoints (the history and the latest of each
//     kind) have details; Flink also keeps those asked for in a
//     CheckpointStatsCache. GET
//     /jobs/{jobid}/checkpoints/details/{checkpointid}/subtasks/{vertexid}
//     and POST /jobs/{jobid}/checkpoints (trigger a checkpoint) are not
//     served. CheckpointConfigInfo leaves out Flink's
//     changelog_periodic_materialization_interval and changelog_storage
//     (there is no changelog state backend), and checkpoints_after_tasks_finish
//     is false: a checkpoint needs every task RUNNING.
//   - The ArchivedExecutionGraph carries no edges, so the plan of a job run
//     through this endpoint is computed from its JobGraph at run time and
//     kept in memory, and forgotten when the Dispatcher no longer knows the
//     job (when /jobs/overview does not list it, or a job
//     endpoint finds it unknown). At most Config.MaxJobPlans plans are kept
//     (1000 by default); storing one more drops the oldest. A job submitted
//     otherwise, before a restart, or whose plan was dropped, gets a plan
//     with its vertices and no inputs.
//   - JobDetailsInfo: metrics are zero, slotSharingGroupId is left out,
//     and maxParallelism is the largest of the vertices' (Flink: the job's
//     configured value, -1 if unset). last-modification is the latest job
//     status change.
//   - JobVertexDetailsInfo: each subtask's endpoint and host read
//     "(unassigned)", Flink's value for an attempt without a slot, even
//     when taskmanager-id names the TaskExecutor it runs on: a flinklab
//     TaskExecutor has an RPC address, no host and data port. Metrics are
//     zero, so are their aggregated statistics, and there is never an
//     other-concurrent-attempts (no speculative execution). The hidden
//     start_time, Flink's old spelling of start-time, is left out.
//   - JobExceptionsInfoWithHistory: exceptionName is Flink's Java class
//     name only as far as we can tell it: flinklab's errors start with
//     the simple name of the exception Flink would throw ("JobException:
//     Recovery is suppressed by …"), which becomes the fully qualified
//     name for the eighteen well-known ones listed in javaClassNames
//     (exceptions.go), e.g. JobException is
//     org.apache.flink.runtime.JobException and TimeoutException is
//     java.util.concurrent.TimeoutException; any other XxxException or
//     XxxError stays as it is, and an error whose text does not
//     start with one is named "error": a Go error, no Java class, and we
//     do not invent one. stacktrace is the error text: Go errors carry no
//     stack trace. failureLabels is always {}. location and endpoint
//     read "(unassigned)" where Flink shows "host:dataPort", as in the
//     vertex details; a task failure without a TaskExecutor and a global
//     failure leave them out, as Flink does. root-exception is the
//     newest root failure (Flink: the last failure the scheduler
//     handled, concurrent ones included), and all-exceptions lists the
//     current attempts with a failure cause. A negative maxExceptions is
//     a 400; Flink fails it with 500 (Stream.limit throws).
//   - Plan descriptions are HTML-escaped for & < > " only (Flink uses
//     escapeHtml4, which also escapes non-ASCII letters).
//   - POST /jobs takes the JobGraph in flinklab's JSON form (package
//     jobgraph); Flink sends it as a Java-serialized object, which only a
//     JVM can read. Its jobArtifactFileNames (distributed cache files) are
//     accepted and ignored with a warning: flinklab has no distributed
//     cache. Faults armed at m1 and m2 break /jars/upload and
//     /jars/{jarid}/run only, not POST /jobs.
//   - The failure-cause of an execution result has no
//     "serialized-throwable" (the Java-serialized exception); its class is
//     read from the error text as exceptionName does, and its stack trace
//     is the error text. accumulator-results is always {}.
//   - GET /jobs/{jobid}/resource-requirements of a job on the
//     DefaultScheduler answers each vertex's parallelism as both bounds;
//     Flink's DefaultScheduler refuses the question as it refuses an
//     update, and the handler answers 500. An update is not persisted
//     with the job (Flink's Dispatcher writes it to the JobGraphStore, so
//     that a JobMaster taking over the job after a failover has it), and
//     the Dispatcher checks it before it finds that a job initializing has
//     no JobMaster to take it (Flink refuses such a job first).
//   - Cancelling a job that is CANCELED already: Flink's Dispatcher
//     acknowledges it; ours refuses every ended job, so the handler asks
//     for the job's status and answers 202 for a CANCELED one itself.
//   - /overview and /config report flink-version "1.20-flinklab", and the
//     commit flinklab was built from (Flink's texts for an unknown
//     revision in a build without Git information). timezone-name is Go's
//     abbreviation of the zone ("CET"), not Java's display name ("Central
//     European Time"). /overview asks the ResourceManager itself; Flink's
//     handler asks the Dispatcher, which asks the ResourceManager.
//   - TaskManagerInfo has dataPort and jmxPort -1 (a flinklab TaskExecutor
//     advertises its data address in its TaskManagerLocation, and has no
//     JMX) and blocked false; Flink's timeSinceLastHeartbeat is left out.
//     A Go process has no JVM: memoryConfiguration is what Flink would
//     give the TaskManager's JVM, computed as Flink computes it, not
//     enforced, and hardware's freeMemory, in Flink the JVM's maximum heap,
//     is the heap Flink would give it (-Xmx). A slot's share of the
//     resources is always the default one (the total divided by the
//     number of slots): jobs here configure no resources. The metrics are
//     all zero, Flink's answer for a TaskManager without metrics.
//     allocatedSlots has Flink 1.20's fields; Flink 2 adds assignedTasks.
//   - The log list leaves out symbolic links and subdirectories, which are
//     not served either; Flink lists every file File.isFile accepts.
package rest
