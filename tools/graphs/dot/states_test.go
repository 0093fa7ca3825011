package dot

import (
	"strings"
	"testing"

	"flinklab/runtime/scheduler/adaptive"
	"flinklab/tools/graphs/states"
)

// rescaledAndCancelled is the path of a job that ran with the slots it
// had, rescaled when more came, and was cancelled.
var rescaledAndCancelled = path("Created", "WaitingForResources", "CreatingExecutionGraph", "Executing",
	"Restarting", "WaitingForResources", "CreatingExecutionGraph", "Executing", "Canceling", "Finished")

// path is the moves through the given states.
func path(names ...string) []adaptive.Transition {
	var out []adaptive.Transition
	for i := 1; i < len(names); i++ {
		out = append(out, adaptive.Transition{From: names[i-1], To: names[i]})
	}
	return out
}

func TestStateMachine(t *testing.T) {
	got := string(StateMachine(states.AdaptiveScheduler, "AdaptiveScheduler", rescaledAndCancelled))
	checkGolden(t, "adaptive_states.dot", []byte(got))
	for _, want := range []string{
		`WaitingForResources -> CreatingExecutionGraph [label="[2, 6] the desired slots are there,`,
		`Executing [label="Executing\nRUNNING", tooltip="the graph is deployed and runs", fillcolor="#b8e0b8"];`,
		`Failing [label="Failing\nFAILING", tooltip="fail the graph", fillcolor="#ffffff"];`,
		`Executing -> Failing [label="a task failed and the\nrestart strategy says no", color="#909090"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the diagram lacks %s", want)
		}
	}

	mermaid := string(StateMachineMermaid(states.AdaptiveScheduler, rescaledAndCancelled))
	checkGolden(t, "adaptive_states.mmd", []byte(mermaid))
	for _, want := range []string{
		"    state \"Executing (RUNNING)\" as Executing\n",
		"    Executing --> Restarting: [4] a task failed and the restart strategy allows it, or the parallelism can change\n",
		"    class Canceling taken\n",
	} {
		if !strings.Contains(mermaid, want) {
			t.Errorf("the Mermaid diagram lacks %q", want)
		}
	}
	if strings.Contains(mermaid, "class Failing taken") {
		t.Errorf("Failing is not on the path:\n%s", mermaid)
	}
}

// A move the table lacks is still drawn, in red, rather than left out.
func TestStateMachineDrawsAMoveTheTableLacks(t *testing.T) {
	stray := path("Created", "WaitingForResources", "Executing")
	got := string(StateMachine(states.AdaptiveScheduler, "stray", stray))
	if want := `"WaitingForResources" -> "Executing" [label="[2] not in the table", color="#c03030"`; !strings.Contains(got, want) {
		t.Errorf("the diagram lacks %s:\n%s", want, got)
	}
	mermaid := string(StateMachineMermaid(states.AdaptiveScheduler, stray))
	if want := "    WaitingForResources --> Executing: [2] not in the table\n"; !strings.Contains(mermaid, want) {
		t.Errorf("the Mermaid diagram lacks %q:\n%s", want, mermaid)
	}
}
