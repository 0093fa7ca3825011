// Exercise c05: predict which subtasks restart.
//
// TestYourPrediction reads the answers from the file FLINKLAB_PREDICTION
// names (`go run ./tools/learn check c05` passes exercises/c05/answer.txt)
// and runs each scenario of the README on a real DefaultScheduler, with
// Flink's default failover strategy, region, and its partition tracker
// (scenario.StartDefaultScheduler): the test plays the two TaskManagers,
// offers their slots, reports the tasks RUNNING and FINISHED, makes the
// failure happen, and reads, from the job's ExecutionGraph, which
// subtasks have a new attempt once the restart is done. A wrong answer
// is told what is wrong, never what is right.
package c05_test

import (
	"bufio"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/scheduler"
	"flinklab/runtime/streaming"

	_ "flinklab/runtime/examples/pipelines" // the program "pipelines"
	_ "flinklab/runtime/examples/wordcount" // the program "wordcount"
)

// job is one of the README's three jobs: a program, planned at a
// parallelism, and the short name of each of its tasks.
type job struct {
	name        string
	program     string
	args        []string
	parallelism int
	tasks       map[string]string // task name → short name
}

var (
	pipelines = job{"pipelines at parallelism 3", "pipelines", nil, 3, map[string]string{
		"Source: numbers":          "numbers",
		"work -> Sink: print-sink": "work",
	}}
	wordCount = job{"WordCount at parallelism 2", "wordcount", nil, 2, map[string]string{
		"Source: file-input -> tokenizer": "tokenizer",
		"counter -> Sink: print-sink":     "counter",
	}}
	batchWordCount = job{"WordCount in BATCH mode at parallelism 3", "wordcount", []string{"--execution-mode", "BATCH"}, 3, wordCount.tasks}
)

// question is one line of the answer: a job, and what happens to it.
type question struct {
	key string // "pipelines.work"
	job job
	// happen makes the failure, on a job whose tasks run (and, for a
	// batch job, whose first stage has finished).
	happen func(t *testing.T, r *run)
}

var questions = []question{
	{"pipelines.work", pipelines, func(t *testing.T, r *run) { r.fail(t, "work", 2) }},
	{"pipelines.tm1", pipelines, func(t *testing.T, r *run) { r.lose(t, "tm-1") }},
	{"wordcount.counter", wordCount, func(t *testing.T, r *run) { r.fail(t, "counter", 1) }},
	{"batch.counter", batchWordCount, func(t *testing.T, r *run) { r.fail(t, "counter", 1) }},
	{"batch.tm2", batchWordCount, func(t *testing.T, r *run) { r.lose(t, "tm-2") }},
}

// run is a job running on the README's cluster.
type run struct {
	*scenario.Scheduling
	job job
}

// The restart strategy of the README's cluster.
const restartDelay = time.Second

// start plans the job, starts it on a DefaultScheduler and brings it to
// where the README's failures happen: every task RUNNING, and for the
// batch job, the first stage FINISHED and the second RUNNING. tm-1
// offers its two slots first, then tm-2 its two.
func start(t *testing.T, j job) *run {
	t.Helper()
	streamGraph, err := streaming.PlanProgram(j.program, j.args, j.parallelism)
	require.NoError(t, err)
	jg, err := streamGraph.JobGraph()
	require.NoError(t, err)
	restarts, err := failover.NewFixedDelayRestartBackoffTimeStrategy(failover.FixedDelayConfig{Attempts: 3, Delay: restartDelay})
	require.NoError(t, err)
	s, _ := scenario.StartDefaultScheduler(t, jg, scheduler.Config{RestartStrategy: restarts})
	require.NoError(t, s.StartScheduling())
	s.Offer("tm-1", 2)
	s.Offer("tm-2", 2)
	synctest.Wait()
	require.NoError(t, s.Run(s.Deployed(0)...))
	if first := s.Deployed(0); len(first) < j.parallelism*len(j.tasks) {
		require.NoError(t, s.Finish(first...)) // a batch job's first stage
		synctest.Wait()
		require.NoError(t, s.Run(s.Deployed(len(first))...))
	}
	synctest.Wait()
	return &run{Scheduling: s, job: j}
}

