package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/client"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/trace"
)

// Defaults of Config.
const (
	// DefaultAddress binds the loopback interface on a free port. Flink
	// binds rest.bind-address on rest.port 8081 (FlinkDefaultPort); a
	// teaching cluster listens only to its own machine unless told
	// otherwise, and a free port lets many clusters run side by side.
	DefaultAddress = "127.0.0.1:0"
	// FlinkDefaultPort is Flink's rest.port, for reference: pass
	// "127.0.0.1:8081" as Config.Address to get Flink's port.
	FlinkDefaultPort = 8081
	// DefaultMaxUploadSize is Flink's rest.server.max-content-length:
	// 104857600 bytes (100 MiB).
	DefaultMaxUploadSize = 104857600
	// DefaultAccessControlAllowOrigin is Flink's
	// web.access-control-allow-origin: "*", sent as the
	// Access-Control-Allow-Origin header of every answer of Flink's
	// endpoints, so that a web page of any origin may read Flink's answers
	// (see "Who may ask" in the package documentation). flinklab's own
	// endpoints never send it.
	DefaultAccessControlAllowOrigin = "*"
	// DefaultReadTimeout is flinklab's rest.server.read-timeout: a request
	// whose body sends no byte for 30 s is answered 408 and its
	// connection closed; an upload it cut leaves no temp file. Flink has
	// no such bound.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout is flinklab's rest.server.idleness-timeout: a
	// keep-alive connection that sends no new request for 30 s is closed.
	// Flink's rest.idleness-timeout (5 min) is the client's; its server
	// keeps idle connections open.
	DefaultIdleTimeout = 30 * time.Second
	// DefaultMaxConnections is flinklab's rest.server.max-connections: at
	// most 128 connections are served at once; more wait, unaccepted,
	// until one closes. Flink accepts any number.
	DefaultMaxConnections = 128
	// DefaultShutdownTimeout bounds how long Close waits for requests in
	// progress before it cuts their connections: long enough for any
	// well-behaved request to finish, short enough that a stuck one cannot
	// hold up a cluster's shutdown.
	DefaultShutdownTimeout = 10 * time.Second
)

// headerTimeout bounds the time a client may take to send a request's
// headers, as it always did: a client that dribbles them in is cut.
const headerTimeout = 30 * time.Second

// maxJSONBodySize bounds a JSON request body, such as a run request or
// the "request" part of POST /jobs: 1 MiB. A larger one is answered 400,
// as a body that is not of the expected format.
const maxJSONBodySize = 1 << 20

// jarDirName is the directory under Config.UploadDir that holds the
// uploaded jars, as in Flink (<web.upload.dir>/flink-web-upload).
const jarDirName = "flink-web-upload"

// loggerName names the endpoint in log lines, as Flink's class does.
const loggerName = "DispatcherRestEndpoint"

// Config configures the REST endpoint.
type Config struct {
	// Address is the host:port to listen on; "" means DefaultAddress
	// (loopback, a free port). Address returns the port actually bound.
	Address string
	// UploadDir is Flink's web.upload.dir: jars are stored in
	// <UploadDir>/flink-web-upload and survive a restart of the server.
	// "" means a fresh temporary directory that Close removes.
	UploadDir string
	// MaxUploadSize bounds the body of an upload (POST /jars/upload) and
	// of a job submission (POST /jobs), in bytes; 0 means
	// DefaultMaxUploadSize. A larger one is answered with 413.
	MaxUploadSize int64
	// Logger receives the endpoint's log lines; nil means slog.Default().
	Logger *slog.Logger
	// ShutdownTimeout bounds the graceful part of Close, whatever its ctx
	// says, and then again the wait for the handlers of the connections
	// Close cut; 0 means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// MaxJobPlans bounds the job plans kept in memory (see
	// GET /jobs/{jobid}/plan); 0 means DefaultMaxJobPlans. Once full,
	// storing one more drops the oldest.
	MaxJobPlans int
	// LogDir is Flink's env.log.dir: GET /jobmanager/logs lists its files
	// and GET /jobmanager/logs/{filename} serves them. "" means no log
	// directory: the list is empty and every file is not found.
	LogDir string
	// AccessControlAllowOrigin is Flink's web.access-control-allow-origin,
	// sent as the Access-Control-Allow-Origin header of every answer of
	// Flink's endpoints (flinklab's own send none); "" means
	// DefaultAccessControlAllowOrigin ("*").
	AccessControlAllowOrigin string
	// ReadTimeout is flinklab's rest.server.read-timeout: the longest the
	// endpoint waits for the next bytes of a request body; 0 means
	// DefaultReadTimeout. It is not a bound on the whole body: an upload
	// that keeps sending may take as long as it needs.
	ReadTimeout time.Duration
	// IdleTimeout is flinklab's rest.server.idleness-timeout: how long a
	// keep-alive connection may wait for its next request; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxConnections is flinklab's rest.server.max-connections: how many
	// connections are served at once; 0 means DefaultMaxConnections.
	MaxConnections int
	// AsyncOperationStoreDuration is Flink's rest.async.store-duration: how
	// long a savepoint operation's result may be asked for once it ended;
	// 0 means DefaultAsyncOperationStoreDuration.
	AsyncOperationStoreDuration time.Duration
}

