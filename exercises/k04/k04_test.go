// Exercise k04: the two-phase-commit sink's commit, when a checkpoint
// completes.
//
// Every test runs the ticker (runtime/examples/ticker) with --output
// file on a MiniCluster in a synctest bubble: 1,000 sensor events at 100
// a second, five sensors, parallelism 2, a checkpoint every second (the
// first one second after the job runs), checkpoints in files. Its sink
// is the transactional file sink: each sink subtask writes the running
// counts it receives into a part file, which its checkpoint's barrier
// makes pending (.pending/part-<subtask>-<checkpoint>) and which becomes
// visible (part-<subtask>-<checkpoint>) when that checkpoint, or a later
// one, completes. Sensors 1 and 3 go to subtask 0, sensors 2, 4 and 5 to
// subtask 1, so both subtasks write between any two barriers.
//
// A run without failures commits every count of every sensor, 1 to 200,
// once. So must every run here, whatever goes wrong in it.
package k04_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
	"flinklab/runtime/trace"
)

const (
	events      = 1000
	rate        = 100
	parallelism = 2
	perSensor   = events / ticker.NumSensors
)

// pendingCommitTransactions names the sink's list state: one element per
// pending transaction, the writer's subtask (a uvarint) and the
// checkpoint (a varint).
const pendingCommitTransactions = "pending-commit-transactions"

// run is one run of the ticker with its file sink.
type run struct {
	t       *testing.T
	cluster *minicluster.MiniCluster
	job     api.JobID
	dir     string // the part files
}

// start starts a cluster of taskManagers TaskManagers with 2 slots each,
// with restart strategy restart, and submits the ticker.
func start(t *testing.T, taskManagers int, restart failover.Config, faults ...fault.Fault) *run {
	t.Helper()
	cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cfg.Interval = time.Second
	cfg.MinPause = time.Second // the first checkpoint comes one interval after the job runs, not at a random moment
	cfg.CheckpointsDir = t.TempDir()
	clusterCfg := minicluster.Config{NumTaskManagers: taskManagers, NumSlotsPerTaskManager: 2, Checkpointing: cfg}.WithQuickRecovery()
	clusterCfg.RestartStrategy = restart
	cluster, _ := scenario.Cluster(t, clusterCfg)

	r := &run{t: t, cluster: cluster, dir: t.TempDir()}
	sg, err := streaming.PlanProgram(ticker.ProgramClass, []string{"--output", ticker.OutputFile, "--path", r.dir,
		"--count", fmt.Sprint(events), "--rate", fmt.Sprint(rate)}, parallelism)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	for _, f := range faults {
		f.JobID = jg.JobID
		require.NoError(t, cluster.Faults().Inject(f))
	}
	jar, err := ticker.Jar()
	require.NoError(t, err)
	require.NoError(t, cluster.UploadJar(jg, jar))
	r.job, err = cluster.SubmitJob(context.Background(), jg)
	require.NoError(t, err)
	return r
}

// noRestart fails the job at its first failure, so that a test sees it.
var noRestart = failover.Config{Type: failover.TypeNoRestart}

// checkpoints counts the completed checkpoints (step k6) among a job's
// events, and those that failed at k6.
func checkpoints(events []trace.Event) (completed, failed int) {
	for _, e := range events {
		if e.Step == trace.K6 && e.Failed {
			failed++
		} else if e.Step == trace.K6 {
			completed++
		}
	}
	return completed, failed
}

// await waits until the job's checkpoints reach the counts, and until
// every task has handled what that set off (the notifications, the
// commits). It fails the test if the job stops first.
func (r *run) await(completed, failed int, what string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = r.cluster.Trace().Await(ctx, r.job, func(events []trace.Event) bool {
		c, f := checkpoints(events)
		return c >= completed && f >= failed
	})
	synctest.Wait()
	r.running(what)
	if c, f := checkpoints(r.cluster.Trace().JobEvents(r.job)); c < completed || f < failed {
		r.t.Fatalf("%s: after 30 s, %d checkpoints completed and %d failed, want %d and %d", what, c, f, completed, failed)
	}
}

// running fails the test if the job failed, or failed over, so far.
func (r *run) running(what string) {
	r.t.Helper()
	graph, err := r.cluster.Dispatcher().RequestJob(context.Background(), r.job)
	require.NoError(r.t, err)
	if graph.State != api.JobRunning || len(graph.ExceptionHistory) > 0 {
		r.t.Fatalf("%s: the job must run on without a failure, but it is %s%s", what, graph.State, r.failures())
	}
}

