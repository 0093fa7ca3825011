// Exercise k01: barrier alignment in a task with several inputs.
//
// Most tests deploy one real task by hand, as a TaskExecutor deploys it:
// the keyed sum of the program "k01.sum" (sources → keyBy → Sum → collect
// sink), whose one input gate reads one channel per source subtask. The
// test plays the sources: it writes their records, their checkpoint
// barriers and their ends into real ResultPartitions, one step at a time,
// and after each step waits (synctest.Wait) until the task has done all it
// can. The task's acknowledgements and declines go to a recording
// CheckpointResponder, where they would go to the JobMaster. What a
// snapshot holds is read back the way a restore reads it: a new task,
// deployed with the snapshot as its JobManagerTaskRestore and sent the
// record (key, 0) for every key, emits the sums it restored.
//
// The records are (key, n) pairs, and the task emits the running sum of
// its key after each of them; the tests use one key, "a".
//
// The last test runs the ticker on a MiniCluster, with checkpoints every
// 100 ms, and kills a TaskManager while it runs.
package k01_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // registers the streaming invokables
	"flinklab/runtime/streaming/tasks/typeutils"
	"flinklab/runtime/taskmanager"
)

// sumProgram is "k01.sum": n sources (its argument) of (key, n) pairs →
// KeyBy(key) → Sum(1) → collect sink, the sum and the sink one subtask,
// chained. The sources are never run: the tests write what they send.
const sumProgram = "k01.sum"

// sums collects what the sum task emits. Each test deploys one sum task
// at a time, and clears it first.
var sums streaming.CollectSink[streaming.Tuple2[string, int]]

func init() {
	streaming.RegisterProgram(sumProgram, func(env *streaming.StreamExecutionEnvironment, args []string) error {
		sources, err := strconv.Atoi(args[0])
		if err != nil {
			return err
		}
		pairs := streaming.FromGenerator(env, func(int64) streaming.Tuple2[string, int] { return streaming.Tuple2Of("a", 0) }, 1, 0).
			Name("pairs").SetParallelism(sources)
		streaming.KeyBy(pairs, func(p streaming.Tuple2[string, int]) string { return p.F0 }).Sum(1).Name("sum").CollectAsync(&sums)
		return env.Execute("k01 sum")
	})
}

var (
	exactlyOnce = checkpoint.Aligned
	atLeastOnce = checkpoint.AtLeastOnceAlignment
)

// sumTask is one sum task deployed by hand, and the sources it reads.
type sumTask struct {
	t         *testing.T
	ctx       context.Context
	alignment checkpoint.AlignmentType
	sources   []*network.ResultPartition
	responder *responder
	logs      *scenario.Logs
	ended     chan error // Restore and Invoke's outcome, once the task ends
	cancel    context.CancelFunc
}

