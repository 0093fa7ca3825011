package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/rest"
)

// RESTClient talks to a cluster's REST endpoint over HTTP, as curl would:
// any method, path, content type and body, sent as they are, so a test can
// send what a real client would not (a hostile file name, an unknown JSON
// field) and read the status and Flink's {"errors": [...]} that come back.
type RESTClient struct {
	t      *testing.T
	client *http.Client
	base   string
}

// NewRESTClient returns a client for the REST endpoint at address
// (host:port, e.g. MiniCluster.RESTAddress()). Its idle connections are
// closed when the test ends. It sets no timeout: a test waits for the
// answer, and go test's -timeout bounds a server that never gives one.
func NewRESTClient(t *testing.T, address string) *RESTClient {
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	return &RESTClient{t: t, client: &http.Client{Transport: transport}, base: "http://" + address}
}

// Response is the endpoint's answer to one request.
type Response struct {
	// Status is the HTTP status; 0 when no answer came (Err says why), as
	// when the handler panicked and the server closed the connection.
	Status int
	Body   []byte
	// Errors holds the messages of Flink's {"errors": [...]} body, for an
	// answer with an error status.
	Errors []string
	Err    error
}

// String describes the answer for a failure message.
func (r Response) String() string {
	if r.Err != nil {
		return fmt.Sprintf("no answer (a handler that panics closes the connection; its panic is in the cluster's log): %v", r.Err)
	}
	return fmt.Sprintf("%d %s", r.Status, bytes.TrimSpace(r.Body))
}

// Do sends a request and reads the whole answer.
func (c *RESTClient) Do(method, path, contentType string, body []byte) Response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	require.NoError(c.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return Response{Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{Err: err}
	}
	r := Response{Status: resp.StatusCode, Body: data}
	if r.Status >= 300 {
		var e rest.ErrorResponseBody
		if json.Unmarshal(data, &e) == nil {
			r.Errors = e.Errors
		}
	}
	return r
}

// Get sends a GET.
func (c *RESTClient) Get(path string) Response {
	c.t.Helper()
	return c.Do(http.MethodGet, path, "", nil)
}

// Post sends a POST with the body as it is.
func (c *RESTClient) Post(path, contentType string, body []byte) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, path, contentType, body)
}

// PostJSON sends a POST with a JSON body, as it is written.
func (c *RESTClient) PostJSON(path, body string) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, path, "application/json", []byte(body))
}

// Part is one part of a multipart/form-data body: a file if FileName is
// set, else a plain form field.
type Part struct {
	Field    string
	FileName string // sent as it is in the Content-Disposition header
	Content  []byte
}

// Multipart builds a multipart/form-data body of the parts and returns its
// Content-Type and bytes.
func Multipart(t *testing.T, parts ...Part) (contentType string, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	form := multipart.NewWriter(&buf)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.FileName == "" {
			w, err = form.CreateFormField(p.Field)
		} else {
			w, err = form.CreateFormFile(p.Field, p.FileName)
		}
		require.NoError(t, err)
		_, err = w.Write(p.Content)
		require.NoError(t, err)
	}
	require.NoError(t, form.Close())
	return form.FormDataContentType(), buf.Bytes()
}

// UploadJar posts one file to /jars/upload in the form field "jarfile",
// as Flink's documentation does with curl -F "jarfile=@WordCount.jar".
func (c *RESTClient) UploadJar(fileName string, content []byte) Response {
	c.t.Helper()
	contentType, body := Multipart(c.t, Part{Field: "jarfile", FileName: fileName, Content: content})
	return c.Post("/jars/upload", contentType, body)
}

// Decode reads a successful answer's JSON body into v.
func Decode(t *testing.T, r Response, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.Body, v), "decode %s", r)
}
