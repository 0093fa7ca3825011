package regions

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/jobgraph"
)

// Subtask is one subtask of a JobVertex, as Flink prints it:
// "work -> Sink: print-sink (2/4)" is subtask index 1 of 4.
type Subtask struct {
	Vertex      string
	Index       int // from 0
	Parallelism int
}

func (s Subtask) String() string {
	return fmt.Sprintf("%s (%d/%d)", s.Vertex, s.Index+1, s.Parallelism)
}

// Why says why a region restarts, by the rule of the
// RestartPipelinedRegionFailoverStrategy that brought it in.
type Why int

const (
	// Keeps: the region keeps running.
	Keeps Why = iota
	// FailedRegion: the region holds the failed subtask (rule 1).
	FailedRegion
	// ReadsProducedAgain: the region reads a result of a restarting
	// region, which will be produced again (rule 2). Rule 3, the
	// producer of an input that cannot be read again, brings in no
	// region here: every BLOCKING result can be read again, and a
	// pipelined one never crosses regions.
	ReadsProducedAgain
)

// Region is one pipelined region.
type Region struct {
	// Number is the region's place in the job's regions, from 1.
	Number int
	// Subtasks are its subtasks in topological order.
	Subtasks []Subtask
	// Why it restarts after the failure; Keeps when it does not, or when
	// nothing failed.
	Why Why
	// Because is the number of the restarting region that made this one
	// restart (ReadsProducedAgain).
	Because int
}

// Reason says in words why the region restarts, "" if it does not.
func (r Region) Reason() string {
	switch r.Why {
	case FailedRegion:
		return "it holds the failed subtask"
	case ReadsProducedAgain:
		return fmt.Sprintf("it reads a result of region %d, which is produced again", r.Because)
	}
	return ""
}

// Job is a job's pipelined regions and, after Fail, what its failover
// restarts.
type Job struct {
	Name    string
	Regions []Region
	// Edges are the JobGraph's edges, by consumer and input.
	Edges []Edge
	// Failed is the subtask that failed; nil for Of.
	Failed *Subtask
	// Restart is what the strategy restarts (TasksNeedingRestart), region
	// by region.
	Restart []Subtask

	graph     *executiongraph.ExecutionGraph
	pipelined []*executiongraph.PipelinedRegion // Regions, as the graph has them
	subtask   map[api.ExecutionVertexID]Subtask
}

// Edge is one JobEdge: how the subtasks of two JobVertices exchange.
type Edge struct {
	Producer, Consumer  string
	DistributionPattern jobgraph.DistributionPattern
	ShipStrategy        string
	ResultType          jobgraph.ResultPartitionType
}

// Exchange joins a producer subtask to a consumer subtask that reads one
// of its partitions.
type Exchange struct {
	Producer, Consumer Subtask
	ResultType         jobgraph.ResultPartitionType
}

// Of builds g's ExecutionGraph as the JobMaster would and returns its
// pipelined regions.
func Of(g *jobgraph.JobGraph) (*Job, error) {
	graph, err := executiongraph.BuildGraph(g)
	if err != nil {
		return nil, err
	}
	j := &Job{Name: g.Name, graph: graph, subtask: make(map[api.ExecutionVertexID]Subtask)}
	for ev := range graph.AllExecutionVertices() {
		j.subtask[ev.ID()] = Subtask{Vertex: ev.JobVertex().Name(), Index: ev.SubtaskIndex(), Parallelism: ev.JobVertex().Parallelism()}
	}
	j.pipelined = graph.PipelinedRegions()
	for i, region := range j.pipelined {
		r := Region{Number: i + 1}
		for _, ev := range region.Vertices {
			r.Subtasks = append(r.Subtasks, j.subtask[ev.ID()])
		}
		j.Regions = append(j.Regions, r)
	}
	for _, consumer := range g.Vertices() {
		for _, e := range consumer.Inputs() {
			j.Edges = append(j.Edges, Edge{
				Producer: e.Source.Producer.Name, Consumer: consumer.Name,
				DistributionPattern: e.DistributionPattern, ShipStrategy: e.ShipStrategyName, ResultType: e.Source.ResultType,
			})
		}
	}
	return j, nil
}

// Fail returns g's pipelined regions with those that restart when the
// subtask named failed fails ("NAME (i/p)", see ParseSubtask), as the
// RestartPipelinedRegionFailoverStrategy decides with every BLOCKING
// result still available.
func Fail(g *jobgraph.JobGraph, failed string) (*Job, error) {
	j, err := Of(g)
	if err != nil {
		return nil, err
	}
	want, err := ParseSubtask(failed)
	if err != nil {
		return nil, err
	}
	id, ok := j.find(want)
	if !ok {
		return nil, fmt.Errorf("%s has no subtask %s; its subtasks are %s", j.Name, want, j.subtaskRange())
	}

	strategy := failover.NewRestartPipelinedRegionFailoverStrategy(j.graph, j.pipelined, j.available, nil)
	restart := strategy.TasksNeedingRestart(id, errors.New("the failed subtask"))

	j.Failed = &want
	restarting := make(map[int]bool)
	regionOf := j.regionOf()
	for _, r := range restart {
		j.Restart = append(j.Restart, j.subtask[r])
		restarting[regionOf[r]] = true
	}
	for i := range j.Regions {
		j.Regions[i].Why, j.Regions[i].Because = j.why(i, regionOf[id], restarting, regionOf)
	}
	return j, nil
}

