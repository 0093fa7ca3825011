package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// RestClusterClient talks to a cluster's REST endpoint as Flink's
// RestClusterClient and its CLI do: plain HTTP and JSON, the same paths,
// fields and errors as Flink's REST API.
type RestClusterClient struct {
	base string
	http *http.Client
}

// NewRestClusterClient returns a client for the REST endpoint at address
// (host:port, Flink's default is localhost:8081).
func NewRestClusterClient(address string) *RestClusterClient {
	return &RestClusterClient{base: "http://" + address, http: &http.Client{}}
}

// RestError is an answer with an error status: the HTTP status and the
// messages of Flink's {"errors": [...]} body.
type RestError struct {
	Status int
	Errors []string
}

func (e *RestError) Error() string {
	return fmt.Sprintf("REST request failed with status %d: %s", e.Status, strings.Join(e.Errors, "; "))
}

// UploadJar uploads a job jar (POST /jars/upload, step m1) and returns its
// jar ID, the last part of the stored file name.
func (c *RestClusterClient) UploadJar(ctx context.Context, fileName string, jar []byte) (string, error) {
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	part, err := form.CreateFormFile("jarfile", fileName)
	if err != nil {
		return "", err
	}
	if _, err := part.Write(jar); err != nil {
		return "", err
	}
	if err := form.Close(); err != nil {
		return "", err
	}
	var answer struct {
		Filename string `json:"filename"`
		Status   string `json:"status"`
	}
	if err := c.do(ctx, http.MethodPost, "/jars/upload", form.FormDataContentType(), &body, &answer); err != nil {
		return "", err
	}
	return filepath.Base(answer.Filename), nil
}

// JarRunRequest is the body of a jar run (Flink's JarRunRequestBody); zero
// fields are left out.
type JarRunRequest struct {
	EntryClass      string   `json:"entryClass,omitempty"`
	ProgramArgsList []string `json:"programArgsList,omitempty"`
	Parallelism     int      `json:"parallelism,omitempty"`
	// SavepointPath names the savepoint the job starts from;
	// AllowNonRestoredState skips state of operators the job lacks.
	SavepointPath         string `json:"savepointPath,omitempty"`
	AllowNonRestoredState bool   `json:"allowNonRestoredState,omitempty"`
}

// RunJar runs an uploaded jar (POST /jars/{jarid}/run, step m2) and returns
// the new job's ID.
func (c *RestClusterClient) RunJar(ctx context.Context, jarID string, req JarRunRequest) (api.JobID, error) {
	payload, err := json.Marshal(req)
	if err != nil {
		return api.JobID{}, err
	}
	var answer struct {
		JobID api.JobID `json:"jobid"`
	}
	// The jar ID is one path segment, whatever it holds ("/", "?", "%").
	err = c.do(ctx, http.MethodPost, "/jars/"+url.PathEscape(jarID)+"/run", "application/json", bytes.NewReader(payload), &answer)
	return answer.JobID, err
}

// SubmitJob submits a job the client has built itself (POST /jobs, steps
// m1 and m2 in one request), as Flink's RestClusterClient#submitJob does
// for `flink run`: one multipart request with the JobGraph file (in
// jobgraph.Encode's JSON), the job's jar (none if jar is nil), and a JSON
// part "request" naming both. It returns the ID of the job the cluster
// accepted.
func (c *RestClusterClient) SubmitJob(ctx context.Context, jobGraph *jobgraph.JobGraph, jarName string, jar []byte) (api.JobID, error) {
	const graphName = "flink-jobgraph.json"
	graph, err := jobgraph.Encode(jobGraph)
	if err != nil {
		return api.JobID{}, err
	}
	request := map[string]any{"jobGraphFileName": graphName, "jobJarFileNames": []string{}}
	if jar != nil {
		request["jobJarFileNames"] = []string{jarName}
	}
	requestJSON, err := json.Marshal(request)
	if err != nil {
		return api.JobID{}, err
	}

	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	writeFile := func(field, name string, data []byte) error {
		part, err := form.CreateFormFile(field, name)
		if err != nil {
			return err
		}
		_, err = part.Write(data)
		return err
	}
	err = form.WriteField("request", string(requestJSON))
	if err == nil {
		err = writeFile("file_0", graphName, graph)
	}
	if err == nil && jar != nil {
		err = writeFile("file_1", jarName, jar)
	}
	if err == nil {
		err = form.Close()
	}
	if err != nil {
		return api.JobID{}, err
	}

	var answer struct {
		JobURL string `json:"jobUrl"` // "/jobs/<32 hex>"
	}
	if err := c.do(ctx, http.MethodPost, "/jobs", form.FormDataContentType(), &body, &answer); err != nil {
		return api.JobID{}, err
	}
	return api.ParseJobID(strings.TrimPrefix(answer.JobURL, "/jobs/"))
}

// JobStatus returns a job's current status (GET /jobs/{jobid}/status,
// Flink's JobStatusInfo), as Flink's RestClusterClient#getJobStatus does.
func (c *RestClusterClient) JobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	var answer struct {
		Status api.JobStatus `json:"status"`
	}
	err := c.do(ctx, http.MethodGet, "/jobs/"+url.PathEscape(jobID.String())+"/status", "", nil, &answer)
	return answer.Status, err
}

// SendRequest sends a request without a body to any endpoint and decodes
// the JSON answer into answer, as Flink's RestClusterClient#sendRequest
// does for its message headers: a tool can read an endpoint this client
// has no method for, with the same error handling as the others. path is
// the endpoint's path, starting with "/", with its parameters filled in
// and escaped (url.PathEscape), e.g. "/jobs/<jobid>/vertices/<vertexid>".
// An error status comes back as a *RestError.
func (c *RestClusterClient) SendRequest(ctx context.Context, method, path string, answer any) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("%s %s: the path must start with \"/\"", method, path)
	}
	return c.do(ctx, method, path, "", nil, answer)
}

func (c *RestClusterClient) do(ctx context.Context, method, path, contentType string, body io.Reader, answer any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		restErr := &RestError{Status: resp.StatusCode}
		var errorBody struct {
			Errors []string `json:"errors"`
		}
		if json.Unmarshal(data, &errorBody) == nil {
			restErr.Errors = errorBody.Errors
		}
		return restErr
	}
	if err := json.Unmarshal(data, answer); err != nil {
		return fmt.Errorf("%s %s: unexpected answer: %w", method, path, err)
	}
	return nil
}
