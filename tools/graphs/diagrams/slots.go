package diagrams

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
	"flinklab/tools/graphs/slots"
)

// SlotsFile names the file of a slot view: <name>-slots.dot.
func SlotsFile(name string) string { return name + "-slots.dot" }

// JobGraphFor returns the JobGraph of input, and the name its files are
// given. input is what PlanProgram takes (a registered program or a job
// jar, planned with args and parallelism), or a JobGraph file in
// flinklab's JSON form (jobgraph.Encode; what `flink run` sends as
// flink-jobgraph.json), whose name ends in ".json": it is read as it is,
// so args and parallelism must be empty.
func JobGraphFor(input string, args []string, parallelism int) (string, *jobgraph.JobGraph, error) {
	if !strings.HasSuffix(input, ".json") {
		plan, err := PlanProgram(input, args, parallelism)
		if err != nil {
			return "", nil, err
		}
		return plan.Name, plan.JobGraph, nil
	}
	if len(args) > 0 || parallelism != 0 {
		return "", nil, fmt.Errorf("%s: a JobGraph file is read as it is: no program arguments, no -p", input)
	}
	data, err := os.ReadFile(input)
	if err != nil {
		return "", nil, err
	}
	g, err := jobgraph.Decode(data)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", input, err)
	}
	return strings.TrimSuffix(filepath.Base(input), ".json"), g, nil
}

// PlanSlots plans where the subtasks of input (see JobGraphFor) run on
// cluster (slots.PlanJob), and returns the name its files are given.
func PlanSlots(input string, args []string, parallelism int, cluster slots.Cluster) (string, *slots.Plan, error) {
	name, g, err := JobGraphFor(input, args, parallelism)
	if err != nil {
		return "", nil, err
	}
	plan, err := slots.PlanJob(g, cluster)
	if err != nil {
		return "", nil, fmt.Errorf("plan the slots of %s: %w", input, err)
	}
	return name, plan, nil
}

// RunningSlots asks the REST endpoint at address (host:port) where the
// job jobID runs (slots.NewRunning):
//
//	GET /jobs/{jobid}                             the job and its vertices
//	GET /jobs/{jobid}/vertices/{vertexid}         each subtask's TaskManager (taskmanager-id)
//	GET /taskmanagers                             the registered TaskManagers
//	GET /taskmanagers/{taskmanagerid}             each one's resources and allocated slots
//
// Flink also answers GET /jobs/{jobid}/vertices/{vertexid}/taskmanagers,
// the same subtasks grouped by TaskManager; flinklab's REST endpoint does
// not have it, and the per-subtask taskmanager-id says the same.
func RunningSlots(ctx context.Context, address, jobID string) (*slots.Running, error) {
	id, err := api.ParseJobID(jobID)
	if err != nil {
		return nil, fmt.Errorf("-job %q: %w", jobID, err)
	}
	c := client.NewRestClusterClient(address)
	get := func(path string, answer any) error {
		if err := c.SendRequest(ctx, http.MethodGet, path, answer); err != nil {
			return fmt.Errorf("GET %s: %w", path, err)
		}
		return nil
	}

	var job rest.JobDetailsInfo
	if err := get("/jobs/"+id.String(), &job); err != nil {
		return nil, err
	}
	var vertices []rest.JobVertexDetailsInfo
	for _, v := range job.Vertices {
		var vertex rest.JobVertexDetailsInfo
		if err := get("/jobs/"+id.String()+"/vertices/"+v.ID.String(), &vertex); err != nil {
			return nil, err
		}
		vertices = append(vertices, vertex)
	}
	var list rest.TaskManagersInfo
	if err := get("/taskmanagers", &list); err != nil {
		return nil, err
	}
	var taskManagers []rest.TaskManagerDetailsInfo
	for _, tm := range list.TaskManagers {
		var details rest.TaskManagerDetailsInfo
		err := get("/taskmanagers/"+url.PathEscape(string(tm.ID)), &details)
		var restErr *client.RestError
		if errors.As(err, &restErr) && restErr.Status == http.StatusNotFound {
			continue // gone since the list: its subtasks show it as no longer registered
		}
		if err != nil {
			return nil, err
		}
		taskManagers = append(taskManagers, details)
	}
	return slots.NewRunning(job, vertices, taskManagers), nil
}