// available is the strategy's ResultPartitionAvailabilityChecker: a
// BLOCKING partition can be read again, a pipelined one cannot.
func (j *Job) available(id api.IntermediateResultPartitionID) bool {
	return j.graph.ResultPartition(id).IntermediateResult().ResultType().IsBlocking()
}

// why names the rule that brought region i in: the failed region's, or
// else the lowest-numbered restarting region it reads a result of.
func (j *Job) why(i, failed int, restarting map[int]bool, regionOf map[api.ExecutionVertexID]int) (Why, int) {
	switch {
	case !restarting[i]:
		return Keeps, 0
	case i == failed:
		return FailedRegion, 0
	}
	var producers []int
	for _, ev := range j.pipelined[i].Vertices {
		for _, group := range ev.ConsumedPartitionGroups() {
			for _, id := range group.Partitions() {
				if p := regionOf[j.graph.ResultPartition(id).Producer().ID()]; p != i && restarting[p] {
					producers = append(producers, p)
				}
			}
		}
	}
	if len(producers) == 0 {
		panic(fmt.Sprintf("region %d restarts, but it neither failed nor reads a result produced again", i+1))
	}
	return ReadsProducedAgain, slices.Min(producers) + 1
}

// regionOf maps each subtask to the index of its region.
func (j *Job) regionOf() map[api.ExecutionVertexID]int {
	of := make(map[api.ExecutionVertexID]int, len(j.subtask))
	for i, region := range j.pipelined {
		for _, ev := range region.Vertices {
			of[ev.ID()] = i
		}
	}
	return of
}

// find returns the ID of the subtask s.
func (j *Job) find(s Subtask) (api.ExecutionVertexID, bool) {
	for _, v := range j.graph.VerticesTopologically() {
		if v.Name() == s.Vertex && v.Parallelism() == s.Parallelism && s.Index < s.Parallelism {
			return v.TaskVertices()[s.Index].ID(), true
		}
	}
	return api.ExecutionVertexID{}, false
}

// subtaskRange lists the job's subtasks in short, for an error:
// "Source: numbers (1/4) … (4/4), work -> Sink: print-sink (1/4) … (4/4)".
func (j *Job) subtaskRange() string {
	var vertices []string
	for _, v := range j.graph.VerticesTopologically() {
		first := fmt.Sprintf("%q", Subtask{Vertex: v.Name(), Index: 0, Parallelism: v.Parallelism()})
		if v.Parallelism() > 1 {
			first += fmt.Sprintf(" … (%d/%d)", v.Parallelism(), v.Parallelism())
		}
		vertices = append(vertices, first)
	}
	return strings.Join(vertices, ", ")
}

// Exchanges returns, for every consumer subtask in topological order and
// each of its inputs, one Exchange per producer subtask it reads from. An
// ALL_TO_ALL edge of parallelism p gives p² of them.
func (j *Job) Exchanges() []Exchange {
	var out []Exchange
	for _, consumer := range j.graph.VerticesTopologically() {
		for _, ev := range consumer.TaskVertices() {
			for _, group := range ev.ConsumedPartitionGroups() {
				for _, id := range group.Partitions() {
					out = append(out, Exchange{
						Producer:   j.subtask[j.graph.ResultPartition(id).Producer().ID()],
						Consumer:   j.subtask[ev.ID()],
						ResultType: group.ResultPartitionType(),
					})
				}
			}
		}
	}
	return out
}

// NumberOfSubtasks is the number of subtasks of the job.
func (j *Job) NumberOfSubtasks() int { return len(j.subtask) }

// subtaskName is a subtask as Flink's logs print it, with the attempt
// number they add ("#0") allowed.
var subtaskName = regexp.MustCompile(`^(.+) \((\d+)/(\d+)\)(?:#\d+)?$`)

// ParseSubtask reads a subtask as Flink prints it, "NAME (i/p)", i from 1
// to p; an attempt number after it ("NAME (i/p)#1", as in the logs) is
// ignored.
func ParseSubtask(s string) (Subtask, error) {
	m := subtaskName.FindStringSubmatch(s)
	if m == nil {
		return Subtask{}, fmt.Errorf("subtask %q: want NAME (i/p), e.g. %q", s, "work -> Sink: print-sink (2/4)")
	}
	index, err1 := strconv.Atoi(m[2])
	parallelism, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil || index < 1 || index > parallelism {
		return Subtask{}, fmt.Errorf("subtask %q: want i from 1 to p in (i/p)", s)
	}
	return Subtask{Vertex: m[1], Index: index - 1, Parallelism: parallelism}, nil
}