// subtask returns the running attempt of a subtask, by short name and
// number (1 to the parallelism).
func (r *run) subtask(t *testing.T, name string, number int) gateway.TaskDeploymentDescriptor {
	t.Helper()
	for task, short := range r.job.tasks {
		if short == name {
			tdd, ok := r.Latest(task, number-1)
			require.True(t, ok, "%s %d never ran", name, number)
			return tdd
		}
	}
	t.Fatalf("no task %s", name)
	return gateway.TaskDeploymentDescriptor{}
}

// fail makes a subtask throw.
func (r *run) fail(t *testing.T, name string, number int) {
	t.Helper()
	require.NoError(t, r.Report(r.subtask(t, name, number), api.ExecutionFailed, errors.New("java.lang.RuntimeException: processElement threw")))
}

// lose makes a TaskManager disappear.
func (r *run) lose(t *testing.T, tm string) {
	t.Helper()
	require.NoError(t, r.LoseTaskManager(tm))
}

// placement says where each subtask runs: "tm-1: numbers 1, work 1, …".
func (r *run) placement() map[string][]string {
	out := map[string][]string{}
	for _, v := range r.Job().Vertices {
		for _, st := range v.Subtasks {
			tm := string(st.TaskManager)
			out[tm] = append(out[tm], fmt.Sprintf("%s %d", r.job.tasks[v.Name], st.SubtaskIndex+1))
		}
	}
	return out
}

// restarted lets the failure of q happen and the restart it causes finish
// (the tasks being cancelled report CANCELED, the restart delay passes),
// and returns the subtasks with a new attempt, "work 2", sorted.
func restarted(t *testing.T, q question) []string {
	t.Helper()
	var out []string
	synctest.Test(t, func(t *testing.T) {
		r := start(t, q.job)
		q.happen(t, r)
		synctest.Wait()
		for reported := 0; reported < len(r.Cancelled()); reported++ {
			id := r.Cancelled()[reported]
			for _, tdd := range r.Deployed(0) {
				if tdd.ExecutionAttemptID == id {
					require.NoError(t, r.Report(tdd, api.ExecutionCanceled, nil))
				}
			}
			synctest.Wait()
		}
		time.Sleep(restartDelay)
		synctest.Wait()
		require.Equal(t, api.JobRunning, r.JobStatus(), "%s: the job runs again after the restart", q.key)
		for _, v := range r.Job().Vertices {
			for _, st := range v.Subtasks {
				if st.AttemptNumber > 0 {
					out = append(out, fmt.Sprintf("%s %d", q.job.tasks[v.Name], st.SubtaskIndex+1))
				}
			}
		}
		r.OnMain(r.Scheduler.Cancel) // nothing is left running in the bubble
	})
	slices.Sort(out)
	return out
}

// The scenarios are what the README says: the tasks, their exchanges, and
// where each subtask runs when the failure comes.
func TestTheScenariosAreWhatTheReadmeSays(t *testing.T) {
	for _, tt := range []struct {
		job      job
		exchange string
		where    map[string][]string
	}{
		{pipelines, "POINTWISE PIPELINED_BOUNDED", map[string][]string{
			"tm-1": {"numbers 1", "numbers 2", "work 1", "work 2"}, "tm-2": {"numbers 3", "work 3"}}},
		{wordCount, "ALL_TO_ALL PIPELINED_BOUNDED", map[string][]string{
			"tm-1": {"counter 1", "counter 2", "tokenizer 1", "tokenizer 2"}}},
		{batchWordCount, "ALL_TO_ALL BLOCKING", map[string][]string{
			"tm-1": {"counter 1", "counter 2", "tokenizer 1", "tokenizer 2"}, "tm-2": {"counter 3", "tokenizer 3"}}},
	} {
		t.Run(tt.job.name, func(t *testing.T) {
			streamGraph, err := streaming.PlanProgram(tt.job.program, tt.job.args, tt.job.parallelism)
			require.NoError(t, err)
			jg, err := streamGraph.JobGraph()
			require.NoError(t, err)
			require.Len(t, jg.Vertices(), 2)
			for _, v := range jg.Vertices() {
				require.Contains(t, tt.job.tasks, v.Name)
				require.Equal(t, tt.job.parallelism, v.Parallelism, v.Name)
				require.Equal(t, "default", v.SlotSharingGroup, v.Name)
			}
			edge := jg.Vertices()[1].Inputs()[0]
			require.Equal(t, tt.exchange, fmt.Sprint(edge.DistributionPattern, " ", edge.Source.ResultType))
			synctest.Test(t, func(t *testing.T) {
				r := start(t, tt.job)
				where := r.placement()
				for tm := range where {
					slices.Sort(where[tm])
				}
				require.Equal(t, tt.where, where, "where the subtasks run when the failures come")
				if tt.job.args != nil { // the batch job: its first stage has finished
					for _, v := range r.Job().Vertices {
						want := api.ExecutionRunning
						if tt.job.tasks[v.Name] == "tokenizer" {
							want = api.ExecutionFinished
						}
						for _, st := range v.Subtasks {
							require.Equal(t, want, st.State, "%s (%d/3)", v.Name, st.SubtaskIndex+1)
						}
					}
				}
				r.OnMain(r.Scheduler.Cancel)
			})
		})
	}
}

