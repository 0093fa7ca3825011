// Exercise k03: which key groups each subtask gets back when a job is
// restored at another parallelism.
//
// The table tests give a real CheckpointCoordinator a completed
// checkpoint of one keyed operator, written by the old subtasks, and ask
// it to restore the operator at a new parallelism
// (RestoreLatestCheckpointedStateToSubtasks, what the scheduler calls
// before it deploys): its StateAssignmentOperation decides which new
// subtask gets which state. Old subtask j wrote the key groups it owned
// into one KeyGroupsStateHandle, key group k as the bytes "old j/kg k",
// so the test reads back from the handles each new subtask got which key
// groups it holds, and who wrote them.
//
// What a new subtask must get follows from how records are routed: the
// keyBy exchange sends a key of key group kg to subtask
// kg*parallelism/maxParallelism (streaming.ComputeOperatorIndexForKeyGroup),
// so that subtask needs the state of kg, and no other subtask does.
//
// The last test runs a keyed job on a MiniCluster, stops it with a
// savepoint, and runs it again from the savepoint at another parallelism:
// every key's count must go on where it stopped.
package k03_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/state"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// The keyed vertex of the table tests: a chain of a keyed reduce, which
// has state, and a sink, which has none.
var (
	keyedVertex = api.NewJobVertexID()
	reduceOp    = api.OperatorIDFromBytes([16]byte{15: 2})
	sinkOp      = api.OperatorIDFromBytes([16]byte{15: 3})
)

// rescale is one row of the tables: a checkpoint of a keyed operator of
// parallelism from, restored at parallelism to.
type rescale struct {
	maxParallelism, from, to int
	why                      string
}

func (r rescale) String() string {
	return fmt.Sprintf("%d from %d to %d", r.maxParallelism, r.from, r.to)
}

// owner is the subtask of parallelism p that the keyBy exchange sends the
// keys of key group kg to.
func owner(maxParallelism, p, kg int) int {
	return streaming.ComputeOperatorIndexForKeyGroup(maxParallelism, p, kg)
}

// oldHandle is the keyed state old subtask j of parallelism p wrote: its
// key groups, each the bytes "old j/kg k", one after the other.
func oldHandle(maxParallelism, p, j int) state.KeyGroupsStateHandle {
	var data []byte
	var offsets []int64
	first, last := -1, -1
	for kg := range maxParallelism {
		if owner(maxParallelism, p, kg) != j {
			continue
		}
		if first < 0 {
			first = kg
		}
		last = kg
		offsets = append(offsets, int64(len(data)))
		data = fmt.Appendf(data, "old %d/kg %d", j, kg)
	}
	return state.KeyGroupsStateHandle{KeyGroupRange: state.KeyGroupRange{StartKeyGroup: first, EndKeyGroup: last},
		Offsets: offsets, End: int64(len(data)), Delegate: state.StreamStateHandle{Data: data, StateSize: int64(len(data))}}
}

// restore hands a CheckpointCoordinator checkpoint 7 of the keyed
// operator at parallelism r.from and returns what each new subtask of
// parallelism r.to gets of it. A restore that panics or fails ends the
// test here.
func restore(t *testing.T, r rescale) map[api.ExecutionVertexID]*checkpoint.JobManagerTaskRestore {
	t.Helper()
	job := api.NewJobID()
	old := checkpoint.NewOperatorState(reduceOp, r.from, r.maxParallelism)
	for j := range r.from {
		old.PutState(j, checkpoint.OperatorSubtaskState{ManagedKeyedState: []state.KeyGroupsStateHandle{oldHandle(r.maxParallelism, r.from, j)}})
	}
	store := checkpoint.NewStandaloneCompletedCheckpointStore(1)
	_, err := store.AddCheckpointAndSubsumeOldestOne(&checkpoint.CompletedCheckpoint{
		JobID: job, CheckpointID: 7, Timestamp: 1_700_000_000_000, Type: checkpoint.Checkpoint,
		Properties:     checkpoint.PropertiesForCheckpoint(checkpoint.NoExternalizedCheckpoints),
		OperatorStates: map[api.OperatorID]*checkpoint.OperatorState{reduceOp: old}, ExternalPointer: state.NonExternalPointer,
	})
	require.NoError(t, err)
	coordinator := checkpoint.NewCheckpointCoordinator(checkpoint.CoordinatorDeps{
		JobID: job, Config: checkpoint.DefaultCheckpointCoordinatorConfiguration(), Store: store,
		Schedule: func(func(), time.Duration) func() { return func() {} },
		Logger:   slog.New(slog.DiscardHandler),
	})
	vertex := checkpoint.VertexToRestore{JobVertexID: keyedVertex, Name: "Keyed Reduce -> Sink", Parallelism: r.to,
		MaxParallelism: r.maxParallelism, OperatorIDs: []api.OperatorID{reduceOp, sinkOp}}

	var restores map[api.ExecutionVertexID]*checkpoint.JobManagerTaskRestore
	var ok bool
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("restoring a checkpoint of %d subtasks at parallelism %d (max parallelism %d) must not panic: %v",
					r.from, r.to, r.maxParallelism, p)
			}
		}()
		restores, ok, err = coordinator.RestoreLatestCheckpointedStateToSubtasks([]checkpoint.VertexToRestore{vertex})
	}()
	require.NoError(t, err, "restoring checkpoint 7")
	require.True(t, ok, "the coordinator has checkpoint 7 to restore")
	return restores
}

