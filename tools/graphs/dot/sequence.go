package dot

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"flinklab/runtime/trace"
)

// participants is the order in which the sequence diagrams draw the
// components, from the client on the left to the task on the right. The
// CheckpointCoordinator lives in the JobMaster and is drawn next to it: a
// checkpointed job's trace has its steps k1…k7 after the submission's.
var participants = []string{
	"Client", "REST", "Dispatcher", "JobManagerRunner", "JobMaster", "CheckpointCoordinator",
	"ResourceManager", "SlotManager", "TaskExecutor", "BlobServer", "Task",
}

// captions are the participants drawn under another name than the one
// the trace gives them.
var captions = map[string]string{"CheckpointCoordinator": "CheckpointCoordinator\n(JobMaster)"}

// sequenceStyle is what tells one kind of sequence diagram from another.
type sequenceStyle struct {
	title   string   // the DOT diagram's label
	subject string   // what breaks, in the note on the first failure: "submission"
	order   []string // the participants drawn first, in this order
	// apart draws every event as an arrow of its own, where the
	// submission draws a run of them as one ("m9 ×4").
	apart bool
	// width is how long an arrow's text may be before it is cut.
	width int
}

// submission is the style of the submission sequence.
var submission = sequenceStyle{title: "Submission sequence", subject: "submission", order: participants, width: maxMessageRunes}

// SequenceDiagram returns a Mermaid sequenceDiagram of events, which should
// be the events of one job (trace.Recorder.JobEvents), in order. The
// participants are those that appear, in the fixed order of the submission
// (Client, REST, Dispatcher, …, Task, with a checkpointed job's
// CheckpointCoordinator next to the JobMaster it lives in), followed by any
// other name in the order it first appears. Each event is one arrow "m3:
// submitJob …", its message shortened to 60 characters and escaped for
// Mermaid. A run of events of the same step between the same two
// participants, such as m9 deploying every subtask, becomes one arrow
// "m9 ×12: …" carrying the first message of the run, followed by " …" when
// the others differ from it.
//
// A failed event (trace.Event.Failed) is drawn as an arrow ending in a cross
// ("m10 ✗: Failed to fetch BLOB …"), and the first one gets a note on its
// receiver, "the submission broke here, at step m10": that is where to start
// reading the logs.
func SequenceDiagram(events []trace.Event) []byte { return sequenceMermaid(events, submission) }

// sequenceMermaid draws events as a Mermaid sequenceDiagram in style.
func sequenceMermaid(events []trace.Event, style sequenceStyle) []byte {
	names, ids := sequenceParticipants(events, style.order)
	var b bytes.Buffer
	b.WriteString("sequenceDiagram\n")
	for _, name := range names {
		switch caption, ok := captions[name]; {
		case ok:
			fmt.Fprintf(&b, "    participant %s as %s\n", ids[name], mermaidText(caption))
		case ids[name] == name:
			fmt.Fprintf(&b, "    participant %s\n", name)
		default:
			fmt.Fprintf(&b, "    participant %s as %s\n", ids[name], mermaidText(name))
		}
	}
	for _, a := range sequenceArrows(events, style) {
		arrow := "->>"
		if a.failed {
			arrow = "-x"
		}
		fmt.Fprintf(&b, "    %s%s%s: %s\n", ids[a.from], arrow, ids[a.to], mermaidText(a.text))
		if a.firstFailure {
			fmt.Fprintf(&b, "    Note over %s: %s\n", ids[a.to], brokeHere(style.subject, a.step))
		}
	}
	return b.Bytes()
}

// SequenceDOT draws the same diagram as SequenceDiagram in DOT, for
// Graphviz to render as SVG: one column per participant with a dashed
// lifeline, one row per arrow, top to bottom. Each lifeline is a chain of
// invisible points, one per row, kept straight by a heavy weight, and the
// points of a row share a rank, so an arrow between two of them runs
// across. An event from a participant to itself (a checkpoint's k1, k4,
// k6) is a box on its lifeline instead, in its row. A failed arrow is red,
// and the first one is followed by a red note on its receiver.
func SequenceDOT(events []trace.Event) []byte { return sequenceDOT(events, submission) }

