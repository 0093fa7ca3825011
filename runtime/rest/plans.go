package rest

import (
	"strings"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// DefaultMaxJobPlans is Config.MaxJobPlans when it is not set.
const DefaultMaxJobPlans = 1000

// NewJobPlan returns the dataflow plan of a JobGraph as GET
// /jobs/{jobid}/plan and /jars/{jarid}/plan answer it. The command line
// client's info action prints it without asking a cluster.
func NewJobPlan(g *jobgraph.JobGraph) *JobPlan { return newJobPlan(g) }

// newJobPlan mirrors Flink's JsonPlanGenerator.generatePlan: a node per
// vertex, in the JobGraph's order, each listing its inputs. An input vertex
// (a source) has no "inputs" field at all, as in Flink, which writes the
// field only for vertices that are not input vertices.
func newJobPlan(g *jobgraph.JobGraph) *JobPlan {
	plan := &JobPlan{JobID: g.JobID, Name: g.Name, Type: jobTypeStreaming, Nodes: []JobPlanNode{}}
	for _, v := range g.Vertices() {
		node := JobPlanNode{ID: v.ID, Parallelism: v.Parallelism, Description: escapeDescription(v.Name)}
		for num, edge := range v.Inputs() {
			if edge.Source == nil || edge.Source.Producer == nil {
				continue // as Flink: an edge without a producer is skipped
			}
			node.Inputs = append(node.Inputs, JobPlanInput{
				Num:          num,
				ID:           edge.Source.Producer.ID,
				ShipStrategy: edge.ShipStrategyName,
				Exchange:     strings.ToLower(edge.Source.ResultType.String()),
			})
		}
		plan.Nodes = append(plan.Nodes, node)
	}
	return plan
}

// archivedPlan is the plan of a job this endpoint did not run (one the
// MiniCluster submitted directly, one run before a restart, or one whose
// plan was dropped). The archived graph has the vertices but not the
// edges, so its nodes have no inputs.
func archivedPlan(g *gateway.ArchivedExecutionGraph) *JobPlan {
	plan := &JobPlan{JobID: g.JobID, Name: g.JobName, Type: jobTypeStreaming, Nodes: []JobPlanNode{}}
	for _, v := range g.Vertices {
		plan.Nodes = append(plan.Nodes, JobPlanNode{ID: v.ID, Parallelism: v.Parallelism, Description: escapeDescription(v.Name)})
	}
	return plan
}

// descriptionEscaper does what JsonPlanGenerator does to a description:
// StringEscapeUtils.escapeHtml4 (for the characters that matter), then line
// breaks to <br/> and backslashes to &#92;.
var descriptionEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "<br/>", `\`, "&#92;")

func escapeDescription(s string) string { return descriptionEscaper.Replace(s) }

// planCache keeps the plans of the jobs run through this endpoint, which
// the archived graph cannot give (it has no edges). It is bounded twice
// over, so a long-running cluster does not keep a plan for every job it
// ever ran:
//
//   - GET /jobs/overview drops the plans of the jobs the Dispatcher no
//     longer lists (retain), and GET /jobs/{jobid}… drops the plan of a job
//     the Dispatcher does not know (forget);
//   - at most max plans are kept: storing one more evicts the oldest
//     stored, whose job then shows the archived plan (vertices, no inputs).
//
// Its methods are safe for concurrent use.
type planCache struct {
	mu    sync.Mutex
	max   int
	next  uint64 // the generation of the next plan stored
	plans map[api.JobID]storedPlan
}

// storedPlan is a plan and when it was stored: its generation, which grows
// by one with every plan stored.
type storedPlan struct {
	plan       *JobPlan
	generation uint64
}

func newPlanCache(maxPlans int) *planCache {
	return &planCache{max: maxPlans, plans: make(map[api.JobID]storedPlan)}
}

// store keeps the plan of a job the Dispatcher has just accepted, evicting
// the oldest plan if the cache is full.
func (c *planCache) store(jobID api.JobID, plan *JobPlan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.plans[jobID]; ok {
		return // a duplicate submission must not replace the first job's plan
	}
	for len(c.plans) >= c.max {
		c.evictOldestLocked()
	}
	c.plans[jobID] = storedPlan{plan: plan, generation: c.next}
	c.next++
}

// evictOldestLocked drops the plan stored first. c.mu is held. A linear
// scan: it runs only when the cache is full, and the cache is small.
func (c *planCache) evictOldestLocked() {
	var oldest api.JobID
	first := true
	var oldestGeneration uint64
	for jobID, p := range c.plans {
		if first || p.generation < oldestGeneration {
			oldest, oldestGeneration, first = jobID, p.generation, false
		}
	}
	delete(c.plans, oldest)
}

// get returns the plan stored for a job, if any.
func (c *planCache) get(jobID api.JobID) (*JobPlan, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.plans[jobID]
	return p.plan, ok
}

// forget drops the plan of a job.
func (c *planCache) forget(jobID api.JobID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.plans, jobID)
}

// generation returns the generation the next stored plan will have. Take
// it before asking the Dispatcher for its jobs, and pass it to retain.
func (c *planCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.next
}

// retain drops the plans of jobs not in listed, the Dispatcher's answer to
// ListJobs, but only plans stored before the Dispatcher was asked
// (generation < asked): a job accepted meanwhile is missing from the list
// only because it is too new.
func (c *planCache) retain(listed []api.JobID, asked uint64) {
	keep := make(map[api.JobID]bool, len(listed))
	for _, jobID := range listed {
		keep[jobID] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for jobID, p := range c.plans {
		if !keep[jobID] && p.generation < asked {
			delete(c.plans, jobID)
		}
	}
}

// planOf returns the plan stored when the job was run here, or else the
// plan the archived graph allows.
func (s *Server) planOf(g *gateway.ArchivedExecutionGraph) *JobPlan {
	if plan, ok := s.plans.get(g.JobID); ok {
		return plan
	}
	return archivedPlan(g)
}