// keyGroups is what a subtask holds: key group → the old subtasks whose
// bytes of it it got.
type keyGroups map[int][]int

// owned is what new subtask i of the rescale must hold: the key groups
// the keyBy sends it, each from the old subtask that owned it.
func owned(r rescale, i int) keyGroups {
	want := keyGroups{}
	for kg := range r.maxParallelism {
		if owner(r.maxParallelism, r.to, kg) == i {
			want[kg] = []int{owner(r.maxParallelism, r.from, kg)}
		}
	}
	return want
}

// String prints the key groups as runs with their writers: "0–31 (old 0),
// 32–42 (old 1)"; a key group got twice shows both writers: "42 (old 0,
// old 1)". Past eight runs it stops: "…".
func (g keyGroups) String() string {
	if len(g) == 0 {
		return "none"
	}
	kgs := make([]int, 0, len(g))
	for kg := range g {
		kgs = append(kgs, kg)
	}
	slices.Sort(kgs)
	writers := func(kg int) string {
		var names []string
		for _, j := range g[kg] {
			names = append(names, fmt.Sprintf("old %d", j))
		}
		return strings.Join(names, ", ")
	}
	var runs []string
	start := 0
	for k := 1; k <= len(kgs); k++ {
		if k < len(kgs) && kgs[k] == kgs[k-1]+1 && writers(kgs[k]) == writers(kgs[start]) {
			continue
		}
		run := strconv.Itoa(kgs[start])
		if k-1 > start {
			run += "–" + strconv.Itoa(kgs[k-1])
		}
		if w := writers(kgs[start]); w != "" {
			run += " (" + w + ")"
		}
		runs = append(runs, run)
		start = k
	}
	if len(runs) > 8 {
		runs = append(runs[:8], "…")
	}
	return strings.Join(runs, ", ")
}

// read returns the key groups the handles hold, and says in t what is
// wrong with a handle itself: one that holds no key group, or bytes that
// are not the key group's.
func read(t *testing.T, handles []state.KeyGroupsStateHandle, who string) keyGroups {
	t.Helper()
	got := keyGroups{}
	for _, h := range handles {
		if h.KeyGroupRange.NumberOfKeyGroups() == 0 || len(h.Offsets) == 0 {
			t.Errorf("%s got a state handle that holds no key group (%v, %d offsets): a handle with nothing of its key groups "+
				"is still sent, and read, for nothing", who, h.KeyGroupRange, len(h.Offsets))
			continue
		}
		err := h.KeyGroups(func(kg int, data []byte) error {
			var j, k int
			if _, err := fmt.Sscanf(string(data), "old %d/kg %d", &j, &k); err != nil || k != kg {
				return fmt.Errorf("key group %d holds %q, the bytes of another key group", kg, data)
			}
			got[kg] = append(got[kg], j)
			return nil
		})
		if err != nil {
			t.Errorf("%s got a state handle that cannot be read: %v", who, err)
		}
	}
	return got
}

// overlapping is how many old subtasks wrote key groups that new subtask
// i owns: the number of handles it needs, one from each.
func overlapping(r rescale, i int) int {
	writers := map[int]bool{}
	for _, j := range owned(r, i) {
		writers[j[0]] = true
	}
	return len(writers)
}

