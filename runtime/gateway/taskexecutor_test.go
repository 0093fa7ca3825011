package gateway_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
)

// A partition's type travels with its descriptor, by Flink's name; a
// descriptor that names none (as every one did before partitions had
// types) is PIPELINED_BOUNDED.
func TestResultPartitionDeploymentDescriptorKeepsItsTypeInJSON(t *testing.T) {
	id := api.ResultPartitionID{
		PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: api.NewIntermediateDataSetID(), PartitionNum: 3},
		ProducerID: api.ExecutionAttemptID{
			ExecutionGraphID:  api.NewExecutionGraphID(),
			ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID(), SubtaskIndex: 3},
		},
	}
	tests := []struct {
		name     string
		rpdd     gateway.ResultPartitionDeploymentDescriptor
		wantJSON string
	}{
		{"blocking", gateway.ResultPartitionDeploymentDescriptor{PartitionID: id, NumberOfSubpartitions: 4, PartitionType: jobgraph.Blocking},
			`"partitionType":"BLOCKING"`},
		{"the zero value", gateway.ResultPartitionDeploymentDescriptor{PartitionID: id, NumberOfSubpartitions: 4},
			`"partitionType":"PIPELINED_BOUNDED"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.rpdd)
			require.NoError(t, err)
			assert.Contains(t, string(data), tt.wantJSON)

			var got gateway.ResultPartitionDeploymentDescriptor
			require.NoError(t, json.Unmarshal(data, &got))
			assert.Equal(t, tt.rpdd, got)
		})
	}

	var got gateway.ResultPartitionDeploymentDescriptor
	require.NoError(t, json.Unmarshal([]byte(`{"numberOfSubpartitions":2}`), &got))
	assert.Equal(t, jobgraph.PipelinedBounded, got.PartitionType, "no type named: PIPELINED_BOUNDED")
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"partitionType":"PIPELINED"}`), &got),
		`unknown ResultPartitionType "PIPELINED"`)
}
