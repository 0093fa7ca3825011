package dot

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"flinklab/runtime/trace"
)

// participants is the order in which the sequence diagrams draw the
// components, from the client on the left to the task on the right.
var participants = []string{
	"Client", "REST", "Dispatcher", "JobManagerRunner", "JobMaster",
	"ResourceManager", "SlotManager", "TaskExecutor", "BlobServer", "Task",
}

// SequenceDiagram returns a Mermaid sequenceDiagram of events, which should
// be the events of one job (trace.Recorder.JobEvents), in order. The
// participants are those that appear, in the fixed order of the submission
// (Client, REST, Dispatcher, …, Task), followed by any other name in the
// order it first appears. Each event is one arrow "m3: submitJob …", its
// message shortened to 60 characters and escaped for Mermaid. A run of
// events of the same step between the same two participants, such as m9
// deploying every subtask, becomes one arrow "m9 ×12: …" carrying the first
// message of the run, followed by " …" when the others differ from it.
//
// A failed event (trace.Event.Failed) is drawn as an arrow ending in a cross
// ("m10 ✗: Failed to fetch BLOB …"), and the first one gets a note on its
// receiver, "the submission broke here, at step m10": that is where to start
// reading the logs.
func SequenceDiagram(events []trace.Event) []byte {
	names, ids := sequenceParticipants(events)
	var b bytes.Buffer
	b.WriteString("sequenceDiagram\n")
	for _, name := range names {
		if ids[name] == name {
			fmt.Fprintf(&b, "    participant %s\n", name)
		} else {
			fmt.Fprintf(&b, "    participant %s as %s\n", ids[name], mermaidText(name))
		}
	}
	for _, a := range sequenceArrows(events) {
		arrow := "->>"
		if a.failed {
			arrow = "-x"
		}
		fmt.Fprintf(&b, "    %s%s%s: %s\n", ids[a.from], arrow, ids[a.to], mermaidText(a.text))
		if a.firstFailure {
			fmt.Fprintf(&b, "    Note over %s: %s\n", ids[a.to], brokeHere(a.step))
		}
	}
	return b.Bytes()
}

