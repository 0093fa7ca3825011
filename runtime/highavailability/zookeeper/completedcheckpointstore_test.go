package zookeeper_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/state"
)

// jobManager is one JobManager process of a test's cluster, as far as
// checkpoints go: its HA services (its own ZooKeeper session) and its log.
type jobManager struct {
	ha   *zookeeper.HaServices
	logs *logbuf.Buffer
}

// startJobManager connects one more JobManager process to the test's
// cluster, whose HA storage directory is storage.
func startJobManager(t *testing.T, storage string) *jobManager {
	t.Helper()
	logs := &logbuf.Buffer{}
	ha, err := zookeeper.NewHaServices(configFor(t, zookeepertest.Shared(t).Address()), storage,
		slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.NoError(t, err)
	t.Cleanup(ha.Close)
	return &jobManager{ha: ha, logs: logs}
}

// store is what the JobMaster of job on this JobManager would get.
func (jm *jobManager) store(t *testing.T, job api.JobID, numRetained int) checkpoint.CompletedCheckpointStore {
	t.Helper()
	s, err := jm.ha.CheckpointRecoveryFactory().CreateRecoveredCompletedCheckpointStore(job, numRetained)
	require.NoError(t, err)
	return s
}

// counter is the job's checkpoint ID counter on this JobManager, started.
func (jm *jobManager) counter(t *testing.T, job api.JobID) checkpoint.CheckpointIDCounter {
	t.Helper()
	c, err := jm.ha.CheckpointRecoveryFactory().CreateCheckpointIDCounter(job)
	require.NoError(t, err)
	require.NoError(t, c.Start())
	return c
}

// node is the absolute path of p in the cluster's namespace.
func (jm *jobManager) node(p string) string { return jm.ha.Client().Path(p) }

// exists reports whether the node p is in ZooKeeper.
func (jm *jobManager) exists(t *testing.T, p string) bool {
	t.Helper()
	ok, _, err := jm.ha.Client().Conn().Exists(jm.node(p))
	require.NoError(t, err)
	return ok
}

// children lists the children of the node p, nil if it does not exist.
func (jm *jobManager) children(t *testing.T, p string) []string {
	t.Helper()
	children, _, err := jm.ha.Client().Conn().Children(jm.node(p))
	if err == zk.ErrNoNode {
		return nil
	}
	require.NoError(t, err)
	return children
}

// handlePath reads the path a checkpoint's node points at.
func (jm *jobManager) handlePath(t *testing.T, job api.JobID, checkpointID int64) string {
	t.Helper()
	data, _, err := jm.ha.Client().Conn().Get(jm.node(checkpointNode(job, checkpointID)))
	require.NoError(t, err)
	var handle struct{ Path string }
	require.NoError(t, json.Unmarshal(data, &handle))
	return handle.Path
}

func checkpointsNode(job api.JobID) string { return "jobs/" + job.String() + "/checkpoints" }
func checkpointNode(job api.JobID, id int64) string {
	return fmt.Sprintf("%s/%019d", checkpointsNode(job), id)
}

// newCompletedCheckpoint returns checkpoint id of job as the coordinator
// completes one: its chk-<id> directory under checkpoints, a source's
// position as inline operator state.
func newCompletedCheckpoint(t *testing.T, job api.JobID, id int64, checkpoints string) *checkpoint.CompletedCheckpoint {
	t.Helper()
	dir := filepath.Join(checkpoints, job.String(), fmt.Sprintf("chk-%d", id))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, state.MetadataFileName), []byte("{}"), 0o644))
	source := checkpoint.NewOperatorState(api.OperatorIDFromBytes([16]byte{1}), 1, 128)
	position := []byte{1, byte(id)} // one element: the source's index, id
	source.PutState(0, checkpoint.OperatorSubtaskState{ManagedOperatorState: []state.OperatorStateHandle{{
		StateNameToPartitionOffsets: map[string]state.StateMetaInfo{"positions": {Offsets: []int64{0}, DistributionMode: state.Union}},
		Delegate:                    state.StreamStateHandle{Data: position, StateSize: int64(len(position))},
	}}})
	return &checkpoint.CompletedCheckpoint{
		JobID: job, CheckpointID: id, Timestamp: 1_700_000_000_000 + id, CompletionTimestamp: 1_700_000_000_100 + id,
		Type: checkpoint.Checkpoint, Properties: checkpoint.PropertiesForCheckpoint(""),
		OperatorStates:  map[api.OperatorID]*checkpoint.OperatorState{source.OperatorID: source},
		ExternalPointer: dir, StateSize: source.StateSize(),
	}
}

