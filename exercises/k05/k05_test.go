// Exercise k05: predict what a two-phase-commit sink has committed when a
// TaskManager dies between two checkpoints.
//
// TestYourPrediction reads the answers from the file FLINKLAB_PREDICTION
// names (`go run ./tools/learn check k05` passes exercises/k05/answer.txt)
// and runs the README's scenario for real, twice, on a MiniCluster inside
// a synctest bubble, where its clock is exact: once with the
// transactional file sink and once with a collect sink. It lists the
// sink's files just before the kill, reads from the logs and the trace
// which subtasks restarted, from which checkpoint, and which checkpoint
// completed next, and reads the committed part files once the job has
// finished. A wrong answer is told what is wrong, never what is right.
//
// TestTheScenarioIsWhatTheReadmeSays checks the README's timeline against
// the same run.
package k05_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	"flinklab/runtime/trace"

	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// The README's job: the numbers 0 to 99, ten a second over two subtasks,
// each subtask's source chained to its sink.
const (
	programClass = "k05-numbers"
	jobName      = "Numbers"
	count        = 100
	rate         = 10 // records a second, over both subtasks
	parallelism  = 2
)

// The README's cluster and timeline, from the job's submission.
const (
	checkpointInterval = time.Second
	killAt             = 3500 * time.Millisecond // the TaskManager of subtask 1 dies
	killedSubtask      = 1
)

// collected is the collect sink's: package-level, because every task
// plans the program again and must find the same sink (see
// streaming.DataStream.CollectAsync).
var collected streaming.CollectSink[int64]

func init() { streaming.RegisterProgram(programClass, numbers) }

// numbers is the README's program. With a directory as its argument it
// writes into part files there; without one it collects.
func numbers(env *streaming.StreamExecutionEnvironment, args []string) error {
	records := streaming.FromGenerator(env, emit, count, rate).Name("numbers")
	if len(args) == 1 {
		records.SinkToTransactionalFiles(args[0]).Name("file-sink")
	} else {
		records.CollectAsync(&collected).Name("collect-sink")
	}
	return env.Execute(jobName)
}

// emitted notes when each record was emitted, from the submission: the
// generator calls emit at the moment the source emits the record, so a
// replayed record is noted twice.
var emitted struct {
	sync.Mutex
	since time.Time
	at    map[int64][]time.Duration
}

// emit is the generator function: record i is the number i.
func emit(i int64) int64 {
	emitted.Lock()
	defer emitted.Unlock()
	emitted.at[i] = append(emitted.at[i], time.Since(emitted.since))
	return i
}

// files are a sink's files at one moment, by their names: the committed
// part files in its directory, the pending ones in .pending/, the ones in
// progress in .in-progress/.
type files struct {
	committed, pending, inProgress []string
}

// run is what happened in one run of the scenario.
type run struct {
	atKill     files
	restarted  []int                     // the subtasks that got a new attempt
	restored   []int64                   // the checkpoints a restore started from
	next       int64                     // the first checkpoint completed after the kill
	parts      map[string][]int64        // the committed part files at the end, and their records
	collected  []int64                   // what the collect sink received, in order
	emitted    map[int64][]time.Duration // when each record was emitted
	events     []trace.Event             // the job's trace
	logs       string                    // the cluster's log
	submitted  time.Time                 // in the bubble's clock
	taskCount  int                       // the job's tasks (JobVertices)
	taskName   string                    // its task's name
	finalState api.JobStatus
}

