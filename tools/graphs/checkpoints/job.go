package checkpoints

import (
	"slices"

	"flinklab/runtime/jobgraph"
	"flinklab/tools/graphs/regions"
)

// Job is the shape of a job that a checkpoint's drawing needs and its
// trace does not say: the subtasks, vertex by vertex from the sources
// down, and the channels between them.
type Job struct {
	Name string
	// Vertices are the JobVertices, sources first, each after every
	// vertex it reads from (JobGraph.VerticesSortedTopologicallyFromSources).
	Vertices []Vertex
	// Exchanges join each consumer subtask to each producer subtask it
	// reads a partition of: the channels a barrier crosses. An ALL_TO_ALL
	// edge of parallelism p has p² of them.
	Exchanges []regions.Exchange
}

// Vertex is one JobVertex of a Job.
type Vertex struct {
	Name        string
	Parallelism int
	// Source says the vertex reads no input: the coordinator triggers
	// its subtasks (k2), and they start the barrier (k3).
	Source bool
}

// JobOf returns the shape of g, with its ExecutionGraph built as the
// JobMaster builds it.
func JobOf(g *jobgraph.JobGraph) (*Job, error) {
	sorted, err := g.VerticesSortedTopologicallyFromSources()
	if err != nil {
		return nil, err
	}
	built, err := regions.Of(g)
	if err != nil {
		return nil, err
	}
	j := &Job{Name: g.Name, Exchanges: built.Exchanges()}
	for _, v := range sorted {
		j.Vertices = append(j.Vertices, Vertex{Name: v.Name, Parallelism: v.Parallelism, Source: v.IsInputVertex()})
	}
	return j, nil
}

// Subtasks returns the job's subtasks, vertex by vertex in the order of
// Vertices, each vertex's by index.
func (j *Job) Subtasks() []regions.Subtask {
	var out []regions.Subtask
	for _, v := range j.Vertices {
		for i := range v.Parallelism {
			out = append(out, regions.Subtask{Vertex: v.Name, Index: i, Parallelism: v.Parallelism})
		}
	}
	return out
}

// IsSource reports whether s is a subtask of a source vertex.
func (j *Job) IsSource(s regions.Subtask) bool {
	return slices.ContainsFunc(j.Vertices, func(v Vertex) bool { return v.Name == s.Vertex && v.Source })
}

// Consumers returns the subtasks that read from s, in the order of
// Exchanges.
func (j *Job) Consumers(s regions.Subtask) []regions.Subtask {
	var out []regions.Subtask
	for _, e := range j.Exchanges {
		if e.Producer == s && !slices.Contains(out, e.Consumer) {
			out = append(out, e.Consumer)
		}
	}
	return out
}