// ProgramRunner turns a job jar into a JobGraph: it finds the registered
// program the jar names, runs it with the arguments, and returns the
// JobGraph the program built. It is the Go side of what Flink does in
// PackagedProgramUtils.createJobGraph (run main in the user class loader,
// catch the StreamGraph env.execute() would have submitted, translate it).
// The streaming package implements it.
//
// entryClass is the program to run: the request's entryClass, or else the
// jar's Program-Class. parallelism is the job's default parallelism, or
// client.ParallelismDefault when the request did not set one. An error
// means the program could not run; the REST endpoint answers 400
// "Could not execute application." with the error as the second message.
type ProgramRunner interface {
	JobGraph(program *client.PackagedProgram, entryClass string, args []string, parallelism int) (*jobgraph.JobGraph, error)
}

// ResourceManagerGateway is what the endpoint asks the ResourceManager:
// the two calls of Flink's ResourceManagerGateway its handlers make. The
// ResourceManager itself is one; so is the leader's, wherever it runs,
// through a gateway.LeaderGatewayRetriever.
type ResourceManagerGateway interface {
	RequestResourceOverview(ctx context.Context) (gateway.ResourceOverview, error)
	RequestTaskManagerInfo(ctx context.Context) ([]gateway.TaskManagerInfo, error)
}

// Deps are the components the endpoint talks to. All but Trace, Faults and
// Configuration are required.
type Deps struct {
	// Dispatcher receives the jobs (step m3) and answers questions about
	// them.
	Dispatcher gateway.DispatcherGateway
	// ResourceManager answers questions about the TaskManagers and slots.
	ResourceManager ResourceManagerGateway
	// BlobServer stores each job's jar under its JobID before the job is
	// submitted; the TaskExecutors fetch it from there at step m10.
	BlobServer *blob.BlobServer
	// Programs builds a JobGraph from a jar.
	Programs ProgramRunner
	// Trace records steps m1 and m2; nil records nothing.
	Trace *trace.Recorder
	// Faults may break steps m1 and m2, and /cluster/faults arms, lists
	// and clears its faults; nil injects nothing, and /cluster/faults
	// answers 403.
	Faults *fault.Injector
	// Configuration holds the options the cluster was started with, under
	// Flink's keys (e.g. "taskmanager.numberOfTaskSlots": "2"). GET
	// /jobmanager/config shows them together with the endpoint's own
	// (rest.address, rest.port, …). nil shows only those.
	Configuration map[string]string
}

// Server is the cluster's REST endpoint: Flink's DispatcherRestEndpoint
// (a WebMonitorEndpoint, a RestServerEndpoint) with the first of its
// handlers. Its methods are safe for concurrent use; see the package
// documentation for the endpoints.
type Server struct {
	cfg           Config
	deps          Deps
	log           *slog.Logger
	jarDir        string // absolute
	uploadDir     string // absolute: jarDir's parent, Config.UploadDir
	ownsUploadDir bool   // created by NewServer; Close removes it
	httpServer    *http.Server
	now           func() time.Time

	// mu guards the fields below. HTTP handlers run concurrently, one
	// goroutine per request, as Flink's handlers run on Netty's threads;
	// they share this little state under a lock, not through a mailbox.
	mu       sync.Mutex
	listener net.Listener
	served   chan struct{} // closed when Serve returns
	closed   bool
	// handlers counts the handlers running now (Add under mu, while
	// draining is false), so that Close can wait for them before it
	// removes the upload directory they may write to.
	handlers sync.WaitGroup
	draining bool                        // set by Close before it waits for handlers
	jars     map[string]jarInfo          // what we know about each jar file, by jar ID
	runs     map[api.JobID]chan struct{} // the JobIDs being run now; closed when the run ends

	plans *planCache // the plan of each job run through this endpoint; has its own lock
	// savepoints are the savepoint operations triggered here; has its own lock.
	savepoints *savepointOperations
}

