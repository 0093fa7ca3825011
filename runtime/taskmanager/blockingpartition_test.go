package taskmanager_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/network"
	"flinklab/runtime/taskmanager"
)

// useTmpDir gives the fixture a ShuffleEnvironment that writes blocking
// partitions into a directory of the test's own, and returns it.
func (f *fixture) useTmpDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	shuffle, err := network.NewShuffleEnvironment(network.Config{TmpDir: dir})
	require.NoError(t, err)
	f.shuffle = shuffle
	return dir
}

// numberOfFiles returns how many files dir holds.
func numberOfFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	return len(entries)
}

// A finished task's BLOCKING partition outlives the task: it stays
// registered, its file on disk, and may be read again and again, until the
// TaskExecutor releases it.
func TestFinishedTaskKeepsItsBlockingPartition(t *testing.T) {
	f := newFixture(t)
	dir := f.useTmpDir(t)
	className := registerInvokable(t, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		return &fakeInvokable{invoke: func(ctx context.Context) error {
			for _, word := range []string{"to", "be", "or", "not"} {
				if err := env.Writers[0].EmitRecord(ctx, []byte(word), 0); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	})
	tdd := f.tdd(className)
	tdd.ProducedPartitions[0].PartitionType = jobgraph.Blocking
	id := tdd.ProducedPartitions[0].PartitionID
	task := f.newTask(t, tdd)
	task.Start()
	<-task.Done()
	require.Equal(t, api.ExecutionFinished, task.State())
	assert.Equal(t, 1, numberOfFiles(t, dir), "the task wrote its partition's file")

	for range 2 {
		records, err := readAll(f.attachConsumer(t, id))
		assert.ErrorIs(t, err, io.EOF)
		assert.Equal(t, []string{"to", "be", "or", "not"}, records)
	}
	assert.Equal(t, 1, numberOfFiles(t, dir), "read twice, and still there")

	f.shuffle.ReleasePartitionsLocally(id)
	assert.Equal(t, 0, numberOfFiles(t, dir))
}

// A task that fails or is cancelled takes its BLOCKING partitions with it:
// their files are deleted, and a consumer that already waits for them
// stops, with the cause or as cancelled.
func TestFailedOrCancelledTaskReleasesItsBlockingPartition(t *testing.T) {
	processFailed := errors.New("processElement of Map threw")
	tests := []struct {
		name      string
		end       func(ctx context.Context, task *taskmanager.Task) error
		wantState api.ExecutionState
		wantErr   error
	}{
		{"the task fails", func(context.Context, *taskmanager.Task) error { return processFailed },
			api.ExecutionFailed, processFailed},
		{"the task is cancelled", func(ctx context.Context, task *taskmanager.Task) error {
			task.Cancel()
			<-ctx.Done()
			return ctx.Err()
		}, api.ExecutionCanceled, network.ErrPartitionReleased},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			dir := f.useTmpDir(t)
			var task *taskmanager.Task
			var consumer *network.InputGate
			className := registerInvokable(t, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
				return &fakeInvokable{invoke: func(ctx context.Context) error {
					writer := env.Writers[0]
					if err := writer.EmitRecord(ctx, []byte("half of it"), 0); err != nil {
						return err
					}
					if err := writer.Flush(ctx); err != nil {
						return err
					}
					consumer = f.attachConsumer(t, writer.ID())
					return tt.end(ctx, task)
				}}, nil
			})
			tdd := f.tdd(className)
			tdd.ProducedPartitions[0].PartitionType = jobgraph.Blocking
			task = f.newTask(t, tdd)
			task.Start()
			<-task.Done()

			assert.Equal(t, tt.wantState, task.State())
			_, err := consumer.Next(context.Background())
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Equal(t, 0, numberOfFiles(t, dir), "the file is deleted")
		})
	}
}
