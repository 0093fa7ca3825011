package diagrams

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
	"flinklab/runtime/trace"
	"flinklab/tools/graphs/dot"
)

// DrawJob draws a job on a running cluster from its REST endpoint at
// address (host:port), keyed by file name like PlanProgram's drawings but
// named after the JobID:
//
//	<jobid>-jobgraph.dot        from GET /jobs/{jobid}/plan
//	<jobid>-executiongraph.dot  from GET /jobs/{jobid} and /jobs/{jobid}/vertices/{vertexid}: the subtasks' states now
//	<jobid>-sequence.dot, .mmd  from GET /jobs/{jobid}/trace (flinklab's own endpoint)
//
// There is no StreamGraph: the client turns it into the JobGraph before it
// submits, and the cluster never sees it. The sequence is not made
// canonical: it shows this run's IDs and order, failures included.
func DrawJob(ctx context.Context, address, jobID string) (map[string][]byte, error) {
	id, err := api.ParseJobID(jobID)
	if err != nil {
		return nil, fmt.Errorf("-job %q: %w", jobID, err)
	}
	get := restGetter(ctx, address)

	var plan rest.JobPlanInfo
	if err := get("/jobs/"+id.String()+"/plan", &plan); err != nil {
		return nil, err
	}
	var details rest.JobDetailsInfo
	if err := get("/jobs/"+id.String(), &details); err != nil {
		return nil, err
	}
	graph := &gateway.ArchivedExecutionGraph{JobID: details.JobID, JobName: details.Name, State: details.State}
	for _, v := range details.Vertices {
		var vertex rest.JobVertexDetailsInfo
		if err := get("/jobs/"+id.String()+"/vertices/"+v.ID.String(), &vertex); err != nil {
			return nil, err
		}
		graph.Vertices = append(graph.Vertices, archivedVertex(v, vertex))
	}
	var events struct {
		Events []trace.Event `json:"events"`
	}
	if err := get("/jobs/"+id.String()+"/trace", &events); err != nil {
		return nil, err
	}

	name := id.String()
	return map[string][]byte{
		name + "-jobgraph.dot":       dot.JobGraph(jobGraphOf(plan.Plan), nil),
		name + "-executiongraph.dot": dot.ExecutionGraph(graph, dot.Topology{Edges: edgesOf(plan.Plan)}),
		name + "-sequence.dot":       dot.SequenceDOT(events.Events),
		name + "-sequence.mmd":       dot.SequenceDiagram(events.Events),
	}, nil
}

// restGetter returns a function that GETs a path of the REST endpoint at
// address into answer; its error names the path.
func restGetter(ctx context.Context, address string) func(path string, answer any) error {
	c := client.NewRestClusterClient(address)
	return func(path string, answer any) error {
		if err := c.SendRequest(ctx, http.MethodGet, path, answer); err != nil {
			return fmt.Errorf("GET %s: %w", path, err)
		}
		return nil
	}
}

// archivedVertex rebuilds the snapshot of one vertex from its REST
// answers: the vertex from /jobs/{jobid}, its subtasks from
// /jobs/{jobid}/vertices/{vertexid}.
func archivedVertex(v rest.JobDetailsVertexInfo, details rest.JobVertexDetailsInfo) gateway.ArchivedExecutionJobVertex {
	vertex := gateway.ArchivedExecutionJobVertex{
		ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, MaxParallelism: v.MaxParallelism, State: v.Status,
	}
	for _, s := range details.Subtasks {
		vertex.Subtasks = append(vertex.Subtasks, gateway.ArchivedExecution{
			SubtaskIndex: s.Subtask, AttemptNumber: s.Attempt, State: s.Status,
		})
	}
	return vertex
}

// jobGraphOf rebuilds the shape of a JobGraph from its plan, enough to draw
// it: the vertices with their names and parallelism, and the edges with
// their ship strategies. The plan does not carry the distribution pattern;
// it follows from the ship strategy as in Flink's
// StreamingJobGraphGenerator (FORWARD and RESCALE connect POINTWISE, every
// other partitioner ALL_TO_ALL). Nor does it carry slot sharing groups, so
// the drawing has no group boxes.
func jobGraphOf(plan *rest.JobPlan) *jobgraph.JobGraph {
	g := jobgraph.New(plan.Name)
	vertices := make(map[api.JobVertexID]*jobgraph.JobVertex, len(plan.Nodes))
	for _, node := range plan.Nodes {
		v := jobgraph.NewJobVertex(html.UnescapeString(node.Description), "", node.Parallelism)
		v.ID = node.ID
		vertices[node.ID] = v
		g.AddVertex(v)
	}
	for _, node := range plan.Nodes {
		for _, input := range node.Inputs {
			source, ok := vertices[input.ID]
			if !ok {
				continue
			}
			edge := vertices[node.ID].ConnectNewDataSetAsInput(source, distributionPattern(input.ShipStrategy), jobgraph.PipelinedBounded)
			edge.ShipStrategyName = input.ShipStrategy
		}
	}
	return g
}

// edgesOf returns the edges of the plan for the ExecutionGraph drawing.
func edgesOf(plan *rest.JobPlan) []dot.Edge {
	var edges []dot.Edge
	for _, node := range plan.Nodes {
		for _, input := range node.Inputs {
			edges = append(edges, dot.Edge{
				Source: input.ID, Target: node.ID,
				DistributionPattern: distributionPattern(input.ShipStrategy), ShipStrategy: input.ShipStrategy,
			})
		}
	}
	return edges
}

// distributionPattern is the pattern Flink's StreamingJobGraphGenerator
// connects a partitioner with.
func distributionPattern(shipStrategy string) jobgraph.DistributionPattern {
	switch strings.ToUpper(shipStrategy) {
	case "FORWARD", "RESCALE":
		return jobgraph.Pointwise
	default:
		return jobgraph.AllToAll
	}
}