// sequenceDOT draws events as DOT in style.
func sequenceDOT(events []trace.Event, style sequenceStyle) []byte {
	names, _ := sequenceParticipants(events, style.order)
	arrows := sequenceArrows(events, style)
	column := make(map[string]int, len(names))
	for i, name := range names {
		column[name] = i
	}
	rows := len(arrows) + 1 // row 0 holds the participants' boxes

	var b bytes.Buffer
	b.WriteString("digraph Sequence {\n")
	fmt.Fprintf(&b, "\tlabel=%s;\n", quote(style.title))
	b.WriteString("\tlabelloc=t;\n\tnewrank=true;\n\tsplines=line;\n\tnodesep=1.2;\n\tranksep=0.3;\n")
	b.WriteString("\tnode [shape=point, width=0.01, height=0.01, label=\"\"];\n")
	b.WriteString("\tedge [arrowsize=0.7, fontsize=10];\n")
	for i, name := range names {
		caption, ok := captions[name]
		if !ok {
			caption = chainLines(name)
		}
		fmt.Fprintf(&b, "\tp%d_0 [shape=box, style=rounded, width=0.75, height=0.4, label=%s];\n", i, quote(caption))
	}
	// A participant's own step (a checkpoint's k1, k4, k6) is a box on
	// its lifeline, in the step's row, holding the step's text.
	for k, a := range arrows {
		if a.from != a.to {
			continue
		}
		color := ""
		if a.failed {
			color = ", color=red, fontcolor=red"
		}
		fmt.Fprintf(&b, "\tp%d_%d [shape=box, style=rounded, fontname=Helvetica, fontsize=10, width=0, height=0, margin=\"0.12,0.04\", label=%s%s];\n",
			column[a.from], k+1, quote(wrap(a.text, ownStepRunes)), color)
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
		if a.from != a.to { // a participant's own step is a box on its lifeline
			fmt.Fprintf(&b, "\tp%d_%d -> p%d_%d [%s];\n", column[a.from], r, column[a.to], r, strings.Join(attrs, ", "))
		}
		if a.firstFailure {
			fmt.Fprintf(&b, "\tnote_%d [shape=note, color=red, fontcolor=red, fontsize=10, width=3.2, height=0.3, label=%s];\n", r, quote(brokeHere(style.subject, a.step)))
			fmt.Fprintf(&b, "\tp%d_%d -> note_%d [style=dotted, color=red, arrowhead=none, constraint=false];\n", column[a.to], r, r)
			fmt.Fprintf(&b, "\t{ rank=same; p%d_%d; note_%d; }\n", column[a.to], r, r)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// ownStepRunes is the width of the lines of a participant's own step in
// DOT.
const ownStepRunes = 40

// brokeHere is the note on the first failure of a sequence.
func brokeHere(subject string, step trace.Step) string {
	return "the " + subject + " broke here, at step " + string(step)
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
func sequenceArrows(events []trace.Event, style sequenceStyle) []arrow {
	var arrows []arrow
	broke := false // a failure has been drawn
	for i := 0; i < len(events); {
		e := events[i]
		run := 1
		for !style.apart && i+run < len(events) && sameArrow(events[i+run], e) {
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
		a := arrow{step: e.Step, from: e.From, to: e.To, text: shorten(text, style.width), failed: e.Failed}
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

// sequenceParticipants returns the names in events in drawing order (those
// of order in its order, then the others in the order they first appear)
// and each name's identifier: the name itself for a name of order that
// Mermaid takes as one (a word, as the submission's participants are),
// P1, P2, … for the others, in drawing order.
func sequenceParticipants(events []trace.Event, order []string) (names []string, ids map[string]string) {
	seen := make(map[string]bool)
	for _, e := range events {
		seen[e.From], seen[e.To] = true, true
	}
	drawn := make(map[string]bool, len(seen))
	draw := func(name string) {
		if seen[name] && !drawn[name] {
			drawn[name] = true
			names = append(names, name)
		}
	}
	for _, name := range order {
		draw(name)
	}
	for _, e := range events {
		draw(e.From)
		draw(e.To)
	}
	ids = make(map[string]string, len(names))
	n := 0
	for _, name := range names {
		if slices.Contains(order, name) && identifier.MatchString(name) {
			ids[name] = name
			continue
		}
		n++
		ids[name] = fmt.Sprintf("P%d", n)
	}
	return names, ids
}

// identifier is a participant name Mermaid reads as its own identifier.
var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
