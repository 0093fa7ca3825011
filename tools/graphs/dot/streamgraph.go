package dot

import (
	"bytes"
	"fmt"

	"flinklab/runtime/streaming"
)

// StreamGraph returns the DOT source of g: one node per StreamNode, named
// n<ID> and labelled with its operator name and parallelism, and one edge
// per StreamEdge, labelled with its partitioner (FORWARD, HASH,
// REBALANCE, …). Nodes come in ID order and edges in the order of their
// source's OutEdges, so the output is the same on every run.
func StreamGraph(g *streaming.StreamGraph) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "digraph StreamGraph {\n")
	writeGraphAttributes(&b, g.JobName+" (StreamGraph)")
	for _, n := range g.StreamNodes() {
		label := fmt.Sprintf("%s\nparallelism %d", n.OperatorName, n.Parallelism)
		fmt.Fprintf(&b, "\tn%d [label=%s];\n", n.ID, quote(label))
	}
	for _, n := range g.StreamNodes() {
		for _, e := range n.OutEdges {
			partitioner := "UNKNOWN"
			if e.Partitioner != nil {
				partitioner = e.Partitioner.String()
			}
			fmt.Fprintf(&b, "\tn%d -> n%d [label=%s];\n", e.Source.ID, e.Target.ID, quote(partitioner))
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// writeGraphAttributes writes what every graph of this package shares: a
// title on top, left-to-right layout as in Flink's web UI, rounded boxes.
func writeGraphAttributes(b *bytes.Buffer, title string) {
	fmt.Fprintf(b, "\tlabel=%s;\n\tlabelloc=t;\n\trankdir=LR;\n", quote(title))
	b.WriteString("\tnode [shape=box, style=rounded];\n")
}
