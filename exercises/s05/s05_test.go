// Exercise s05: predict where the slots of three programs are cut.
//
// TestYourPrediction reads the answers from the file FLINKLAB_PREDICTION
// names (`go run ./tools/learn check s05` passes exercises/s05/answer.txt),
// plans each program of programs_test.go, and places its slots on the
// README's cluster with the runtime's own code, as `go run ./tools/graphs
// -slots` does: the JobMaster's shared slots and their profiles
// (scheduler.SharedSlots), the requirements its slot pool declares, and
// the ResourceManager's matching (slotmanager.DefaultResourceAllocationStrategy)
// against two TaskManagers computed from their configuration as a
// TaskManager computes its own (clusterframework). A wrong answer is told what is
// wrong, never what is right.
package s05_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/slots"
)

// The facts asked of each program, in the order the template lists them.
var facts = []string{"requested", "tm1", "tm2", "waiting"}

// The cluster of the README: two TaskManagers of the distribution's
// default size, two slots each.
var taskManagerConfiguration = map[string]string{
	"taskmanager.memory.process.size": "1728m",
	"taskmanager.numberOfTaskSlots":   "2",
}

// readPrediction reads lines "PROGRAM.FACT: NUMBER"; "#" starts a comment
// and a fact without a value is not answered yet.
func readPrediction(path string) (map[string]map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]int{}
	for _, p := range programs {
		out[p.name] = map[string]int{}
	}
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line, _, _ := strings.Cut(scanner.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		program, fact, dotted := strings.Cut(strings.TrimSpace(key), ".")
		answers, known := out[program]
		if !ok || !dotted || !known {
			return nil, fmt.Errorf("line %d: %q: write PROGRAM.FACT: NUMBER, PROGRAM one of report, split, heavy", n, line)
		}
		if !isFact(fact) {
			return nil, fmt.Errorf("line %d: %q: the facts are %s", n, key, strings.Join(facts, ", "))
		}
		value = strings.TrimSpace(value)
		if value == "" {
			continue
		}
		count, err := strconv.Atoi(value)
		if err != nil || count < 0 {
			return nil, fmt.Errorf("line %d: %s.%s: %q is not a number of slots", n, program, fact, value)
		}
		answers[fact] = count
	}
	return out, scanner.Err()
}

func isFact(fact string) bool {
	for _, f := range facts {
		if f == fact {
			return true
		}
	}
	return false
}

// placement plans a program and places its slots on the cluster with the
// plan `go run ./tools/graphs -slots` draws (tools/graphs/slots.PlanJob,
// which runs the runtime's own code): how many slots the JobMaster
// requests, how many the ResourceManager cuts out of each TaskManager,
// and how many it cannot cut anywhere.
func placement(t *testing.T, build func(env *streaming.StreamExecutionEnvironment) error) map[string]int {
	t.Helper()
	env := streaming.NewStreamExecutionEnvironment()
	require.NoError(t, build(env))
	streamGraph, err := env.GetStreamGraph("s05")
	require.NoError(t, err)
	jobGraph, err := streamGraph.JobGraph()
	require.NoError(t, err)
	plan, err := slots.PlanJob(jobGraph, slots.Cluster{TaskManagers: 2, Configuration: taskManagerConfiguration})
	require.NoError(t, err)

	actual := map[string]int{"requested": len(plan.SharedSlots)}
	for i, tm := range plan.TaskManagers {
		actual[fmt.Sprintf("tm%d", i+1)] = len(tm.Slots)
	}
	for _, w := range plan.Waiting {
		actual["waiting"] += len(w.Shared)
	}
	return actual
}

// Every program plans and places, so that a prediction is compared with
// something real; and the three differ in what they teach: one fills the
// first TaskManager, one cuts more slots out of it than it has static
// slots, one cannot be placed whole.
func TestTheProgramsPlace(t *testing.T) {
	got := map[string]map[string]int{}
	for _, p := range programs {
		got[p.name] = placement(t, p.build)
		require.Positive(t, got[p.name]["requested"], p.name)
	}
	require.Zero(t, got["report"]["waiting"], "report fits")
	require.Greater(t, got["split"]["tm1"], 2, "split: more slots on the first TaskManager than its 2 static slots")
	require.Positive(t, got["heavy"]["waiting"], "heavy does not fit whole")
}

func TestYourPrediction(t *testing.T) {
	path := os.Getenv("FLINKLAB_PREDICTION")
	if path == "" {
		t.Skip("no prediction to compare: go run ./tools/learn check s05 compares exercises/s05/answer.txt")
	}
	predicted, err := readPrediction(path)
	require.NoError(t, err, "reading your prediction")
	for _, p := range programs {
		actual := placement(t, p.build)
		for _, fact := range facts {
			n, answered := predicted[p.name][fact]
			switch {
			case !answered:
				t.Errorf("%s.%s: not predicted yet", p.name, fact)
			case n != actual[fact]:
				t.Errorf("%s.%s: %d is not what happens to %s on this cluster", p.name, fact, n, p.name)
			}
		}
	}
}
