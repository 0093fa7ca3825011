package dot

import (
	"bytes"
	"fmt"

	"flinklab/tools/graphs/regions"
)

// regionColors are the fills of a region's box and of its subtasks: by
// the part the region plays in a failover, or plain when nothing failed.
var regionColors = map[regions.Why]struct{ region, subtask string }{
	regions.Keeps:              {"#e6f4e2", "#b8e0b8"}, // green: keeps running
	regions.FailedRegion:       {"#fbe3e3", "#f0b0b0"}, // red
	regions.ReadsProducedAgain: {"#fdf0dc", "#f5cf8f"}, // orange
}

// plainRegion is the fill of a region when nothing failed.
var plainRegion = struct{ region, subtask string }{"#e3eef9", "#b8d8f0"}

// Regions returns the DOT source of a job's pipelined regions (package
// regions): one box per region, "region 2", side by side in the order of
// their numbers, holding its subtasks, "work\nSink: print-sink (2/4)",
// producers above consumers, and one arrow per exchange between two subtasks,
// solid for a pipelined result, dashed for a BLOCKING one. After a failure
// (regions.Fail) the failed subtask has a red border and says "✗ failed", its region is red,
// the other regions that restart are orange and say why, and those that
// keep running are green.
//
// Nodes are named by position (r2_s1: region 2, its second subtask), so
// the same job gives the same bytes.
func Regions(j *regions.Job) []byte {
	var b bytes.Buffer
	b.WriteString("digraph Regions {\n")
	title := fmt.Sprintf("%s: %s", j.Name, count(len(j.Regions), "pipelined region", "pipelined regions"))
	if j.Failed != nil {
		title += fmt.Sprintf("\n%s fails:\nregion failover restarts %d of %s",
			j.Failed, len(j.Restart), count(j.NumberOfSubtasks(), "subtask", "subtasks"))
	}
	title += "\nsolid: pipelined (PIPELINED_BOUNDED)\ndashed: blocking (BLOCKING)"
	fmt.Fprintf(&b, "\tlabel=%s;\n", quote(title))
	b.WriteString("\tlabelloc=t;\n\tfontname=Helvetica;\n\tnodesep=0.5;\n\tranksep=1.4;\n")
	b.WriteString("\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=Helvetica, margin=\"0.2,0.08\"];\n")

	node := make(map[regions.Subtask]string, j.NumberOfSubtasks())
	for _, r := range j.Regions {
		colors, label := plainRegion, fmt.Sprintf("region %d", r.Number)
		if j.Failed != nil {
			colors, label = regionColors[r.Why], regionRole(r)
		}
		fmt.Fprintf(&b, "\tsubgraph cluster_r%d {\n", r.Number)
		fmt.Fprintf(&b, "\t\tlabel=%s;\n", quote(label))
		fmt.Fprintf(&b, "\t\tstyle=\"rounded,filled\";\n\t\tfillcolor=%s;\n\t\tmargin=12;\n", quote(colors.region))
		for k, s := range r.Subtasks {
			name := fmt.Sprintf("r%d_s%d", r.Number, k)
			node[s] = name
			label, border := fmt.Sprintf("%s (%d/%d)", chainLines(s.Vertex), s.Index+1, s.Parallelism), ""
			if j.Failed != nil && s == *j.Failed {
				label, border = label+"\n✗ failed", ", color=\"#c03030\", penwidth=3"
			}
			fmt.Fprintf(&b, "\t\t%s [label=%s, fillcolor=%s%s];\n", name, quote(label), quote(colors.subtask), border)
		}
		b.WriteString("\t}\n")
	}
	for _, e := range j.Exchanges() {
		style := ""
		if !e.ResultType.IsPipelined() {
			style = " [style=dashed]"
		}
		fmt.Fprintf(&b, "\t%s -> %s%s;\n", node[e.Producer], node[e.Consumer], style)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// regionRole labels a region after a failure: whether it restarts, and
// why.
func regionRole(r regions.Region) string {
	switch r.Why {
	case regions.FailedRegion:
		return fmt.Sprintf("region %d restarts:\nholds the failed subtask", r.Number)
	case regions.ReadsProducedAgain:
		return fmt.Sprintf("region %d restarts:\nreads region %d's result", r.Number, r.Because)
	}
	return fmt.Sprintf("region %d\nkeeps running", r.Number)
}