func ids(checkpoints []*checkpoint.CompletedCheckpoint) []int64 {
	out := []int64{}
	for _, c := range checkpoints {
		out = append(out, c.CheckpointID)
	}
	return out
}

// add adds the checkpoints of ids to s, failing on any error, and returns
// the IDs of those it subsumed.
func add(t *testing.T, s checkpoint.CompletedCheckpointStore, job api.JobID, checkpoints string, idsToAdd ...int64) []int64 {
	t.Helper()
	var subsumed []*checkpoint.CompletedCheckpoint
	for _, id := range idsToAdd {
		out, err := s.AddCheckpointAndSubsumeOldestOne(newCompletedCheckpoint(t, job, id, checkpoints))
		require.NoError(t, err)
		subsumed = append(subsumed, out...)
	}
	return ids(subsumed)
}

// A completed checkpoint is a file in the HA storage directory, beside the
// JobGraphs, holding its _metadata, and a node named by its ID, padded to
// 19 digits, that points at the file and that the JobMaster's store locks.
func TestACompletedCheckpointIsAFileAndANodeThatPointsAtIt(t *testing.T) {
	t.Parallel()
	storage := t.TempDir()
	jm := startJobManager(t, storage)
	job := api.NewJobID()
	store := jm.store(t, job, 1)
	namespace := strings.TrimPrefix(jm.node(checkpointsNode(job)), "/")
	assert.Equal(t, []string{"Initialized DefaultCompletedCheckpointStore in 'ZooKeeperStateHandleStore{namespace='" + namespace + "'}' with /checkpoints."},
		jm.logs.Messages("Initialized DefaultCompletedCheckpointStore"))
	assert.True(t, store.RequiresExternalizedCheckpoints())

	added := newCompletedCheckpoint(t, job, 7, t.TempDir())
	subsumed, err := store.AddCheckpointAndSubsumeOldestOne(added)
	require.NoError(t, err)
	assert.Empty(t, subsumed)
	assert.Equal(t, []string{"0000000000000000007"}, jm.children(t, checkpointsNode(job)))
	assert.Len(t, jm.children(t, checkpointNode(job, 7)+"/locks"), 1, "the store's lock")

	file := jm.handlePath(t, job, 7)
	clusterStorage := filepath.Join(storage, strings.Trim(configFor(t, "").ClusterID, "/"))
	assert.Equal(t, clusterStorage, filepath.Dir(file), "beside the JobGraphs, in <storageDir>/<cluster-id>")
	assert.True(t, strings.HasPrefix(filepath.Base(file), "completedCheckpoint"), file)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var metadata checkpoint.CheckpointMetadata
	require.NoError(t, json.Unmarshal(data, &metadata), "the file holds the checkpoint's _metadata")
	assert.Equal(t, checkpoint.MetadataMagic, metadata.Magic)
	assert.Equal(t, int64(7), metadata.CheckpointID)
	assert.Equal(t, job, metadata.JobID)
	require.Len(t, metadata.OperatorStates, 1)
	assert.Equal(t, added.OperatorStates[metadata.OperatorStates[0].OperatorID], metadata.OperatorStates[0], "inline state included")
	assert.Same(t, added, store.GetLatestCheckpoint())
}

// With state.checkpoints.num-retained 2, the third checkpoint subsumes
// the first: its node and its file in the HA storage directory go, and
// the store hands it back, so that the CheckpointCoordinator deletes its
// chk-1 directory (the store does not).
func TestWithNumRetainedTwoTheThirdCheckpointSubsumesTheFirst(t *testing.T) {
	t.Parallel()
	jm := startJobManager(t, t.TempDir())
	job, checkpoints := api.NewJobID(), t.TempDir()
	store := jm.store(t, job, 2)

	assert.Empty(t, add(t, store, job, checkpoints, 1, 2))
	first := jm.handlePath(t, job, 1)
	assert.Equal(t, []int64{1}, add(t, store, job, checkpoints, 3))

	assert.Equal(t, []int64{2, 3}, ids(store.GetAllCheckpoints()))
	assert.Equal(t, 2, store.GetNumberOfRetainedCheckpoints())
	assert.Equal(t, 2, store.GetMaxNumberOfRetainedCheckpoints())
	assert.Equal(t, []string{"0000000000000000002", "0000000000000000003"}, jm.children(t, checkpointsNode(job)))
	assert.NoFileExists(t, first, "the subsumed checkpoint's file in the HA storage directory")
	assert.DirExists(t, filepath.Join(checkpoints, job.String(), "chk-1"), "the coordinator deletes the checkpoint itself")
}

