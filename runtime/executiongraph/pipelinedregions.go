package executiongraph

import (
	"cmp"
	"slices"

	"flinklab/runtime/jobgraph"
)

// PipelinedRegion is a set of subtasks joined by pipelined results: they
// must run at the same time, since a pipelined partition is read while it
// is being written. It is the unit the scheduler deploys together and the
// failover strategy restarts together. It mirrors Flink's
// DefaultSchedulingPipelinedRegion.
//
// A streaming job, all PIPELINED_BOUNDED, is one region as soon as one of
// its edges is ALL_TO_ALL; a BLOCKING result cuts the job into regions
// that can run one after the other.
type PipelinedRegion struct {
	// Vertices are the region's subtasks, in topological order: job vertex
	// by job vertex, each by subtask index.
	Vertices []*ExecutionVertex
}

// PipelinedRegions computes the graph's pipelined regions, in the order of
// their first subtask, as Flink's DefaultExecutionTopology does, in two
// levels, each linear in the size of the graph:
//
//  1. Logical regions of job vertices (LogicalPipelinedRegionComputeUtil):
//     job vertices joined by a pipelined JobEdge are in one logical region.
//     The JobGraph is a DAG, so there are no cycles to merge.
//  2. Each logical region becomes pipelined regions of subtasks. If an
//     ALL_TO_ALL JobEdge joins two of its job vertices, all its subtasks
//     are one region: a pipelined all-to-all edge joins them all anyway,
//     and a blocking one inside the region must not split it, or its parts
//     would wait for each other (FLINK-17330). Otherwise, with POINTWISE
//     edges only, SchedulingPipelinedRegionComputeUtil works subtask by
//     subtask (computeSchedulingPipelinedRegions).
//
// Flink 1.12 ran the second level on every subtask, over all n² edges of
// an all-to-all job; the logical level is what made it linear (facts §8).
func (g *ExecutionGraph) PipelinedRegions() []*PipelinedRegion {
	topologicalIndex := make(map[*ExecutionVertex]int, g.numTaskVertices)
	for ev := range g.AllExecutionVertices() {
		topologicalIndex[ev] = len(topologicalIndex)
	}
	var regions [][]*ExecutionVertex
	for _, logical := range g.logicalPipelinedRegions() {
		var vertices []*ExecutionVertex
		for _, ejv := range logical {
			vertices = append(vertices, ejv.taskVertices...)
		}
		if containsIntraRegionAllToAllEdge(logical) {
			regions = append(regions, vertices)
			continue
		}
		regions = append(regions, g.computeSchedulingPipelinedRegions(vertices)...)
	}

	// Flink keeps regions in sets; a fixed order makes them readable.
	out := make([]*PipelinedRegion, len(regions))
	for i, vertices := range regions {
		slices.SortFunc(vertices, func(a, b *ExecutionVertex) int { return cmp.Compare(topologicalIndex[a], topologicalIndex[b]) })
		out[i] = &PipelinedRegion{Vertices: vertices}
	}
	slices.SortFunc(out, func(a, b *PipelinedRegion) int {
		return cmp.Compare(topologicalIndex[a.Vertices[0]], topologicalIndex[b.Vertices[0]])
	})
	return out
}

// logicalPipelinedRegions groups the job vertices, in topological order,
// by the pipelined JobEdges between them (Flink's
// LogicalPipelinedRegionComputeUtil.computePipelinedRegions).
func (g *ExecutionGraph) logicalPipelinedRegions() [][]*ExecutionJobVertex {
	groups := buildRawRegions(g.verticesInCreationOrder, func(ejv *ExecutionJobVertex) []*ExecutionJobVertex {
		var producers []*ExecutionJobVertex
		for _, edge := range ejv.jobVertex.Inputs() {
			if edge.Source.ResultType.IsPipelined() { // Flink: mustBePipelinedConsumed
				producers = append(producers, g.tasks[edge.Source.Producer.ID])
			}
		}
		return producers
	})
	return groups.unique(g.verticesInCreationOrder)
}

// containsIntraRegionAllToAllEdge reports whether an ALL_TO_ALL JobEdge
// joins two job vertices of the logical region.
func containsIntraRegionAllToAllEdge(logical []*ExecutionJobVertex) bool {
	for _, ejv := range logical {
		for _, edge := range ejv.jobVertex.Inputs() {
			if edge.DistributionPattern == jobgraph.AllToAll && slices.ContainsFunc(logical, func(other *ExecutionJobVertex) bool {
				return other.jobVertex == edge.Source.Producer
			}) {
				return true
			}
		}
	}
	return false
}