// jarInfo caches what we know of a jar: what listing it needs, so GET /jars
// does not reopen every jar, and when it was uploaded, the time of its step
// m1. It is valid while the file's size and modification time stay the
// same.
type jarInfo struct {
	size         int64
	modTime      time.Time
	programClass string    // "" if the jar cannot be read
	uploaded     time.Time // when this server stored it; its modTime for a jar stored before
}

// NewServer prepares the upload directory and the routes. It does not
// listen yet: call Start.
func NewServer(cfg Config, deps Deps) (*Server, error) {
	switch {
	case deps.Dispatcher == nil:
		return nil, errors.New("rest: Deps.Dispatcher is required")
	case deps.ResourceManager == nil:
		return nil, errors.New("rest: Deps.ResourceManager is required")
	case deps.BlobServer == nil:
		return nil, errors.New("rest: Deps.BlobServer is required")
	case deps.Programs == nil:
		return nil, errors.New("rest: Deps.Programs is required")
	}
	if cfg.Address == "" {
		cfg.Address = DefaultAddress
	}
	if cfg.MaxUploadSize <= 0 {
		cfg.MaxUploadSize = DefaultMaxUploadSize
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.MaxJobPlans <= 0 {
		cfg.MaxJobPlans = DefaultMaxJobPlans
	}
	if cfg.AccessControlAllowOrigin == "" {
		cfg.AccessControlAllowOrigin = DefaultAccessControlAllowOrigin
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.AsyncOperationStoreDuration <= 0 {
		cfg.AsyncOperationStoreDuration = DefaultAsyncOperationStoreDuration
	}

	s := &Server{
		cfg:   cfg,
		deps:  deps,
		log:   cfg.Logger.With("logger", loggerName),
		now:   time.Now,
		jars:  make(map[string]jarInfo),
		runs:  make(map[api.JobID]chan struct{}),
		plans: newPlanCache(cfg.MaxJobPlans),
	}
	s.savepoints = newSavepointOperations(cfg.AsyncOperationStoreDuration, func() time.Time { return s.now() })
	uploadDir := cfg.UploadDir
	if uploadDir == "" {
		dir, err := os.MkdirTemp("", "flink-web-")
		if err != nil {
			return nil, fmt.Errorf("rest: create the upload directory: %w", err)
		}
		uploadDir, s.ownsUploadDir = dir, true
	}
	s.cfg.UploadDir = uploadDir
	jarDir, err := filepath.Abs(filepath.Join(uploadDir, jarDirName))
	if err == nil {
		err = os.MkdirAll(jarDir, 0o700)
	}
	if err != nil {
		s.removeUploadDir()
		return nil, fmt.Errorf("rest: create the jar directory: %w", err)
	}
	s.jarDir = jarDir
	s.uploadDir = filepath.Dir(jarDir)
	s.removeStaleUploads()

	// Deadlines and limits (see "Deadlines and limits" in the package
	// documentation): the headers must arrive within headerTimeout, the
	// next bytes of a request body within ReadTimeout, whether a handler
	// reads them or not (bodyDeadline, in serve), the next request on a
	// kept-alive connection within IdleTimeout; Start bounds the
	// connections (limitListener).
	s.httpServer = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// routes registers every endpoint twice: as Flink's unversioned path and
// under /v1, the version prefix clients generated from the OpenAPI spec
// use. Anything else is answered 404 "Not found: <uri>", as Flink's router
// does, also for a known path with another method, and for a path with
// "." or ".." segments or doubled slashes: Go's ServeMux would redirect
// "/jobmanager/logs/../x" to "/x", and Flink's router matches the path as
// sent, where no route has such segments.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, prefix := range []string{"", "/v1"} {
		mux.Handle("GET "+prefix+"/config", s.handler(s.handleDashboardConfig))                                           // DashboardConfigHandler
		mux.Handle("GET "+prefix+"/overview", s.handler(s.handleClusterOverview))                                         // ClusterOverviewHandler
		mux.Handle("POST "+prefix+"/jars/upload", s.handler(s.handleJarUpload))                                           // JarUploadHandler
		mux.Handle("GET "+prefix+"/jars", s.handler(s.handleJarList))                                                     // JarListHandler
		mux.Handle("DELETE "+prefix+"/jars/{jarid}", s.handler(s.handleJarDelete))                                        // JarDeleteHandler
		mux.Handle("GET "+prefix+"/jars/{jarid}/plan", s.handler(s.handleJarPlan))                                        // JarPlanHandler
		mux.Handle("POST "+prefix+"/jars/{jarid}/plan", s.handler(s.handleJarPlan))                                       // JarPlanHandler
		mux.Handle("POST "+prefix+"/jars/{jarid}/run", s.handler(s.handleJarRun))                                         // JarRunHandler
		mux.Handle("GET "+prefix+"/jobs", s.handler(s.handleJobIDsOverview))                                              // JobIdsHandler
		mux.Handle("POST "+prefix+"/jobs", s.handler(s.handleJobSubmit))                                                  // JobSubmitHandler
		mux.Handle("GET "+prefix+"/jobs/overview", s.handler(s.handleJobsOverview))                                       // JobsOverviewHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}", s.handler(s.handleJobDetails))                                          // JobDetailsHandler
		mux.Handle("PATCH "+prefix+"/jobs/{jobid}", s.handler(s.handleJobCancel))                                         // JobCancellationHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/execution-result", s.handler(s.handleJobExecutionResult))                 // JobExecutionResultHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/plan", s.handler(s.handleJobPlan))                                        // JobPlanHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/status", s.handler(s.handleJobStatus))                                    // JobStatusHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/vertices/{vertexid}", s.handler(s.handleJobVertexDetails))                // JobVertexDetailsHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/exceptions", s.handler(s.handleJobExceptions))                            // JobExceptionsHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/resource-requirements", s.handler(s.handleJobResourceRequirements))       // JobResourceRequirementsHandler
		mux.Handle("PUT "+prefix+"/jobs/{jobid}/resource-requirements", s.handler(s.handleJobResourceRequirementsUpdate)) // JobResourceRequirementsUpdateHandler
		mux.Handle("GET "+prefix+"/taskmanagers", s.handler(s.handleTaskManagers))                                        // TaskManagersHandler
		mux.Handle("GET "+prefix+"/taskmanagers/{taskmanagerid}", s.handler(s.handleTaskManagerDetails))                  // TaskManagerDetailsHandler
		mux.Handle("GET "+prefix+"/jobmanager/config", s.handler(s.handleClusterConfig))                                  // ClusterConfigHandler
		mux.Handle("GET "+prefix+"/jobmanager/logs", s.handler(s.handleJobManagerLogList))                                // JobManagerLogListHandler
		mux.Handle("GET "+prefix+"/jobmanager/logs/{filename}", s.handler(s.handleJobManagerCustomLog))                   // JobManagerCustomLogHandler

		// Checkpoints and savepoints (checkpoints.go, savepoints.go).
		mux.Handle("GET "+prefix+"/jobs/{jobid}/checkpoints", s.handler(s.handleCheckpointingStatistics))                           // CheckpointingStatisticsHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/checkpoints/config", s.handler(s.handleCheckpointConfig))                           // CheckpointConfigHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/checkpoints/details/{checkpointid}", s.handler(s.handleCheckpointStatisticDetails)) // CheckpointStatisticDetailsHandler
		mux.Handle("POST "+prefix+"/jobs/{jobid}/savepoints", s.handler(s.handleSavepointTrigger))                                  // SavepointHandlers.SavepointTriggerHandler
		mux.Handle("GET "+prefix+"/jobs/{jobid}/savepoints/{triggerid}", s.handler(s.handleSavepointStatus))                        // SavepointHandlers.SavepointStatusHandler
		mux.Handle("POST "+prefix+"/jobs/{jobid}/stop", s.handler(s.handleStopWithSavepoint))                                       // SavepointHandlers.StopWithSavepointHandler

		mux.Handle("GET "+prefix+"/jobs/{jobid}/trace", s.ownHandler(s.handleJobTrace))   // flinklab's own, not Flink's
		mux.Handle("GET "+prefix+"/cluster/faults", s.ownHandler(s.handleFaultsList))     // flinklab's own, not Flink's
		mux.Handle("POST "+prefix+"/cluster/faults", s.ownHandler(s.handleFaultInject))   // flinklab's own, not Flink's
		mux.Handle("DELETE "+prefix+"/cluster/faults", s.ownHandler(s.handleFaultsClear)) // flinklab's own, not Flink's
	}
	notFound := s.handler(func(_ http.ResponseWriter, r *http.Request) (any, error) {
		return nil, notFound("Not found: " + r.URL.RequestURI())
	})
	mux.Handle("/", notFound)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); p != cleanPath(p) {
			notFound.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// cleanPath is the path ServeMux would redirect p to: path.Clean, keeping
// a trailing slash.
func cleanPath(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean
}

// handlerFunc is one endpoint: it returns the response body, or an error
// that errorResponse turns into Flink's {"errors": [...]}. It mirrors
// Flink's AbstractRestHandler#handleRequest. The body is written as JSON
// with 200 OK, unless it is an accepted (202 Accepted) or a plainTextFile.
type handlerFunc func(w http.ResponseWriter, r *http.Request) (any, error)

// accepted is the body of an answer with 202 Accepted instead of 200 OK,
// as Flink's JobSubmitHandler and JobCancellationHandler answer.
type accepted struct{ body any }

// plainTextFile is a file to send as it is, as text/plain, as Flink's
// HandlerUtils.transferFile does for a log file. The handler closes it.
type plainTextFile struct {
	f    *os.File
	size int64
}

// handler runs h, one of Flink's endpoints, with Flink's response
// headers: every answer carries Access-Control-Allow-Origin, from
// web.access-control-allow-origin, as Flink's do.
func (s *Server) handler(h handlerFunc) http.Handler {
	serve := s.serve(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", s.cfg.AccessControlAllowOrigin)
		serve.ServeHTTP(w, r)
	})
}

// ownHandler runs h, one of flinklab's own endpoints, behind own's checks
// and without Access-Control-Allow-Origin: no page of another site may
// read its answers (see "Who may ask" in the package documentation).
func (s *Server) ownHandler(h handlerFunc) http.Handler {
	return s.serve(s.own(h))
}

// serve runs h as Flink's AbstractHandler runs a handler: it answers h's
// body, or turns h's error into Flink's ErrorResponseBody. The request
// body is read under Config.ReadTimeout whether h reads it or not
// (bodyDeadline), and an error answer never shows the server's
// directories (hideServerPaths).
func (s *Server) serve(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deadline := newBodyDeadline(w, r, s.cfg.ReadTimeout)
		r.Body = deadline
		if !s.startHandler() {
			deadline.handlerDone()
			writeJSON(w, http.StatusServiceUnavailable, ErrorResponseBody{Errors: []string{"The rest endpoint is shutting down."}})
			return
		}
		defer s.handlers.Done()
		body, err := h(w, r)
		deadline.handlerDone() // before the answer: net/http reads the rest of the body first
		if err != nil {
			status, errBody := errorResponse(err)
			errBody.Errors = s.hideServerPaths(errBody.Errors)
			switch {
			case errors.Is(err, gateway.ErrNoLeader):
				// Flink's LeaderRetrievalHandler answers it without a word
				// in the log: a failover is under way, and the client is
				// told to ask again.
			case status >= http.StatusInternalServerError:
				s.log.Error("Unhandled exception.", "request", r.Method+" "+r.URL.Path, "cause", err.Error())
			default:
				s.log.Error("Exception occurred in REST handler: "+strings.Join(errBody.Errors, " "), "request", r.Method+" "+r.URL.Path)
			}
			writeJSON(w, status, errBody)
			return
		}
		switch body := body.(type) {
		case accepted:
			writeJSON(w, http.StatusAccepted, body.body)
		case plainTextFile:
			defer body.f.Close()
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", strconv.FormatInt(body.size, 10))
			w.WriteHeader(http.StatusOK)
			_, _ = io.CopyN(w, body.f, body.size) // a client that hangs up gets less
		default:
			writeJSON(w, http.StatusOK, body)
		}
	})
}