// readPrediction reads lines "JOB.QUESTION: SUBTASKS", SUBTASKS a list
// like "numbers 2, work 2", or "none"; "#" starts a comment and a
// question without an answer is not answered yet.
func readPrediction(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byKey := map[string]question{}
	for _, q := range questions {
		byKey[q.key] = q
	}
	out := map[string][]string{}
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line, _, _ := strings.Cut(scanner.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		q, known := byKey[key]
		if !ok || !known {
			return nil, fmt.Errorf("line %d: %q: write QUESTION: SUBTASKS, QUESTION one of %s", n, line, strings.Join(slices.Sorted(maps.Keys(byKey)), ", "))
		}
		value = strings.TrimSpace(value)
		if value == "" {
			continue
		}
		subtasks := []string{}
		if value != "none" {
			for item := range strings.SplitSeq(value, ",") {
				fields := strings.Fields(item)
				if len(fields) != 2 {
					return nil, fmt.Errorf("line %d: %s: %q: write each subtask as a task's short name and its number, \"work 2\", separated by commas", n, key, strings.TrimSpace(item))
				}
				if !slices.Contains(slices.Collect(maps.Values(q.job.tasks)), fields[0]) {
					return nil, fmt.Errorf("line %d: %s: %q is none of this job's tasks (%s)", n, key, fields[0], strings.Join(slices.Sorted(maps.Values(q.job.tasks)), ", "))
				}
				number, err := strconv.Atoi(fields[1])
				if err != nil || number < 1 || number > q.job.parallelism {
					return nil, fmt.Errorf("line %d: %s: %q: a subtask's number runs from 1 to %d, as in %q", n, key, strings.TrimSpace(item), q.job.parallelism, "(2/3)")
				}
				subtask := fields[0] + " " + fields[1]
				if slices.Contains(subtasks, subtask) {
					return nil, fmt.Errorf("line %d: %s: %s is written twice", n, key, subtask)
				}
				subtasks = append(subtasks, subtask)
			}
		}
		slices.Sort(subtasks)
		out[key] = subtasks
	}
	return out, scanner.Err()
}

func TestYourPrediction(t *testing.T) {
	path := os.Getenv("FLINKLAB_PREDICTION")
	if path == "" {
		t.Skip("no prediction to compare: go run ./tools/learn check c05 compares exercises/c05/answer.txt")
	}
	predicted, err := readPrediction(path)
	require.NoError(t, err, "reading your prediction")
	for _, q := range questions {
		answer, answered := predicted[q.key]
		if !answered {
			t.Errorf("%s: not predicted yet", q.key)
			continue
		}
		actual := restarted(t, q)
		for _, subtask := range answer {
			if !slices.Contains(actual, subtask) {
				t.Errorf("%s: %s is not restarted: it keeps its attempt #0", q.key, subtask)
			}
		}
		var missing int
		for _, subtask := range actual {
			if !slices.Contains(answer, subtask) {
				missing++
			}
		}
		switch {
		case missing == 1:
			t.Errorf("%s: a subtask that gets a new attempt is missing from your answer", q.key)
		case missing > 1:
			t.Errorf("%s: %d subtasks that get a new attempt are missing from your answer", q.key, missing)
		}
	}
}