// A JobManager completes checkpoints 1 and 2 and dies: no shutdown, only
// its ZooKeeper session ends, and its locks with it. The JobMaster of the
// next leader creates its store and finds both, read back from their
// files, the latest last, each locked for it; it subsumes the first
// itself when it completes checkpoint 3.
func TestTheNextJobMastersStoreRecoversTheCheckpoints(t *testing.T) {
	t.Parallel()
	storage, checkpoints := t.TempDir(), t.TempDir()
	job := api.NewJobID()
	first := startJobManager(t, storage)
	before := first.store(t, job, 2)
	add(t, before, job, checkpoints, 1, 2)
	firstFile := first.handlePath(t, job, 1)
	first.ha.Close() // the JobManager dies

	next := startJobManager(t, storage)
	after := next.store(t, job, 2)
	namespace := strings.TrimPrefix(next.node(checkpointsNode(job)), "/")
	handles := "ZooKeeperStateHandleStore{namespace='" + namespace + "'}"
	assert.Equal(t, []string{
		"Recovering checkpoints from " + handles + ".",
		"Found 2 checkpoints in " + handles + ".",
		"Trying to fetch 2 checkpoints from storage.",
		"Trying to retrieve checkpoint 1.",
		"Trying to retrieve checkpoint 2.",
		"Initialized DefaultCompletedCheckpointStore in '" + handles + "' with /checkpoints.",
	}, messagesOf(next.logs, "DefaultCompletedCheckpointStoreUtils", "ZooKeeperUtils")[1:], "after 'Using … as Zookeeper namespace.'")
	require.Equal(t, []int64{1, 2}, ids(after.GetAllCheckpoints()))
	for i, c := range after.GetAllCheckpoints() {
		assert.Equal(t, before.GetAllCheckpoints()[i], c, "checkpoint %d reads back as it was added", c.CheckpointID)
	}
	assert.Equal(t, "Checkpoint 2 @ 1700000000002 for "+job.String()+" located at "+filepath.Join(checkpoints, job.String(), "chk-2"),
		after.GetLatestCheckpoint().String())
	assert.Len(t, next.children(t, checkpointNode(job, 2)+"/locks"), 1, "locked for the new store")

	assert.Equal(t, []int64{1}, add(t, after, job, checkpoints, 3))
	assert.False(t, next.exists(t, checkpointNode(job, 1)))
	assert.NoFileExists(t, firstFile)
}

// messagesOf returns the messages logged by the given loggers, in order.
func messagesOf(logs *logbuf.Buffer, loggers ...string) []string {
	var out []string
	for _, r := range logs.Records() {
		for _, l := range loggers {
			if r.Logger == l {
				out = append(out, r.Msg)
			}
		}
	}
	return out
}

// A node whose data is no state handle (written by something else, or
// damaged) is left out of the recovery with Flink's WARN: the other
// checkpoints are recovered.
func TestACorruptNodeIsDroppedOnRecovery(t *testing.T) {
	t.Parallel()
	storage, checkpoints := t.TempDir(), t.TempDir()
	job := api.NewJobID()
	first := startJobManager(t, storage)
	add(t, first.store(t, job, 2), job, checkpoints, 1, 2)
	_, err := first.ha.Client().Conn().Set(first.node(checkpointNode(job, 1)), []byte("\xac\xed garbage"), -1)
	require.NoError(t, err)
	first.ha.Close()

	next := startJobManager(t, storage)
	after := next.store(t, job, 2)
	assert.Equal(t, []int64{2}, ids(after.GetAllCheckpoints()))
	assert.Equal(t, []string{"Could not get all ZooKeeper children. Node " + next.node(checkpointNode(job, 1)) +
		" contained corrupted data. Ignoring this node."}, next.logs.Messages("Could not get all ZooKeeper children."))
	assert.Equal(t, []string{"Found 1 checkpoints in ZooKeeperStateHandleStore{namespace='" +
		strings.TrimPrefix(next.node(checkpointsNode(job)), "/") + "'}."}, next.logs.Messages("Found "))
	assert.Empty(t, next.children(t, checkpointNode(job, 1)+"/locks"), "the corrupt node is not locked")
}