// runScenario runs the README's scenario, with the transactional file
// sink (collect false) or the collect sink, and returns what happened.
func runScenario(t *testing.T, collect bool) *run {
	t.Helper()
	r := &run{}
	synctest.Test(t, func(t *testing.T) {
		cp := checkpoint.DefaultCheckpointCoordinatorConfiguration()
		cp.Interval = checkpointInterval
		cp.MinPause = checkpointInterval // the first checkpoint one interval after RUNNING, not at random before
		cluster, logs := scenario.Cluster(t, minicluster.Config{
			NumTaskManagers:        3,
			NumSlotsPerTaskManager: 1,
			Checkpointing:          cp,
		}.WithQuickRecovery())

		var dir string
		var args []string
		if !collect {
			dir = t.TempDir()
			args = []string{dir}
		}
		collected.Clear()
		streamGraph, err := streaming.PlanProgram(programClass, args, parallelism)
		require.NoError(t, err)
		jg, err := streamGraph.JobGraph()
		require.NoError(t, err)
		r.taskCount = len(jg.Vertices())
		r.taskName = jg.Vertices()[0].Name
		var jar bytes.Buffer
		require.NoError(t, client.WriteJar(&jar, programClass, nil))
		require.NoError(t, cluster.UploadJar(jg, jar.Bytes()))

		// The job runs from its submission on.
		r.submitted = time.Now()
		emitted.Lock()
		emitted.since, emitted.at = r.submitted, map[int64][]time.Duration{}
		emitted.Unlock()
		jobID, err := cluster.SubmitJob(context.Background(), jg)
		require.NoError(t, err)

		// At 3.5 s, with everything at rest, the sink's files; then the
		// TaskManager of subtask 1 dies.
		time.Sleep(killAt)
		synctest.Wait()
		if !collect {
			r.atKill = listFiles(t, dir)
		}
		graph, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		victim := graph.Vertices[0].Subtasks[killedSubtask].TaskManager
		for i, te := range cluster.TaskExecutors() {
			if te.ResourceID() == victim {
				cluster.KillTaskManager(i)
			}
		}

		// The job fails over and runs to its end.
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		r.finalState = result.JobStatus
		graph, err = cluster.Dispatcher().RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		for _, st := range graph.Vertices[0].Subtasks {
			if st.AttemptNumber > 0 {
				r.restarted = append(r.restarted, st.SubtaskIndex)
			}
		}
		r.logs = logs.String()
		r.events = cluster.Trace().JobEvents(jobID)
		for _, m := range restoredFrom.FindAllStringSubmatch(r.logs, -1) {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			r.restored = append(r.restored, id)
		}
		for _, e := range r.events {
			if id, ok := checkpointOf(e, trace.K6, "Completed checkpoint "); ok && !e.Failed && e.Time.Sub(r.submitted) > killAt {
				r.next = id
				break
			}
		}
		if !collect {
			r.parts = committedParts(t, dir)
		}
		r.collected = collected.Values()
		emitted.Lock()
		r.emitted = emitted.at
		emitted.Unlock()
	})
	require.Equal(t, api.JobFinished, r.finalState, "the job ends FINISHED after its failover")
	require.Len(t, r.restored, 1, "the job restores a checkpoint once")
	return r
}

// restoredFrom finds the checkpoint in the CheckpointCoordinator's
// "Restoring job … from Checkpoint 3 @ …".
var restoredFrom = regexp.MustCompile(`Restoring job \S+ from Checkpoint (\d+) @`)

// checkpointOf returns the checkpoint an event of step names, when its
// message starts with prefix and the checkpoint's number.
func checkpointOf(e trace.Event, step trace.Step, prefix string) (int64, bool) {
	rest, ok := strings.CutPrefix(e.Message, prefix)
	if e.Step != step || !ok {
		return 0, false
	}
	number, _, _ := strings.Cut(rest, " ")
	id, err := strconv.ParseInt(number, 10, 64)
	return id, err == nil
}

// listFiles lists the sink's files in dir by their names.
func listFiles(t *testing.T, dir string) files {
	t.Helper()
	names := func(sub string) []string {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		require.NoError(t, err)
		var out []string
		for _, e := range entries {
			if !e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out
	}
	return files{committed: names("."), pending: names(".pending"), inProgress: names(".in-progress")}
}

// committedParts reads the committed part files: each one's records.
func committedParts(t *testing.T, dir string) map[string][]int64 {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "part-*"))
	require.NoError(t, err)
	parts := map[string][]int64{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var records []int64
		for line := range strings.Lines(string(data)) {
			n, err := strconv.ParseInt(strings.TrimSuffix(line, "\n"), 10, 64)
			require.NoError(t, err, "a line of %s", filepath.Base(path))
			records = append(records, n)
		}
		parts[filepath.Base(path)] = records
	}
	return parts
}

// lines returns every record of the committed part files, one per line.
func (r *run) lines() []int64 {
	var all []int64
	for _, records := range r.parts {
		all = append(all, records...)
	}
	return all
}

