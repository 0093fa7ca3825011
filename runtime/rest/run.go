package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/client"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/trace"
)

// ---------------------------------------------------------------------------
// POST /jars/{jarid}/run — Flink's JarRunHandler
// ---------------------------------------------------------------------------

// handleJarRun runs an uploaded jar: the program builds a JobGraph, the jar
// goes to the BlobServer under the job's ID, and the Dispatcher gets the
// job. The answer, {"jobid": …}, comes once the Dispatcher has accepted the
// job (step m3), long before it runs.
//
// A run the Dispatcher refuses leaves nothing behind: no BLOB that this
// request added, no plan and no trace event (see submitWithJars). Steps m1
// and m2 are recorded only once the job exists, with the times they
// happened, so the job's trace still reads m1, m2, m3.
func (s *Server) handleJarRun(_ http.ResponseWriter, r *http.Request) (any, error) {
	// Step m2: the run request arrives.
	received := s.deps.Trace.Now()
	jarID := r.PathValue("jarid")
	var body JarRunRequestBody
	if err := decodeJSONBody(r, &body, "JarRunRequestBody"); err != nil {
		return nil, err
	}
	if kind, ok := s.deps.Faults.Fire(trace.M2, api.JobID{}); ok {
		// Step m2 (fault): the request is treated as malformed; no job is made.
		injected := fault.Injected(trace.M2, kind)
		s.deps.Trace.EmitFailure(trace.M2, "Client", "REST", api.JobID{}, "POST /jars/%s/run refused: Request did not match expected format JarRunRequestBody.: %v", jarID, injected)
		return nil, badRequest("Request did not match expected format JarRunRequestBody.", injected.Error())
	}
	params, err := s.jarRunParams(body, r.URL.Query())
	if err != nil {
		return nil, err
	}
	if params.jobID != nil && params.jobID.IsZero() {
		// Differs from Flink: Flink takes the zero JobID like any other
		// (its application mode even picks it). In flinklab it means "no
		// job" (a trace event or a fault not tied to a job), and the
		// BlobServer refuses it, so no job may have it.
		return nil, badRequest("Request did not match expected format JarRunRequestBody.",
			fmt.Sprintf("The jobId %s is reserved: it stands for no job. Leave jobId out for a random one.", params.jobID))
	}
	data, modTime, err := s.readJar(jarID)
	if err != nil {
		return nil, err
	}
	uploaded := s.uploadTimeOf(jarID, int64(len(data)), modTime)

	program, entryClass, jobGraph, err := s.jobGraphOf(data, params)
	if err != nil {
		return nil, badRequest("Could not execute application.", err.Error())
	}
	jobID := jobGraph.JobID
	if err := s.submitWithJars(r.Context(), jobGraph, []userJar{jarInMemory(data)}); err != nil {
		return nil, runRefused(err)
	}

	// Step m1, recorded now that the job exists, at the time the jar was
	// uploaded: the upload is the beginning of every job run from the jar.
	s.deps.Trace.EmitAt(trace.At(uploaded), trace.M1, "Client", "REST", jobID, "%s",
		jarUploadedMessage(jarID, program.ProgramClass(), uploaded))
	// Step m2: the run request that built the job, at the time it arrived.
	s.deps.Trace.EmitAt(received, trace.M2, "Client", "REST", jobID, "POST /jars/%s/run: program %s built job '%s' (parallelism %s, args %q)",
		jarID, entryClass, jobGraph.Name, parallelismText(params.parallelism), params.args)
	s.log.Info(fmt.Sprintf("Jar %s runs as job '%s' (%s).", jarID, jobGraph.Name, jobID))
	return JarRunResponseBody{JobID: jobID}, nil
}

// runRefused is the answer to a run the Dispatcher refused: Flink's
// JarRunHandler answers every failure of the application it runs 400
// "Could not execute application.", the Dispatcher's
// DuplicateJobSubmissionException and JobSubmissionException included
// (the application's env.execute() submits the job, and fails with
// them). So does this one, with the refusal as the second message. Other
// failures keep their status: no leader (503), a jar the BlobServer
// could not store (500).
func runRefused(err error) error {
	var refused *refusedByDispatcher
	if errors.As(err, &refused) && !errors.Is(err, gateway.ErrNoLeader) {
		return badRequest("Could not execute application.", refused.cause.Error())
	}
	return err
}

