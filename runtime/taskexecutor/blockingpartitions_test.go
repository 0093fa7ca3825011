package taskexecutor_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/taskmanager"
)

// These tests follow a BLOCKING partition through the TaskExecutor: kept
// after its producer finished, readable again and again, and released
// when the JobMaster says so, or when the TaskExecutor lets go of the job.

const (
	producingTask        = "org.flinklab.test.ProducingTask"
	failingProducingTask = "org.flinklab.test.FailingProducingTask"
)

// errProducerThrew is how failingProducingTask fails, after writing.
var errProducerThrew = errors.New("processElement of Source threw")

func init() {
	taskmanager.RegisterInvokable(producingTask, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		return producingInvokable{env: env}, nil
	})
	taskmanager.RegisterInvokable(failingProducingTask, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		return producingInvokable{env: env, err: errProducerThrew}, nil
	})
}

// producingInvokable writes "to" and "be" to every partition of its task,
// then returns err.
type producingInvokable struct {
	env *taskmanager.Environment
	err error
}

func (i producingInvokable) Restore(context.Context) error { return nil }

func (i producingInvokable) Invoke(ctx context.Context) error {
	for _, writer := range i.env.Writers {
		for _, word := range []string{"to", "be"} {
			if err := writer.EmitRecord(ctx, []byte(word), 0); err != nil {
				return err
			}
		}
		if err := writer.Flush(ctx); err != nil {
			return err
		}
	}
	return i.err
}

// producerTDD is h.tdd of className, writing one partition of each given
// type, with one subpartition.
func (h *harness) producerTDD(job deployableJob, className string, types ...jobgraph.ResultPartitionType) gateway.TaskDeploymentDescriptor {
	tdd := h.tdd(job, className)
	for i, partitionType := range types {
		tdd.ProducedPartitions = append(tdd.ProducedPartitions, gateway.ResultPartitionDeploymentDescriptor{
			PartitionID: api.ResultPartitionID{
				PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID(), PartitionNum: i},
				ProducerID:  tdd.ExecutionAttemptID,
			},
			NumberOfSubpartitions: 1,
			PartitionType:         partitionType,
		})
	}
	return tdd
}

// read reads a partition produced here to its end, as a consumer would.
func (h *harness) read(id api.ResultPartitionID) ([]string, error) {
	gate := h.shuffle.CreateInputGate(gateway.InputGateDeploymentDescriptor{
		ShuffleDescriptors: []gateway.ShuffleDescriptor{{ResultPartitionID: id}},
	})
	defer gate.Close()
	var records []string
	for {
		record, err := gate.Next(context.Background())
		if err != nil {
			return records, err
		}
		records = append(records, string(record))
	}
}

// files returns how many files the shuffle has written and not deleted.
func (h *harness) files() int {
	entries, err := os.ReadDir(h.tmpDir)
	require.NoError(h.t, err)
	return len(entries)
}

// tracked returns the job's BLOCKING partitions the TaskExecutor keeps.
func (h *harness) tracked(jobID api.JobID) []api.ResultPartitionID {
	ids, err := h.te.TrackedPartitionsForTest(context.Background(), jobID)
	require.NoError(h.t, err)
	return ids
}

// jobs returns the jobs in the TaskExecutor's job table.
func (h *harness) jobs() []api.JobID {
	jobs, err := h.te.JobTableForTest(context.Background())
	require.NoError(h.t, err)
	return jobs
}

