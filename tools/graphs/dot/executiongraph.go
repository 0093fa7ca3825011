package dot

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// SummaryThreshold is the largest parallelism ExecutionGraph draws subtask
// by subtask. A vertex with more subtasks becomes one summary node
// (VertexSummary), so that a job of parallelism 10,000 stays a diagram of a
// few nodes rather than of thousands.
const SummaryThreshold = 16

// Edge joins two vertices of an ExecutionGraph diagram. The archived graph
// does not keep its edges, so they come from the JobGraph (EdgesOf) or, for a
// job on a running cluster, from its plan.
type Edge struct {
	Source, Target      api.JobVertexID
	DistributionPattern jobgraph.DistributionPattern
	ShipStrategy        string
	// PartitionGroups is the number of ConsumedPartitionGroups the edge
	// became: 1 for ALL_TO_ALL, one per range of partitions for POINTWISE;
	// 0 when unknown.
	PartitionGroups int
}

// Topology is what a diagram of an ExecutionGraph draws besides the
// snapshot, which keeps neither: the edges between its vertices, and the
// pipelined region of each subtask (numbered from 1; nil when unknown).
type Topology struct {
	Edges   []Edge
	Regions map[api.ExecutionVertexID]int
}

// TopologyOf builds the ExecutionGraph of g as the JobMaster would, and
// returns its edges (EdgesOf), each with the number of its
// ConsumedPartitionGroups, and its pipelined regions.
func TopologyOf(g *jobgraph.JobGraph) (Topology, error) {
	built, err := executiongraph.BuildGraph(g)
	if err != nil {
		return Topology{}, err
	}
	t := Topology{Edges: EdgesOf(g), Regions: make(map[api.ExecutionVertexID]int)}
	inputs := make(map[api.JobVertexID]int) // EdgesOf lists each consumer's inputs in order
	for i, e := range t.Edges {
		consumers := built.JobVertex(e.Target)
		input := inputs[e.Target]
		inputs[e.Target]++
		t.Edges[i].PartitionGroups = len(consumers.ConsumedPartitionGroups(input))
	}
	for i, region := range built.PipelinedRegions() {
		for _, subtask := range region.Vertices {
			t.Regions[subtask.ID()] = i + 1
		}
	}
	return t, nil
}

// EdgesOf returns the edges of g, by consumer and then in the order of its
// inputs: the edges ExecutionGraph needs for the job g describes.
func EdgesOf(g *jobgraph.JobGraph) []Edge {
	var edges []Edge
	for _, v := range g.Vertices() {
		for _, e := range v.Inputs() {
			if e.Source == nil || e.Source.Producer == nil {
				continue
			}
			edges = append(edges, Edge{
				Source:              e.Source.Producer.ID,
				Target:              v.ID,
				DistributionPattern: e.DistributionPattern,
				ShipStrategy:        e.ShipStrategyName,
			})
		}
	}
	return edges
}