// refusedByDispatcher is an error of Dispatcher.SubmitJob: the Dispatcher
// refused the job (step m3). It keeps the Dispatcher's error as it is, so
// its status stays what statusOf makes of it unless runRefused maps it.
//
// The Dispatcher's error types (DuplicateJobSubmissionError,
// JobSubmissionError) do not cross an RPC connection as types: only their
// text arrives from a leader in another process. So the endpoint tells a
// refusal by where it came from, not by its type.
type refusedByDispatcher struct{ cause error }

func (e *refusedByDispatcher) Error() string { return e.cause.Error() }
func (e *refusedByDispatcher) Unwrap() error { return e.cause }

// submitWithJars stores the jars to the BlobServer under the job's ID,
// names them in the JobGraph (Flink: ClientUtils.uploadJobGraphFiles), and
// hands the job to the Dispatcher, where step m3 happens. POST
// /jars/{jarid}/run and POST /jobs share it.
//
// A job the Dispatcher refuses, a duplicate JobID included, leaves nothing
// behind: the handler takes back exactly the BLOBs this request added
// (a jar the BlobServer already held under that JobID belongs to the job
// that stored it), and keeps no plan. Submissions of one JobID through
// this endpoint take turns (claimRun), so that none deletes a BLOB
// another one has just stored and relies on.
func (s *Server) submitWithJars(ctx context.Context, jobGraph *jobgraph.JobGraph, jars []userJar) error {
	jobID := jobGraph.JobID
	release, err := s.claimRun(ctx, jobID)
	if err != nil {
		return fmt.Errorf("submit job %s: %w", jobID, err)
	}
	defer release()

	added, err := s.storeJars(ctx, jobGraph, jars)
	if err != nil {
		return err
	}
	plan := newJobPlan(jobGraph) // before the Dispatcher owns the graph
	if err := s.deps.Dispatcher.SubmitJob(trace.WithCaller(ctx, "REST"), jobGraph); err != nil {
		s.removeAddedJars(jobID, added)
		return fmt.Errorf("submit job %s: %w", jobID, &refusedByDispatcher{cause: err})
	}
	s.plans.store(jobID, plan)
	return nil
}

// userJar is a jar to store for a job: its BLOB key, the SHA-256 of its
// content, and how to read the content. A run's jar is in memory
// (jarInMemory); the jars of POST /jobs wait in temp files (jarInFile).
type userJar struct {
	key  blob.PermanentBlobKey
	open func() (io.ReadCloser, error)
}

