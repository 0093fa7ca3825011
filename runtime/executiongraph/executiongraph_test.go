package executiongraph

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/jobgraph"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct{ now time.Time }

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) Advance(d time.Duration) { c.now = c.now.Add(d) }

// pipeline is the job most tests use:
//
//	Source (4) ──ALL_TO_ALL──► Map (4) ──POINTWISE──► Sink (2)
type pipeline struct {
	jg                 *jobgraph.JobGraph
	source, map_, sink *jobgraph.JobVertex
}

func newPipeline() pipeline {
	source := jobgraph.NewJobVertex("Source", "SourceStreamTask", 4)
	mapper := jobgraph.NewJobVertex("Map", "OneInputStreamTask", 4)
	sink := jobgraph.NewJobVertex("Sink", "OneInputStreamTask", 2)
	mapper.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded).ShipStrategyName = "HASH"
	sink.ConnectNewDataSetAsInput(mapper, jobgraph.Pointwise, jobgraph.Blocking).ShipStrategyName = "RESCALE"
	jg := jobgraph.New("pipeline")
	// Added out of order on purpose: the ExecutionGraph sorts them.
	jg.AddVertex(sink)
	jg.AddVertex(source)
	jg.AddVertex(mapper)
	return pipeline{jg: jg, source: source, map_: mapper, sink: sink}
}

func buildPipeline(t *testing.T, opts ...Option) (pipeline, *ExecutionGraph) {
	t.Helper()
	p := newPipeline()
	g, err := BuildGraph(p.jg, opts...)
	require.NoError(t, err)
	return p, g
}

func TestBuildGraphStructure(t *testing.T) {
	p, g := buildPipeline(t)

	// The graph mirrors the job.
	assert.Equal(t, p.jg.JobID, g.JobID())
	assert.Equal(t, "pipeline", g.JobName())
	assert.False(t, g.GraphID().IsZero())
	assert.Equal(t, api.JobCreated, g.State())
	assert.Equal(t, 3, g.NumberOfVertices())
	assert.Equal(t, 4+4+2, g.TotalNumberOfVertices())

	// Job vertices come in topological order, whatever the insertion order.
	var order []string
	for _, ejv := range g.VerticesTopologically() {
		order = append(order, ejv.Name())
	}
	assert.Equal(t, []string{"Source", "Map", "Sink"}, order)

	source, mapper, sink := g.JobVertex(p.source.ID), g.JobVertex(p.map_.ID), g.JobVertex(p.sink.ID)
	require.NotNil(t, source)
	require.NotNil(t, mapper)
	require.NotNil(t, sink)
	assert.Same(t, p.map_, mapper.JobVertex())
	assert.Same(t, g, mapper.Graph())
	assert.Equal(t, p.map_.ID, mapper.ID())

	tests := []struct {
		ejv                   *ExecutionJobVertex
		parallelism           int
		produced, inputs      int
		partitionsPerProduced int
	}{
		{source, 4, 1, 0, 4},
		{mapper, 4, 1, 1, 4},
		{sink, 2, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.ejv.Name(), func(t *testing.T) {
			assert.Equal(t, tt.parallelism, tt.ejv.Parallelism())
			assert.Equal(t, 128, tt.ejv.MaxParallelism(), "default max parallelism")
			require.Len(t, tt.ejv.TaskVertices(), tt.parallelism)
			assert.Len(t, tt.ejv.ProducedDataSets(), tt.produced)
			assert.Len(t, tt.ejv.Inputs(), tt.inputs)
			for _, result := range tt.ejv.ProducedDataSets() {
				assert.Same(t, tt.ejv, result.Producer())
				assert.Len(t, result.Partitions(), tt.partitionsPerProduced)
				assert.Same(t, result, g.IntermediateResult(result.ID()))
			}

			for i, ev := range tt.ejv.TaskVertices() {
				assert.Equal(t, api.ExecutionVertexID{JobVertexID: tt.ejv.ID(), SubtaskIndex: i}, ev.ID())
				assert.Equal(t, i, ev.SubtaskIndex())
				assert.Same(t, tt.ejv, ev.JobVertex())
				assert.Same(t, ev, g.ExecutionVertex(ev.ID()))
				assert.Len(t, ev.ProducedPartitions(), tt.produced)
				assert.Len(t, ev.ConsumedPartitionGroups(), tt.inputs)

				// Each subtask starts with attempt 0, CREATED, registered.
				e := ev.CurrentExecution()
				assert.Equal(t, 0, e.AttemptNumber())
				assert.Equal(t, api.ExecutionCreated, e.State())
				assert.Equal(t, api.ExecutionCreated, ev.ExecutionState())
				assert.Same(t, ev, e.Vertex())
				found, ok := g.Execution(e.AttemptID())
				assert.True(t, ok)
				assert.Same(t, e, found)

				for j, partition := range ev.ProducedPartitions() {
					result := tt.ejv.ProducedDataSets()[j]
					assert.Same(t, partition, result.Partitions()[i])
					assert.Same(t, ev, partition.Producer())
					assert.Same(t, result, partition.IntermediateResult())
					assert.Equal(t, api.IntermediateResultPartitionID{IntermediateDataSetID: result.ID(), PartitionNum: i}, partition.ID())
					assert.Same(t, partition, g.ResultPartition(partition.ID()))
				}
			}
		})
	}

	// Inputs name the producers' results, in input order.
	assert.Equal(t, source.ProducedDataSets(), mapper.Inputs())
	assert.Equal(t, mapper.ProducedDataSets(), sink.Inputs())

	// The results know their type and their consumer's parallelism.
	assert.Equal(t, jobgraph.PipelinedBounded, source.ProducedDataSets()[0].ResultType())
	assert.Equal(t, jobgraph.Blocking, mapper.ProducedDataSets()[0].ResultType())
	assert.Equal(t, 4, source.ProducedDataSets()[0].ConsumerParallelism())
	assert.Equal(t, 2, mapper.ProducedDataSets()[0].ConsumerParallelism())
}