// SequenceDOT draws the same diagram as SequenceDiagram in DOT, for
// Graphviz to render as SVG: one column per participant with a dashed
// lifeline, one row per arrow, top to bottom. Each lifeline is a chain of
// invisible points, one per row, kept straight by a heavy weight, and the
// points of a row share a rank, so an arrow between two of them runs
// across. A failed arrow is red, and
// the first one is followed by a red note on its receiver.
func SequenceDOT(events []trace.Event) []byte {
	names, _ := sequenceParticipants(events)
	arrows := sequenceArrows(events)
	column := make(map[string]int, len(names))
	for i, name := range names {
		column[name] = i
	}
	rows := len(arrows) + 1 // row 0 holds the participants' boxes

	var b bytes.Buffer
	b.WriteString("digraph Sequence {\n")
	b.WriteString("\tlabel=\"Submission sequence\";\n\tlabelloc=t;\n\tnewrank=true;\n\tsplines=line;\n\tnodesep=1.2;\n\tranksep=0.3;\n")
	b.WriteString("\tnode [shape=point, width=0.01, height=0.01, label=\"\"];\n")
	b.WriteString("\tedge [arrowsize=0.7, fontsize=10];\n")
	for i, name := range names {
		fmt.Fprintf(&b, "\tp%d_0 [shape=box, style=rounded, width=0.75, height=0.4, label=%s];\n", i, quote(name))
	}
	// The lifelines, and the rows that keep the points side by side.
	for i := range names {
		chain := make([]string, rows)
		for r := range rows {
			chain[r] = fmt.Sprintf("p%d_%d", i, r)
		}
		fmt.Fprintf(&b, "\t%s [style=dashed, arrowhead=none, weight=1000];\n", strings.Join(chain, " -> "))
	}
	for r := range rows {
		row := make([]string, len(names))
		for i := range names {
			row[i] = fmt.Sprintf("p%d_%d", i, r)
		}
		if len(row) == 1 {
			fmt.Fprintf(&b, "\t{ rank=same; %s; }\n", row[0])
			continue
		}
		// The invisible edges keep the columns in order from left to right.
		fmt.Fprintf(&b, "\t{ rank=same; %s [style=invis]; }\n", strings.Join(row, " -> "))
	}
	for k, a := range arrows {
		r := k + 1
		attrs := []string{"label=" + quote(a.text), "constraint=false"}
		if a.failed {
			attrs = append(attrs, "color=red", "fontcolor=red", "arrowhead=tee")
		}
		fmt.Fprintf(&b, "\tp%d_%d -> p%d_%d [%s];\n", column[a.from], r, column[a.to], r, strings.Join(attrs, ", "))
		if a.firstFailure {
			fmt.Fprintf(&b, "\tnote_%d [shape=note, color=red, fontcolor=red, fontsize=10, width=3.2, height=0.3, label=%s];\n", r, quote(brokeHere(a.step)))
			fmt.Fprintf(&b, "\tp%d_%d -> note_%d [style=dotted, color=red, arrowhead=none, constraint=false];\n", column[a.to], r, r)
			fmt.Fprintf(&b, "\t{ rank=same; p%d_%d; note_%d; }\n", column[a.to], r, r)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// brokeHere is the note on the first failure of a sequence.
func brokeHere(step trace.Step) string {
	return "the submission broke here, at step " + string(step)
}

// arrow is one arrow of a sequence diagram: one event, or a run of events
// of the same step between the same two participants.
type arrow struct {
	step         trace.Step
	from, to     string
	text         string // "m9 ×2: Received task …", shortened, not yet escaped
	failed       bool
	firstFailure bool
}

// sequenceArrows turns events into arrows, collapsing runs (see
// SequenceDiagram).
func sequenceArrows(events []trace.Event) []arrow {
	var arrows []arrow
	broke := false // a failure has been drawn
	for i := 0; i < len(events); {
		e := events[i]
		run := 1
		for i+run < len(events) && sameArrow(events[i+run], e) {
			run++
		}
		step := string(e.Step)
		if e.Failed {
			step += " ✗"
		}
		text := step + ": " + e.Message
		if run > 1 {
			text = fmt.Sprintf("%s ×%d: %s", step, run, e.Message)
			if slices.ContainsFunc(events[i+1:i+run], func(other trace.Event) bool { return other.Message != e.Message }) {
				text += " …"
			}
		}
		a := arrow{step: e.Step, from: e.From, to: e.To, text: shorten(text, maxMessageRunes), failed: e.Failed}
		if e.Failed && !broke {
			broke, a.firstFailure = true, true
		}
		arrows = append(arrows, a)
		i += run
	}
	return arrows
}

// sameArrow reports whether two events would be drawn as the same arrow.
func sameArrow(x, y trace.Event) bool {
	return x.Step == y.Step && x.From == y.From && x.To == y.To && x.Failed == y.Failed
}

// sequenceParticipants returns the names in events in drawing order (the
// known participants in their fixed order, then the others in the order
// they first appear) and each name's identifier: the name itself for a
// known participant, P1, P2, … for the others.
func sequenceParticipants(events []trace.Event) (names []string, ids map[string]string) {
	ids = make(map[string]string)
	for _, e := range events {
		for _, name := range []string{e.From, e.To} {
			if slices.Contains(participants, name) {
				ids[name] = name
			}
		}
	}
	for _, name := range participants {
		if _, ok := ids[name]; ok {
			names = append(names, name)
		}
	}
	n := 0
	for _, e := range events {
		for _, name := range []string{e.From, e.To} {
			if _, ok := ids[name]; !ok {
				n++
				ids[name] = fmt.Sprintf("P%d", n)
				names = append(names, name)
			}
		}
	}
	return names, ids
}