// deploySum deploys the sum task of a job with the given number of
// sources, restored from restore (nil: empty), inside the test's synctest
// bubble. Its barriers are of the given alignment. It is cancelled when
// the test ends, if it has not ended by then.
func deploySum(t *testing.T, sources int, alignment checkpoint.AlignmentType, restore *checkpoint.JobManagerTaskRestore) *sumTask {
	t.Helper()
	sums.Clear()
	sg, err := streaming.PlanProgram(sumProgram, []string{strconv.Itoa(sources)}, 1)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	var source, sum *jobgraph.JobVertex
	for _, v := range jg.Vertices() {
		if len(v.Inputs()) == 0 {
			source = v
		} else {
			sum = v
		}
	}
	require.NotNil(t, source)
	require.NotNil(t, sum)

	var jar bytes.Buffer
	require.NoError(t, client.WriteJar(&jar, sumProgram, nil))
	jarPath := filepath.Join(t.TempDir(), "k01.jar")
	require.NoError(t, os.WriteFile(jarPath, jar.Bytes(), 0o600))

	shuffle, err := network.NewShuffleEnvironment(network.Config{})
	require.NoError(t, err)
	s := &sumTask{t: t, alignment: alignment, responder: &responder{}, logs: &scenario.Logs{}, ended: make(chan error, 1)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	gdd := gateway.InputGateDeploymentDescriptor{ConsumedSubpartitionIndex: 0}
	for i := range sources {
		id := api.ResultPartitionID{
			PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: source.ProducedDataSets()[0].ID, PartitionNum: i},
			ProducerID:  api.ExecutionAttemptID{ExecutionVertexID: api.ExecutionVertexID{JobVertexID: source.ID, SubtaskIndex: i}},
		}
		p, err := shuffle.CreateResultPartition(id, 1)
		require.NoError(t, err)
		s.sources = append(s.sources, p)
		gdd.ShuffleDescriptors = append(gdd.ShuffleDescriptors, gateway.ShuffleDescriptor{ResultPartitionID: id})
	}
	gate := shuffle.CreateInputGate(gdd)
	env := &taskmanager.Environment{
		JobID:   jg.JobID,
		JobName: jg.Name,
		TaskInfo: gateway.TaskInformation{
			JobVertexID: sum.ID, TaskName: sum.Name, NumberOfSubtasks: 1, MaxNumberOfSubtasks: sum.MaxParallelism,
			InvokableClassName: sum.InvokableClassName, TaskConfiguration: sum.Configuration,
		},
		AttemptID:           api.ExecutionAttemptID{ExecutionVertexID: api.ExecutionVertexID{JobVertexID: sum.ID}},
		UserJarPaths:        []string{jarPath},
		Inputs:              []*network.InputGate{gate},
		Logger:              slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		TaskRestore:         restore,
		CheckpointResponder: s.responder,
	}
	factory, ok := taskmanager.LookupInvokable(sum.InvokableClassName)
	require.True(t, ok, "no invokable %s", sum.InvokableClassName)
	invokable, err := factory(env)
	require.NoError(t, err)

	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
			gate.Close()
			s.ended <- err
		}()
		if err = invokable.Restore(s.ctx); err == nil {
			err = invokable.Invoke(s.ctx)
		}
	}()
	t.Cleanup(func() {
		s.cancel()
		synctest.Wait()
		for _, p := range s.sources {
			p.Release()
		}
		shuffle.Close()
	})
	s.settle()
	return s
}

// settle waits until the task can do nothing more, and fails the test at
// once if the task panicked.
func (s *sumTask) settle() {
	s.t.Helper()
	synctest.Wait()
	select {
	case err := <-s.ended:
		s.ended <- err // for finish
		if err != nil && strings.HasPrefix(err.Error(), "panic: ") {
			s.t.Fatalf("the task must not panic on a checkpoint barrier: %v", err)
		}
	default:
	}
}

// send makes source write the record (key, n) and flush it.
func (s *sumTask) send(source int, key string, n int) {
	s.t.Helper()
	serializer, err := typeutils.CreateSerializer(reflect.TypeFor[streaming.Tuple2[string, int]]())
	require.NoError(s.t, err)
	record, err := serializer.Serialize(streaming.Tuple2Of(key, n), nil)
	require.NoError(s.t, err)
	require.NoError(s.t, s.sources[source].EmitRecord(s.ctx, record, 0))
	require.NoError(s.t, s.sources[source].Flush(s.ctx))
	s.settle()
}

// barrier makes source send the barrier of checkpoint id, behind every
// record it sent before.
func (s *sumTask) barrier(source int, id int64) {
	s.t.Helper()
	barrier := network.CheckpointBarrier{ID: id, Timestamp: time.Now().UnixMilli(),
		Options: checkpoint.CheckpointOptions{CheckpointType: checkpoint.Checkpoint, AlignmentType: s.alignment}}
	require.NoError(s.t, s.sources[source].BroadcastEvent(s.ctx, barrier))
	s.settle()
}

// end makes source finish: its channel delivers the end of its partition.
func (s *sumTask) end(source int) {
	s.t.Helper()
	require.NoError(s.t, s.sources[source].Finish(s.ctx))
	s.settle()
}

// emitted returns the sums the task emitted so far, in order.
func (s *sumTask) emitted() []int {
	var got []int
	for _, sum := range sums.Values() {
		got = append(got, sum.F1)
	}
	return got
}

// finish ends every source that has not ended and requires the task to
// reach the end of its input: a channel left blocked keeps it from ever
// getting there.
func (s *sumTask) finish() {
	s.t.Helper()
	for _, p := range s.sources {
		_ = p.Finish(s.ctx) // a source that ended already refuses
	}
	s.settle()
	select {
	case err := <-s.ended:
		require.NoError(s.t, err, "the task must end cleanly once every source has ended")
	default:
		s.t.Fatalf("every source has ended, but the task never reached the end of its input: " +
			"a channel that delivered a barrier is still blocked, nobody resumed it")
	}
}

