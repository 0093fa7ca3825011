package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/jobgraph"
)

func TestSubmitJobSendsTheJobGraphAndTheJarInOneRequest(t *testing.T) {
	g := jobgraph.New("WordCount")
	g.AddVertex(jobgraph.NewJobVertex("Source: numbers", "flinklab.Invokable", 1))
	type received struct {
		request map[string]any
		files   map[string][]byte
	}
	var got received
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "POST /jobs", r.Method+" "+r.URL.Path)
		mr, err := r.MultipartReader()
		require.NoError(t, err)
		got.files = map[string][]byte{}
		for part, err := mr.NextPart(); err == nil; part, err = mr.NextPart() {
			data, _ := io.ReadAll(part)
			if part.FileName() == "" {
				assert.Equal(t, "request", part.FormName())
				require.NoError(t, json.Unmarshal(data, &got.request))
				continue
			}
			got.files[part.FileName()] = data
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"jobUrl": "/jobs/`+g.JobID.String()+`"}`)
	}))
	defer server.Close()

	c := NewRestClusterClient(strings.TrimPrefix(server.URL, "http://"))
	jobID, err := c.SubmitJob(context.Background(), g, "wordcount.jar", []byte("PK jar"))
	require.NoError(t, err)
	assert.Equal(t, g.JobID, jobID)

	assert.Equal(t, map[string]any{
		"jobGraphFileName": "flink-jobgraph.json",
		"jobJarFileNames":  []any{"wordcount.jar"},
	}, got.request)
	assert.Equal(t, []byte("PK jar"), got.files["wordcount.jar"])
	decoded, err := jobgraph.Decode(got.files["flink-jobgraph.json"])
	require.NoError(t, err)
	assert.Equal(t, g.JobID, decoded.JobID)
	assert.Equal(t, "WordCount", decoded.Name)
}

func TestSubmitJobReturnsTheClustersRefusal(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"errors": ["Internal server error.", "Job has already been submitted."]}`)
	}))
	defer server.Close()
	g := jobgraph.New("twice")
	g.AddVertex(jobgraph.NewJobVertex("v", "flinklab.Invokable", 1))

	c := NewRestClusterClient(strings.TrimPrefix(server.URL, "http://"))
	_, err := c.SubmitJob(context.Background(), g, "", nil)
	var restErr *RestError
	require.ErrorAs(t, err, &restErr)
	assert.Equal(t, http.StatusInternalServerError, restErr.Status)
	assert.Contains(t, restErr.Errors, "Job has already been submitted.")
}
