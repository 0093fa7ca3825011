package dot

import (
	"bytes"
	"fmt"
	"slices"

	"flinklab/runtime/trace"
)

// participants is the order in which SequenceDiagram draws the components,
// from the client on the left to the task on the right.
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
func SequenceDiagram(events []trace.Event) []byte {
	ids := participantIDs(events)

	var b bytes.Buffer
	b.WriteString("sequenceDiagram\n")
	for _, name := range participants {
		if id, ok := ids[name]; ok {
			fmt.Fprintf(&b, "    participant %s\n", id)
		}
	}
	for _, name := range others(events) {
		fmt.Fprintf(&b, "    participant %s as %s\n", ids[name], mermaidText(name))
	}

	for i := 0; i < len(events); {
		e := events[i]
		run := 1
		for i+run < len(events) && sameArrow(events[i+run], e) {
			run++
		}
		text := string(e.Step) + ": " + e.Message
		if run > 1 {
			text = fmt.Sprintf("%s ×%d: %s", e.Step, run, e.Message)
			if slices.ContainsFunc(events[i+1:i+run], func(other trace.Event) bool { return other.Message != e.Message }) {
				text += " …"
			}
		}
		text = mermaidText(shorten(text, maxMessageRunes))
		fmt.Fprintf(&b, "    %s->>%s: %s\n", ids[e.From], ids[e.To], text)
		i += run
	}
	return b.Bytes()
}

// sameArrow reports whether two events would be drawn as the same arrow.
func sameArrow(x, y trace.Event) bool {
	return x.Step == y.Step && x.From == y.From && x.To == y.To
}

// participantIDs gives every name in events its Mermaid identifier: the name
// itself for a known participant, P1, P2, … for the others.
func participantIDs(events []trace.Event) map[string]string {
	ids := make(map[string]string)
	for _, e := range events {
		for _, name := range []string{e.From, e.To} {
			if slices.Contains(participants, name) {
				ids[name] = name
			}
		}
	}
	for i, name := range others(events) {
		ids[name] = fmt.Sprintf("P%d", i+1)
	}
	return ids
}

// others returns the names in events that are not known participants, in
// the order they first appear.
func others(events []trace.Event) []string {
	var names []string
	for _, e := range events {
		for _, name := range []string{e.From, e.To} {
			if !slices.Contains(participants, name) && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}