// partsHolding returns the committed part files that hold record, sorted.
func (r *run) partsHolding(record int64) []string {
	var names []string
	for name, records := range r.parts {
		if slices.Contains(records, record) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// duplicates counts the records that appear more than once.
func duplicates(records []int64) int {
	seen := map[int64]int{}
	n := 0
	for _, record := range records {
		seen[record]++
		if seen[record] == 2 {
			n++
		}
	}
	return n
}

// when returns the moment, from the submission, of the first log line
// that holds every one of parts.
func (r *run) when(t *testing.T, parts ...string) time.Duration {
	t.Helper()
	for line := range strings.Lines(r.logs) {
		if !containsAll(line, parts) {
			continue
		}
		stamp, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
		at, err := time.Parse(time.RFC3339Nano, stamp)
		require.NoError(t, err, line)
		return at.Sub(r.submitted)
	}
	t.Fatalf("no log line holds %q", parts)
	return 0
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// checkpointTimes returns, from the submission, when each checkpoint of
// the run was triggered and when it completed (absent: never).
func (r *run) checkpointTimes() (triggered, completed map[int64]time.Duration) {
	triggered, completed = map[int64]time.Duration{}, map[int64]time.Duration{}
	for _, e := range r.events {
		if id, ok := checkpointOf(e, trace.K1, "Triggering checkpoint "); ok && !e.Failed {
			triggered[id] = e.Time.Sub(r.submitted)
		}
		if id, ok := checkpointOf(e, trace.K6, "Completed checkpoint "); ok && !e.Failed {
			completed[id] = e.Time.Sub(r.submitted)
		}
	}
	return triggered, completed
}

// The README's timeline is the run's: the job, when each subtask emits
// which record, when the checkpoints come, when the TaskManager dies,
// when its loss is noticed and when the job runs again.
func TestTheScenarioIsWhatTheReadmeSays(t *testing.T) {
	for _, collect := range []bool{false, true} {
		sink := map[bool]string{false: "file-sink", true: "collect-sink"}[collect]
		t.Run(sink, func(t *testing.T) {
			r := runScenario(t, collect)
			require.Equal(t, 1, r.taskCount, "the job is one task, the source chained to its sink")
			require.Equal(t, "Source: numbers -> Sink: "+sink, r.taskName)

			ms := time.Millisecond
			require.Equal(t, time.Duration(0), r.when(t, "switched from state CREATED to RUNNING."), "the job runs")
			require.Equal(t, 50*ms, r.when(t, "(1/2)", "switched from INITIALIZING to RUNNING", "logger=ExecutionGraph"), "subtask 0 runs")
			require.Equal(t, 50*ms, r.when(t, "(2/2)", "switched from INITIALIZING to RUNNING", "logger=ExecutionGraph"), "subtask 1 runs")
			for i := int64(0); i < count; i++ {
				subtask, k := i%parallelism, i/parallelism
				if subtask == killedSubtask && 50*ms+time.Duration(k)*200*ms > killAt {
					continue // never emitted by the first attempt
				}
				require.Equal(t, 50*ms+time.Duration(k)*200*ms, r.emitted[i][0], "record %d: subtask %d's record #%d", i, subtask, k)
			}

			triggered, completed := r.checkpointTimes()
			for id := int64(1); id <= 4; id++ {
				require.Equal(t, time.Duration(id)*time.Second, triggered[id], "checkpoint %d is triggered", id)
			}
			for id := int64(1); id <= 3; id++ {
				require.Equal(t, time.Duration(id)*time.Second, completed[id], "checkpoint %d completes at once", id)
			}
			require.NotContains(t, completed, int64(4), "checkpoint 4 never completes")

			require.Equal(t, killAt, r.when(t, "Killing TaskManager"), "the TaskManager dies")
			require.Equal(t, 4400*ms, r.when(t, "Heartbeat of TaskManager with id", "timed out.", "logger=JobMaster"), "the JobMaster notices")
			require.Equal(t, 4400*ms, r.when(t, "switched from state RUNNING to RESTARTING."), "the job restarts")
			require.Equal(t, 4500*ms, r.when(t, "switched from state RESTARTING to RUNNING."), "the job runs again")
			require.Equal(t, 4550*ms, r.when(t, "(2/2)", "#1", "switched from INITIALIZING to RUNNING", "logger=Task"), "the new attempt runs")
			// The restarted subtask emits from where its checkpoint left off, at the same pace.
			for k, i := 0, int64(31); i < count; k, i = k+1, i+parallelism {
				require.Equal(t, 4550*ms+time.Duration(k)*200*ms, r.emitted[i][len(r.emitted[i])-1], "record %d, replayed", i)
			}
			require.Equal(t, 5500*ms, triggered[r.next], "the checkpoints start again one interval after the job runs again")
			finished := r.when(t, "switched from state RUNNING to FINISHED.")
			require.True(t, finished >= 11*time.Second && finished < 12*time.Second, "the job finishes at about 11 s, not at %v", finished)
		})
	}
}

// The questions, as the answer file names them.
const (
	keyCommitted   = "kill.committed"
	keyPending     = "kill.pending"
	keyInProgress  = "kill.in-progress"
	keySubtasks    = "restart.subtasks"
	keyRestored    = "restart.checkpoint"
	keyNext        = "next.checkpoint"
	keyRecord34    = "record.34"
	keyRecord35    = "record.35"
	keyLines       = "end.lines"
	keyDuplicates  = "end.duplicates"
	keyCollected   = "collect.records"
	keyCollectDups = "collect.duplicates"
)

// keys lists the questions in the order of the template.
var keys = []string{keyCommitted, keyPending, keyInProgress, keySubtasks, keyRestored, keyNext,
	keyRecord34, keyRecord35, keyLines, keyDuplicates, keyCollected, keyCollectDups}

// partName is a name the sink gives a file: part-1-3, part-1-after-3, part-1-end.
var partName = regexp.MustCompile(`^part-\d+-(\d+|after-\d+|end)$`)

// prediction is the answers, by key: a list of names (files, subtasks)
// or one value (a number, a file, "none").
type prediction map[string][]string

// readPrediction reads lines "QUESTION: ANSWER"; "#" starts a comment and
// a question without an answer is not answered yet.
func readPrediction(path string) (prediction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := prediction{}
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line, _, _ := strings.Cut(scanner.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || !slices.Contains(keys, key) {
			return nil, fmt.Errorf("line %d: %q: write QUESTION: ANSWER, QUESTION one of %s", n, line, strings.Join(keys, ", "))
		}
		if _, twice := out[key]; twice {
			return nil, fmt.Errorf("line %d: %s is answered twice", n, key)
		}
		if value == "" {
			continue
		}
		answer, err := parseAnswer(key, value)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n, key, err)
		}
		out[key] = answer
	}
	return out, scanner.Err()
}

// parseAnswer checks one answer's form: files by their names, subtasks by
// their numbers, each list separated by commas or "none"; a checkpoint or
// a count as a number; a record's part file by its name, or "none".
func parseAnswer(key, value string) ([]string, error) {
	switch key {
	case keyCommitted, keyPending, keyInProgress, keySubtasks:
		if value == "none" {
			return []string{}, nil
		}
		var items []string
		for item := range strings.SplitSeq(value, ",") {
			item = strings.TrimSpace(item)
			if err := checkItem(key, item); err != nil {
				return nil, err
			}
			if slices.Contains(items, item) {
				return nil, fmt.Errorf("%s is written twice", item)
			}
			items = append(items, item)
		}
		slices.Sort(items)
		return items, nil
	case keyRecord34, keyRecord35:
		if value == "none" {
			return []string{value}, nil
		}
		return []string{value}, checkItem(key, value)
	default:
		if n, err := strconv.Atoi(value); err != nil || n < 0 {
			return nil, fmt.Errorf("%q: write a number", value)
		}
		return []string{value}, nil
	}
}

// checkItem checks one file's name or one subtask's number.
func checkItem(key, item string) error {
	switch {
	case key == keySubtasks:
		if n, err := strconv.Atoi(item); err != nil || n < 0 || n >= parallelism {
			return fmt.Errorf("%q: write each subtask by its number as the part files name it, 0 or 1, separated by commas, or none", item)
		}
	case strings.Contains(item, "/"):
		return fmt.Errorf("%q: write the file's name without its directory", item)
	case !partName.MatchString(item) && (key == keyRecord34 || key == keyRecord35):
		return fmt.Errorf("%q: write the part file's name as the sink gives it, such as part-1-2, or none", item)
	case !partName.MatchString(item):
		return fmt.Errorf("%q: write the file's name as the sink gives it, such as part-1-2 or part-1-after-2, separated by commas, or none", item)
	}
	return nil
}

func TestYourPrediction(t *testing.T) {
	path := os.Getenv("FLINKLAB_PREDICTION")
	if path == "" {
		t.Skip("no prediction to compare: go run ./tools/learn check k05 compares exercises/k05/answer.txt")
	}
	predicted, err := readPrediction(path)
	require.NoError(t, err, "reading your prediction")
	var unanswered []string
	for _, key := range keys {
		if _, ok := predicted[key]; !ok {
			unanswered = append(unanswered, key)
		}
	}
	if len(unanswered) == len(keys) {
		t.Fatalf("%s: not predicted yet", strings.Join(unanswered, ", "))
	}
	for _, key := range unanswered {
		t.Errorf("%s: not predicted yet", key)
	}
	withFiles, withCollect := runScenario(t, false), runScenario(t, true)

	// 1. The files at the kill.
	compareList(t, keyCommitted, predicted[keyCommitted], withFiles.atKill.committed, "committed at the kill")
	compareList(t, keyPending, predicted[keyPending], withFiles.atKill.pending, "pending at the kill")
	compareList(t, keyInProgress, predicted[keyInProgress], withFiles.atKill.inProgress, "in progress at the kill")

	// 2. The failover.
	var restarted []string
	for _, subtask := range withFiles.restarted {
		restarted = append(restarted, strconv.Itoa(subtask))
	}
	if answer, ok := predicted[keySubtasks]; ok {
		for _, subtask := range answer {
			if !slices.Contains(restarted, subtask) {
				t.Errorf("%s: subtask %s does not restart: it keeps its attempt #0", keySubtasks, subtask)
			}
		}
		if countMissing(answer, restarted) > 0 {
			t.Errorf("%s: a subtask that restarts is missing from your answer", keySubtasks)
		}
	}
	compareNumber(t, keyRestored, predicted, withFiles.restored[0], "the checkpoint the restarted subtasks restore")

	// 3. The next checkpoint.
	compareNumber(t, keyNext, predicted, withFiles.next, "the first checkpoint to complete after the kill")

	// 4. Where two records end up.
	for _, q := range []struct {
		key    string
		record int64
	}{{keyRecord34, 34}, {keyRecord35, 35}} {
		key, record := q.key, q.record
		if _, ok := predicted[key]; !ok {
			continue
		}
		answer, holding := predicted[key][0], withFiles.partsHolding(record)
		switch {
		case answer == "none" && len(holding) > 0:
			t.Errorf("%s: record %d is not lost: a committed part file holds it at the end", key, record)
		case answer != "none" && !slices.Contains(holding, answer):
			t.Errorf("%s: record %d is not in %s at the end", key, record, answer)
		}
	}

	// 5. The end, with the transactional sink.
	compareNumber(t, keyLines, predicted, int64(len(withFiles.lines())), "how many lines the committed part files hold at the end")
	compareNumber(t, keyDuplicates, predicted, int64(duplicates(withFiles.lines())), "how many records the committed part files hold more than once")

	// 6. The same run with the collect sink.
	compareNumber(t, keyCollected, predicted, int64(len(withCollect.collected)), "how many records the collect sink receives")
	compareNumber(t, keyCollectDups, predicted, int64(duplicates(withCollect.collected)), "how many records the collect sink receives more than once")
}

// compareList names each item of the answer that is not among actual, and
// counts those the answer leaves out, without naming them.
func compareList(t *testing.T, key string, answer, actual []string, what string) {
	t.Helper()
	if answer == nil {
		return // not predicted yet
	}
	for _, item := range answer {
		if !slices.Contains(actual, item) {
			t.Errorf("%s: %s is not %s", key, item, what)
		}
	}
	switch missing := countMissing(answer, actual); {
	case missing == 1:
		t.Errorf("%s: a file %s is missing from your answer", key, what)
	case missing > 1:
		t.Errorf("%s: %d files %s are missing from your answer", key, missing, what)
	}
}

// countMissing counts the items of actual that answer leaves out.
func countMissing(answer, actual []string) int {
	missing := 0
	for _, item := range actual {
		if !slices.Contains(answer, item) {
			missing++
		}
	}
	return missing
}

// compareNumber says that a number answered is not what: never the number
// it is.
func compareNumber(t *testing.T, key string, predicted prediction, actual int64, what string) {
	t.Helper()
	if answer, ok := predicted[key]; ok && answer[0] != strconv.FormatInt(actual, 10) {
		t.Errorf("%s: %s is not %s", key, answer[0], what)
	}
}