// A finished task's BLOCKING partition stays with the TaskExecutor, which
// keeps the job for it even when the job's last slot is freed. It is read
// twice. ReleasePartitions then deletes it (an unknown ID next to it is
// ignored), and the job, with neither slots nor partitions here any more,
// is closed.
func TestFinishedTaskKeepsItsBlockingPartitionUntilReleasePartitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		tdd := h.producerTDD(job, producingTask, jobgraph.Blocking, jobgraph.PipelinedBounded)
		blocking, pipelined := tdd.ProducedPartitions[0].PartitionID, tdd.ProducedPartitions[1].PartitionID

		require.NoError(t, h.te.SubmitTask(ctx, tdd, job.jmID))
		synctest.Wait()
		require.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished}, states(job.jm))
		assert.Equal(t, []api.ResultPartitionID{blocking}, h.tracked(job.jobID), "a pipelined partition is not tracked")
		assert.Equal(t, 1, h.files())

		records, err := h.read(pipelined)
		require.ErrorIs(t, err, io.EOF)
		assert.Equal(t, []string{"to", "be"}, records)
		for range 2 {
			records, err := h.read(blocking)
			require.ErrorIs(t, err, io.EOF)
			assert.Equal(t, []string{"to", "be"}, records)
		}

		// The JobMaster frees the producer's slot: the partition, and so the
		// job, stay.
		require.NoError(t, h.te.FreeSlot(ctx, job.allocationID, job.jmID, errors.New("the producer finished")))
		synctest.Wait()
		assert.True(t, h.slotIsFree(0))
		assert.Equal(t, []api.JobID{job.jobID}, h.jobs(), "the job stays for its partition")
		assert.Empty(t, drain(job.jm.disconnects))
		records, err = h.read(blocking)
		require.ErrorIs(t, err, io.EOF)
		assert.Equal(t, []string{"to", "be"}, records, "still readable")

		// No consumer needs it any more.
		unknown := blocking
		unknown.ProducerID.AttemptNumber = 7
		require.NoError(t, h.te.ReleasePartitions(ctx, job.jobID, []api.ResultPartitionID{blocking, unknown}))
		synctest.Wait()
		assert.Empty(t, h.tracked(job.jobID))
		assert.Zero(t, h.files(), "the partition's file is deleted")
		assert.Contains(t, h.logs.String(), "Releasing Job Partitions ["+blocking.String()+", "+unknown.String()+"]")
		assert.Empty(t, h.jobs(), "no slots and no partitions: the job is closed")
		disconnects := drain(job.jm.disconnects)
		require.Len(t, disconnects, 1)
		assert.ErrorContains(t, disconnects[0], "has no more allocated slots for job "+job.jobID.String())

		// Releasing again, or what is not there, changes nothing.
		require.NoError(t, h.te.ReleasePartitions(ctx, job.jobID, []api.ResultPartitionID{blocking}))
		require.NoError(t, h.te.ReleasePartitions(ctx, api.NewJobID(), nil))
	})
}

// When the TaskExecutor lets go of a job, because its JobMaster
// disconnects or because the TaskExecutor stops, all of the job's BLOCKING
// partitions go with it.
func TestReleasingTheJobReleasesAllItsBlockingPartitions(t *testing.T) {
	tests := []struct {
		name    string
		release func(h *harness, job deployableJob)
	}{
		{"the JobMaster disconnects", func(h *harness, job deployableJob) {
			require.NoError(h.t, h.te.DisconnectJobManager(context.Background(), job.jobID, job.jmID, errors.New("The job finished.")))
		}},
		{"the TaskExecutor shuts down", func(h *harness, _ deployableJob) {
			require.NoError(h.t, h.te.Close())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				h := newHarness(t, nil)
				job := h.newDeployableJob()
				tdd := h.producerTDD(job, producingTask, jobgraph.Blocking, jobgraph.Blocking)
				require.NoError(t, h.te.SubmitTask(ctx, tdd, job.jmID))
				synctest.Wait()
				require.Len(t, h.tracked(job.jobID), 2)
				require.Equal(t, 2, h.files())

				tt.release(h, job)
				synctest.Wait()

				assert.Zero(t, h.files(), "every partition of the job is released")
				assert.Contains(t, h.logs.String(), "for job "+job.jobID.String())
				assert.Contains(t, h.logs.String(), "Releasing Job Partitions [")
			})
		})
	}
}

// A task that fails releases its BLOCKING partitions itself; the
// TaskExecutor forgets them, and the job does not stay for them.
func TestAFailedTasksBlockingPartitionIsNotKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		tdd := h.producerTDD(job, failingProducingTask, jobgraph.Blocking)
		require.NoError(t, h.te.SubmitTask(ctx, tdd, job.jmID))
		synctest.Wait()

		final := drain(job.jm.states)
		require.NotEmpty(t, final)
		assert.Equal(t, api.ExecutionFailed, final[len(final)-1].State)
		assert.ErrorIs(t, final[len(final)-1].FailureCause, errProducerThrew)
		assert.Empty(t, h.tracked(job.jobID))
		assert.Zero(t, h.files())

		require.NoError(t, h.te.FreeSlot(ctx, job.allocationID, job.jmID, errors.New("the job failed over")))
		synctest.Wait()
		assert.True(t, h.slotIsFree(0))
		assert.Empty(t, h.jobs(), "nothing keeps the job")
	})
}
