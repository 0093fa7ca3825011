package failover

import (
	"fmt"
	"slices"

	"flinklab/runtime/api"
)

// FailoverStrategy decides which tasks restart when one fails (Flink:
// FailoverStrategy). Whether the job restarts at all, and when, is the
// RestartBackoffTimeStrategy's business.
type FailoverStrategy interface {
	// TasksNeedingRestart returns the subtasks to restart after vertex
	// failed with cause (Flink: getTasksNeedingRestart).
	TasksNeedingRestart(vertex api.ExecutionVertexID, cause error) []api.ExecutionVertexID
}

// RestartAllFailoverStrategy restarts every task of the job, whichever one
// failed (Flink: RestartAllFailoverStrategy;
// jobmanager.execution.failover-strategy: full).
type RestartAllFailoverStrategy struct {
	vertices []api.ExecutionVertexID
}

// NewRestartAllFailoverStrategy returns the strategy for a job made of the
// given subtasks.
func NewRestartAllFailoverStrategy(vertices []api.ExecutionVertexID) *RestartAllFailoverStrategy {
	return &RestartAllFailoverStrategy{vertices: slices.Clone(vertices)}
}

// TasksNeedingRestart returns all subtasks, in the order given.
func (s *RestartAllFailoverStrategy) TasksNeedingRestart(api.ExecutionVertexID, error) []api.ExecutionVertexID {
	return slices.Clone(s.vertices)
}

func (s *RestartAllFailoverStrategy) String() string { return "RestartAllFailoverStrategy" }

// RestartPipelinedRegionFailoverStrategy restarts the pipelined region of
// the failed task and every region downstream of it (Flink:
// RestartPipelinedRegionFailoverStrategy;
// jobmanager.execution.failover-strategy: region, the default).
//
// A pipelined region is a set of subtasks joined by pipelined exchanges:
// they run at the same time and stream records to each other, so if one
// fails, the others lose their partner and restart with it. Regions joined
// only by blocking exchanges restart independently. A region restarts when
// it holds the failed subtask, or when it reads the results of a region
// that restarts: those results will be produced again, and their readers
// must read the new ones.
//
//	region A ══blocking══► region B ══blocking══► region C
//	a task of B fails: B and C restart; A keeps its finished results
type RestartPipelinedRegionFailoverStrategy struct {
	vertices        []api.ExecutionVertexID
	regionOf        map[api.ExecutionVertexID]int
	consumerRegions map[int][]int
}

// NewRestartPipelinedRegionFailoverStrategy returns the strategy for a job
// made of the given subtasks. regionOf numbers each subtask's pipelined
// region; consumersOf lists the subtasks that read a subtask's results (nil
// if no subtask reads another's). Both are called here, once per subtask.
func NewRestartPipelinedRegionFailoverStrategy(
	vertices []api.ExecutionVertexID,
	regionOf func(api.ExecutionVertexID) int,
	consumersOf func(api.ExecutionVertexID) []api.ExecutionVertexID,
) *RestartPipelinedRegionFailoverStrategy {
	s := &RestartPipelinedRegionFailoverStrategy{
		vertices:        slices.Clone(vertices),
		regionOf:        make(map[api.ExecutionVertexID]int, len(vertices)),
		consumerRegions: make(map[int][]int),
	}
	for _, v := range vertices {
		s.regionOf[v] = regionOf(v)
	}
	if consumersOf == nil {
		return s
	}
	for _, v := range vertices {
		from := s.regionOf[v]
		for _, c := range consumersOf(v) {
			to := regionOf(c)
			if to != from && !slices.Contains(s.consumerRegions[from], to) {
				s.consumerRegions[from] = append(s.consumerRegions[from], to)
			}
		}
	}
	return s
}

// TasksNeedingRestart returns the subtasks of the involved regions, in the
// order given at construction. It panics if vertex is not one of them, as
// Flink throws "Can not find the failover region for task ...".
func (s *RestartPipelinedRegionFailoverStrategy) TasksNeedingRestart(vertex api.ExecutionVertexID, _ error) []api.ExecutionVertexID {
	failed, ok := s.regionOf[vertex]
	if !ok {
		panic(fmt.Sprintf("Can not find the failover region for task %s", vertex))
	}
	// Visit the failed region and, breadth first, every region downstream.
	involved := map[int]bool{failed: true}
	for queue := []int{failed}; len(queue) > 0; queue = queue[1:] {
		for _, consumer := range s.consumerRegions[queue[0]] {
			if !involved[consumer] {
				involved[consumer] = true
				queue = append(queue, consumer)
			}
		}
	}
	var restart []api.ExecutionVertexID
	for _, v := range s.vertices {
		if involved[s.regionOf[v]] {
			restart = append(restart, v)
		}
	}
	return restart
}

func (s *RestartPipelinedRegionFailoverStrategy) String() string {
	return "RestartPipelinedRegionFailoverStrategy"
}
