package dot

import (
	"bytes"
	"fmt"
	"strings"

	"flinklab/runtime/api"
	"flinklab/tools/graphs/slots"
)

// groupColors are the fills of the slot sharing groups, in the order the
// plan names them (and round again): a light one for the slot box, a
// darker one for its subtasks.
var groupColors = []struct{ slot, subtask string }{
	{"#e3eef9", "#b8d8f0"}, // blue
	{"#fdf0dc", "#f5cf8f"}, // orange
	{"#e6f4e2", "#b8e0b8"}, // green
	{"#f1e6f7", "#d6b8ea"}, // purple
	{"#fbe3e3", "#f0b0b0"}, // red
	{"#eeeeee", "#cccccc"}, // grey
}

// SlotPlan returns the DOT source of a slot plan (package slots): one box
// per TaskManager, labelled with its total and free resources, holding one
// box per slot cut out of it, labelled with the slot's profile in short
// (cpu, task heap, managed memory; the whole ResourceProfile is its
// tooltip) and the shared slot planned into it; in each slot the subtasks
// that share it, one per line, "tokenize (1/2)". Slots and subtasks are
// filled with their slot sharing group's colour. A TaskManager with room
// for more slots of the default profile says so in a dashed node. Shared
// slots that no TaskManager has room for are drawn outside every
// TaskManager, in a dashed red box per waiting requirement: "waiting: no
// TaskManager can fit ResourceProfile{…}".
//
// Nodes are named by position (tm1_slot2_s0, waiting1_slot1_s0), so the
// same plan gives the same bytes.
func SlotPlan(p *slots.Plan) []byte {
	colors := make(map[string]int, len(p.Groups))
	for i, g := range p.Groups {
		colors[g] = i % len(groupColors)
	}

	var b bytes.Buffer
	b.WriteString("digraph Slots {\n")
	fmt.Fprintf(&b, "\tlabel=%s;\n", quote(fmt.Sprintf("%s: slots planned for %s", p.JobName, slots.Describe(len(p.TaskManagers), p.NumberOfSlots))))
	writeSlotsAttributes(&b)

	for i, tm := range p.TaskManagers {
		name := fmt.Sprintf("tm%d", i+1)
		fmt.Fprintf(&b, "\tsubgraph cluster_%s {\n", name)
		fmt.Fprintf(&b, "\t\tlabel=%s;\n", quote(fmt.Sprintf("%s\ntotal: %s\nfree: %s", tm.Name, slots.Short(tm.Total), slots.Short(tm.Free))))
		fmt.Fprintf(&b, "\t\ttooltip=%s;\n", quote(fmt.Sprintf("%s\ntotal: %s\ndefault slot: %s\nfree: %s", tm.Name, tm.Total, tm.DefaultSlot, tm.Free)))
		b.WriteString("\t\tstyle=rounded;\n")
		for _, slot := range tm.Slots {
			label := fmt.Sprintf("slot %d", slot.Number)
			writeSharedSlot(&b, "\t\t", fmt.Sprintf("%s_slot%d", name, slot.Number), label, slot.Profile, slot.Shared, colors)
		}
		room := tm.RoomForDefaultSlots()
		switch {
		case room > 0:
			fmt.Fprintf(&b, "\t\t%s_free [label=%s, style=\"rounded,dashed\"];\n", name, quote(fmt.Sprintf("free: room for %s\nof the default profile", count(room, "slot", "slots"))))
		case len(tm.Slots) == 0:
			fmt.Fprintf(&b, "\t\t%s_free [label=%s, style=\"rounded,dashed\"];\n", name, quote("no room for a default slot"))
		}
		b.WriteString("\t}\n")
	}

	for i, w := range p.Waiting {
		name := fmt.Sprintf("waiting%d", i+1)
		fmt.Fprintf(&b, "\tsubgraph cluster_%s {\n", name)
		fmt.Fprintf(&b, "\t\tlabel=%s;\n", quote("waiting: "+profileLines(w.Reason())))
		b.WriteString("\t\tstyle=\"rounded,dashed\";\n\t\tcolor=\"#c03030\";\n\t\tfontcolor=\"#c03030\";\n")
		for k, shared := range w.Shared {
			writeSharedSlot(&b, "\t\t", fmt.Sprintf("%s_slot%d", name, k+1), "no slot", shared.Profile, shared, colors)
		}
		b.WriteString("\t}\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// writeSlotsAttributes writes what both slot views share: the title on
// top, rounded boxes, and Helvetica, whose widths Graphviz estimates well
// enough that the long labels of clusters stay inside their boxes (see
// ../shared/notes/tooling.md §1, fonts).
func writeSlotsAttributes(b *bytes.Buffer) {
	b.WriteString("\tlabelloc=t;\n\tfontname=Helvetica;\n")
	b.WriteString("\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=Helvetica];\n")
}

// profileLines breaks the ResourceProfile in s after "ResourceProfile{"
// and after each of its fields, so that a label holding it stays narrow:
// "no TaskManager can fit\nResourceProfile{cpuCores=8,\ntaskHeapMemory=…".
func profileLines(s string) string {
	head, profile, ok := strings.Cut(s, " ResourceProfile{")
	if !ok {
		return s
	}
	return head + "\nResourceProfile{" + strings.ReplaceAll(profile, ", ", ",\n")
}

// writeSharedSlot writes one slot box named name, labelled in short lines
// (so that the label stays inside the box in any viewer's font): label
// ("slot 1"), the shared slot's name, and profile in short over two lines, the whole
// profile as its tooltip; in it the shared slot's subtasks, stacked top to
// bottom by invisible edges.
func writeSharedSlot(b *bytes.Buffer, indent, name, label string, profile api.ResourceProfile, shared *slots.SharedSlot, colors map[string]int) {
	fmt.Fprintf(b, "%ssubgraph cluster_%s {\n", indent, name)
	inner := indent + "\t"
	color := groupColors[0]
	if shared != nil {
		label += "\nshared slot " + shared.Name()
		color = groupColors[colors[shared.Group]]
	}
	label += "\n" + strings.Replace(slots.Short(profile), ", managed", "\nmanaged", 1)
	fmt.Fprintf(b, "%slabel=%s;\n", inner, quote(label))
	fmt.Fprintf(b, "%stooltip=%s;\n", inner, quote(profile.String()))
	fmt.Fprintf(b, "%sstyle=\"rounded,filled\";\n%sfillcolor=%s;\n%smargin=12;\n", inner, inner, quote(color.slot), inner)
	if shared == nil || len(shared.Subtasks) == 0 {
		fmt.Fprintf(b, "%s%s_s0 [label=%s];\n", inner, name, quote("empty"))
		fmt.Fprintf(b, "%s}\n", indent)
		return
	}
	for k, s := range shared.Subtasks {
		fmt.Fprintf(b, "%s%s_s%d [label=%s, fillcolor=%s];\n", inner, name, k, quote(subtaskLabel(s)), quote(color.subtask))
	}
	for k := 1; k < len(shared.Subtasks); k++ {
		fmt.Fprintf(b, "%s%s_s%d -> %s_s%d [style=invis];\n", inner, name, k-1, name, k)
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

// subtaskLabel is a subtask with its chain one operator per line:
// "Source: lines\ntokenize (1/2)".
func subtaskLabel(s slots.Subtask) string {
	return fmt.Sprintf("%s (%d/%d)", chainLines(s.Vertex), s.Index+1, s.Parallelism)
}

// RunningSlots returns the DOT source of a job on a running cluster as
// REST shows it (slots.Running): one box per TaskManager with its slots
// (total and free) and resources; in it one node per allocated slot, with
// its profile in short (the rest in the tooltip) and its job, filled for
// the drawn job and grey for another; and one node listing the job's
// subtasks on that TaskManager with their attempt and state. The subtasks
// are listed per TaskManager, not per slot, because Flink's REST does not
// say which slot a subtask runs in. Subtasks on no TaskManager are drawn in
// a dashed box of their own.
func RunningSlots(r *slots.Running) []byte {
	var b bytes.Buffer
	b.WriteString("digraph Slots {\n")
	fmt.Fprintf(&b, "\tlabel=%s;\n", quote(fmt.Sprintf("%s (%s): slots and subtasks by TaskManager, from REST\nREST does not say which slot a subtask runs in", r.JobName, r.JobState)))
	writeSlotsAttributes(&b)
	for i, tm := range r.TaskManagers {
		name := fmt.Sprintf("tm%d", i+1)
		fmt.Fprintf(&b, "\tsubgraph cluster_%s {\n", name)
		if tm.Registered {
			fmt.Fprintf(&b, "\t\tlabel=%s;\n", quote(fmt.Sprintf("%s: %d slots, %d free\ntotal: %s\nfree: %s", tm.ID, tm.SlotsNumber, tm.FreeSlots, slots.ShortInfo(tm.Total), slots.ShortInfo(tm.Free))))
			fmt.Fprintf(&b, "\t\ttooltip=%s;\n", quote(fmt.Sprintf("%s\ntotal: %s\nfree: %s", tm.ID, slots.FullInfo(tm.Total), slots.FullInfo(tm.Free))))
		} else {
			fmt.Fprintf(&b, "\t\tlabel=%s;\n", quote(fmt.Sprintf("%s: no longer registered", tm.ID)))
		}
		b.WriteString("\t\tstyle=rounded;\n")
		for k, slot := range tm.Slots {
			owner, fill := "this job", groupColors[0].subtask
			if slot.JobID != r.JobID {
				owner, fill = "job "+slot.JobID.String(), groupColors[5].subtask
			}
			fmt.Fprintf(&b, "\t\t%s_slot%d [label=%s, tooltip=%s, fillcolor=%s];\n", name, k+1,
				quote(fmt.Sprintf("slot: %s\n%s", slots.ShortInfo(slot.Resource), owner)), quote(slots.FullInfo(slot.Resource)), quote(fill))
		}
		if len(tm.Subtasks) > 0 {
			fmt.Fprintf(&b, "\t\t%s_subtasks [label=%s, shape=note, style=filled, fillcolor=%s];\n", name,
				quote("subtasks of this job here:\n"+runningSubtaskLines(tm.Subtasks)), quote(groupColors[0].slot))
		}
		if len(tm.Slots) == 0 && len(tm.Subtasks) == 0 {
			fmt.Fprintf(&b, "\t\t%s_empty [label=%s, style=\"rounded,dashed\"];\n", name, quote("no slots allocated"))
		}
		b.WriteString("\t}\n")
	}
	if len(r.Unassigned) > 0 {
		b.WriteString("\tsubgraph cluster_unassigned {\n")
		fmt.Fprintf(&b, "\t\tlabel=%s;\n", quote("on no TaskManager: no slot (yet)"))
		b.WriteString("\t\tstyle=\"rounded,dashed\";\n\t\tcolor=\"#c03030\";\n\t\tfontcolor=\"#c03030\";\n")
		fmt.Fprintf(&b, "\t\tunassigned [label=%s, shape=note, style=filled];\n", quote(runningSubtaskLines(r.Unassigned)))
		b.WriteString("\t}\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// runningSubtaskLines lists subtasks one per line, their chains on one
// line: "Source: lines -> tokenize (1/2) #0 RUNNING".
func runningSubtaskLines(subtasks []slots.RunningSubtask) string {
	lines := make([]string, len(subtasks))
	for i, s := range subtasks {
		lines[i] = s.String()
	}
	return strings.Join(lines, "\n")
}

// count prints n things: "1 slot", "2 slots".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