// A node that points at a file that is gone fails the recovery, as in
// Flink 1.15 and later: the job must not quietly resume from an older
// checkpoint than the one its sinks committed last. The store lets go of
// the locks it took.
func TestACheckpointWhoseFileIsGoneFailsTheRecovery(t *testing.T) {
	t.Parallel()
	storage, checkpoints := t.TempDir(), t.TempDir()
	job := api.NewJobID()
	first := startJobManager(t, storage)
	add(t, first.store(t, job, 2), job, checkpoints, 1, 2)
	require.NoError(t, os.Remove(first.handlePath(t, job, 2)))
	first.ha.Close()

	next := startJobManager(t, storage)
	_, err := next.ha.CheckpointRecoveryFactory().CreateRecoveredCompletedCheckpointStore(job, 2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Could not retrieve checkpoint 2 from state handle under /0000000000000000002. "+
		"This indicates that the retrieved state handle is broken. Try cleaning the state handle store.")
	assert.Empty(t, next.children(t, checkpointNode(job, 1)+"/locks"))
	assert.Empty(t, next.children(t, checkpointNode(job, 2)+"/locks"))
}

// A job that FINISHED needs its checkpoints no more: the store removes
// every node and file and hands each checkpoint to discard, the counter
// removes its node, and the job's node goes with them.
func TestShutdownWhenFinishedRemovesTheJobsCheckpointsAndCounter(t *testing.T) {
	t.Parallel()
	jm := startJobManager(t, t.TempDir())
	job, checkpoints := api.NewJobID(), t.TempDir()
	store, counter := jm.store(t, job, 2), jm.counter(t, job)
	add(t, store, job, checkpoints, 1, 2)
	files := []string{jm.handlePath(t, job, 1), jm.handlePath(t, job, 2)}

	var discarded []*checkpoint.CompletedCheckpoint
	require.NoError(t, store.Shutdown(api.JobFinished, func(c *checkpoint.CompletedCheckpoint) { discarded = append(discarded, c) }))
	require.NoError(t, counter.Shutdown(api.JobFinished))

	assert.Equal(t, []int64{1, 2}, ids(discarded))
	assert.Empty(t, store.GetAllCheckpoints())
	for _, f := range files {
		assert.NoFileExists(t, f)
	}
	assert.False(t, jm.exists(t, "jobs/"+job.String()), "the job's node, its checkpoints and its counter are gone")
	assert.Equal(t, []string{"Removing " + jm.node(checkpointsNode(job)) + " from ZooKeeper",
		"Removing " + jm.node("jobs/"+job.String()+"/checkpoint_id_counter") + " from ZooKeeper"}, jm.logs.Messages("Removing "))
	assert.NotEmpty(t, jm.logs.Messages("Shutting down"))
	_, err := store.AddCheckpointAndSubsumeOldestOne(newCompletedCheckpoint(t, job, 3, checkpoints))
	assert.ErrorIs(t, err, checkpoint.ErrCheckpointStoreShutdown)
}

// A SUSPENDED job is the next JobManager's to run: the store lets go of
// its locks and keeps every node and file, nothing is discarded, and the
// counter keeps counting where it was. The next store and counter of the
// job find them.
func TestShutdownWhenSuspendedKeepsThemForTheNextJobMaster(t *testing.T) {
	t.Parallel()
	storage, checkpoints := t.TempDir(), t.TempDir()
	job := api.NewJobID()
	jm := startJobManager(t, storage)
	store, counter := jm.store(t, job, 1), jm.counter(t, job)
	for range 3 {
		_, err := counter.GetAndIncrement()
		require.NoError(t, err)
	}
	add(t, store, job, checkpoints, 3)

	require.NoError(t, store.Shutdown(api.JobSuspended, func(c *checkpoint.CompletedCheckpoint) {
		t.Errorf("checkpoint %d discarded", c.CheckpointID)
	}))
	require.NoError(t, counter.Shutdown(api.JobSuspended))
	assert.NotEmpty(t, jm.logs.Messages("Suspending"))
	assert.Empty(t, jm.logs.Messages("Removing "))
	assert.FileExists(t, jm.handlePath(t, job, 3))
	assert.Empty(t, jm.children(t, checkpointNode(job, 3)+"/locks"), "its lock is released")

	next := startJobManager(t, storage)
	assert.Equal(t, []int64{3}, ids(next.store(t, job, 1).GetAllCheckpoints()))
	nextID, err := next.counter(t, job).Get()
	require.NoError(t, err)
	assert.Equal(t, int64(4), nextID, "checkpoints 1 to 3 were counted")
}