func jarInMemory(data []byte) userJar {
	return userJar{key: blob.KeyOf(data), open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

// storeJars puts each jar to the BlobServer under the job's ID, unless it
// holds that jar already, and adds its key to the JobGraph's
// UserJarBlobKeys. It returns the keys it added to the BlobServer. If one
// jar cannot be stored, the ones stored before it are taken back.
//
// Why a jar could not be stored is logged, not answered: the BlobServer's
// errors name its storage directory. The client reads Flink's "Could not
// upload job files." (a 500).
func (s *Server) storeJars(ctx context.Context, jobGraph *jobgraph.JobGraph, jars []userJar) ([]blob.PermanentBlobKey, error) {
	jobID := jobGraph.JobID
	var added []blob.PermanentBlobKey
	for _, jar := range jars {
		existed, err := s.hasBlob(ctx, jobID, jar.key)
		if err == nil && !existed {
			err = s.putJar(jobID, jar)
			if err == nil {
				added = append(added, jar.key)
			}
		}
		if err != nil {
			s.removeAddedJars(jobID, added)
			s.log.Error(fmt.Sprintf("Could not upload the jars of job %s.", jobID), "cause", err.Error())
			return nil, withMessages(err, "Could not upload job files.")
		}
		if !slices.Contains(jobGraph.UserJarBlobKeys, jar.key) {
			jobGraph.UserJarBlobKeys = append(jobGraph.UserJarBlobKeys, jar.key)
		}
	}
	return added, nil
}

// putJar streams one jar to the BlobServer, and checks that it stored it
// under the key the jar was named by.
func (s *Server) putJar(jobID api.JobID, jar userJar) error {
	content, err := jar.open()
	if err != nil {
		return err
	}
	defer content.Close()
	key, err := s.deps.BlobServer.PutPermanent(jobID, content)
	if err == nil && key != jar.key {
		// The file changed between hashing and storing: not ours to keep.
		_ = s.deps.BlobServer.DeletePermanent(jobID, key)
		err = fmt.Errorf("the jar was stored as %s, not as %s", key, jar.key)
	}
	return err
}

// jobGraphOf builds the JobGraph of a jar with the request's settings, as
// Flink's JarHandlerContext.toJobGraph does: PackagedProgramUtils
// .createJobGraph runs the user's main method, which builds the
// StreamGraph. The graph gets the request's jobId, if it names one. It
// returns the program, the entry class it ran and the graph; an error
// means the jar could not be read (client.ErrInvalidJar), the program
// failed, or it built no job. The run and the plan handlers share it.
func (s *Server) jobGraphOf(data []byte, params jarRunParams) (*client.PackagedProgram, string, *jobgraph.JobGraph, error) {
	program, err := client.ReadPackagedProgram(data)
	if err != nil {
		return nil, "", nil, err
	}
	entryClass := params.entryClass
	if entryClass == "" {
		entryClass = program.ProgramClass()
	}
	jobGraph, err := s.deps.Programs.JobGraph(program, entryClass, params.args, params.parallelism)
	if err != nil {
		return nil, "", nil, err
	}
	if jobGraph == nil {
		return nil, "", nil, errors.New("No jobs included in application.")
	}
	if params.jobID != nil {
		jobGraph.JobID = *params.jobID
	}
	jobGraph.SavepointRestoreSettings = params.savepointRestoreSettings
	return program, entryClass, jobGraph, nil
}

// hasBlob reports whether the BlobServer holds the BLOB key of jobID.
func (s *Server) hasBlob(ctx context.Context, jobID api.JobID, key blob.PermanentBlobKey) (bool, error) {
	f, err := s.deps.BlobServer.Open(ctx, jobID, key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_ = f.Close()
	return true, nil
}

// removeAddedJars deletes the jars a request stored for a job the
// Dispatcher refused (or before a later jar failed to store). Submissions
// of one JobID take turns (claimRun), so no other one of this endpoint
// relies on those BLOBs meanwhile.
func (s *Server) removeAddedJars(jobID api.JobID, keys []blob.PermanentBlobKey) {
	for _, key := range keys {
		if err := s.deps.BlobServer.DeletePermanent(jobID, key); err != nil {
			s.log.Warn(fmt.Sprintf("Could not delete the jar of the rejected job %s.", jobID), "cause", err.Error())
		}
	}
}

// claimRun waits until no other run of this endpoint uses jobID, and
// claims it; call release when the run is answered. Runs with random
// JobIDs never wait; only runs that name the same jobId do.
func (s *Server) claimRun(ctx context.Context, jobID api.JobID) (release func(), err error) {
	for {
		s.mu.Lock()
		busy, ok := s.runs[jobID]
		if !ok {
			done := make(chan struct{})
			s.runs[jobID] = done
			s.mu.Unlock()
			return func() {
				s.mu.Lock()
				delete(s.runs, jobID)
				s.mu.Unlock()
				close(done)
			}, nil
		}
		s.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// jarRunParams are the run request's settings after defaults.
type jarRunParams struct {
	entryClass  string // "" means the jar's Program-Class
	args        []string
	parallelism int        // client.ParallelismDefault if not set
	jobID       *api.JobID // nil: the JobGraph's own random ID
	// savepointRestoreSettings name the savepoint the job starts from.
	savepointRestoreSettings jobgraph.SavepointRestoreSettings
}

// jarRunParams reads the run request's settings (jarRunParamsFromRequest)
// and warns about the ones flinklab accepts but ignores.
func (s *Server) jarRunParams(body JarRunRequestBody, query url.Values) (jarRunParams, error) {
	p, err := jarRunParamsFromRequest(body, query)
	if err != nil {
		return p, err
	}
	s.warnIgnoredRunSettings(body, query)
	if usesQueryParameters(body, query) {
		// Flink: HandlerRequestUtils#fromRequestBodyOrQueryParameter.
		s.log.Warn("Configuring the job submission via query parameters is deprecated. Please migrate to submitting a JSON request instead.")
	}
	return p, nil
}

// usesQueryParameters reports whether a setting the body leaves out is
// taken from the query, which Flink warns is deprecated: each query
// parameter counts where jarRunParamsFromRequest and programArgs read it.
func usesQueryParameters(body JarRunRequestBody, query url.Values) bool {
	return (body.EntryClass == nil || *body.EntryClass == "") && queryValue(query, "entry-class") != "" ||
		body.Parallelism == nil && queryValue(query, "parallelism") != "" ||
		(body.ProgramArgs == nil || *body.ProgramArgs == "") && queryValue(query, "program-args") != "" ||
		body.ProgramArgsList == nil && queryValue(query, "programArg") != ""
}

// jarRunParamsFromRequest resolves each setting as Flink's
// JarHandlerContext.fromRequest does: the request body if the field is
// set, else the query parameter, else the default. Query parameters with
// several values are joined with commas.
//
// Step m2: the run's settings are decided here, before the program builds
// the job's JobGraph with them.
func jarRunParamsFromRequest(body JarRunRequestBody, query url.Values) (jarRunParams, error) {
	p := jarRunParams{parallelism: client.ParallelismDefault, jobID: body.JobID}

	if body.EntryClass != nil && *body.EntryClass != "" {
		p.entryClass = *body.EntryClass
	} else {
		p.entryClass = queryValue(query, "entry-class")
	}

	if body.Parallelism != nil {
		p.parallelism = *body.Parallelism
	} else if v := queryValue(query, "parallelism"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return p, badRequest(fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve query parameter (parallelism) from value %q.", v))
		}
		p.parallelism = n
	}
	if p.parallelism < 1 && p.parallelism != client.ParallelismDefault {
		return p, badRequest("Parallelism must be at least one, or ExecutionConfig.PARALLELISM_DEFAULT (use system default).",
			fmt.Sprintf("The request asks for parallelism %d.", p.parallelism))
	}

	args, err := programArgs(body, query)
	if err != nil {
		return p, err
	}
	p.args = args
	p.savepointRestoreSettings = savepointRestoreSettingsOf(body, query)
	return p, nil
}

// savepointRestoreSettingsOf reads the savepoint a run starts from as
// Flink's JarRunHandler#getSavepointRestoreSettings does: savepointPath
// and allowNonRestoredState from the body, else from the query (where
// anything but "true" is false, as Boolean.valueOf reads it). An empty
// path restores nothing.
func savepointRestoreSettingsOf(body JarRunRequestBody, query url.Values) jobgraph.SavepointRestoreSettings {
	path := stringOrEmpty(body.SavepointPath)
	if path == "" {
		path = queryValue(query, "savepointPath")
	}
	if path == "" {
		return jobgraph.SavepointRestoreSettingsNone
	}
	allow := queryValue(query, "allowNonRestoredState") == "true"
	if body.AllowNonRestoredState != nil {
		allow = *body.AllowNonRestoredState
	}
	return jobgraph.SavepointRestoreSettingsForPath(path, allow)
}

// warnIgnoredRunSettings logs the run settings flinklab accepts, so that
// Flink's clients work, but has no use for.
func (s *Server) warnIgnoredRunSettings(body JarRunRequestBody, query url.Values) {
	var ignored []string
	if body.RestoreMode != nil {
		ignored = append(ignored, "restoreMode")
	}
	if body.ClaimMode != nil {
		ignored = append(ignored, "claimMode")
	}
	if body.FlinkConfiguration != nil {
		ignored = append(ignored, "flinkConfiguration")
	}
	if len(ignored) > 0 {
		s.log.Warn(fmt.Sprintf("Ignoring %s: flinklab restores a savepoint in NO_CLAIM mode only, and has no per-job configuration.",
			strings.Join(ignored, ", ")))
	}
}

// programArgs mirrors JarHandlerUtils.getProgramArgs: the deprecated
// single string (body programArgs, query program-args), split like a shell
// would, or the list (body programArgsList, query programArg); not both.
func programArgs(body JarRunRequestBody, query url.Values) ([]string, error) {
	var args []string
	if body.ProgramArgs != nil && *body.ProgramArgs != "" {
		args = tokenizeArguments(*body.ProgramArgs)
	} else if v := queryValue(query, "program-args"); v != "" {
		args = tokenizeArguments(v)
	}

	var list []string
	if body.ProgramArgsList != nil {
		list = body.ProgramArgsList
	} else if v := queryValue(query, "programArg"); v != "" {
		list = strings.Split(v, ",")
	}

	if len(list) > 0 {
		if len(args) > 0 {
			return nil, badRequest("Confusing request: programArgs and programArgsList are specified, please, use only programArgsList")
		}
		return list, nil
	}
	return args, nil
}

// argumentPattern is Flink's ARGUMENTS_TOKENIZE_PATTERN: a word, or a
// double- or single-quoted string.
var argumentPattern = regexp.MustCompile(`([^"']\S*|".+?"|'.+?')\s*`)

// tokenizeArguments splits "--input 'a b' --n 3" into ["--input", "a b",
// "--n", "3"], as Flink's JarHandlerUtils.tokenizeArguments does (which,
// as its comment warns, does not respect escaped quotes).
func tokenizeArguments(args string) []string {
	var tokens []string
	for _, m := range argumentPattern.FindAllString(args, -1) {
		token := strings.TrimSpace(m)
		token = strings.ReplaceAll(token, `"`, "")
		token = strings.ReplaceAll(token, `'`, "")
		tokens = append(tokens, token)
	}
	return tokens
}

func queryValue(query url.Values, key string) string { return strings.Join(query[key], ",") }

func parallelismText(p int) string {
	if p == client.ParallelismDefault {
		return "default"
	}
	return strconv.Itoa(p)
}

// readJar returns the content and upload time of an uploaded jar. A jar ID
// that is not a plain "<uuid>_<name>.jar" file name of the jar directory
// cannot name a jar: "../x.jar" (sent as "..%2Fx.jar") is not found,
// rather than looked up outside the directory.
func (s *Server) readJar(jarID string) ([]byte, time.Time, error) {
	jarNotFound := notFound(fmt.Sprintf("Jar file %s%c%s does not exist", s.jarDir, filepath.Separator, jarID))
	if !isJarID(jarID) {
		return nil, time.Time{}, jarNotFound
	}
	f, err := os.Open(filepath.Join(s.jarDir, jarID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, jarNotFound
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("open jar %s: %w", jarID, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("open jar %s: %w", jarID, err)
	}
	if !info.Mode().IsRegular() {
		return nil, time.Time{}, jarNotFound
	}
	if info.Size() > client.MaxUncompressedSize {
		return nil, time.Time{}, badRequest("Could not execute application.", fmt.Sprintf("The jar file %s is too large.", jarID))
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read jar %s: %w", jarID, err)
	}
	return data, info.ModTime(), nil
}

// decodeJSONBody reads a JSON request body into v with decodeJSON.
func decodeJSONBody(r *http.Request, v any, typeName string) error {
	return decodeJSON(r.Body, v, typeName)
}

// decodeJSON reads a JSON document of at most maxJSONBodySize bytes into
// v, strictly: unknown fields are an error, as with Flink's REST mapper
// (FAIL_ON_UNKNOWN_PROPERTIES), and so is anything after the object, which
// Flink's mapper would ignore. An empty document counts as {}. A
// larger one is refused as not of the expected format (400) before it is
// parsed: a request body of JSON has no business being that large.
//
// Step m2: the body of POST /jars/{jarid}/run, and the request part of
// POST /jobs, are read here; one not of the expected format makes no job.
func decodeJSON(r io.Reader, v any, typeName string) error {
	notTheFormat := fmt.Sprintf("Request did not match expected format %s.", typeName)
	data, err := io.ReadAll(io.LimitReader(r, maxJSONBodySize+1))
	if err != nil {
		return requestReadError(err)
	}
	if len(data) > maxJSONBodySize {
		return badRequest(notTheFormat, fmt.Sprintf("The JSON body is larger than %d bytes.", maxJSONBodySize))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil && !errors.Is(dec.Decode(&struct{}{}), io.EOF) {
		err = errors.New("unexpected data after the JSON object")
	}
	if err != nil {
		return badRequest(notTheFormat, err.Error())
	}
	return nil
}
