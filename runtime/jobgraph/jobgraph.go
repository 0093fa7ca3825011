package jobgraph

import (
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
)

// JobGraph is the dataflow program the client submits: vertices (operator
// chains) joined by data sets and edges, plus the jars that hold the user
// code. It mirrors Flink's org.apache.flink.runtime.jobgraph.JobGraph.
//
// The JobGraph is what travels from the client to the Dispatcher (step m2,
// m3) and what the JobMaster turns into an ExecutionGraph (step m4). A plain
// value: nothing in it runs, and nothing in it is safe for concurrent mutation.
type JobGraph struct {
	// JobID identifies the job for its whole life.
	JobID api.JobID
	// Name is the job's name, e.g. "WordCount".
	Name string
	// JobType is STREAMING (the zero value) or BATCH.
	JobType JobType
	// UserJarBlobKeys name the jars (uploaded to the BlobServer at step m1)
	// that TaskExecutors download before they run a task (step m10).
	UserJarBlobKeys []blob.PermanentBlobKey
	// SlotSharingGroupResources maps slot sharing groups to their resources.
	SlotSharingGroupResources map[string]api.ResourceProfile
	// SavepointRestoreSettings name the savepoint the job starts from, if
	// any (flink run -s).
	SavepointRestoreSettings SavepointRestoreSettings

	vertices   []*JobVertex // in the order AddVertex was called
	vertexByID map[api.JobVertexID]*JobVertex
}

// New returns an empty job graph with a random JobID.
func New(name string) *JobGraph {
	return &JobGraph{
		JobID:      api.NewJobID(),
		Name:       name,
		vertexByID: make(map[api.JobVertexID]*JobVertex),
	}
}

// AddVertex adds v to the graph. Vertices keep the order they were added in.
// Adding nil is a programming error and panics.
//
// Differs from Flink: Flink's addVertex throws when the ID is taken. Here
// the second vertex is kept in Vertices but not indexed by ID, and Validate
// reports the duplicate, so all of a graph's problems surface in one place.
func (g *JobGraph) AddVertex(v *JobVertex) {
	if v == nil {
		panic("jobgraph: AddVertex(nil)")
	}
	if g.vertexByID == nil {
		g.vertexByID = make(map[api.JobVertexID]*JobVertex)
	}
	g.vertices = append(g.vertices, v)
	if _, taken := g.vertexByID[v.ID]; !taken {
		g.vertexByID[v.ID] = v
	}
}

// Vertices returns the vertices in the order they were added. The slice
// belongs to the graph; do not modify it.
func (g *JobGraph) Vertices() []*JobVertex { return g.vertices }

// Vertex returns the vertex with the given ID, or nil.
func (g *JobGraph) Vertex(id api.JobVertexID) *JobVertex { return g.vertexByID[id] }

// NumberOfVertices returns how many vertices the graph holds.
func (g *JobGraph) NumberOfVertices() int { return len(g.vertices) }

// IsEmpty reports whether the graph has no vertices.
func (g *JobGraph) IsEmpty() bool { return len(g.vertices) == 0 }

// contains reports whether v itself, not just its ID, is part of the graph.
func (g *JobGraph) contains(v *JobVertex) bool {
	return v != nil && g.vertexByID[v.ID] == v
}

// SlotSharingGroups returns the names of the slot sharing groups the
// vertices use, in the order they are first used. Vertices without a group
// name (each alone in a group of its own) contribute nothing.
func (g *JobGraph) SlotSharingGroups() []string {
	var names []string
	seen := make(map[string]bool)
	for _, v := range g.vertices {
		if v.SlotSharingGroup == "" || seen[v.SlotSharingGroup] {
			continue
		}
		seen[v.SlotSharingGroup] = true
		names = append(names, v.SlotSharingGroup)
	}
	return names
}

// SlotsNeeded returns how many slots the job needs to run all its subtasks
// at once, and how they add up: with slot sharing a slot holds one subtask
// of every vertex of its group, so a group needs as many slots as its
// largest parallelism; a vertex without a group needs a slot per subtask.
// perGroup maps each group (in SlotSharingGroups order) to its slots.
func (g *JobGraph) SlotsNeeded() (total int, perGroup map[string]int) {
	perGroup = make(map[string]int)
	for _, v := range g.vertices {
		if v.SlotSharingGroup == "" {
			total += v.Parallelism
			continue
		}
		perGroup[v.SlotSharingGroup] = max(perGroup[v.SlotSharingGroup], v.Parallelism)
	}
	for _, slots := range perGroup {
		total += slots
	}
	return total, perGroup
}

// VerticesSortedTopologicallyFromSources returns the vertices so that every
// vertex comes after all vertices it reads from. It mirrors Flink's
// JobGraph.getVerticesSortedTopologicallyFromSources, including its order:
//
//  1. all sources (vertices without inputs), in insertion order;
//  2. then, taking the sorted vertices one by one from the front, each of
//     their consumers whose producers are all sorted, depth first.
//
// The result depends only on the insertion order and the order edges were
// connected in, so it is the same on every run. When some vertices can
// never be reached because they wait on each other, the graph is cyclic
// and the error wraps ErrInvalidJobGraph.
func (g *JobGraph) VerticesSortedTopologicallyFromSources() ([]*JobVertex, error) {
	sorted := make([]*JobVertex, 0, len(g.vertices))
	remaining := make(map[*JobVertex]bool, len(g.vertices))
	for _, v := range g.vertices {
		remaining[v] = true
	}

	// Start with the vertices that read nothing.
	for _, v := range g.vertices {
		if remaining[v] && v.IsInputVertex() {
			sorted = append(sorted, v)
			delete(remaining, v)
		}
	}

	// Traverse forward from the sorted vertices until every vertex is placed.
	for next := 0; len(remaining) > 0; next++ {
		// No sorted vertex is left to start from, yet some vertices remain:
		// they all wait on each other.
		if next >= len(sorted) {
			return nil, fmt.Errorf("%w: The job graph is cyclic.", ErrInvalidJobGraph)
		}
		sorted = addNodesThatHaveNoNewPredecessors(sorted[next], sorted, remaining)
	}
	return sorted, nil
}

// addNodesThatHaveNoNewPredecessors appends to sorted every consumer of
// start whose other producers are all sorted already, and recursively their
// consumers. It mirrors the private helper of the same name in Flink.
func addNodesThatHaveNoNewPredecessors(start *JobVertex, sorted []*JobVertex, remaining map[*JobVertex]bool) []*JobVertex {
	for _, dataSet := range start.producedDataSets {
		for _, edge := range dataSet.consumers {
			v := edge.Target
			if !remaining[v] {
				continue
			}
			if hasUnsortedPredecessor(v, edge, remaining) {
				continue
			}
			sorted = append(sorted, v)
			delete(remaining, v)
			sorted = addNodesThatHaveNoNewPredecessors(v, sorted, remaining)
		}
	}
	return sorted
}

// hasUnsortedPredecessor reports whether v reads, through an edge other
// than the one we came by, from a vertex that is not sorted yet.
func hasUnsortedPredecessor(v *JobVertex, cameBy *JobEdge, remaining map[*JobVertex]bool) bool {
	for _, input := range v.inputs {
		if input == cameBy || input.Source == nil {
			continue
		}
		if remaining[input.Source.Producer] {
			return true
		}
	}
	return false
}