// ExecutionGraph returns the DOT source of a snapshot of a job's
// ExecutionGraph. Each vertex of parallelism up to SummaryThreshold is a box
// (a DOT cluster) holding one node per subtask, labelled with its index,
// attempt number, state and pipelined region (when t has regions) and
// filled with the state's colour; a larger vertex is a single node labelled
// VertexSummary(v). Edges join vertices, not subtasks, in the order of
// t.Edges, labelled with their pattern, ship strategy and number of
// ConsumedPartitionGroups (when known); an edge naming a vertex g does not
// have is left out.
func ExecutionGraph(g *gateway.ArchivedExecutionGraph, t Topology) []byte {
	var b bytes.Buffer
	b.WriteString("digraph ExecutionGraph {\n")
	writeGraphAttributes(&b, fmt.Sprintf("%s (ExecutionGraph, %s)", g.JobName, g.State))
	b.WriteString("\tcompound=true;\n")

	// anchor is the node an edge of vertex i starts or ends at, and cluster
	// the box the edge is clipped to ("" for a summary node).
	anchor := make(map[api.JobVertexID]string, len(g.Vertices))
	cluster := make(map[api.JobVertexID]string, len(g.Vertices))
	for i, v := range g.Vertices {
		if summarize(v) {
			anchor[v.ID] = fmt.Sprintf("v%d", i)
			fmt.Fprintf(&b, "\tv%d [label=%s];\n", i, quote(VertexSummary(v)))
			continue
		}
		anchor[v.ID] = fmt.Sprintf("v%d_s0", i)
		cluster[v.ID] = fmt.Sprintf("cluster_v%d", i)
		writeSubtasks(&b, i, v, t.Regions)
	}

	for _, e := range t.Edges {
		source, okSource := anchor[e.Source]
		target, okTarget := anchor[e.Target]
		if !okSource || !okTarget {
			continue
		}
		label := edgeLabel(e.DistributionPattern, e.ShipStrategy)
		switch {
		case e.PartitionGroups == 1:
			label += "\n1 ConsumedPartitionGroup"
		case e.PartitionGroups > 1:
			label += fmt.Sprintf("\n%d ConsumedPartitionGroups", e.PartitionGroups)
		}
		attrs := []string{"label=" + quote(label)}
		if c := cluster[e.Source]; c != "" {
			attrs = append(attrs, "ltail="+c)
		}
		if c := cluster[e.Target]; c != "" {
			attrs = append(attrs, "lhead="+c)
		}
		fmt.Fprintf(&b, "\t%s -> %s [%s];\n", source, target, strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// summarize reports whether v is too large to draw subtask by subtask.
func summarize(v gateway.ArchivedExecutionJobVertex) bool {
	return v.Parallelism > SummaryThreshold || len(v.Subtasks) > SummaryThreshold
}

// writeSubtasks writes vertex i as a box of subtask nodes, in subtask order,
// each with its region when regions has it. A vertex without subtasks still
// gets one (empty) node, so that edges have somewhere to go.
func writeSubtasks(b *bytes.Buffer, i int, v gateway.ArchivedExecutionJobVertex, regions map[api.ExecutionVertexID]int) {
	fmt.Fprintf(b, "\tsubgraph cluster_v%d {\n", i)
	fmt.Fprintf(b, "\t\tlabel=%s;\n", quote(fmt.Sprintf("%s\nparallelism %d", chainLines(v.Name), v.Parallelism)))
	subtasks := slices.Clone(v.Subtasks)
	slices.SortStableFunc(subtasks, func(x, y gateway.ArchivedExecution) int { return x.SubtaskIndex - y.SubtaskIndex })
	if len(subtasks) == 0 {
		fmt.Fprintf(b, "\t\tv%d_s0 [label=%s];\n", i, quote("no subtasks"))
	}
	for k, s := range subtasks {
		label := fmt.Sprintf("%d/%d #%d\n%s", s.SubtaskIndex+1, v.Parallelism, s.AttemptNumber, s.State)
		if region, ok := regions[api.ExecutionVertexID{JobVertexID: v.ID, SubtaskIndex: s.SubtaskIndex}]; ok {
			label += fmt.Sprintf("\nregion %d", region)
		}
		fmt.Fprintf(b, "\t\tv%d_s%d [label=%s, style=\"rounded,filled\", fillcolor=%s];\n", i, k, quote(label), quote(stateColor(s.State)))
	}
	b.WriteString("\t}\n")
}

// VertexSummary describes a vertex in one line: its name, its number of
// subtasks and how many are in each state, most first (ties in the order
// of api.ExecutionStates), e.g. "Map: 1000 subtasks: 998 RUNNING, 2
// DEPLOYING". When a subtask has been restarted it adds the highest
// attempt number: ", attempts up to #3".
func VertexSummary(v gateway.ArchivedExecutionJobVertex) string {
	counts := make(map[api.ExecutionState]int)
	maxAttempt := 0
	for _, s := range v.Subtasks {
		counts[s.State]++
		maxAttempt = max(maxAttempt, s.AttemptNumber)
	}
	states := make([]api.ExecutionState, 0, len(counts))
	for state := range counts {
		states = append(states, state)
	}
	slices.SortFunc(states, func(x, y api.ExecutionState) int {
		if counts[x] != counts[y] {
			return counts[y] - counts[x]
		}
		return int(x) - int(y)
	})
	parts := make([]string, len(states))
	for i, state := range states {
		parts[i] = fmt.Sprintf("%d %s", counts[state], state)
	}
	summary := fmt.Sprintf("%s: %d subtasks", v.Name, len(v.Subtasks))
	if len(parts) > 0 {
		summary += ": " + strings.Join(parts, ", ")
	}
	if maxAttempt > 0 {
		summary += fmt.Sprintf(", attempts up to #%d", maxAttempt)
	}
	return summary
}

// stateColor is the fill colour of a subtask in a state, close to the
// colours of Flink's web UI.
func stateColor(s api.ExecutionState) string {
	switch s {
	case api.ExecutionScheduled:
		return "#e0e0e0"
	case api.ExecutionDeploying, api.ExecutionInitializing, api.ExecutionReconciling:
		return "#b8d8f0"
	case api.ExecutionRunning:
		return "#b8e0b8"
	case api.ExecutionFinished:
		return "#c8c8f0"
	case api.ExecutionCanceling, api.ExecutionCanceled:
		return "#f0e0a0"
	case api.ExecutionFailed:
		return "#f0b0b0"
	default: // CREATED
		return "#ffffff"
	}
}