// checkRescale restores the checkpoint of the rescale and checks what
// every new subtask got.
func checkRescale(t *testing.T, r rescale) {
	t.Helper()
	restores := restore(t, r)
	for i := range r.to {
		who := fmt.Sprintf("new subtask %d of %d (max parallelism %d, restored from %d subtasks)", i, r.to, r.maxParallelism, r.from)
		want := owned(r, i)
		restore := restores[api.ExecutionVertexID{JobVertexID: keyedVertex, SubtaskIndex: i}]
		if restore == nil {
			t.Errorf("%s gets no state at all, but the keyBy sends it the keys of key groups %v", who, want)
			continue
		}
		handles := restore.TaskStateSnapshot.SubtaskStateMappings[reduceOp].ManagedKeyedState
		got := read(t, handles, who)
		if !maps.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s got key groups\n\t%v\nwant the key groups the keyBy sends it, each from the old subtask that wrote it:\n\t%v%s",
				who, got, want, explain(r, got, want))
			continue
		}
		if n := overlapping(r, i); len(handles) != n {
			t.Errorf("%s got the right key groups in %d state handles, want %d: one part of the handle of each old subtask "+
				"whose key groups it now owns, each read once", who, len(handles), n)
		}
	}
}

// explain says in words how got differs from want.
func explain(r rescale, got, want keyGroups) string {
	var missing []int
	for kg := range want {
		if len(got[kg]) == 0 {
			missing = append(missing, kg)
		}
	}
	foreign := map[int][]int{} // new subtask → key groups of it got here
	var twice []int
	for kg, writers := range got {
		if len(want[kg]) == 0 {
			i := owner(r.maxParallelism, r.to, kg)
			foreign[i] = append(foreign[i], kg)
		}
		if len(writers) > 1 {
			twice = append(twice, kg)
		}
	}
	var why []string
	if len(missing) > 0 {
		why = append(why, keyGroupsPhrase(missing)+" its own, but missing: the keys there would count from nothing again")
	}
	for i := range r.to {
		if len(foreign[i]) > 0 {
			why = append(why, fmt.Sprintf("%s not its own: the keyBy sends the keys there to new subtask %d", keyGroupsPhrase(foreign[i]), i))
		}
	}
	if len(twice) > 0 {
		why = append(why, keyGroupsPhrase(twice)+" there twice")
	}
	if len(why) == 0 {
		return "\n(the right key groups, but from the wrong old subtasks)"
	}
	return "\n" + strings.Join(why, ";\n")
}

// keyGroupsPhrase names key groups as the subject of a sentence: "key
// group 42 is", "key groups 32–42, 86 are".
func keyGroupsPhrase(kgs []int) string {
	g := keyGroups{}
	for _, kg := range kgs {
		g[kg] = nil
	}
	if len(kgs) == 1 {
		return "key group " + g.String() + " is"
	}
	return "key groups " + g.String() + " are"
}

// The lesson's example, and scaling down: each new subtask gets its
// consecutive key groups, cut out of every old subtask's state. From 4
// subtasks to 3 with max parallelism 128, new subtask 0 owns 0–42, and
// reads 0–31 from old subtask 0 and 32–42 from old subtask 1.
func TestScalingDownCutsTheOldStateByKeyGroup(t *testing.T) {
	for _, r := range []rescale{
		{128, 4, 3, "the lesson's example"},
		{128, 4, 2, "two old subtasks into each new one"},
		{128, 4, 1, "one subtask owns every key group, from every old subtask"},
		{128, 3, 2, "128 key groups into 3, then 2"},
	} {
		t.Run(r.String(), func(t *testing.T) { checkRescale(t, r) })
	}
}

// Scaling up: each old subtask's key groups are split among several new
// subtasks, none of which gets a key group twice.
func TestScalingUpSplitsEachOldSubtasksKeyGroups(t *testing.T) {
	for _, r := range []rescale{
		{128, 3, 4, "the lesson's example, backwards"},
		{128, 2, 5, "128 is no multiple of 5"},
		{128, 1, 4, "from one subtask"},
	} {
		t.Run(r.String(), func(t *testing.T) { checkRescale(t, r) })
	}
}

// A max parallelism that the parallelism does not divide: the ranges
// differ in size by one, and the larger ones are not all at one end.
func TestAMaxParallelismTheParallelismDoesNotDivide(t *testing.T) {
	for _, r := range []rescale{
		{10, 3, 4, "ranges of 3, 2, 3 and 2 key groups"},
		{100, 3, 7, "ranges of 14 and 15"},
		{100, 7, 3, "and back"},
		{7, 2, 3, "seven key groups in three ranges"},
	} {
		t.Run(r.String(), func(t *testing.T) { checkRescale(t, r) })
	}
}