func TestBuildGraphAllToAllSharesOneGroupPair(t *testing.T) {
	p, g := buildPipeline(t)
	source, mapper := g.JobVertex(p.source.ID), g.JobVertex(p.map_.ID)
	result := source.ProducedDataSets()[0]

	// Every Map subtask holds the very same ConsumedPartitionGroup...
	consumed := mapper.TaskVertices()[0].ConsumedPartitionGroups()[0]
	for _, ev := range mapper.TaskVertices() {
		assert.Same(t, consumed, ev.ConsumedPartitionGroups()[0], "subtask %d", ev.SubtaskIndex())
	}
	// ...holding all four partitions of the source's result.
	assert.Equal(t, 4, consumed.Size())
	assert.Equal(t, result.ID(), consumed.IntermediateDataSetID())
	assert.Equal(t, jobgraph.PipelinedBounded, consumed.ResultPartitionType())
	for i, id := range consumed.Partitions() {
		assert.Equal(t, result.Partitions()[i].ID(), id)
	}
	assert.Equal(t, result.Partitions()[0].ID(), consumed.First())

	// Every source partition holds the very same ConsumerVertexGroup with
	// all four Map subtasks, paired with the consumed group.
	consumers := result.Partitions()[0].ConsumerVertexGroups()[0]
	for _, partition := range result.Partitions() {
		require.Len(t, partition.ConsumerVertexGroups(), 1)
		assert.Same(t, consumers, partition.ConsumerVertexGroups()[0])
		assert.Equal(t, 4, partition.NumberOfSubpartitions(), "one subpartition per Map subtask")
	}
	assert.Equal(t, 4, consumers.Size())
	for i, id := range consumers.Vertices() {
		assert.Equal(t, mapper.TaskVertices()[i].ID(), id)
	}
	assert.Equal(t, mapper.TaskVertices()[0].ID(), consumers.First())
	assert.Same(t, consumers, consumed.ConsumerVertexGroup())
	assert.Same(t, consumed, consumers.ConsumedPartitionGroup())

	// Map subtask i reads subpartition i of every source partition.
	for _, ev := range mapper.TaskVertices() {
		for _, partition := range result.Partitions() {
			assert.Equal(t, ev.SubtaskIndex(), ev.ConsumedSubpartitionIndex(partition))
		}
	}
}

