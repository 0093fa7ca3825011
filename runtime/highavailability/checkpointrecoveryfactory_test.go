package highavailability_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/highavailability"
)

// Without high availability every JobMaster of a job starts from nothing:
// the standalone and embedded services hand out the
// StandaloneCheckpointRecoveryFactory, whose store is empty and in memory
// and whose counter starts at checkpoint 1, each time it is asked.
func TestServicesWithoutHighAvailabilityRecoverNoCheckpoints(t *testing.T) {
	for name, ha := range map[string]highavailability.Services{
		"standalone": highavailability.NewStandaloneHaServices(rmAddress, dispatcherAddress),
		"embedded":   highavailability.NewEmbeddedHaServices(),
	} {
		t.Run(name, func(t *testing.T) {
			factory := ha.CheckpointRecoveryFactory()
			assert.Equal(t, highavailability.StandaloneCheckpointRecoveryFactory{}, factory)
			job := api.NewJobID()
			store, err := factory.CreateRecoveredCompletedCheckpointStore(job, 3)
			require.NoError(t, err)
			_, err = store.AddCheckpointAndSubsumeOldestOne(&checkpoint.CompletedCheckpoint{JobID: job, CheckpointID: 1})
			require.NoError(t, err)

			again, err := factory.CreateRecoveredCompletedCheckpointStore(job, 3)
			require.NoError(t, err)
			assert.Nil(t, again.GetLatestCheckpoint(), "the next JobMaster's store is empty")
			assert.Equal(t, 3, again.GetMaxNumberOfRetainedCheckpoints())
			assert.False(t, again.RequiresExternalizedCheckpoints())
			counter, err := factory.CreateCheckpointIDCounter(job)
			require.NoError(t, err)
			next, err := counter.Get()
			require.NoError(t, err)
			assert.Equal(t, int64(checkpoint.InitialCheckpointID), next)
		})
	}
}
