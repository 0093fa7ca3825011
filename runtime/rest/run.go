package rest

import (
	"bytes"
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
	"flinklab/runtime/client"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/trace"
)

// ---------------------------------------------------------------------------
// POST /jars/{jarid}/run — Flink's JarRunHandler
// ---------------------------------------------------------------------------

// handleJarRun runs an uploaded jar: the program builds a JobGraph, the jar
// goes to the BlobServer under the job's ID, and the Dispatcher gets the
// job. The answer, {"jobid": …}, comes once the Dispatcher has accepted the
// job (step m3), long before it runs.
func (s *Server) handleJarRun(w http.ResponseWriter, r *http.Request) (any, error) {
	jarID := r.PathValue("jarid")
	var body JarRunRequestBody
	if err := decodeJSONBody(w, r, &body, "JarRunRequestBody"); err != nil {
		return nil, err
	}
	params, err := s.jarRunParams(body, r.URL.Query())
	if err != nil {
		return nil, err
	}
	data, uploaded, err := s.readJar(jarID)
	if err != nil {
		return nil, err
	}

	// Build the JobGraph (Flink: PackagedProgramUtils.createJobGraph runs
	// the user's main method, which builds the StreamGraph).
	program, err := client.ReadPackagedProgram(data)
	if err != nil {
		return nil, badRequest("Could not execute application.", err.Error())
	}
	entryClass := params.entryClass
	if entryClass == "" {
		entryClass = program.ProgramClass()
	}
	jobGraph, err := s.deps.Programs.JobGraph(program, entryClass, params.args, params.parallelism)
	if err != nil {
		return nil, badRequest("Could not execute application.", err.Error())
	}
	if jobGraph == nil {
		return nil, badRequest("Could not execute application.", "No jobs included in application.")
	}
	if params.jobID != nil {
		jobGraph.JobID = *params.jobID
	}
	jobID := jobGraph.JobID

	// Step m1, again: the upload's event, recorded for the job it led to,
	// so that the job's trace starts at the beginning.
	s.deps.Trace.Emit(trace.M1, "Client", "REST", jobID, "%s (recorded for this job when it was run)",
		jarUploadedMessage(jarID, program.ProgramClass(), uploaded))
	// Step m2: the run request arrives and the program has built the job.
	s.deps.Trace.Emit(trace.M2, "Client", "REST", jobID, "POST /jars/%s/run: program %s built job '%s' (parallelism %s, args %q)",
		jarID, entryClass, jobGraph.Name, parallelismText(params.parallelism), params.args)

	// Upload the jar to the BlobServer under the JobID (Flink:
	// ClientUtils.extractAndUploadJobGraphFiles) and name it in the JobGraph.
	key, err := s.deps.BlobServer.PutPermanentBytes(jobID, data)
	if err != nil {
		return nil, fmt.Errorf("Could not upload job files: %w", err)
	}
	if !slices.Contains(jobGraph.UserJarBlobKeys, key) {
		jobGraph.UserJarBlobKeys = append(jobGraph.UserJarBlobKeys, key)
	}
	plan := newJobPlan(jobGraph) // before the Dispatcher owns the graph

	// Step m3 happens in the Dispatcher.
	if err := s.deps.Dispatcher.SubmitJob(r.Context(), jobGraph); err != nil {
		// A duplicate JobID names a job that exists: its BLOBs are not ours
		// to delete. Otherwise nothing may stay behind.
		var duplicate *dispatcher.DuplicateJobSubmissionError
		if !errors.As(err, &duplicate) {
			if cleanupErr := s.deps.BlobServer.CleanupJob(jobID); cleanupErr != nil {
				s.log.Warn(fmt.Sprintf("Could not delete the BLOBs of the rejected job %s.", jobID), "cause", cleanupErr.Error())
			}
		}
		return nil, fmt.Errorf("submit job %s: %w", jobID, err)
	}
	s.storePlan(jobID, plan)
	s.log.Info(fmt.Sprintf("Jar %s runs as job '%s' (%s).", jarID, jobGraph.Name, jobID))
	return JarRunResponseBody{JobID: jobID}, nil
}

// jarRunParams are the run request's settings after defaults.
type jarRunParams struct {
	entryClass  string // "" means the jar's Program-Class
	args        []string
	parallelism int        // client.ParallelismDefault if not set
	jobID       *api.JobID // nil: the JobGraph's own random ID
}

// jarRunParams resolves each setting as Flink's JarHandlerContext does:
// the request body if the field is set, else the query parameter, else the
// default. Query parameters with several values are joined with commas.
func (s *Server) jarRunParams(body JarRunRequestBody, query url.Values) (jarRunParams, error) {
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

	var ignored []string
	if body.AllowNonRestoredState != nil || query.Has("allowNonRestoredState") {
		ignored = append(ignored, "allowNonRestoredState")
	}
	if body.SavepointPath != nil || query.Has("savepointPath") {
		ignored = append(ignored, "savepointPath")
	}
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
		s.log.Warn(fmt.Sprintf("Ignoring %s: flinklab has no savepoints and no per-job configuration.", strings.Join(ignored, ", ")))
	}
	return p, nil
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
	if jarID != filepath.Base(jarID) || strings.ContainsAny(jarID, `/\`+"\x00") || !isJarName(jarID) {
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

// decodeJSONBody reads a JSON request body of at most maxJSONBodySize bytes
// into v, strictly as Flink's REST mapper does: unknown fields are an
// error. An empty body counts as {}.
func decodeJSONBody(w http.ResponseWriter, r *http.Request, v any, typeName string) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJSONBodySize))
	if err != nil {
		return requestReadError(err)
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
		return badRequest(fmt.Sprintf("Request did not match expected format %s.", typeName), err.Error())
	}
	return nil
}
