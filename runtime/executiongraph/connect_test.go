package executiongraph

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/jobgraph"
)

// twoVertexGraph builds producer(sourceCount) ──pattern──► consumer(targetCount)
// and returns the consumer and the result it reads.
func twoVertexGraph(t testing.TB, sourceCount, targetCount int, pattern jobgraph.DistributionPattern) (*ExecutionJobVertex, *IntermediateResult) {
	t.Helper()
	producer := jobgraph.NewJobVertex("Producer", "SourceStreamTask", sourceCount)
	consumer := jobgraph.NewJobVertex("Consumer", "OneInputStreamTask", targetCount)
	consumer.ConnectNewDataSetAsInput(producer, pattern, jobgraph.PipelinedBounded)
	jg := jobgraph.New(fmt.Sprintf("%d to %d", sourceCount, targetCount))
	jg.AddVertex(producer)
	jg.AddVertex(consumer)
	g, err := BuildGraph(jg)
	require.NoError(t, err)
	return g.JobVertex(consumer.ID), g.JobVertex(producer.ID).ProducedDataSets()[0]
}

// readers returns, for every partition, the subtask indexes of its readers.
func readers(result *IntermediateResult) [][]int {
	out := make([][]int, len(result.Partitions()))
	for i, partition := range result.Partitions() {
		out[i] = []int{}
		for _, group := range partition.ConsumerVertexGroups() {
			for _, id := range group.Vertices() {
				out[i] = append(out[i], id.SubtaskIndex)
			}
		}
	}
	return out
}

// The expected wiring below was worked out by hand from Flink's
// EdgeManagerBuildUtil.connectPointwise:
//
//	fan-in  (S > T): consumer i reads [i*S/T, (i+1)*S/T)
//	fan-out (S < T): partition i is read by [ceil(i*T/S), ceil((i+1)*T/S))
func TestConnectPointwise(t *testing.T) {
	tests := []struct {
		name                     string
		sourceCount, targetCount int
		wantReads                [][]int // per consumer subtask: partition numbers
		wantReaders              [][]int // per partition: consumer subtasks
		wantSubpartitions        []int   // per partition
		wantSubpartitionIndex    []int   // per consumer subtask, of each partition it reads
		wantGroups               int     // distinct ConsumedPartitionGroups
	}{
		{
			// 4 → 2: 0*4/2=0..1*4/2=2 and 2..4.
			name: "4 to 2", sourceCount: 4, targetCount: 2,
			wantReads:             [][]int{{0, 1}, {2, 3}},
			wantReaders:           [][]int{{0}, {0}, {1}, {1}},
			wantSubpartitions:     []int{1, 1, 1, 1},
			wantSubpartitionIndex: []int{0, 0},
			wantGroups:            2,
		},
		{
			// 2 → 4: partition 0 → [ceil(0), ceil(4/2)=2), partition 1 → [2, 4).
			name: "2 to 4", sourceCount: 2, targetCount: 4,
			wantReads:             [][]int{{0}, {0}, {1}, {1}},
			wantReaders:           [][]int{{0, 1}, {2, 3}},
			wantSubpartitions:     []int{2, 2},
			wantSubpartitionIndex: []int{0, 1, 0, 1},
			wantGroups:            2,
		},
		{
			// 3 → 7: partition 0 → [0, ceil(7/3)=3), partition 1 → [3,
			// ceil(14/3)=5), partition 2 → [5, ceil(21/3)=7).
			name: "3 to 7", sourceCount: 3, targetCount: 7,
			wantReads:             [][]int{{0}, {0}, {0}, {1}, {1}, {2}, {2}},
			wantReaders:           [][]int{{0, 1, 2}, {3, 4}, {5, 6}},
			wantSubpartitions:     []int{3, 2, 2},
			wantSubpartitionIndex: []int{0, 1, 2, 0, 1, 0, 1},
			wantGroups:            3,
		},
		{
			// 7 → 3: consumer 0 → [0, 7/3=2), 1 → [2, 14/3=4), 2 → [4, 7).
			name: "7 to 3", sourceCount: 7, targetCount: 3,
			wantReads:             [][]int{{0, 1}, {2, 3}, {4, 5, 6}},
			wantReaders:           [][]int{{0}, {0}, {1}, {1}, {2}, {2}, {2}},
			wantSubpartitions:     []int{1, 1, 1, 1, 1, 1, 1},
			wantSubpartitionIndex: []int{0, 0, 0},
			wantGroups:            3,
		},
		{
			name: "3 to 3", sourceCount: 3, targetCount: 3,
			wantReads:             [][]int{{0}, {1}, {2}},
			wantReaders:           [][]int{{0}, {1}, {2}},
			wantSubpartitions:     []int{1, 1, 1},
			wantSubpartitionIndex: []int{0, 0, 0},
			wantGroups:            3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			consumer, result := twoVertexGraph(t, tt.sourceCount, tt.targetCount, jobgraph.Pointwise)

			var gotReads [][]int
			var gotIndex []int
			groups := map[*ConsumedPartitionGroup]bool{}
			for _, ev := range consumer.TaskVertices() {
				require.Len(t, ev.ConsumedPartitionGroups(), 1)
				group := ev.ConsumedPartitionGroups()[0]
				groups[group] = true
				gotReads = append(gotReads, partitionNums(group))
				firstRead := result.Partitions()[group.First().PartitionNum]
				gotIndex = append(gotIndex, ev.ConsumedSubpartitionIndex(firstRead))
			}
			var gotSubpartitions []int
			for _, partition := range result.Partitions() {
				gotSubpartitions = append(gotSubpartitions, partition.NumberOfSubpartitions())
			}

			assert.Equal(t, tt.wantReads, gotReads, "partitions read by each consumer")
			assert.Equal(t, tt.wantReaders, readers(result), "consumers of each partition")
			assert.Equal(t, tt.wantSubpartitions, gotSubpartitions, "subpartitions per partition")
			assert.Equal(t, tt.wantSubpartitionIndex, gotIndex, "subpartition each consumer reads of its first partition")
			assert.Len(t, groups, tt.wantGroups, "one group pair per range")
		})
	}
}

