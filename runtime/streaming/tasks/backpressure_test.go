package tasks

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
	"flinklab/runtime/streaming/tasks/typeutils"
)

const backpressureProgram = "tasks-test.backpressure"

// The backpressure job: a generator as fast as it can go → a sink in
// another task that takes nothing until the test lets it.
var (
	backpressureGenerated atomic.Int64
	sinkMayProceed        chan struct{}
)

const backpressureRecords = 200_000

func init() { streaming.RegisterProgram(backpressureProgram, backpressureMain) }

func backpressureMain(env *streaming.StreamExecutionEnvironment, _ []string) error {
	numbers := streaming.FromGenerator(env, func(i int64) int64 {
		backpressureGenerated.Add(1)
		return i
	}, backpressureRecords, 0)
	numbers.Rebalance().AddSink(func(int64) error {
		<-sinkMayProceed
		return nil
	}).Name("slow sink")
	return env.Execute("backpressure")
}

// A slow sink keeps a fast source's memory bounded: the source can run
// ahead only by what fits in the bounded buffer queue between the two tasks
// (plus the buffer each side is working on); then it blocks until the sink
// takes something. Without backpressure it would produce all 200,000
// records at once. The test counts both the records generated and the
// buffers queued in the source's partition, which partitionObserver shows it.
func TestASlowSinkBlocksAFastSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		backpressureGenerated.Store(0)
		sinkMayProceed = make(chan struct{})
		var mu sync.Mutex
		var partitions []*network.ResultPartition
		partitionObserver = func(p *network.ResultPartition) {
			mu.Lock()
			defer mu.Unlock()
			partitions = append(partitions, p)
		}
		t.Cleanup(func() { partitionObserver = nil }) // after the cluster is closed
		cluster, _ := startCluster(t)
		jg := planJobGraph(t, backpressureProgram, nil, 1)
		require.NoError(t, cluster.UploadJar(jg, jarBytes(t, backpressureProgram, nil)))
		jobID, err := cluster.SubmitJob(context.Background(), jg)
		require.NoError(t, err)

		time.Sleep(time.Second) // fake time: past the SlotManager's delay, into RUNNING
		synctest.Wait()         // the source is blocked on the full queue, the sink on the test
		// At most BuffersPerSubpartition buffers wait in the queue, plus the
		// one the source fills and the one the sink's gate reads. A record
		// takes at least the serialized size of 0 plus its length prefix.
		serializer, err := typeutils.CreateSerializer(reflect.TypeFor[int64]())
		require.NoError(t, err)
		smallest, err := serializer.Serialize(int64(0), nil)
		require.NoError(t, err)
		recordsPerBuffer := network.DefaultBufferSize / (len(smallest) + 1)
		bound := int64((network.DefaultBuffersPerSubpartition + 2) * recordsPerBuffer)
		ahead := backpressureGenerated.Load()
		assert.Positive(t, ahead)
		assert.LessOrEqual(t, ahead, bound, "the source ran %d records ahead of a sink that took one", ahead)
		// The buffer count itself: the source's queue is full, and no fuller.
		mu.Lock()
		require.Len(t, partitions, 1, "the source task writes one partition")
		source := partitions[0]
		mu.Unlock()
		assert.Equal(t, network.DefaultBuffersPerSubpartition, source.MaxBuffersInFlight(), "the full queue blocks the source")

		close(sinkMayProceed)
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
		assert.EqualValues(t, backpressureRecords, backpressureGenerated.Load())
		assert.LessOrEqual(t, source.MaxBuffersInFlight(), network.DefaultBuffersPerSubpartition,
			"the buffer count never exceeded the configured bound")
	})
}
