package diagrams

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
)

// TestDrawJobOverREST runs WordCount through the REST endpoint of a real
// MiniCluster, as `make run` does, and draws it from there.
func TestDrawJobOverREST(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	workDir := t.TempDir()
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        1,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             workDir,
		REST:                   &rest.Config{UploadDir: filepath.Join(workDir, "web-upload")},
		Logger:                 slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	defer cluster.Close()
	defer wordcount.Results.Clear()

	jar, err := wordcount.Jar()
	require.NoError(t, err)
	c := client.NewRestClusterClient(cluster.RESTAddress())
	jarID, err := c.UploadJar(ctx, "WordCount.jar", jar)
	require.NoError(t, err)
	jobID, err := c.RunJar(ctx, jarID, client.JarRunRequest{
		Parallelism: 2, ProgramArgsList: []string{"--output", wordcount.OutputCollect},
	})
	require.NoError(t, err)
	result, err := cluster.RequestJobResult(ctx, jobID)
	require.NoError(t, err)
	require.Equal(t, api.JobFinished, result.JobStatus)

	files, err := DrawJob(ctx, cluster.RESTAddress(), jobID.String())
	require.NoError(t, err)
	name := jobID.String()
	require.ElementsMatch(t, []string{
		name + "-jobgraph.dot", name + "-executiongraph.dot", name + "-sequence.dot", name + "-sequence.mmd",
	}, keys(files))

	jobGraph := string(files[name+"-jobgraph.dot"])
	assert.Contains(t, jobGraph, `label="Source: file-input\ntokenizer\nparallelism 2"`, "the chain, unescaped from the plan")
	assert.Contains(t, jobGraph, `v0 -> v1 [label="ALL_TO_ALL\nHASH"]`)

	executionGraph := string(files[name+"-executiongraph.dot"])
	assert.Contains(t, executionGraph, "WordCount (ExecutionGraph, FINISHED)")
	assert.Equal(t, 4, strings.Count(executionGraph, `#0\nFINISHED"`), "every subtask of both vertices, attempt #0")
	assert.Contains(t, executionGraph, `label="ALL_TO_ALL\nHASH"`)

	sequence := string(files[name+"-sequence.mmd"])
	// The live sequence keeps the run's own order, in which the m10 and m11
	// of different subtasks interleave, so a step may be one arrow or several.
	for _, step := range []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11"} {
		assert.Regexp(t, `: `+step+`( ×\d+)?: `, sequence)
	}
	assert.NotContains(t, sequence, "✗", "nothing broke")

	_, err = DrawJob(ctx, cluster.RESTAddress(), api.NewJobID().String())
	assert.ErrorContains(t, err, "not found")
	_, err = DrawJob(ctx, cluster.RESTAddress(), "not-a-job-id")
	assert.ErrorContains(t, err, `-job "not-a-job-id"`)
}

func keys(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	return names
}