func TestBuildGraphPointwiseFanIn(t *testing.T) {
	p, g := buildPipeline(t)
	mapper, sink := g.JobVertex(p.map_.ID), g.JobVertex(p.sink.ID)
	partitions := mapper.ProducedDataSets()[0].Partitions()

	// Map (4) → Sink (2): Sink 0 reads Map partitions 0,1; Sink 1 reads 2,3.
	wantPartitions := [][]int{{0, 1}, {2, 3}}
	for i, ev := range sink.TaskVertices() {
		group := ev.ConsumedPartitionGroups()[0]
		assert.Equal(t, wantPartitions[i], partitionNums(group), "Sink %d", i)
		assert.Equal(t, jobgraph.Blocking, group.ResultPartitionType())
		assert.Equal(t, []api.ExecutionVertexID{ev.ID()}, group.ConsumerVertexGroup().Vertices())

		for _, num := range wantPartitions[i] {
			// Each partition has exactly one reader, which reads
			// subpartition 0 of it.
			assert.Equal(t, 1, partitions[num].NumberOfSubpartitions())
			assert.Equal(t, 0, ev.ConsumedSubpartitionIndex(partitions[num]))
			assert.Same(t, group.ConsumerVertexGroup(), partitions[num].ConsumerVertexGroups()[0])
		}
	}
	// Sink 0 does not read partition 2.
	assert.Equal(t, -1, sink.TaskVertices()[0].ConsumedSubpartitionIndex(partitions[2]))
	// The Sink's results: none, so nothing to read from it.
	assert.Empty(t, sink.ProducedDataSets())
}