// failures describes the job's failures so far, oldest first.
func (r *run) failures() string {
	graph, err := r.cluster.Dispatcher().RequestJob(context.Background(), r.job)
	if err != nil || len(graph.ExceptionHistory) == 0 {
		return ""
	}
	var b strings.Builder
	for _, e := range slices.Backward(graph.ExceptionHistory) {
		fmt.Fprintf(&b, "\n\tfailure of %q: %s", e.TaskName, firstLine(e.Exception))
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// finish waits for the job's result.
func (r *run) finish() api.JobResult {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	result, err := r.cluster.RequestJobResult(ctx, r.job)
	require.NoError(r.t, err, "the job must end within a minute")
	return result
}

// files lists the files of sub ("" for the committed ones, ".pending",
// ".in-progress"), sorted.
func (r *run) files(sub string) []string {
	r.t.Helper()
	entries, err := os.ReadDir(filepath.Join(r.dir, sub))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(r.t, err)
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

func (r *run) committed() []string { return r.files("") }
func (r *run) pending() []string   { return r.files(".pending") }

// lines returns every line of the committed part files, sorted: what a
// reader of the directory sees.
func (r *run) lines() []string {
	r.t.Helper()
	var lines []string
	for _, name := range r.committed() {
		data, err := os.ReadFile(filepath.Join(r.dir, name))
		require.NoError(r.t, err)
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
	}
	slices.Sort(lines)
	return lines
}

// everyCountOnce is what a run without failures commits: each sensor's
// counts 1 to 200, once, sorted as lines are.
func everyCountOnce() []string {
	var lines []string
	for sensor := range ticker.NumSensors {
		for count := 1; count <= perSensor; count++ {
			lines = append(lines, fmt.Sprintf("(sensor-%d,%d)", sensor+1, count))
		}
	}
	slices.Sort(lines)
	return lines
}

// parts names the part files of the subtasks for the checkpoints.
func parts(checkpoints ...int) []string {
	var names []string
	for subtask := range parallelism {
		for _, c := range checkpoints {
			names = append(names, fmt.Sprintf("part-%d-%d", subtask, c))
		}
	}
	slices.Sort(names)
	return names
}

// checkEveryCountOnce checks that the job finished and committed what a
// run without failures commits, and left nothing behind.
func (r *run) checkEveryCountOnce(result api.JobResult) {
	r.t.Helper()
	require.Equal(r.t, api.JobFinished, result.JobStatus, "the job must finish: %s", result.FailureCause)
	got, want := r.lines(), everyCountOnce()
	var missing, twice []string
	seen := map[string]int{}
	for _, line := range got {
		seen[line]++
		if seen[line] == 2 {
			twice = append(twice, line)
		}
	}
	for _, line := range want {
		if seen[line] == 0 {
			missing = append(missing, line)
		}
	}
	if len(missing) > 0 || len(twice) > 0 || len(got) != len(want) {
		r.t.Errorf("the committed part files hold %d counts, want every count of every sensor once (%d): %d missing %s, %d twice %s",
			len(got), len(want), len(missing), sample(missing), len(twice), sample(twice))
	}
	for _, hidden := range []string{".pending", ".in-progress"} {
		assert.Empty(r.t, r.files(hidden), "%s: once the job has finished, every transaction was committed or thrown away", hidden)
	}
}

// sample shows the first few of many lines.
func sample(lines []string) string {
	if len(lines) > 4 {
		return fmt.Sprintf("%v …", lines[:4])
	}
	return fmt.Sprint(lines)
}

// sinkTasks returns, for each sink subtask, the TaskExecutor it runs on
// and its attempt.
func (r *run) sinkTasks() map[int]func(checkpointID int64) error {
	r.t.Helper()
	graph, err := r.cluster.Dispatcher().RequestJob(context.Background(), r.job)
	require.NoError(r.t, err)
	tasks := map[int]func(int64) error{}
	for _, v := range graph.Vertices {
		if !strings.Contains(v.Name, "file-sink") {
			continue
		}
		for _, st := range v.Subtasks {
			for _, te := range r.cluster.TaskExecutors() {
				if te.ResourceID() == st.TaskManager {
					te, attempt := te, st.AttemptID
					tasks[st.SubtaskIndex] = func(checkpointID int64) error {
						return te.ConfirmCheckpoint(context.Background(), attempt, checkpointID, 0)
					}
				}
			}
		}
	}
	require.Len(r.t, tasks, parallelism, "the sink subtasks and their TaskExecutors")
	return tasks
}

// notify tells every sink subtask that checkpoint checkpointID completed,
// as the CheckpointCoordinator does (step k7), once more, and waits until
// they have handled it.
func (r *run) notify(checkpointID int64) {
	r.t.Helper()
	for subtask, confirm := range r.sinkTasks() {
		require.NoError(r.t, confirm(checkpointID), "notify sink subtask %d of checkpoint %d", subtask, checkpointID)
	}
	synctest.Wait()
}

// pendingInState returns, for each sink subtask, the checkpoints of the
// transactions that the latest completed checkpoint names as pending in
// its state.
func (r *run) pendingInState() (checkpointID int64, pending map[int][]int64) {
	r.t.Helper()
	stats, err := r.cluster.Dispatcher().RequestCheckpointStats(context.Background(), r.job)
	require.NoError(r.t, err)
	require.NotNil(r.t, stats.Latest.Completed, "a completed checkpoint")
	metadata, err := checkpoint.LoadCheckpointMetadata(stats.Latest.Completed.ExternalPath)
	require.NoError(r.t, err)
	pending = map[int][]int64{}
	for _, op := range metadata.OperatorStates {
		for subtask, st := range op.SubtaskStates {
			for _, h := range st.ManagedOperatorState {
				if _, ok := h.StateNameToPartitionOffsets[pendingCommitTransactions]; !ok {
					continue
				}
				elements, err := h.Elements(pendingCommitTransactions)
				require.NoError(r.t, err)
				for _, element := range elements {
					_, n := binary.Uvarint(element)
					id, _ := binary.Varint(element[n:])
					pending[subtask] = append(pending[subtask], id)
				}
			}
		}
	}
	return metadata.CheckpointID, pending
}

// A part file becomes visible only once the checkpoint whose barrier
// closed it has completed, and then at once. Before the first
// checkpoint the records wait in progress; checkpoint 1's completion
// makes each sink subtask's first part file visible, and nothing else.
// A committed transaction is pending no more: the state of checkpoint 5
// names only checkpoint 5's own transactions. The job's end commits the
// rest.
func TestAPartFileBecomesVisibleWhenItsCheckpointCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, 1, noRestart)
		time.Sleep(900 * time.Millisecond)
		synctest.Wait()
		r.running("0.9 s in")
		assert.Empty(t, r.committed(), "0.9 s in, no checkpoint has completed yet: no part file may be visible")
		assert.Len(t, r.files(".in-progress"), parallelism, "0.9 s in, each sink subtask writes its first transaction")

		r.await(1, 0, "checkpoint 1")
		assert.Equal(t, parts(1), r.committed(), "checkpoint 1 completed: each sink subtask's transaction of checkpoint 1, and no other, is visible")
		assert.Empty(t, r.pending(), "checkpoint 1 completed: nothing of it may stay pending")
		counts := map[string][]string{}
		for _, line := range r.lines() {
			sensor, _, _ := strings.Cut(line, ",")
			counts[sensor] = append(counts[sensor], line)
		}
		assert.Len(t, counts, ticker.NumSensors, "after checkpoint 1, the counts of every sensor so far are visible")

		r.await(5, 0, "checkpoint 5")
		id, pending := r.pendingInState()
		require.NotEmpty(t, pending, "the state of checkpoint %d holds the sink's pending transactions", id)
		for subtask := range parallelism {
			if slices.ContainsFunc(pending[subtask], func(c int64) bool { return c != id }) {
				t.Errorf("the state of checkpoint %d names the transactions of sink subtask %d of checkpoints %v as pending, "+
					"want only checkpoint %d's own: the earlier ones were committed when their checkpoints completed, and a "+
					"committed transaction is pending no more (or the state grows with every checkpoint, and every restore "+
					"commits them all again)", id, subtask, pending[subtask], id)
			}
		}

		r.checkEveryCountOnce(r.finish())
	})
}

