package dot

import (
	"bytes"
	"fmt"

	"flinklab/runtime/jobgraph"
)

// JobGraph returns the DOT source of g: one node per JobVertex, named
// v<index> in the order of g.Vertices() (JobVertexIDs are random, so they
// stay out of the output), listing the operators chained into the vertex one
// per line and its parallelism. Vertices of one slot sharing group are
// drawn inside a box (a DOT cluster) named after the group. Each JobEdge is
// an edge labelled with its distribution pattern and ship strategy, e.g.
// "ALL_TO_ALL\nHASH", and, when notChained has it, why the operators it
// joins are not chained ("not chained: parallelism 4 ≠ 2"; see
// streaming.NotChainedReasons). notChained may be nil: a JobGraph read from
// a cluster comes without its StreamGraph.
func JobGraph(g *jobgraph.JobGraph, notChained map[*jobgraph.JobEdge]string) []byte {
	index := make(map[*jobgraph.JobVertex]int, g.NumberOfVertices())
	for i, v := range g.Vertices() {
		index[v] = i
	}

	var b bytes.Buffer
	b.WriteString("digraph JobGraph {\n")
	writeGraphAttributes(&b, g.Name+" (JobGraph)")

	// The vertices, group by group in order of first appearance; vertices
	// without a group last, outside any box.
	for i, group := range g.SlotSharingGroups() {
		fmt.Fprintf(&b, "\tsubgraph cluster_%d {\n", i)
		fmt.Fprintf(&b, "\t\tlabel=%s;\n\t\tstyle=dashed;\n", quote("slot sharing group: "+group))
		for _, v := range g.Vertices() {
			if v.SlotSharingGroup == group {
				writeJobVertex(&b, "\t\t", index[v], v)
			}
		}
		b.WriteString("\t}\n")
	}
	for _, v := range g.Vertices() {
		if v.SlotSharingGroup == "" {
			writeJobVertex(&b, "\t", index[v], v)
		}
	}

	// The edges, by consumer and then in the order of its inputs.
	for _, v := range g.Vertices() {
		for _, e := range v.Inputs() {
			if e.Source == nil {
				continue
			}
			source, ok := index[e.Source.Producer]
			if !ok {
				continue
			}
			label := edgeLabel(e.DistributionPattern, e.ShipStrategyName)
			if reason := notChained[e]; reason != "" {
				label += "\nnot chained: " + reason
			}
			fmt.Fprintf(&b, "\tv%d -> v%d [label=%s];\n", source, index[v], quote(label))
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func writeJobVertex(b *bytes.Buffer, indent string, i int, v *jobgraph.JobVertex) {
	label := fmt.Sprintf("%s\nparallelism %d", chainLines(v.Name), v.Parallelism)
	fmt.Fprintf(b, "%sv%d [label=%s];\n", indent, i, quote(label))
}

// edgeLabel is the label of an edge between vertices: the distribution
// pattern, and below it the ship strategy when there is one.
func edgeLabel(pattern jobgraph.DistributionPattern, shipStrategy string) string {
	if shipStrategy == "" {
		return pattern.String()
	}
	return pattern.String() + "\n" + shipStrategy
}