// responder records the task's acknowledgements and declines, as the
// JobMaster would receive them.
type responder struct {
	mu       sync.Mutex
	acks     []checkpoint.AcknowledgeCheckpoint
	declines []checkpoint.DeclineCheckpoint
}

var _ taskmanager.CheckpointResponder = (*responder)(nil)

func (r *responder) AcknowledgeCheckpoint(ack checkpoint.AcknowledgeCheckpoint) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acks = append(r.acks, ack)
}

func (r *responder) DeclineCheckpoint(decline checkpoint.DeclineCheckpoint) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.declines = append(r.declines, decline)
}

// acknowledged returns the IDs of the checkpoints acknowledged so far, in
// order.
func (s *sumTask) acknowledged() []int64 {
	s.responder.mu.Lock()
	defer s.responder.mu.Unlock()
	var ids []int64
	for _, a := range s.responder.acks {
		ids = append(ids, a.CheckpointID)
	}
	return ids
}

// declined returns the checkpoints declined so far, "id REASON" each.
func (s *sumTask) declined() []string {
	s.responder.mu.Lock()
	defer s.responder.mu.Unlock()
	var declines []string
	for _, d := range s.responder.declines {
		declines = append(declines, fmt.Sprintf("%d %s", d.CheckpointID, d.Reason))
	}
	return declines
}

// ack returns the acknowledgement of checkpoint id.
func (s *sumTask) ack(id int64) checkpoint.AcknowledgeCheckpoint {
	s.t.Helper()
	s.responder.mu.Lock()
	defer s.responder.mu.Unlock()
	for _, a := range s.responder.acks {
		if a.CheckpointID == id {
			return a
		}
	}
	s.t.Fatalf("checkpoint %d was never acknowledged", id)
	return checkpoint.AcknowledgeCheckpoint{}
}

// restoredSum deploys a new sum task from the snapshot the task
// acknowledged for checkpoint id, and returns the sum of key "a" it
// restored. The task must have ended.
func (s *sumTask) restoredSum(id int64) int {
	s.t.Helper()
	ack := s.ack(id)
	require.NotNil(s.t, ack.SubtaskState, "checkpoint %d was acknowledged without the task's state", id)
	restored := deploySum(s.t, 1, s.alignment, &checkpoint.JobManagerTaskRestore{RestoreCheckpointID: id, TaskStateSnapshot: *ack.SubtaskState})
	restored.send(0, "a", 0)
	restored.finish()
	got := restored.emitted()
	require.Len(s.t, got, 1, "the restored task emits one sum for its one record")
	return got[0]
}

// The scenario of an aligned (EXACTLY_ONCE) checkpoint at a task with two
// inputs. Source 0's barrier comes first; the record source 0 sends
// behind it must wait, while source 1's records still come, until source
// 1's barrier has come too. Then the task snapshots, acknowledges once,
// and lets source 0's record through. The snapshot holds exactly what
// came before the barriers: 1 + 10 + 20, not the 100.
func TestAnAlignedCheckpointHoldsExactlyTheRecordsBeforeItsBarrier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := deploySum(t, 2, exactlyOnce, nil)
		task.send(0, "a", 1)
		task.send(1, "a", 10)
		require.Equal(t, []int{1, 11}, task.emitted(), "the task sums what both sources send")

		task.barrier(0, 1)
		task.send(0, "a", 100) // behind the barrier
		assert.Empty(t, task.acknowledged(),
			"the barrier has come from source 0 only: the task must wait for source 1's before it takes checkpoint 1")
		assert.Equal(t, []int{1, 11}, task.emitted(),
			"with EXACTLY_ONCE, the record source 0 sent behind its barrier must wait until the barrier has come on every channel")

		time.Sleep(300 * time.Millisecond) // on the bubble's clock: source 1's barrier comes 300 ms later
		task.send(1, "a", 20)
		assert.Equal(t, []int{1, 11, 31}, task.emitted(),
			"only the channel that delivered the barrier waits: source 1's records before its barrier go on")

		task.barrier(1, 1)
		assert.Equal(t, []int64{1}, task.acknowledged(), "the barrier has come on both channels: checkpoint 1 is taken, once")
		assert.Empty(t, task.declined(), "nothing is declined")
		assert.Equal(t, []int{1, 11, 31, 131}, task.emitted(),
			"once the checkpoint is taken, the channel blocked by the barrier goes on: the record behind it comes now")
		assert.Equal(t, (300 * time.Millisecond).Nanoseconds(), task.ack(1).Metrics.AlignmentDurationNanos,
			"the alignment lasts from the first barrier of checkpoint 1 to the last: 300 ms")

		task.finish()
		assert.Equal(t, 31, task.restoredSum(1),
			"checkpoint 1 must hold exactly the records before its barriers: 1 + 10 + 20, not the 100 behind source 0's barrier")
	})
}