// Checkpoint 2 is aborted after every task acknowledged it: its
// _metadata cannot be written (fault k6). Each sink subtask has
// pre-committed its transaction of checkpoint 2, which stays pending:
// checkpoint 2 never completed, so it must not become visible, and its
// records will not come again, so it must not be thrown away. A late
// notification of checkpoint 1, as one delayed behind barrier 2 arrives,
// commits nothing of checkpoint 2. Checkpoint 3 completes: it covers
// every record before its barrier, and commits the transactions of both.
// A repeated notification of checkpoint 3 changes nothing.
func TestTheNextCompletedCheckpointCommitsTheTransactionOfAnAbortedOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, 1, noRestart, fault.Fault{Step: trace.K6, Kind: fault.MetadataWriteFails, After: 1})

		r.await(1, 1, "checkpoint 2 aborted")
		assert.Equal(t, parts(1), r.committed(),
			"checkpoint 2 was aborted: its transactions must not become visible, only those of checkpoint 1")
		assert.Equal(t, parts(2), r.pending(),
			"checkpoint 2 was aborted: its transactions must stay pending, for a later checkpoint to commit")

		r.notify(1)
		r.running("a late notification of checkpoint 1")
		assert.Equal(t, parts(1), r.committed(),
			"a late notification of checkpoint 1 must not commit the transactions of checkpoint 2, which never completed")
		assert.Equal(t, parts(2), r.pending(),
			"a late notification of checkpoint 1 must leave the transactions of checkpoint 2 pending")

		r.await(2, 1, "checkpoint 3")
		assert.Equal(t, parts(1, 2, 3), r.committed(),
			"checkpoint 3 completed: it covers the records before its barrier, those of aborted checkpoint 2 too")
		assert.Empty(t, r.pending(), "checkpoint 3 completed: nothing up to it may stay pending")

		r.notify(3)
		r.running("a repeated notification of checkpoint 3")
		assert.Equal(t, parts(1, 2, 3), r.committed(), "a repeated notification of checkpoint 3 changes nothing")

		r.checkEveryCountOnce(r.finish())
	})
}

