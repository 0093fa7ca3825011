// Exercise g05: predict the graphs of three programs.
//
// TestYourPrediction reads the answers from the file FLINKLAB_PREDICTION
// names (`go run ./tools/learn check g05` passes exercises/g05/answer.txt),
// plans each program of programs_test.go into its JobGraph, and compares.
// A wrong answer is told what is wrong, never what is right.
package g05_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
)

// The facts asked of each program.
const (
	factJobVertices = "jobvertices"
	factSubtasks    = "subtasks"
	factSlots       = "slots"
	factTask        = "task"
)

// prediction is one program's answers.
type prediction struct {
	counts map[string]int // jobvertices, subtasks, slots
	tasks  []string       // one per JobVertex: its operators joined by " -> "
}

// readPrediction reads lines "PROGRAM.FACT: VALUE"; "#" starts a comment
// and a fact without a value is not answered yet.
func readPrediction(path string) (map[string]*prediction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]*prediction{}
	for _, p := range programs {
		out[p.name] = &prediction{counts: map[string]int{}}
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
		p, known := out[program]
		if !ok || !dotted || !known {
			return nil, fmt.Errorf("line %d: %q: write PROGRAM.FACT: VALUE, PROGRAM one of alerts, enrich, merge", n, line)
		}
		value = strings.TrimSpace(value)
		if value == "" {
			continue
		}
		switch fact {
		case factJobVertices, factSubtasks, factSlots:
			count, err := strconv.Atoi(value)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s.%s: %q is not a number", n, program, fact, value)
			}
			p.counts[fact] = count
		case factTask:
			p.tasks = append(p.tasks, normalize(value))
		default:
			return nil, fmt.Errorf("line %d: %q: the facts are jobvertices, subtasks, slots and task", n, key)
		}
	}
	return out, scanner.Err()
}

// normalize writes a task's operators with single spaces around "->".
func normalize(task string) string {
	parts := strings.Split(task, "->")
	for i, p := range parts {
		parts[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(parts, " -> ")
}

// graphsOf plans a program into its JobGraph.
func graphsOf(t *testing.T, build func(env *streaming.StreamExecutionEnvironment)) *jobgraph.JobGraph {
	t.Helper()
	env := streaming.NewStreamExecutionEnvironment()
	build(env)
	g, err := env.GetStreamGraph("g05")
	require.NoError(t, err)
	jg, err := g.JobGraph()
	require.NoError(t, err)
	return jg
}

// Every program plans into a JobGraph, so that a prediction is compared
// with something real.
func TestTheProgramsPlan(t *testing.T) {
	for _, p := range programs {
		jg := graphsOf(t, p.build)
		require.NotEmpty(t, jg.Vertices(), p.name)
	}
}

func TestYourPrediction(t *testing.T) {
	path := os.Getenv("FLINKLAB_PREDICTION")
	if path == "" {
		t.Skip("no prediction to compare: go run ./tools/learn check g05 compares exercises/g05/answer.txt")
	}
	predicted, err := readPrediction(path)
	require.NoError(t, err, "reading your prediction")
	for _, p := range programs {
		jg := graphsOf(t, p.build)
		mine := predicted[p.name]
		subtasks := 0
		var tasks []string
		for _, v := range jg.Vertices() {
			subtasks += v.Parallelism
			tasks = append(tasks, v.Name)
		}
		slots, _ := jg.SlotsNeeded()
		actual := map[string]int{factJobVertices: len(tasks), factSubtasks: subtasks, factSlots: slots}
		for _, fact := range []string{factJobVertices, factSubtasks, factSlots} {
			n, answered := mine.counts[fact]
			switch {
			case !answered:
				t.Errorf("%s.%s: not predicted yet", p.name, fact)
			case n != actual[fact]:
				t.Errorf("%s.%s: %d is not what the graphs of %s have", p.name, fact, n, p.name)
			}
		}
		if len(mine.tasks) == 0 {
			t.Errorf("%s.task: not predicted yet: one line per task, its operators joined by \" -> \"", p.name)
			continue
		}
		for _, task := range mine.tasks {
			if !slices.Contains(tasks, task) {
				t.Errorf("%s.task: %q: no task of %s runs exactly these operators in this order", p.name, task, p.name)
			}
		}
		for _, task := range tasks {
			if !slices.Contains(mine.tasks, task) && len(mine.tasks) < len(tasks) {
				t.Errorf("%s.task: a task is missing: %s has more tasks than the %d you listed", p.name, p.name, len(mine.tasks))
				break
			}
		}
	}
}