// startHandler counts a handler in, unless Close already waits for the
// handlers to end: a request that slipped in after that is not served.
func (s *Server) startHandler() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return false
	}
	s.handlers.Add(1)
	return true
}

// writeJSON writes body as JSON. Unlike json.Marshal it leaves <, > and &
// alone, as Flink's Jackson does: "Map -> Sink" stays readable in curl.
func writeJSON(w http.ResponseWriter, status int, body any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil { // our own types always encode; a failure is a bug
		panic(fmt.Sprintf("rest: encode %T: %v", body, err))
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Start binds Config.Address and starts serving. It may be called once,
// and not together with StartWithListener.
func (s *Server) Start() error {
	if err := s.checkNotStarted(); err != nil {
		return err
	}
	s.log.Info("Starting rest endpoint.")
	ln, err := net.Listen("tcp", s.cfg.Address)
	if err != nil {
		return fmt.Errorf("rest: bind %s: %w", s.cfg.Address, err)
	}
	return s.StartWithListener(ln)
}

// StartWithListener starts serving on ln instead of binding
// Config.Address; the endpoint closes ln when it is closed. A test inside
// a synctest bubble passes a listener of net.Pipe connections, so that
// the endpoint's deadlines run on the bubble's fake clock: a real socket
// would hold the bubble's time still.
func (s *Server) StartWithListener(ln net.Listener) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.listener != nil {
		_ = ln.Close()
		return errors.New("rest: the endpoint was already started or closed")
	}
	s.listener = ln
	ln = newLimitListener(ln, s.cfg.MaxConnections)
	s.served = make(chan struct{})
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	s.log.Info(fmt.Sprintf("Rest endpoint listening at %s:%s", host, port))
	s.log.Info(fmt.Sprintf("Web frontend listening at %s.", restBaseURL(ln.Addr().String())), "jarDir", s.jarDir)

	served := s.served
	go func() {
		defer close(served)
		if err := s.httpServer.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("The rest endpoint stopped serving.", "cause", err.Error())
		}
	}()
	return nil
}

