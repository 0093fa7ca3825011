package dot

import (
	"bytes"
	"fmt"
	"strings"

	"flinklab/runtime/scheduler/adaptive"
	"flinklab/tools/graphs/states"
)

// The colours of the path a job took through a state machine.
const (
	takenState = "#b8e0b8"
	takenEdge  = "#2e7d32"
	otherEdge  = "#909090"
	strayEdge  = "#c03030"
)

// StateMachine returns the DOT source of a scheduler's state machine
// (package states) with the path a job took through it: one node per
// state, "Executing\nRUNNING" (what it does is its tooltip), and one arrow
// per transition, labelled with what causes it. The states of path are
// filled green, and each transition it took is a thick green arrow whose
// label starts with the numbers of the moves that took it, "[2, 6]", in
// the order of path; the others are grey. A move of path that m does not
// have is drawn too, as a red arrow, so that nothing a job did is hidden.
// title heads the diagram.
func StateMachine(m states.Machine, title string, path []adaptive.Transition) []byte {
	visited, moves := pathOf(path)
	var b bytes.Buffer
	b.WriteString("digraph States {\n")
	fmt.Fprintf(&b, "\tlabel=%s;\n", quote(title))
	b.WriteString("\tlabelloc=t;\n\tfontname=Helvetica;\n\tnodesep=0.6;\n")
	b.WriteString("\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=Helvetica, margin=\"0.2,0.08\"];\n")
	b.WriteString("\tedge [fontname=Helvetica, fontsize=10];\n")
	b.WriteString("\tstart [shape=point, width=0.15, label=\"\"];\n")
	for _, s := range m.States {
		fill := "#ffffff"
		if visited[s.Name] {
			fill = takenState
		}
		fmt.Fprintf(&b, "\t%s [label=%s, tooltip=%s, fillcolor=%s];\n", s.Name, quote(s.Name+"\n"+s.Status()), quote(s.About), quote(fill))
	}
	if len(m.States) > 0 {
		attrs := ""
		if len(path) > 0 {
			attrs = fmt.Sprintf(" [color=%s, penwidth=2.5]", quote(takenEdge))
		}
		fmt.Fprintf(&b, "\tstart -> %s%s;\n", m.States[0].Name, attrs)
	}
	for _, t := range m.Transitions {
		numbers := moves[[2]string{t.From, t.To}]
		if len(numbers) == 0 {
			fmt.Fprintf(&b, "\t%s -> %s [label=%s, color=%s, fontcolor=%s];\n", t.From, t.To, quote(t.When), quote(otherEdge), quote(otherEdge))
			continue
		}
		fmt.Fprintf(&b, "\t%s -> %s [label=%s, color=%s, fontcolor=%s, penwidth=2.5];\n",
			t.From, t.To, quote(moveNumbers(numbers)+" "+t.When), quote(takenEdge), quote(takenEdge))
	}
	for _, stray := range strays(m, path, moves) {
		fmt.Fprintf(&b, "\t%s -> %s [label=%s, color=%s, fontcolor=%s, penwidth=2.5, style=dashed];\n",
			quote(stray.From), quote(stray.To), quote(moveNumbers(moves[[2]string{stray.From, stray.To}])+" not in the table"), quote(strayEdge), quote(strayEdge))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// StateMachineMermaid draws the same as StateMachine as a Mermaid
// stateDiagram-v2, which GitHub renders in a markdown block marked
// "mermaid": each state named with its JobStatus, each transition
// labelled with its cause, the numbers of the moves of path that took it
// first, and the states of path in the class "taken", filled green.
// Mermaid cannot colour a transition, so the numbers are the path.
func StateMachineMermaid(m states.Machine, path []adaptive.Transition) []byte {
	visited, moves := pathOf(path)
	var b bytes.Buffer
	b.WriteString("stateDiagram-v2\n")
	for _, s := range m.States {
		fmt.Fprintf(&b, "    state \"%s (%s)\" as %s\n", mermaidText(s.Name), mermaidText(s.Status()), s.Name)
	}
	if len(m.States) > 0 {
		fmt.Fprintf(&b, "    [*] --> %s\n", m.States[0].Name)
	}
	for _, t := range m.Transitions {
		label := t.When
		if numbers := moves[[2]string{t.From, t.To}]; len(numbers) > 0 {
			label = moveNumbers(numbers) + " " + label
		}
		fmt.Fprintf(&b, "    %s --> %s: %s\n", t.From, t.To, mermaidText(label))
	}
	for _, stray := range strays(m, path, moves) {
		fmt.Fprintf(&b, "    %s --> %s: %s\n", mermaidID(stray.From), mermaidID(stray.To), mermaidText(moveNumbers(moves[[2]string{stray.From, stray.To}])+" not in the table"))
	}
	for _, s := range m.States {
		if s.Final {
			fmt.Fprintf(&b, "    %s --> [*]\n", s.Name)
		}
	}
	fmt.Fprintf(&b, "    classDef taken fill:%s,stroke:%s,stroke-width:2px\n", takenState, takenEdge)
	for _, s := range m.States {
		if visited[s.Name] {
			fmt.Fprintf(&b, "    class %s taken\n", s.Name)
		}
	}
	return b.Bytes()
}

// pathOf returns the states path visits and, for each move (from, to),
// the numbers of the moves of path that made it, from 1.
func pathOf(path []adaptive.Transition) (map[string]bool, map[[2]string][]int) {
	visited := make(map[string]bool)
	moves := make(map[[2]string][]int)
	for i, t := range path {
		visited[t.From], visited[t.To] = true, true
		key := [2]string{t.From, t.To}
		moves[key] = append(moves[key], i+1)
	}
	return visited, moves
}

// strays returns the moves of path that m does not have, each once, in
// the order path first makes them.
func strays(m states.Machine, path []adaptive.Transition, moves map[[2]string][]int) []adaptive.Transition {
	var out []adaptive.Transition
	for i, t := range path {
		if !m.Has(t.From, t.To) && moves[[2]string{t.From, t.To}][0] == i+1 {
			out = append(out, adaptive.Transition{From: t.From, To: t.To})
		}
	}
	return out
}

// moveNumbers prints the numbers of moves: "[2, 6]".
func moveNumbers(numbers []int) string {
	parts := make([]string, len(numbers))
	for i, n := range numbers {
		parts[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// mermaidID makes a state name usable as a Mermaid state ID: anything
// but letters, digits and '_' becomes '_'.
func mermaidID(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, name)
}