func TestBuildGraphMultipleInputsKeepInputOrder(t *testing.T) {
	left := jobgraph.NewJobVertex("Left", "SourceStreamTask", 3)
	right := jobgraph.NewJobVertex("Right", "SourceStreamTask", 2)
	join := jobgraph.NewJobVertex("Join", "TwoInputStreamTask", 2)
	join.ConnectNewDataSetAsInput(right, jobgraph.Pointwise, jobgraph.PipelinedBounded)
	join.ConnectNewDataSetAsInput(left, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	jg := jobgraph.New("join")
	jg.AddVertex(join)
	jg.AddVertex(left)
	jg.AddVertex(right)

	g, err := BuildGraph(jg)
	require.NoError(t, err)

	ejv := g.JobVertex(join.ID)
	rightResult := g.JobVertex(right.ID).ProducedDataSets()[0]
	leftResult := g.JobVertex(left.ID).ProducedDataSets()[0]
	assert.Equal(t, []*IntermediateResult{rightResult, leftResult}, ejv.Inputs())
	for _, ev := range ejv.TaskVertices() {
		groups := ev.ConsumedPartitionGroups()
		require.Len(t, groups, 2)
		assert.Equal(t, rightResult.ID(), groups[0].IntermediateDataSetID())
		assert.Equal(t, []int{ev.SubtaskIndex()}, partitionNums(groups[0]), "pointwise 2 → 2 reads its own partition")
		assert.Equal(t, leftResult.ID(), groups[1].IntermediateDataSetID())
		assert.Equal(t, 3, groups[1].Size(), "all to all reads every partition")
	}
}

func TestBuildGraphMaxParallelism(t *testing.T) {
	p := newPipeline()
	p.map_.MaxParallelism = 16
	p.source.Parallelism = 200

	g, err := BuildGraph(p.jg)
	require.NoError(t, err)

	assert.Equal(t, 16, g.JobVertex(p.map_.ID).MaxParallelism(), "set on the vertex")
	assert.Equal(t, 512, g.JobVertex(p.source.ID).MaxParallelism(), "default for 200: 300 → 512")
}

func TestBuildGraphRejectsInvalidJobGraphs(t *testing.T) {
	tests := []struct {
		name  string
		build func() *jobgraph.JobGraph
		want  string
	}{
		{"nil", func() *jobgraph.JobGraph { return nil }, "without a JobGraph"},
		{"empty", func() *jobgraph.JobGraph { return jobgraph.New("empty") }, "The given job is empty"},
		{"no invokable", func() *jobgraph.JobGraph {
			p := newPipeline()
			p.map_.InvokableClassName = ""
			return p.jg
		}, "has no invokable class."},
		{"cycle", func() *jobgraph.JobGraph {
			p := newPipeline()
			p.map_.ConnectNewDataSetAsInput(p.sink, jobgraph.Pointwise, jobgraph.PipelinedBounded)
			return p.jg
		}, "The job graph is cyclic."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := BuildGraph(tt.build())

			assert.Nil(t, g)
			require.Error(t, err)
			assert.True(t, errors.Is(err, jobgraph.ErrInvalidJobGraph), "got %v", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// A vertex whose parallelism is higher than its max parallelism is a
// well-formed JobGraph (jobgraph.Validate and so the Dispatcher accept it)
// that cannot become an ExecutionGraph: as Flink's ExecutionJobVertex
// throws a JobException, BuildGraph fails with a api.JobException and Flink's
// words.
func TestBuildGraphRefusesAParallelismAboveTheMaxParallelism(t *testing.T) {
	tests := []struct {
		name  string
		build func() *jobgraph.JobGraph
		want  string
	}{
		{"set on the vertex", func() *jobgraph.JobGraph {
			p := newPipeline()
			p.map_.MaxParallelism = 3
			return p.jg
		}, "JobException: Vertex Map's parallelism (4) is higher than the max parallelism (3). " +
			"Please lower the parallelism or increase the max parallelism."},
		{"the default, for a parallelism above the upper bound", func() *jobgraph.JobGraph {
			p := newPipeline()
			p.sink.Parallelism = jobgraph.UpperBoundMaxParallelism + 1
			return p.jg
		}, "JobException: Vertex Sink's parallelism (32769) is higher than the max parallelism (32768). " +
			"Please lower the parallelism or increase the max parallelism."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jg := tt.build()
			require.NoError(t, jg.Validate(), "the client and the Dispatcher accept the job")

			g, err := BuildGraph(jg)

			assert.Nil(t, g)
			var jobException *api.JobException
			require.ErrorAs(t, err, &jobException)
			assert.NotErrorIs(t, err, jobgraph.ErrInvalidJobGraph, "the JobGraph is well formed")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestBuildGraphAcceptsAParallelismEqualToTheMaxParallelism(t *testing.T) {
	p := newPipeline()
	p.map_.MaxParallelism = 4

	g, err := BuildGraph(p.jg)

	require.NoError(t, err)
	assert.Equal(t, 4, g.JobVertex(p.map_.ID).MaxParallelism())
	assert.Len(t, g.JobVertex(p.map_.ID).TaskVertices(), 4)
}

func TestAllExecutionVertices(t *testing.T) {
	_, g := buildPipeline(t)

	var got []string
	for ev := range g.AllExecutionVertices() {
		got = append(got, ev.TaskNameWithSubtaskIndex())
	}

	want := []string{
		"Source (1/4)", "Source (2/4)", "Source (3/4)", "Source (4/4)",
		"Map (1/4)", "Map (2/4)", "Map (3/4)", "Map (4/4)",
		"Sink (1/2)", "Sink (2/2)",
	}
	assert.Equal(t, want, got)

	// Breaking out of the loop early is allowed.
	seen := 0
	for range g.AllExecutionVertices() {
		seen++
		if seen == 2 {
			break
		}
	}
	assert.Equal(t, 2, seen)
}

func TestLookupsOfUnknownIDs(t *testing.T) {
	p, g := buildPipeline(t)

	assert.Nil(t, g.JobVertex(api.NewJobVertexID()))
	assert.Nil(t, g.IntermediateResult(api.NewIntermediateDataSetID()))
	assert.Nil(t, g.ExecutionVertex(api.ExecutionVertexID{JobVertexID: p.map_.ID, SubtaskIndex: 4}))
	assert.Nil(t, g.ExecutionVertex(api.ExecutionVertexID{JobVertexID: p.map_.ID, SubtaskIndex: -1}))
	dataSet := p.source.ProducedDataSets()[0].ID
	assert.Nil(t, g.ResultPartition(api.IntermediateResultPartitionID{IntermediateDataSetID: dataSet, PartitionNum: 4}))
	_, ok := g.Execution(api.ExecutionAttemptID{ExecutionGraphID: g.GraphID()})
	assert.False(t, ok)
}

func TestJobStatusTransitions(t *testing.T) {
	clock := newFakeClock()
	created := clock.Now()
	_, g := buildPipeline(t, WithClock(clock.Now))

	assert.Equal(t, api.JobCreated, g.State())
	assert.Equal(t, created, g.StatusTimestamp(api.JobCreated))
	assert.True(t, g.StatusTimestamp(api.JobRunning).IsZero())

	// The happy path: CREATED → RUNNING → FINISHED, each stamped.
	clock.Advance(time.Second)
	require.NoError(t, g.TransitionState(api.JobCreated, api.JobRunning))
	clock.Advance(time.Second)
	require.NoError(t, g.TransitionState(api.JobRunning, api.JobFinished))
	assert.Equal(t, api.JobFinished, g.State())
	assert.Equal(t, created.Add(time.Second), g.StatusTimestamp(api.JobRunning))
	assert.Equal(t, created.Add(2*time.Second), g.StatusTimestamp(api.JobFinished))
}

func TestJobStatusTransitionRejections(t *testing.T) {
	tests := []struct {
		name     string
		path     []api.JobStatus // moves made first, from CREATED
		from, to api.JobStatus
		wantErr  error
	}{
		{"stale from", nil, api.JobRunning, api.JobFinished, ErrUnexpectedState},
		{"illegal move", nil, api.JobCreated, api.JobFinished, api.ErrIllegalTransition},
		{"leave a terminal state", []api.JobStatus{api.JobRunning, api.JobFinished}, api.JobFinished, api.JobRunning, api.ErrIllegalTransition},
		{"restart from created", nil, api.JobCreated, api.JobRestarting, api.ErrIllegalTransition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, g := buildPipeline(t)
			from := api.JobCreated
			for _, to := range tt.path {
				require.NoError(t, g.TransitionState(from, to))
				from = to
			}

			err := g.TransitionState(tt.from, tt.to)

			require.ErrorIs(t, err, tt.wantErr)
			assert.Equal(t, from, g.State(), "a rejected move changes nothing")
			assert.Contains(t, err.Error(), "pipeline")
		})
	}
}

func TestFailureCause(t *testing.T) {
	_, g := buildPipeline(t)
	assert.NoError(t, g.FailureCause())

	cause := errors.New("TaskManager lost")
	g.SetFailureCause(cause)

	assert.Same(t, cause, g.FailureCause())
}

// partitionNums returns the partition numbers a group holds.
func partitionNums(group *ConsumedPartitionGroup) []int {
	var nums []int
	for _, id := range group.Partitions() {
		nums = append(nums, id.PartitionNum)
	}
	return nums
}

func TestResultWithoutConsumer(t *testing.T) {
	// Only a decoded graph can hold a data set nobody reads.
	jg, err := jobgraph.Decode([]byte(`{
  "jobId": "00000000000000000000000000000001",
  "name": "unread",
  "vertices": [{"id": "0000000000000000000000000000000a", "name": "Source", "invokableClassName": "x", "parallelism": 3}],
  "dataSets": [{"id": "000000000000000000000000000000d5", "producer": "0000000000000000000000000000000a"}]
}`))
	require.NoError(t, err)

	g, err := BuildGraph(jg)
	require.NoError(t, err)

	result := g.VerticesTopologically()[0].ProducedDataSets()[0]
	assert.Equal(t, 0, result.ConsumerParallelism())
	for _, partition := range result.Partitions() {
		assert.Empty(t, partition.ConsumerVertexGroups())
		assert.Equal(t, 1, partition.NumberOfSubpartitions(), "one subpartition when nobody reads it, as in Flink")
	}
}