// At least once (CheckpointingMode AT_LEAST_ONCE, Flink's
// CheckpointBarrierTracker) nothing waits: the record behind source 0's
// barrier is summed at once. The checkpoint is still taken only when the
// barrier has come on every channel, or the records source 1 sent before
// its barrier would be in no checkpoint: lost. So the snapshot holds the
// 100, which a restore processes again: at least once.
func TestAnAtLeastOnceCheckpointBlocksNothingButStillWaitsForEveryBarrier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := deploySum(t, 2, atLeastOnce, nil)
		task.send(0, "a", 1)
		task.send(1, "a", 10)

		task.barrier(0, 1)
		task.send(0, "a", 100)
		assert.Equal(t, []int{1, 11, 111}, task.emitted(),
			"with AT_LEAST_ONCE, no channel is blocked: the record behind source 0's barrier is summed at once")
		assert.Empty(t, task.acknowledged(),
			"even at least once, the task must wait for the barrier of source 1 before it takes checkpoint 1")

		task.send(1, "a", 20)
		task.barrier(1, 1)
		assert.Equal(t, []int64{1}, task.acknowledged(), "the barrier has come on both channels: checkpoint 1 is taken, once")
		assert.Equal(t, []int{1, 11, 111, 131}, task.emitted())

		task.finish()
		assert.Equal(t, 131, task.restoredSum(1),
			"checkpoint 1 holds every record before the barriers (1 + 10 + 20), and the 100 that came behind source 0's, "+
				"which a restore will process again")
	})
}

// Checkpoints follow one another. Each is taken once, when its barrier
// has come on all three channels, in whatever order they come; and after
// one is taken the next aligns from the start, with nothing declined and
// no checkpoint skipped.
func TestEachCheckpointIsTakenOnceAndTheNextAlignsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := deploySum(t, 3, exactlyOnce, nil)
		want := map[int64]int{} // the sum each checkpoint must hold
		sum := 0
		send := func(source, n int) {
			task.send(source, "a", n)
			sum += n
		}
		// The order in which the sources' barriers come, checkpoint by
		// checkpoint.
		for i, order := range [][]int{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}} {
			id := int64(i + 1)
			send(0, 1)
			send(1, 10)
			send(2, 100)
			want[id] = sum
			task.barrier(order[0], id)
			task.barrier(order[1], id)
			assert.NotContains(t, task.acknowledged(), id, "checkpoint %d: its barrier has come on two channels of three", id)
			task.barrier(order[2], id)
			assert.Equal(t, []int64{1, 2, 3}[:id], task.acknowledged(),
				"checkpoint %d is taken when its barrier has come on the third channel, and each checkpoint once", id)
		}
		task.finish()
		assert.Empty(t, task.declined(), "each checkpoint was taken: nothing may decline it, before or after")
		assert.NotContains(t, task.logs.String(), "Skipping current checkpoint",
			"no checkpoint overtook another: once a checkpoint is taken, none is aligning")
		for id := int64(1); id <= 3; id++ {
			assert.Equal(t, want[id], task.restoredSum(id), "checkpoint %d holds the records before its barriers", id)
		}
	})
}