// As many subtasks as key groups: each owns one.
func TestOneKeyGroupPerSubtask(t *testing.T) {
	for _, r := range []rescale{
		{8, 3, 8, "every new subtask one key group"},
		{8, 8, 3, "from one key group per subtask"},
		{128, 4, 128, "at the max parallelism"},
	} {
		t.Run(r.String(), func(t *testing.T) { checkRescale(t, r) })
	}
}

// At the checkpoint's own parallelism each subtask gets back what it
// wrote.
func TestTheSameParallelismGivesEachSubtaskItsOwnState(t *testing.T) {
	for _, r := range []rescale{
		{128, 4, 4, ""},
		{10, 3, 3, ""},
	} {
		t.Run(r.String(), func(t *testing.T) { checkRescale(t, r) })
	}
}

// The keyed job of the end-to-end test: visits of 100 users, event i a
// visit of user i % 100, counted per user.
const (
	visitsProgram  = "k03-visits"
	numUsers       = 100
	visitsPerUser  = 30
	visitsPerSec   = 500
	maxParallelism = 128
)

// visitCounts collects the running counts of both runs.
var visitCounts streaming.CollectSink[streaming.Tuple2[string, int64]]

func init() { streaming.RegisterProgram(visitsProgram, visits) }

// visits is the program: visits ─HASH(user)─► visits-per-user → collect,
// its max parallelism set, as a job that will be rescaled should have.
func visits(env *streaming.StreamExecutionEnvironment, _ []string) error {
	env.SetMaxParallelism(maxParallelism)
	events := streaming.FromGenerator(env, visit, numUsers*visitsPerUser, visitsPerSec).Name("visits")
	counts := streaming.KeyBy(events, user).Reduce(add).Name("visits-per-user")
	counts.CollectAsync(&visitCounts).Name("collect")
	return env.Execute("Visits per user")
}

func visit(i int64) streaming.Tuple2[string, int64] {
	return streaming.Tuple2Of(fmt.Sprintf("user-%02d", i%numUsers), int64(1))
}

func user(v streaming.Tuple2[string, int64]) string { return v.F0 }

func add(a, b streaming.Tuple2[string, int64]) streaming.Tuple2[string, int64] {
	return streaming.Tuple2Of(a.F0, a.F1+b.F1)
}

// jobAt is the program's JobGraph at parallelism p, from the savepoint at
// path ("": none).
func jobAt(t *testing.T, p int, path string) *jobgraph.JobGraph {
	t.Helper()
	sg, err := streaming.PlanProgram(visitsProgram, nil, p)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	if path != "" {
		jg.SavepointRestoreSettings = jobgraph.SavepointRestoreSettingsForPath(path, false)
	}
	return jg
}

func submit(t *testing.T, cluster *minicluster.MiniCluster, jg *jobgraph.JobGraph) api.JobID {
	t.Helper()
	var jar bytes.Buffer
	require.NoError(t, client.WriteJar(&jar, visitsProgram, nil))
	require.NoError(t, cluster.UploadJar(jg, jar.Bytes()))
	jobID, err := cluster.SubmitJob(context.Background(), jg)
	require.NoError(t, err)
	return jobID
}

// splitsWithoutPanic asks a CheckpointCoordinator of the test's own to
// split the savepoint among the subtasks of jg, as jg's JobMaster will
// when it starts. A split that panics there would take the JobMaster down
// while it starts, and the whole test binary with it; here it only fails
// the test.
func splitsWithoutPanic(t *testing.T, path string, jg *jobgraph.JobGraph) {
	t.Helper()
	var vertices []checkpoint.VertexToRestore
	for _, v := range jg.Vertices() {
		vertices = append(vertices, checkpoint.VertexToRestore{JobVertexID: v.ID, Name: v.Name, Parallelism: v.Parallelism,
			MaxParallelism: v.MaxParallelism, OperatorIDs: v.OperatorIDs})
	}
	coordinator := checkpoint.NewCheckpointCoordinator(checkpoint.CoordinatorDeps{
		JobID: jg.JobID, Config: checkpoint.DefaultCheckpointCoordinatorConfiguration(),
		Schedule: func(func(), time.Duration) func() { return func() {} },
		Logger:   slog.New(slog.DiscardHandler),
	})
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("splitting the savepoint among the subtasks of the new job must not panic: %v", p)
		}
	}()
	_, err := coordinator.RestoreSavepoint(path, false, vertices)
	require.NoError(t, err, "splitting the savepoint among the subtasks of the new job")
}