func (s *Server) checkNotStarted() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.listener != nil {
		return errors.New("rest: the endpoint was already started or closed")
	}
	return nil
}

// Address returns the host:port the endpoint listens on, with the port
// actually bound, or "" before Start.
func (s *Server) Address() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}

func restBaseURL(address string) string { return "http://" + address }

// Handler returns the endpoint's routes, to be served without a socket:
// a test inside a synctest bubble calls them in-process, because a
// goroutine waiting on a socket would hold the bubble's fake time still.
// Start is not needed for it; Close still removes the upload directory.
func (s *Server) Handler() http.Handler { return s.httpServer.Handler }

// Close stops accepting requests, waits for the running ones until ctx
// ends or Config.ShutdownTimeout has passed, whichever comes first, then
// cuts the connections still open, and removes the upload directory if
// NewServer created it. So Close(context.Background()) returns even if a
// request is stuck; it then reports that the shutdown was not graceful.
// Closing twice is allowed.
//
// Cutting a connection does not stop its handler: it sees its request's
// ctx end and returns soon after. Close waits for those handlers (for at
// most another Config.ShutdownTimeout) before it removes the upload directory, so no
// handler writes into a removed directory and none outlives Close. If one
// is still running after that, the directory is left in place and Close
// says so.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	served := s.served
	s.mu.Unlock()

	s.log.Info("Shutting down rest endpoint.")
	var err error
	if served != nil {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
		defer cancel()
		if err = s.httpServer.Shutdown(ctx); err != nil {
			// Out of time: cut the remaining connections. Their handlers
			// see their request's ctx end.
			s.log.Warn("Requests were still running at shutdown; closing their connections.", "cause", err.Error())
			_ = s.httpServer.Close()
			err = fmt.Errorf("rest: shut down gracefully: %w", err)
		}
		<-served
	}
	s.savepoints.close() // their calls end, and their goroutines with them
	if !s.waitForHandlers() {
		s.log.Warn("Handlers were still running after their connections were closed; leaving the upload directory in place.",
			"dir", s.cfg.UploadDir)
		return errors.Join(err, fmt.Errorf("rest: handlers still running %v after their connections were closed; the upload directory %s was not removed",
			s.cfg.ShutdownTimeout, s.cfg.UploadDir))
	}
	s.removeUploadDir()
	s.log.Info("Shut down complete.")
	return err
}

// waitForHandlers stops counting new handlers in and waits for the running
// ones to return, for at most Config.ShutdownTimeout: a handler whose
// connection is closed sees its request's ctx end and returns quickly, and
// the bound only keeps one stuck in code deaf to ctx from holding up Close
// for ever. It reports whether they
// all did.
func (s *Server) waitForHandlers() bool {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.handlers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	default:
	}
	s.log.Info("Waiting for the handlers of the closed connections to return.")
	timer := time.NewTimer(s.cfg.ShutdownTimeout)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

func (s *Server) removeUploadDir() {
	if !s.ownsUploadDir {
		return
	}
	if err := os.RemoveAll(s.cfg.UploadDir); err != nil {
		s.log.Warn("Could not delete the upload directory.", "dir", s.cfg.UploadDir, "cause", err.Error())
	}
}