// A newer barrier overtakes a checkpoint still aligning. Source 1 never
// sends the barrier of checkpoint 1: upstream of it checkpoint 1 was given
// up, so its next barrier is checkpoint 2's. The task gives checkpoint 1
// up, with Flink's warning, and declines it (CHECKPOINT_DECLINED_SUBSUMED),
// so that the coordinator need not wait for it; source 0's channel goes on
// at once, and checkpoint 2 aligns from the start.
func TestANewerBarrierGivesUpTheCheckpointStillAligning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := deploySum(t, 2, exactlyOnce, nil)
		task.send(0, "a", 1)
		task.send(1, "a", 10)
		task.barrier(0, 1)
		task.send(0, "a", 100) // waits behind barrier 1
		task.send(1, "a", 20)
		require.Equal(t, []int{1, 11, 31}, task.emitted())

		task.barrier(1, 2)
		assert.Contains(t, task.logs.String(),
			"Received checkpoint barrier for checkpoint 2 before completing current checkpoint 1. Skipping current checkpoint.",
			"the task warns, in Flink's words, that it gives checkpoint 1 up")
		assert.Equal(t, []string{"1 " + checkpoint.CheckpointDeclinedSubsumed.Name}, task.declined(),
			"checkpoint 1 can never be taken here now: the task must decline it, once, as subsumed")
		assert.Equal(t, []int{1, 11, 31, 131}, task.emitted(),
			"checkpoint 1 is given up: source 0's channel goes on at once, and the 100 behind its barrier is summed")
		assert.Empty(t, task.acknowledged(), "checkpoint 2's barrier has come from source 1 only")

		task.send(1, "a", 1000) // waits behind barrier 2
		task.send(0, "a", 2000) // before source 0's barrier 2
		assert.Equal(t, []int{1, 11, 31, 131, 2131}, task.emitted(),
			"source 1's channel waits behind barrier 2; source 0's goes on until its own barrier 2")
		task.barrier(0, 2)
		assert.Equal(t, []int64{2}, task.acknowledged(), "checkpoint 2 is taken once both barriers have come; checkpoint 1 never")
		assert.Equal(t, []int{1, 11, 31, 131, 2131, 3131}, task.emitted(), "and source 1's channel goes on")

		task.finish()
		assert.Equal(t, 2131, task.restoredSum(2),
			"checkpoint 2 holds exactly what came before its barriers on both channels: 1 + 100 + 2000 and 10 + 20")
	})
}

// A barrier older than the checkpoint aligning. Source 0 sends checkpoint
// 2's barrier first: checkpoint 1 was given up upstream of it, and never
// starts at this task. Source 1's barrier of checkpoint 1 comes later (it
// took checkpoint 1): it is obsolete, and must neither count for
// checkpoint 2 nor hold source 1's channel back. Checkpoint 2 is taken
// when source 1's own barrier 2 comes, and holds what source 1 sent
// between its barriers 1 and 2.
func TestABarrierOlderThanTheCheckpointAligningDoesNotCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := deploySum(t, 2, exactlyOnce, nil)
		task.send(0, "a", 1)
		task.barrier(0, 2)
		task.send(0, "a", 100) // waits behind barrier 2

		task.send(1, "a", 10)
		task.barrier(1, 1) // late, and older than checkpoint 2
		assert.Empty(t, task.acknowledged(),
			"source 1's barrier is checkpoint 1's, not 2's: checkpoint 2 must wait for source 1's barrier 2")
		task.send(1, "a", 20)
		assert.Equal(t, []int{1, 11, 31}, task.emitted(),
			"a barrier of a checkpoint that will never be taken here must not hold its channel back")

		task.barrier(1, 2)
		assert.Equal(t, []int64{2}, task.acknowledged(), "checkpoint 2 is taken when its own barrier has come on both channels")
		task.finish()
		assert.Equal(t, 31, task.restoredSum(2), "checkpoint 2 holds 1 from source 0 and 10 + 20 from source 1, not the 100")
	})
}

// An input that ends sends no barrier any more. Three sources; checkpoint
// 1's barrier comes from source 0, then source 1 ends: checkpoint 1 can
// never align, and the task declines it
// (CHECKPOINT_DECLINED_INPUT_END_OF_STREAM). Source 2's barrier of
// checkpoint 1 comes late: it must let its channel go on at once and
// start nothing. Checkpoint 2 is taken when its barrier has come on the
// two channels still open.
func TestAnEndedInputIsNotWaitedForAndALateBarrierLetsItsChannelGoOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := deploySum(t, 3, exactlyOnce, nil)
		task.send(0, "a", 1)
		task.barrier(0, 1)
		task.send(0, "a", 10) // waits behind barrier 1
		task.end(1)
		assert.Equal(t, []string{"1 " + checkpoint.CheckpointDeclinedInputEnd.Name}, task.declined(),
			"an input that ends while checkpoint 1 aligns: the task gives checkpoint 1 up")
		assert.Equal(t, []int{1, 11}, task.emitted(), "checkpoint 1 is given up: source 0's channel goes on")

		task.barrier(2, 1) // late: checkpoint 1 was given up
		task.send(2, "a", 100)
		assert.Equal(t, []int{1, 11, 111}, task.emitted(),
			"the late barrier of a checkpoint given up must let its channel go on at once")

		task.barrier(2, 2)
		task.barrier(0, 2)
		assert.Equal(t, []int64{2}, task.acknowledged(),
			"source 1 has ended: checkpoint 2 is taken when its barrier has come on the two channels still open")
		assert.NotContains(t, task.logs.String(), "Skipping current checkpoint",
			"the late barrier of checkpoint 1 started no alignment that checkpoint 2 would have to give up")
		task.finish()
		assert.Equal(t, 111, task.restoredSum(2))
	})
}