// computeSchedulingPipelinedRegions splits the subtasks of one logical
// region, topologically sorted and joined by POINTWISE edges only, into
// pipelined regions (Flink's SchedulingPipelinedRegionComputeUtil
// .computePipelinedRegions): first each subtask joins the regions of the
// producers it reads pipelined, then regions that wait for each other's
// blocking results in a cycle are merged.
func (g *ExecutionGraph) computeSchedulingPipelinedRegions(sorted []*ExecutionVertex) [][]*ExecutionVertex {
	groups := buildRawRegions(sorted, func(ev *ExecutionVertex) []*ExecutionVertex {
		var producers []*ExecutionVertex
		for _, consumed := range ev.consumedPartitionGroups {
			if !consumed.ResultPartitionType().IsPipelined() {
				continue // a group's partitions are all of one type
			}
			for _, id := range consumed.Partitions() {
				producers = append(producers, g.ResultPartition(id).Producer())
			}
		}
		return producers
	})
	return g.mergeRegionsOnCycles(groups, sorted)
}

// mergeRegionsOnCycles merges the regions that reach each other through
// blocking results, with Tarjan's strongly connected components (Flink's
// mergeRegionsOnCycles and buildOutEdgesDesc; FLINK-17330).
func (g *ExecutionGraph) mergeRegionsOnCycles(groups *vertexGroups[*ExecutionVertex], sorted []*ExecutionVertex) [][]*ExecutionVertex {
	regions := groups.unique(sorted)
	index := make(map[*ExecutionVertex]int, len(sorted)) // the region of each subtask
	for i, region := range regions {
		for _, ev := range region {
			index[ev] = i
		}
	}
	outEdges := make([][]int, len(regions))
	for i, region := range regions {
		for _, ev := range region {
			for _, produced := range ev.producedPartitions {
				if produced.IntermediateResult().ResultType().IsPipelined() {
					continue
				}
				for _, consumers := range produced.ConsumerVertexGroups() {
					for _, id := range consumers.Vertices() {
						target, inside := index[g.ExecutionVertex(id)]
						if !inside {
							break // the consumers are in another logical region
						}
						if target != i {
							outEdges[i] = append(outEdges[i], target)
						}
					}
				}
			}
		}
	}
	var merged [][]*ExecutionVertex
	for _, component := range stronglyConnectedComponents(outEdges) {
		var vertices []*ExecutionVertex
		for _, i := range component {
			vertices = append(vertices, regions[i]...)
		}
		merged = append(merged, vertices)
	}
	return merged
}

// buildRawRegions puts each vertex, in topological order, into one group
// with the producers it must read pipelined (Flink's
// PipelinedRegionComputeUtil.buildRawRegions). Merging moves the smaller
// group into the larger, so that a vertex moves O(log n) times.
func buildRawRegions[V comparable](sorted []V, pipelinedProducers func(V) []V) *vertexGroups[V] {
	groups := &vertexGroups[V]{of: make(map[V]*[]V, len(sorted))}
	for _, v := range sorted {
		current := &[]V{v}
		groups.of[v] = current
		for _, producer := range pipelinedProducers(v) {
			// The same group already: skipping it keeps an all-to-all
			// edge from merging n times per subtask.
			if producerGroup := groups.of[producer]; producerGroup != current {
				current = groups.merge(current, producerGroup)
			}
		}
	}
	return groups
}

// vertexGroups maps each vertex to its group, a slice shared by all its
// members (Flink: a Map<V, Set<V>> whose values are shared sets).
type vertexGroups[V comparable] struct {
	of map[V]*[]V
}

// merge moves the smaller group into the larger and returns the larger
// (Flink's VertexGroupComputeUtil.mergeVertexGroups).
func (gs *vertexGroups[V]) merge(a, b *[]V) *[]V {
	if len(*a) < len(*b) {
		a, b = b, a
	}
	for _, v := range *b {
		gs.of[v] = a
	}
	*a = append(*a, *b...)
	return a
}

// unique returns the groups, each once, in the order of their first
// member in sorted, and each group's members in that order too.
func (gs *vertexGroups[V]) unique(sorted []V) [][]V {
	position := make(map[*[]V]int)
	var out [][]V
	for _, v := range sorted {
		group := gs.of[v]
		i, seen := position[group]
		if !seen {
			i = len(out)
			position[group] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], v)
	}
	return out
}

// stronglyConnectedComponents returns the strongly connected components of
// the graph whose node i has the edges outEdges[i], each component's nodes
// in ascending order, the components in the order Tarjan's algorithm
// completes them (Flink's StronglyConnectedComponentsComputeUtils).
func stronglyConnectedComponents(outEdges [][]int) [][]int {
	n := len(outEdges)
	index, lowLink := make([]int, n), make([]int, n)
	onStack, visited := make([]bool, n), make([]bool, n)
	var stack []int
	var components [][]int
	next := 0
	var connect func(v int)
	connect = func(v int) {
		index[v], lowLink[v], visited[v] = next, next, true
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range outEdges[v] {
			switch {
			case !visited[w]:
				connect(w)
				lowLink[v] = min(lowLink[v], lowLink[w])
			case onStack[w]:
				lowLink[v] = min(lowLink[v], index[w])
			}
		}
		if lowLink[v] == index[v] { // v is the root of a component
			var component []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				component = append(component, w)
				if w == v {
					break
				}
			}
			slices.Sort(component)
			components = append(components, component)
		}
	}
	for v := range n {
		if !visited[v] {
			connect(v)
		}
	}
	return components
}