// As before, checkpoint 2 is aborted; then sink subtask 0's pending
// transaction of checkpoint 2 is lost, as if the disk had lost it. When
// checkpoint 3 completes, subtask 0 cannot commit it: its records are
// gone, and only an error can say so, failing the job (without restarts
// here) rather than finishing with counts missing. Nothing subtask 0
// wrote after the lost transaction may become visible either: a reader
// would see the counts of checkpoint 3 with a gap before them.
func TestALostTransactionFailsTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, 1, noRestart, fault.Fault{Step: trace.K6, Kind: fault.MetadataWriteFails, After: 1})
		r.await(1, 1, "checkpoint 2 aborted")
		require.Contains(t, r.pending(), "part-0-2", "sink subtask 0's transaction of checkpoint 2 is pending")
		require.NoError(t, os.Remove(filepath.Join(r.dir, ".pending", "part-0-2")))

		result := r.finish()
		require.Equal(t, api.JobFailed, result.JobStatus,
			"the transaction part-0-2 was lost: the job must fail when it cannot commit it, not run on without its counts")
		assert.Contains(t, result.FailureCause, "part-0-2", "the job's failure must name the transaction it could not commit")
		for _, name := range r.committed() {
			if strings.HasPrefix(name, "part-0-") && name != "part-0-1" {
				t.Errorf("%s became visible, though part-0-2, which came before it, could not be committed: "+
					"a reader sees sink subtask 0's counts with a gap", name)
			}
		}
	})
}

// A TaskManager dies between two checkpoints, 3.5 s in. The job fails
// over to a new one and restores checkpoint 3, whose transactions were
// committed already: the restore commits them again (the notification
// might have been lost), which must do nothing; the open transactions
// are thrown away, and the sources replay their records. The committed
// output is what a run without failures commits.
func TestAFailoverCommitsEveryCountOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		restart := failover.Config{Type: failover.TypeFixedDelay,
			FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: 100 * time.Millisecond}}
		r := start(t, 2, restart)
		r.await(3, 0, "checkpoint 3")
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		r.running("3.5 s in")

		graph, err := r.cluster.Dispatcher().RequestJob(context.Background(), r.job)
		require.NoError(t, err)
		var sink gateway.ArchivedExecution
		for _, v := range graph.Vertices {
			if strings.Contains(v.Name, "file-sink") {
				sink = v.Subtasks[0]
			}
		}
		for i, te := range r.cluster.TaskExecutors() {
			if te.ResourceID() == sink.TaskManager {
				r.cluster.KillTaskManager(i)
			}
		}
		require.NoError(t, r.cluster.StartTaskManager())

		result := r.finish()
		graph, err = r.cluster.Dispatcher().RequestJob(context.Background(), r.job)
		require.NoError(t, err)
		require.NotEmpty(t, graph.ExceptionHistory, "the job failed over")
		r.checkEveryCountOnce(result)
	})
}
