// Exercise g03: which partitions each subtask of a POINTWISE edge reads.
//
// Each test builds a real ExecutionGraph from a two-vertex JobGraph,
// producer → consumer over one POINTWISE edge (what forward and rescale
// give), and reads back the connections through the graph's own
// accessors: the partitions each consumer subtask reads, the subtasks that
// read each partition, and the groups that hold both.
package g03_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
)

// pointwise builds producer (parallelism sources) → consumer (parallelism
// targets) over a POINTWISE edge; a body that panics fails the test here.
func pointwise(t *testing.T, sources, targets int) (g *executiongraph.ExecutionGraph) {
	t.Helper()
	jg := jobgraph.New("pointwise")
	producer := jobgraph.NewJobVertex("producer", "Invokable", sources)
	consumer := jobgraph.NewJobVertex("consumer", "Invokable", targets)
	jg.AddVertex(producer)
	jg.AddVertex(consumer)
	consumer.ConnectNewDataSetAsInput(producer, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("building the ExecutionGraph must not panic: %v", r)
		}
	}()
	g, err := executiongraph.BuildGraph(jg)
	require.NoError(t, err)
	return g
}

func vertex(g *executiongraph.ExecutionGraph, name string) *executiongraph.ExecutionJobVertex {
	for _, ejv := range g.VerticesTopologically() {
		if ejv.Name() == name {
			return ejv
		}
	}
	return nil
}

// reads lists, per consumer subtask, the producer subtasks whose
// partitions it reads, in the order of its groups.
func reads(g *executiongraph.ExecutionGraph) [][]int {
	var out [][]int
	for _, ev := range vertex(g, "consumer").TaskVertices() {
		var producers []int
		for _, group := range ev.ConsumedPartitionGroups() {
			for _, id := range group.Partitions() {
				producers = append(producers, g.ResultPartition(id).Producer().SubtaskIndex())
			}
		}
		out = append(out, producers)
	}
	return out
}

// readBy lists, per partition, the consumer subtasks that read it.
func readBy(g *executiongraph.ExecutionGraph) [][]int {
	var out [][]int
	for _, ev := range vertex(g, "producer").TaskVertices() {
		var consumers []int
		for _, partition := range ev.ProducedPartitions() {
			for _, group := range partition.ConsumerVertexGroups() {
				for _, id := range group.Vertices() {
					consumers = append(consumers, id.SubtaskIndex)
				}
			}
		}
		out = append(out, consumers)
	}
	return out
}

// The cases of Flink's EdgeManagerBuildUtil, with what each consumer
// subtask reads and who reads each partition. Ranges are contiguous and
// as even as integer division makes them: in a fan-in the consumers split
// the partitions, in a fan-out the partitions split the consumers.
func TestWhichSubtaskReadsWhichPartition(t *testing.T) {
	tests := []struct {
		sources, targets int
		reads            [][]int // per consumer subtask: the producers it reads
		readBy           [][]int // per partition: the consumers that read it
	}{
		{3, 3, [][]int{{0}, {1}, {2}}, [][]int{{0}, {1}, {2}}},
		{4, 2, [][]int{{0, 1}, {2, 3}}, [][]int{{0}, {0}, {1}, {1}}},
		{2, 4, [][]int{{0}, {0}, {1}, {1}}, [][]int{{0, 1}, {2, 3}}},
		{7, 3, [][]int{{0, 1}, {2, 3}, {4, 5, 6}}, [][]int{{0}, {0}, {1}, {1}, {2}, {2}, {2}}},
		{3, 7, [][]int{{0}, {0}, {0}, {1}, {1}, {2}, {2}}, [][]int{{0, 1, 2}, {3, 4}, {5, 6}}},
		{5, 3, [][]int{{0}, {1, 2}, {3, 4}}, [][]int{{0}, {1}, {1}, {2}, {2}}},
		{3, 5, [][]int{{0}, {0}, {1}, {1}, {2}}, [][]int{{0, 1}, {2, 3}, {4}}},
		{4, 1, [][]int{{0, 1, 2, 3}}, [][]int{{0}, {0}, {0}, {0}}},
		{1, 4, [][]int{{0}, {0}, {0}, {0}}, [][]int{{0, 1, 2, 3}}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d→%d", tt.sources, tt.targets), func(t *testing.T) {
			g := pointwise(t, tt.sources, tt.targets)
			assert.Equal(t, tt.reads, reads(g), "the producer subtasks each consumer subtask reads (consumer by consumer)")
			assert.Equal(t, tt.readBy, readBy(g), "the consumer subtasks that read each partition (partition by partition)")
		})
	}
}

// Every range is one ConsumedPartitionGroup shared by the subtasks that
// read it, paired with one ConsumerVertexGroup shared by its partitions:
// max(sources, targets) groups, not one per pair of subtasks.
func TestEachRangeIsOnePairOfSharedGroups(t *testing.T) {
	for _, c := range []struct{ sources, targets, groups int }{
		{3, 3, 3}, {4, 2, 2}, {2, 4, 2}, {7, 3, 3}, {3, 7, 3}, {1, 4, 1}, {10000, 1000, 1000}, {1000, 10000, 1000},
	} {
		t.Run(fmt.Sprintf("%d→%d", c.sources, c.targets), func(t *testing.T) {
			g := pointwise(t, c.sources, c.targets)
			consumed := map[*executiongraph.ConsumedPartitionGroup]bool{}
			for _, ev := range vertex(g, "consumer").TaskVertices() {
				require.Len(t, ev.ConsumedPartitionGroups(), 1, "a subtask reads one range of one input, through one group")
				consumed[ev.ConsumedPartitionGroups()[0]] = true
			}
			assert.Len(t, consumed, c.groups, "distinct ConsumedPartitionGroups: one per range, shared by every subtask that reads it")
			for group := range consumed {
				consumers := group.ConsumerVertexGroup()
				require.NotNil(t, consumers, "a ConsumedPartitionGroup is paired with the ConsumerVertexGroup of its range")
				assert.Same(t, group, consumers.ConsumedPartitionGroup(), "the pair points at each other")
				for _, id := range group.Partitions() {
					groups := g.ResultPartition(id).ConsumerVertexGroups()
					require.Len(t, groups, 1, "a partition is read by one range of consumers")
					assert.Same(t, consumers, groups[0], "each partition of the range holds the range's ConsumerVertexGroup")
				}
			}
		})
	}
}