// TestConnectPointwiseMatchesClosedForm checks every small combination of
// parallelisms against formulas derived independently of Flink's loops:
//
//	S ≥ T: partition i is read by consumer ceil((i+1)*T/S) - 1 alone;
//	S < T: consumer j reads partition floor(j*S/T) alone.
func TestConnectPointwiseMatchesClosedForm(t *testing.T) {
	for s := 1; s <= 12; s++ {
		for tc := 1; tc <= 12; tc++ {
			consumer, result := twoVertexGraph(t, s, tc, jobgraph.Pointwise)
			wantReaders := make([][]int, s)
			for i := range wantReaders {
				wantReaders[i] = []int{}
			}
			if s >= tc {
				for i := range s {
					j := ((i+1)*tc+s-1)/s - 1
					wantReaders[i] = append(wantReaders[i], j)
				}
			} else {
				for j := range tc {
					i := j * s / tc
					wantReaders[i] = append(wantReaders[i], j)
				}
			}
			assert.Equal(t, wantReaders, readers(result), "%d → %d", s, tc)

			// Each reader of a partition reads a different subpartition,
			// and together they read all of them.
			for _, partition := range result.Partitions() {
				seen := make([]bool, partition.NumberOfSubpartitions())
				for _, id := range partition.ConsumerVertexGroups()[0].Vertices() {
					index := consumer.TaskVertices()[id.SubtaskIndex].ConsumedSubpartitionIndex(partition)
					require.True(t, index >= 0 && index < len(seen) && !seen[index], "%d → %d: index %d", s, tc, index)
					seen[index] = true
				}
			}
		}
	}
}

func TestConnectAllToAllIsLinear(t *testing.T) {
	const parallelism = 2000
	consumer, result := twoVertexGraph(t, parallelism, parallelism, jobgraph.AllToAll)

	// One group for all 2,000 consumers, one for all 2,000 partitions:
	// 4,000 pointers to two shared groups instead of 4,000,000 edges.
	consumed := consumer.TaskVertices()[0].ConsumedPartitionGroups()[0]
	for _, ev := range consumer.TaskVertices() {
		require.Len(t, ev.ConsumedPartitionGroups(), 1)
		require.Same(t, consumed, ev.ConsumedPartitionGroups()[0])
	}
	assert.Equal(t, parallelism, consumed.Size())
	consumers := result.Partitions()[0].ConsumerVertexGroups()[0]
	for _, partition := range result.Partitions() {
		require.Len(t, partition.ConsumerVertexGroups(), 1)
		require.Same(t, consumers, partition.ConsumerVertexGroups()[0])
	}
	assert.Equal(t, parallelism, consumers.Size())
	assert.Same(t, consumers, consumed.ConsumerVertexGroup())
}

// TestBuildGraphAllToAllCostGrowsLinearly doubles the parallelism and checks
// that allocations (count and bytes) roughly double, not quadruple.
func TestBuildGraphAllToAllCostGrowsLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations of large graphs")
	}
	small, large := allToAllJob(1000), allToAllJob(2000)

	allocsSmall := testing.AllocsPerRun(3, func() { mustBuild(t, small) })
	allocsLarge := testing.AllocsPerRun(3, func() { mustBuild(t, large) })
	bytesSmall, bytesLarge := bytesAllocated(func() { mustBuild(t, small) }), bytesAllocated(func() { mustBuild(t, large) })

	assert.Less(t, allocsLarge/allocsSmall, 2.5, "allocations: %v for 2×1000, %v for 2×2000", allocsSmall, allocsLarge)
	assert.Less(t, float64(bytesLarge)/float64(bytesSmall), 2.5, "bytes: %d for 2×1000, %d for 2×2000", bytesSmall, bytesLarge)
}

func mustBuild(t *testing.T, jg *jobgraph.JobGraph) {
	if _, err := BuildGraph(jg); err != nil {
		t.Fatal(err)
	}
}

func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
