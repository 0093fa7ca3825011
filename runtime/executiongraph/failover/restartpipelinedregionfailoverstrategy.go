package failover

import (
	"fmt"
	"log/slog"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
)

// ResultPartitionAvailabilityChecker reports whether a partition's data is
// still there to be read again: a BLOCKING partition whose producer
// finished and whose TaskManager still holds it (Flink:
// ResultPartitionAvailabilityChecker). A PIPELINED partition never is: it
// is read once, while it is written.
type ResultPartitionAvailabilityChecker func(api.IntermediateResultPartitionID) bool

// RestartPipelinedRegionFailoverStrategy restarts the pipelined region of
// the failed task and the regions its restart drags along (Flink:
// RestartPipelinedRegionFailoverStrategy;
// jobmanager.execution.failover-strategy: region, the default).
//
// A pipelined region is a set of subtasks joined by pipelined exchanges:
// they run at the same time and stream records to each other, so if one
// fails, the others lose their partner and restart with it. Regions joined
// only by blocking exchanges can restart on their own. Starting from the
// failed task's region, a region is involved, and restarts, when
//
//  1. it is the failed task's region;
//
//  2. it consumes a result of an involved region: that result will be
//     produced again, and its readers must read the new one;
//
//  3. it produced a result an involved region needs and which is not
//     available any more (lost with its TaskManager, or pipelined and so
//     read only once): it must be produced again.
//
//     region A ══blocking══► region B ══blocking══► region C
//     a task of B fails: B and C restart; A's finished result is read again
//     …and if A's TaskManager is gone with that result, A restarts too
//
// Flink states these three rules in the class's Javadoc; the search is
// breadth first, and visits each ConsumedPartitionGroup and each
// ConsumerVertexGroup once, so an all-to-all exchange between n producers
// and n consumers costs O(n), not O(n²).
type RestartPipelinedRegionFailoverStrategy struct {
	graph       *executiongraph.ExecutionGraph
	regions     []*executiongraph.PipelinedRegion
	regionOf    map[api.ExecutionVertexID]int // an index into regions
	isAvailable ResultPartitionAvailabilityChecker
	log         *slog.Logger
}

// NewRestartPipelinedRegionFailoverStrategy returns the strategy for graph,
// whose pipelined regions are regions (graph.PipelinedRegions(): the
// scheduler computes them once for its scheduling strategy and this one).
// isAvailable tells which results can be read again; nil means none can.
// logger, if not nil, receives the strategy's lines.
func NewRestartPipelinedRegionFailoverStrategy(
	graph *executiongraph.ExecutionGraph,
	regions []*executiongraph.PipelinedRegion,
	isAvailable ResultPartitionAvailabilityChecker,
	logger *slog.Logger,
) *RestartPipelinedRegionFailoverStrategy {
	if isAvailable == nil {
		isAvailable = func(api.IntermediateResultPartitionID) bool { return false }
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &RestartPipelinedRegionFailoverStrategy{
		graph:       graph,
		regions:     regions,
		regionOf:    make(map[api.ExecutionVertexID]int, graph.TotalNumberOfVertices()),
		isAvailable: isAvailable,
		log:         logger.With("logger", "RestartPipelinedRegionFailoverStrategy"),
	}
	for i, region := range regions {
		for _, ev := range region.Vertices {
			s.regionOf[ev.ID()] = i
		}
	}
	return s
}

// TasksNeedingRestart returns the subtasks of the involved regions, region
// by region in the order of regions, each in its topological order. It
// panics if vertex is in no region, as Flink throws "Can not find the
// failover region for task ...".
func (s *RestartPipelinedRegionFailoverStrategy) TasksNeedingRestart(vertex api.ExecutionVertexID, _ error) []api.ExecutionVertexID {
	failed, ok := s.regionOf[vertex]
	if !ok {
		panic(fmt.Sprintf("Can not find the failover region for task %s", vertex))
	}
	s.log.Info(fmt.Sprintf("Calculating tasks to restart to recover the failed task %s.", vertex))
	involved := s.regionsToRestart(failed)
	slices.Sort(involved)
	var restart []api.ExecutionVertexID
	for _, i := range involved {
		for _, ev := range s.regions[i].Vertices {
			restart = append(restart, ev.ID())
		}
	}
	s.log.Info(fmt.Sprintf("%d tasks should be restarted to recover the failed task %s. ", len(restart), vertex))
	return restart
}

// regionsToRestart is Flink's getRegionsToRestart: a breadth-first search
// from the failed region over rules 2 and 3. It returns the involved
// regions in the order it found them.
func (s *RestartPipelinedRegionFailoverStrategy) regionsToRestart(failed int) []int {
	involved := map[int]bool{failed: true}
	visitedConsumed := make(map[*executiongraph.ConsumedPartitionGroup]bool)
	visitedConsumers := make(map[*executiongraph.ConsumerVertexGroup]bool)
	found := []int{failed}
	visit := func(region int) {
		if !involved[region] {
			involved[region] = true
			found = append(found, region) // the queue is found[next+1:]
		}
	}
	for next := 0; next < len(found); next++ {
		for _, ev := range s.regions[found[next]].Vertices {
			// Rule 3: an input that cannot be read again is produced again.
			for _, group := range ev.ConsumedPartitionGroups() {
				if visitedConsumed[group] {
					continue
				}
				visitedConsumed[group] = true
				for _, id := range group.Partitions() {
					if !s.isAvailable(id) {
						visit(s.regionOf[s.graph.ResultPartition(id).Producer().ID()])
					}
				}
			}
			// Rule 2: whoever reads a result produced again reads it again.
			for _, produced := range ev.ProducedPartitions() {
				for _, consumers := range produced.ConsumerVertexGroups() {
					if visitedConsumers[consumers] {
						continue
					}
					visitedConsumers[consumers] = true
					for _, id := range consumers.Vertices() {
						visit(s.regionOf[id])
					}
				}
			}
		}
	}
	return found
}

func (s *RestartPipelinedRegionFailoverStrategy) String() string {
	return "RestartPipelinedRegionFailoverStrategy"
}