// What happens with your answer in a cluster. The ticker counts 2,000
// events of 5 sensors at parallelism 2: each running-count subtask reads
// two channels, one from each source subtask, and aligns their barriers,
// every 100 ms. Three seconds in, a TaskManager is killed; the job
// restores the latest completed checkpoint on the other and finishes. A
// wrong alignment shows here as a job that never finishes (a channel left
// blocked) or as counts that skip or repeat after the restore.
func TestTheTickerCheckpointsAndRestoresWithYourAlignment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ticker.Results.Clear()
		t.Cleanup(ticker.Results.Clear)
		cfg := checkpoint.DefaultCheckpointCoordinatorConfiguration()
		cfg.Interval = 100 * time.Millisecond
		cfg.Timeout = 5 * time.Second
		cluster, logs := scenario.Cluster(t, minicluster.Config{
			NumTaskManagers:        2,
			NumSlotsPerTaskManager: 2,
			Heartbeat:              heartbeat.HeartbeatServices{Interval: 500 * time.Millisecond, Timeout: 2 * time.Second},
			RestartStrategy: failover.Config{Type: failover.TypeFixedDelay,
				FixedDelay: failover.FixedDelayConfig{Attempts: 3, Delay: 500 * time.Millisecond}},
			Checkpointing: cfg,
		})
		sg, err := streaming.PlanProgram(ticker.ProgramClass, []string{"--rate", "200", "--count", "2000", "--output", "collect"}, 2)
		require.NoError(t, err)
		jg, err := sg.JobGraph()
		require.NoError(t, err)
		var jar bytes.Buffer
		require.NoError(t, client.WriteJar(&jar, ticker.ProgramClass, nil))
		require.NoError(t, cluster.UploadJar(jg, jar.Bytes()))
		jobID, err := cluster.SubmitJob(context.Background(), jg)
		require.NoError(t, err)

		time.Sleep(3 * time.Second) // on the bubble's clock
		synctest.Wait()
		require.Contains(t, logs.String(), "Completed checkpoint",
			"in 3 s with a checkpoint every 100 ms, checkpoints must complete: every running-count subtask must take them")
		graph, err := cluster.Dispatcher().RequestJob(context.Background(), jobID)
		require.NoError(t, err)
		for i, te := range cluster.TaskExecutors() {
			if te.ResourceID() == graph.Vertices[0].Subtasks[0].TaskManager {
				cluster.KillTaskManager(i)
			}
		}

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		result, err := cluster.RequestJobResult(ctx, jobID)
		require.NoError(t, err, "the job must finish within a minute: a task whose channel is never resumed waits for ever")
		require.Equal(t, api.JobFinished, result.JobStatus, "the job must finish: %s", result.FailureCause)
		assert.Contains(t, logs.String(), fmt.Sprintf("Restoring job %s from Checkpoint ", jobID), "the job restores a checkpoint")

		counts := map[string][]int64{}
		for _, c := range ticker.Results.Values() {
			counts[c.F0] = append(counts[c.F0], c.F1)
		}
		require.Len(t, counts, ticker.NumSensors)
		for sensor, seq := range counts {
			assert.Equal(t, int64(400), seq[len(seq)-1], "%s: its last count must be 400: no event counted twice, none lost", sensor)
			ones := 0
			for _, c := range seq {
				if c == 1 {
					ones++
				}
			}
			assert.Equal(t, 1, ones, "%s: its count must start at 1 once: the restored state holds its count so far", sensor)
			for c := int64(1); c <= 400; c++ {
				if !slices.Contains(seq, c) {
					t.Errorf("%s: count %d is missing: the restored state skipped an event", sensor, c)
					break
				}
			}
		}
	})
}
