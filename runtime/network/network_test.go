package network

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newPartitionID returns a fresh ResultPartitionID for producer subtask n.
func newPartitionID(n int) api.ResultPartitionID {
	return api.ResultPartitionID{
		PartitionID: api.IntermediateResultPartitionID{
			IntermediateDataSetID: api.NewIntermediateDataSetID(),
			PartitionNum:          n,
		},
		ProducerID: api.ExecutionAttemptID{
			ExecutionGraphID:  api.NewExecutionGraphID(),
			ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID(), SubtaskIndex: n},
		},
	}
}

// gateDescriptor describes a gate that reads the given subpartition of
// each partition, as the scheduler's deployment descriptor would.
func gateDescriptor(subpartition int, ids ...api.ResultPartitionID) gateway.InputGateDeploymentDescriptor {
	gdd := gateway.InputGateDeploymentDescriptor{ConsumedSubpartitionIndex: subpartition}
	for _, id := range ids {
		gdd.ShuffleDescriptors = append(gdd.ShuffleDescriptors, gateway.ShuffleDescriptor{ResultPartitionID: id})
	}
	return gdd
}

// newEnvironment returns a ShuffleEnvironment or fails the test.
func newEnvironment(t testing.TB, cfg Config) *ShuffleEnvironment {
	t.Helper()
	env, err := NewShuffleEnvironment(cfg)
	require.NoError(t, err)
	return env
}

// testRecord is an 8-byte record naming its producer and its sequence number.
func testRecord(producer, seq int) []byte {
	var b [8]byte
	binary.BigEndian.PutUint32(b[:4], uint32(producer))
	binary.BigEndian.PutUint32(b[4:], uint32(seq))
	return b[:]
}

// parseTestRecord undoes testRecord.
func parseTestRecord(t testing.TB, record []byte) (producer, seq int) {
	t.Helper()
	require.Len(t, record, 8)
	return int(binary.BigEndian.Uint32(record[:4])), int(binary.BigEndian.Uint32(record[4:]))
}

// readAll reads the gate until it ends and returns every record with the
// error that ended it (io.EOF on a clean end).
func readAll(ctx context.Context, gate *InputGate) ([][]byte, error) {
	var records [][]byte
	for {
		record, err := gate.Next(ctx)
		if err != nil {
			return records, err
		}
		records = append(records, record)
	}
}

// produce emits count records of testRecord(producer, i) to subpartition
// target(i), then finishes the partition.
func produce(ctx context.Context, p *ResultPartition, producer, count int, target func(i int) int) error {
	for i := range count {
		if err := p.EmitRecord(ctx, testRecord(producer, i), target(i)); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return p.Finish(ctx)
}

// isBlocked reports whether a goroutine is still blocked, that is, has
// not sent its result yet. Call it after synctest.Wait.
func isBlocked[T any](result <-chan T) bool {
	select {
	case <-result:
		return false
	default:
		return true
	}
}