// countsByUser is each user's counts, in the order they came.
func countsByUser(values []streaming.Tuple2[string, int64]) map[string][]int64 {
	counts := map[string][]int64{}
	for _, v := range values {
		counts[v.F0] = append(counts[v.F0], v.F1)
	}
	return counts
}

// The visits job runs at one parallelism for 3 s, and is stopped with a
// savepoint (flink stop); it is submitted again from the savepoint at
// another parallelism (flink run -s <savepoint> -p <new>), and runs to
// the end of its 3,000 visits. Every user's count must go on from where
// the savepoint left it: the second run's first count of a user follows
// on from a count the first run reached, never 1 again, and every user
// ends at exactly 30: no key's state lost, none counted twice. The
// records the first run sent after the savepoint's barrier, before it
// stopped, are sent again by the second: a count may appear in both runs.
func TestAKeyedJobRestoredAtAnotherParallelismCountsOn(t *testing.T) {
	for _, r := range []rescale{
		{maxParallelism, 4, 3, "the lesson's example"},
		{maxParallelism, 2, 5, "scaling up"},
	} {
		t.Run(fmt.Sprintf("%d to %d", r.from, r.to), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				visitCounts.Clear()
				t.Cleanup(visitCounts.Clear)
				cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
				cfg.Interval = time.Second
				cfg.SavepointDir = t.TempDir()
				cluster, _ := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 6, Checkpointing: cfg,
					RestartStrategy: failover.Config{Type: failover.TypeNoRestart}}) // a failure fails the job, for the test to see
				d, ctx := cluster.Dispatcher(), context.Background()

				// The first run, stopped with a savepoint after 3 s.
				first := submit(t, cluster, jobAt(t, r.from, ""))
				time.Sleep(3 * time.Second)
				status, err := d.RequestJobStatus(ctx, first)
				require.NoError(t, err)
				if status != api.JobRunning {
					result, err := cluster.RequestJobResult(ctx, first)
					require.NoError(t, err)
					t.Fatalf("the first run, at parallelism %d, must run: it is %s: %s", r.from, status, result.FailureCause)
				}
				path, err := d.StopWithSavepointAndGetLocation(ctx, first, "", gateway.ModeSuspendWithSavepoint)
				require.NoError(t, err, "stop with a savepoint")
				before := countsByUser(visitCounts.Values())
				require.Len(t, before, numUsers, "every user has visited before the savepoint")
				visitCounts.Clear()

				// The second run, from the savepoint, at the new parallelism.
				second := jobAt(t, r.to, path)
				splitsWithoutPanic(t, path, second)
				submit(t, cluster, second)
				waiting, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				result, err := cluster.RequestJobResult(waiting, second.JobID)
				require.NoError(t, err, "the run from the savepoint, at parallelism %d, must end", r.to)
				require.Equal(t, api.JobFinished, result.JobStatus,
					"the run from the savepoint, at parallelism %d, must finish: %s", r.to, result.FailureCause)

				after := countsByUser(visitCounts.Values())
				for u := range numUsers {
					name := fmt.Sprintf("user-%02d", u)
					kg := streaming.AssignToKeyGroup(name, maxParallelism)
					where := fmt.Sprintf("%s (key group %d: written by old subtask %d, its visits now go to new subtask %d)",
						name, kg, owner(maxParallelism, r.from, kg), owner(maxParallelism, r.to, kg))
					counts := after[name]
					if len(counts) == 0 {
						t.Errorf("%s has no count after the restore", where)
						continue
					}
					switch resumed := counts[0]; {
					case resumed == 1:
						t.Errorf("%s counts from 1 again after the restore: its state was not restored where its visits go", where)
					case !slices.Contains(before[name], resumed-1):
						t.Errorf("%s goes on at %d after the restore, but the first run counted %v: the state restored is not the one it wrote",
							where, resumed, before[name])
					}
					if last := counts[len(counts)-1]; last != visitsPerUser {
						t.Errorf("%s ends at %d, want %d: each of its visits counted once", where, last, visitsPerUser)
					}
				}
			})
		})
	}
}
