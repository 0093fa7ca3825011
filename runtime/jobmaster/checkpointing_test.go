package jobmaster_test

import (
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/rpc"
)

// recoveryFactoryHA are embedded HA services whose
// CheckpointRecoveryFactory is the test's.
type recoveryFactoryHA struct {
	*highavailability.EmbeddedHaServices
	factory *recordingRecoveryFactory
}

func (h recoveryFactoryHA) CheckpointRecoveryFactory() highavailability.CheckpointRecoveryFactory {
	return h.factory
}

// recordingRecoveryFactory makes standalone stores and counters that
// remember how they were shut down, or fails with storeErr.
type recordingRecoveryFactory struct {
	storeErr    error
	jobID       api.JobID
	maxRetained int
	shutdowns   []string // "store SUSPENDED", "counter SUSPENDED", in order
}

func (f *recordingRecoveryFactory) CreateRecoveredCompletedCheckpointStore(jobID api.JobID, maxRetained int) (checkpoint.CompletedCheckpointStore, error) {
	if f.storeErr != nil {
		return nil, f.storeErr
	}
	f.jobID, f.maxRetained = jobID, maxRetained
	return recordingStore{checkpoint.NewStandaloneCompletedCheckpointStore(maxRetained), f}, nil
}

func (f *recordingRecoveryFactory) CreateCheckpointIDCounter(api.JobID) (checkpoint.CheckpointIDCounter, error) {
	return recordingCounter{checkpoint.NewStandaloneCheckpointIDCounter(), f}, nil
}

type recordingStore struct {
	checkpoint.CompletedCheckpointStore
	f *recordingRecoveryFactory
}

func (s recordingStore) Shutdown(status api.JobStatus, discard func(*checkpoint.CompletedCheckpoint)) error {
	s.f.shutdowns = append(s.f.shutdowns, "store "+status.String())
	return s.CompletedCheckpointStore.Shutdown(status, discard)
}

type recordingCounter struct {
	checkpoint.CheckpointIDCounter
	f *recordingRecoveryFactory
}

func (c recordingCounter) Shutdown(status api.JobStatus) error {
	c.f.shutdowns = append(c.f.shutdowns, "counter "+status.String())
	return c.CheckpointIDCounter.Shutdown(status)
}

// checkpointedJob is a job that checkpoints every 200 ms.
func checkpointedJob(numRetained int) (*jobgraph.JobGraph, jobmaster.Config, *logbuf.Buffer) {
	g := jobgraph.New("job")
	g.AddVertex(jobgraph.NewJobVertex("Source", "test.Source", 1))
	cp := checkpoint.DefaultCheckpointCoordinatorConfiguration()
	cp.Interval, cp.NumRetained = 200*time.Millisecond, numRetained
	logs := &logbuf.Buffer{}
	return g, jobmaster.Config{Checkpointing: cp, Logger: slog.New(slog.NewJSONHandler(logs, nil))}, logs
}

// A JobMaster gets its job's store and counter from the HA services'
// CheckpointRecoveryFactory, keeping state.checkpoints.num-retained (1,
// Flink's default, with Flink's WARN, when the setting is not positive).
// Stopped while its job runs, it suspends them: a ZooKeeper store lets go
// of its locks then and keeps the checkpoints for the next JobMaster.
func TestAJobMasterTakesItsCheckpointStoreFromTheHAServicesAndSuspendsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, cfg, logs := checkpointedJob(0)
		factory := &recordingRecoveryFactory{}
		jm, err := jobmaster.New(cfg, jobmaster.Deps{RPC: rpc.NewLocalService(),
			HA: recoveryFactoryHA{highavailability.NewEmbeddedHaServices(), factory}},
			g, api.NewJobMasterID(), func(*gateway.ArchivedExecutionGraph) {})
		require.NoError(t, err)
		assert.Equal(t, g.JobID, factory.jobID)
		assert.Equal(t, checkpoint.DefaultNumRetained, factory.maxRetained)
		assert.Equal(t, []string{"The setting for 'execution.checkpointing.num-retained : 0' is invalid. Using default value of 1"},
			logs.Messages("The setting for"))

		require.NoError(t, jm.Start())
		synctest.Wait()
		require.NoError(t, jm.Close())
		assert.Equal(t, []string{"store SUSPENDED", "counter SUSPENDED"}, factory.shutdowns)
	})
}

// A store that cannot be made, because the checkpoints the job must
// resume from cannot be read, fails the JobMaster with Flink's message.
func TestAJobMasterWhoseCheckpointStoreFailsIsNotCreated(t *testing.T) {
	g, cfg, _ := checkpointedJob(1)
	factory := &recordingRecoveryFactory{storeErr: errors.New("Could not retrieve checkpoint 7 from state handle under /0000000000000000007.")}
	_, err := jobmaster.New(cfg, jobmaster.Deps{RPC: rpc.NewLocalService(),
		HA: recoveryFactoryHA{highavailability.NewEmbeddedHaServices(), factory}},
		g, api.NewJobMasterID(), func(*gateway.ArchivedExecutionGraph) {})
	assert.EqualError(t, err, "Failed to initialize high-availability completed checkpoint store: "+
		"Could not retrieve checkpoint 7 from state handle under /0000000000000000007.")
}
