package dot

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"flinklab/tools/graphs/checkpoints"
	"flinklab/tools/graphs/regions"
)

// The colours of a checkpoint's drawing: the barrier, and the two RPCs
// between the coordinator and the subtasks.
const (
	barrierColor = "#e8710a" // orange: the checkpoint barrier, in the data stream
	triggerColor = "#3b6fb6" // blue: triggerCheckpoint (k2)
	ackColor     = "#2e8b57" // green: acknowledgeCheckpoint (k5)
	notTraced    = "#909090" // grey: a step the trace does not have
)

// maxChannelsDrawn is the most channels between two vertices Checkpoint
// draws one by one; more become one arrow between the vertices' boxes.
const maxChannelsDrawn = 16

// Checkpoint returns the DOT source of one checkpoint drawn on its job's
// ExecutionGraph (package checkpoints), left to right: the
// CheckpointCoordinator (in the JobMaster), then a box per JobVertex,
// sources first, holding its subtasks. Each node lists the steps it took,
// in order, one row each: the number of the event among the
// checkpoint's events, the step, what happened and, when the checkpoint is
// Measured, the milliseconds since the trigger (k1).
//
//	CheckpointCoordinator   1 k1 triggered checkpoint 2 · 12 k6 completed · 13–16 k7 notifyCheckpointComplete
//	a source                2 k2 trigger received · 3 k3 barrier sent · 4 k5 acknowledged, 1st of 4 · 13 k7 notified
//	a subtask downstream   10 k4 barrier on all 2 inputs, aligned in 0 ms · 11 k5 acknowledged, 4th of 4 · 15 k7 notified
//
// Blue dashed arrows are the trigger (k2) going to the sources, orange
// arrows the barrier on each channel from a producer subtask to a consumer
// subtask (more than maxChannelsDrawn channels between two vertices are
// one arrow), and green dotted arrows the acknowledgements (k5), each
// with its rank when Measured. A channel is drawn as crossed by the
// barrier when its consumer has the barrier on all inputs (k4) or
// acknowledged (k5), since an aligned checkpoint acknowledges only then.
// A step a subtask should have taken but the trace lacks (a TaskManager
// that records no trace) is a grey row, "not in the trace".
func Checkpoint(c *checkpoints.Checkpoint) []byte {
	var b bytes.Buffer
	b.WriteString("digraph Checkpoint {\n")
	fmt.Fprintf(&b, "\tlabel=%s;\n", quote(checkpointTitle(c)))
	b.WriteString("\tlabelloc=t;\n\trankdir=LR;\n\tcompound=true;\n\tfontname=Helvetica;\n\tnodesep=0.5;\n\tranksep=1.2;\n")
	b.WriteString("\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=Helvetica, fontsize=11, margin=\"0.2,0.08\"];\n")
	b.WriteString("\tedge [fontname=Helvetica, fontsize=10];\n")
	fmt.Fprintf(&b, "\tcoordinator [fillcolor=\"#eef3fb\", label=<%s>];\n", coordinatorTable(c))

	node := make(map[regions.Subtask]string, len(c.Tasks))
	cluster := make(map[string]string, len(c.Job.Vertices))
	for i, v := range c.Job.Vertices {
		cluster[v.Name] = fmt.Sprintf("cluster_v%d", i)
		fmt.Fprintf(&b, "\tsubgraph cluster_v%d {\n", i)
		fmt.Fprintf(&b, "\t\tlabel=%s;\n\t\tstyle=rounded;\n", quote(fmt.Sprintf("%s\nparallelism %d", chainLines(v.Name), v.Parallelism)))
		k := 0
		for _, t := range c.Tasks {
			if t.Subtask.Vertex != v.Name {
				continue
			}
			node[t.Subtask] = fmt.Sprintf("v%d_s%d", i, k)
			fmt.Fprintf(&b, "\t\t%s [label=<%s>];\n", node[t.Subtask], taskTable(c, t))
			k++
		}
		b.WriteString("\t}\n")
	}

	for _, t := range c.Tasks {
		if t.Source && node[t.Subtask] != "" {
			fmt.Fprintf(&b, "\tcoordinator -> %s [label=\"k2 triggerCheckpoint\", style=dashed, color=%q, fontcolor=%q];\n",
				node[t.Subtask], triggerColor, triggerColor)
		}
	}
	writeBarriers(&b, c, node, cluster)
	for _, t := range c.Tasks {
		if !t.Acknowledged.Happened() || node[t.Subtask] == "" {
			continue
		}
		label := "k5"
		if c.Measured {
			label += ", " + ordinal(t.AckRank)
		}
		fmt.Fprintf(&b, "\t%s -> coordinator [label=%s, style=dotted, penwidth=1.5, color=%q, fontcolor=%q, constraint=false];\n",
			node[t.Subtask], quote(label), ackColor, ackColor)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// checkpointTitle heads the drawing: the checkpoint, how to read the
// numbers, and the colours.
func checkpointTitle(c *checkpoints.Checkpoint) string {
	title := fmt.Sprintf("%s: checkpoint %d, as its barrier flowed", c.Job.Name, c.ID)
	if c.Measured {
		title += fmt.Sprintf("\nnumbers: the order of its %d events; times since the trigger (k1)", len(c.Events))
	} else {
		title += fmt.Sprintf("\nnumbers: its %d events in step order (k1, every k2, every k3, …), one order a checkpoint may take", len(c.Events))
	}
	return title + "\norange: the barrier, on each channel; blue dashed: triggerCheckpoint (k2); green dotted: acknowledgeCheckpoint (k5)"
}

// writeBarriers draws the channels the barrier crossed, orange, and the
// others grey: one arrow per channel, or one per pair of vertices with
// more than maxChannelsDrawn channels between them.
func writeBarriers(b *bytes.Buffer, c *checkpoints.Checkpoint, node map[regions.Subtask]string, cluster map[string]string) {
	crossed := make(map[regions.Subtask]bool, len(c.Tasks))
	for _, t := range c.Tasks {
		crossed[t.Subtask] = t.Aligned.Happened() || t.Acknowledged.Happened()
	}
	type vertexPair struct{ producer, consumer string }
	channels := make(map[vertexPair][]regions.Exchange)
	var pairs []vertexPair
	for _, e := range c.Job.Exchanges {
		p := vertexPair{e.Producer.Vertex, e.Consumer.Vertex}
		if channels[p] == nil {
			pairs = append(pairs, p)
		}
		channels[p] = append(channels[p], e)
	}
	for _, p := range pairs {
		exchanges := channels[p]
		if len(exchanges) <= maxChannelsDrawn {
			for _, e := range exchanges {
				fmt.Fprintf(b, "\t%s -> %s%s;\n", node[e.Producer], node[e.Consumer], barrierStyle(crossed[e.Consumer], ""))
			}
			continue
		}
		n := 0
		for _, e := range exchanges {
			n += b2i(crossed[e.Consumer])
		}
		label := fmt.Sprintf("barrier on %d of %d channels", n, len(exchanges))
		first := exchanges[0]
		fmt.Fprintf(b, "\t%s -> %s%s;\n", node[first.Producer], node[first.Consumer], barrierStyle(n > 0,
			fmt.Sprintf("label=%s, ltail=%s, lhead=%s", quote(label), cluster[p.producer], cluster[p.consumer])))
	}
}

// barrierStyle is the attribute list of a channel: orange and bold when the
// barrier crossed it.
func barrierStyle(crossed bool, extra string) string {
	attrs := []string{"color=\"#b0b0b0\"", "style=dashed"}
	if crossed {
		attrs = []string{fmt.Sprintf("color=%q", barrierColor), "penwidth=2"}
	}
	if extra != "" {
		attrs = append(attrs, extra)
	}
	return " [" + strings.Join(attrs, ", ") + "]"
}

// sinceTrigger formats a time since the trigger: "+1.520 ms".
func sinceTrigger(d time.Duration) string {
	return fmt.Sprintf("+%.3f ms", float64(d.Microseconds())/1000)
}

// ordinal is "1st", "2nd", "3rd", "4th", …, "11th", "21st".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
