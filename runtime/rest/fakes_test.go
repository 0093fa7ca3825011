package rest_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/client"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rest"
)

// fakeDispatcher is a gateway.DispatcherGateway whose methods call the
// function fields when set, and otherwise keep a small table of submitted
// jobs: SubmitJob accepts and remembers the JobGraph, ListJobs lists it,
// RequestJob answers a RUNNING job with every subtask RUNNING, and an
// unknown JobID gives gateway.ErrJobNotFound.
type fakeDispatcher struct {
	SubmitJobFunc        func(ctx context.Context, g *jobgraph.JobGraph) error
	ListJobsFunc         func(ctx context.Context) ([]api.JobID, error)
	RequestJobFunc       func(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error)
	RequestJobStatusFunc func(ctx context.Context, jobID api.JobID) (api.JobStatus, error)
	CancelJobFunc        func(ctx context.Context, jobID api.JobID) error
	RequestJobResultFunc func(ctx context.Context, jobID api.JobID) (api.JobResult, error)

	RequestJobResourceRequirementsFunc func(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error)
	UpdateJobResourceRequirementsFunc  func(ctx context.Context, jobID api.JobID, r jobgraph.JobResourceRequirements) error

	TriggerSavepointAndGetLocationFunc  func(ctx context.Context, jobID api.JobID, dir string, mode gateway.TriggerSavepointMode) (string, error)
	StopWithSavepointAndGetLocationFunc func(ctx context.Context, jobID api.JobID, dir string, mode gateway.TriggerSavepointMode) (string, error)
	RequestCheckpointStatsFunc          func(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error)

	mu        sync.Mutex
	submitted []*jobgraph.JobGraph
	cancelled []api.JobID
	updates   []jobgraph.JobResourceRequirements
}

var _ gateway.DispatcherGateway = (*fakeDispatcher)(nil)

// startTime is when every job of the fake table became INITIALIZING.
var startTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func (f *fakeDispatcher) SubmitJob(ctx context.Context, g *jobgraph.JobGraph) error {
	if f.SubmitJobFunc != nil {
		if err := f.SubmitJobFunc(ctx, g); err != nil {
			return err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submitted = append(f.submitted, g)
	return nil
}

func (f *fakeDispatcher) Submitted() []*jobgraph.JobGraph {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*jobgraph.JobGraph(nil), f.submitted...)
}

// CancelJob records the JobID, and answers CancelJobFunc's error if set;
// Cancelled lists them.
func (f *fakeDispatcher) CancelJob(ctx context.Context, jobID api.JobID) error {
	f.mu.Lock()
	f.cancelled = append(f.cancelled, jobID)
	f.mu.Unlock()
	if f.CancelJobFunc != nil {
		return f.CancelJobFunc(ctx, jobID)
	}
	return nil
}

func (f *fakeDispatcher) Cancelled() []api.JobID {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.JobID(nil), f.cancelled...)
}

func (f *fakeDispatcher) RequestJobStatus(ctx context.Context, jobID api.JobID) (api.JobStatus, error) {
	if f.RequestJobStatusFunc != nil {
		return f.RequestJobStatusFunc(ctx, jobID)
	}
	g, err := f.RequestJob(ctx, jobID)
	if err != nil {
		return 0, err
	}
	return g.State, nil
}

func (f *fakeDispatcher) RequestJob(ctx context.Context, jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	if f.RequestJobFunc != nil {
		return f.RequestJobFunc(ctx, jobID)
	}
	for _, g := range f.Submitted() {
		if g.JobID == jobID {
			return runningGraph(g), nil
		}
	}
	return nil, fmt.Errorf("%w: Could not find Flink job (%s)", gateway.ErrJobNotFound, jobID)
}

func (f *fakeDispatcher) ListJobs(ctx context.Context) ([]api.JobID, error) {
	if f.ListJobsFunc != nil {
		return f.ListJobsFunc(ctx)
	}
	var ids []api.JobID
	for _, g := range f.Submitted() {
		ids = append(ids, g.JobID)
	}
	return ids, nil
}

// RequestMultipleJobDetails summarizes the jobs ListJobs lists, as
// RequestJob answers them.
func (f *fakeDispatcher) RequestMultipleJobDetails(ctx context.Context) ([]gateway.JobDetails, error) {
	return gatewaytest.JobDetailsOfListedJobs(ctx, f)
}

func (f *fakeDispatcher) RequestJobResult(ctx context.Context, jobID api.JobID) (api.JobResult, error) {
	if f.RequestJobResultFunc != nil {
		return f.RequestJobResultFunc(ctx, jobID)
	}
	return api.JobResult{}, nil
}

// RequestJobResourceRequirements calls RequestJobResourceRequirementsFunc
// if set; otherwise it answers the requirements of a job of the table as
// the DefaultScheduler does, each vertex's parallelism as both bounds.
func (f *fakeDispatcher) RequestJobResourceRequirements(ctx context.Context, jobID api.JobID) (jobgraph.JobResourceRequirements, error) {
	if f.RequestJobResourceRequirementsFunc != nil {
		return f.RequestJobResourceRequirementsFunc(ctx, jobID)
	}
	g, err := f.RequestJob(ctx, jobID)
	if err != nil {
		return nil, err
	}
	requirements := jobgraph.JobResourceRequirements{}
	for _, v := range g.Vertices {
		requirements[v.ID] = jobgraph.JobVertexResourceRequirements{Parallelism: jobgraph.Parallelism{LowerBound: v.Parallelism, UpperBound: v.Parallelism}}
	}
	return requirements, nil
}

// UpdateJobResourceRequirements records the requirements, and answers
// UpdateJobResourceRequirementsFunc's error if set; Updates lists them.
func (f *fakeDispatcher) UpdateJobResourceRequirements(ctx context.Context, jobID api.JobID, r jobgraph.JobResourceRequirements) error {
	f.mu.Lock()
	f.updates = append(f.updates, r)
	f.mu.Unlock()
	if f.UpdateJobResourceRequirementsFunc != nil {
		return f.UpdateJobResourceRequirementsFunc(ctx, jobID, r)
	}
	return nil
}

func (f *fakeDispatcher) Updates() []jobgraph.JobResourceRequirements {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]jobgraph.JobResourceRequirements(nil), f.updates...)
}

// TriggerSavepointAndGetLocation calls TriggerSavepointAndGetLocationFunc
// if set; otherwise a job of the table is not checkpointed
// (gateway.ErrCheckpointingDisabled), and another one is not found.
func (f *fakeDispatcher) TriggerSavepointAndGetLocation(ctx context.Context, jobID api.JobID, dir string,
	mode gateway.TriggerSavepointMode) (string, error) {
	if f.TriggerSavepointAndGetLocationFunc != nil {
		return f.TriggerSavepointAndGetLocationFunc(ctx, jobID, dir, mode)
	}
	if _, err := f.RequestJob(ctx, jobID); err != nil {
		return "", err
	}
	return "", gateway.ErrCheckpointingDisabled
}

// StopWithSavepointAndGetLocation calls StopWithSavepointAndGetLocationFunc
// if set; otherwise it answers as TriggerSavepointAndGetLocation does.
func (f *fakeDispatcher) StopWithSavepointAndGetLocation(ctx context.Context, jobID api.JobID, dir string,
	mode gateway.TriggerSavepointMode) (string, error) {
	if f.StopWithSavepointAndGetLocationFunc != nil {
		return f.StopWithSavepointAndGetLocationFunc(ctx, jobID, dir, mode)
	}
	if _, err := f.RequestJob(ctx, jobID); err != nil {
		return "", err
	}
	return "", gateway.ErrCheckpointingDisabled
}

// RequestCheckpointStats calls RequestCheckpointStatsFunc if set;
// otherwise a job of the table has no statistics (it is not
// checkpointed), and another one is not found.
func (f *fakeDispatcher) RequestCheckpointStats(ctx context.Context, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
	if f.RequestCheckpointStatsFunc != nil {
		return f.RequestCheckpointStatsFunc(ctx, jobID)
	}
	if _, err := f.RequestJob(ctx, jobID); err != nil {
		return nil, err
	}
	return nil, nil
}

// runningGraph is the archived graph of a job that has just started
// running: INITIALIZING at startTime, CREATED and RUNNING a second later.
func runningGraph(g *jobgraph.JobGraph) *gateway.ArchivedExecutionGraph {
	a := &gateway.ArchivedExecutionGraph{
		JobID:   g.JobID,
		JobName: g.Name,
		State:   api.JobRunning,
		StatusTimestamps: map[api.JobStatus]time.Time{
			api.JobInitializing: startTime,
			api.JobCreated:      startTime.Add(time.Second),
			api.JobRunning:      startTime.Add(time.Second),
		},
	}
	for _, v := range g.Vertices() {
		av := gateway.ArchivedExecutionJobVertex{
			ID: v.ID, Name: v.Name, Parallelism: v.Parallelism,
			MaxParallelism: jobgraph.DefaultMaxParallelism(v.Parallelism),
			State:          api.ExecutionRunning,
		}
		for i := range v.Parallelism {
			av.Subtasks = append(av.Subtasks, gateway.ArchivedExecution{SubtaskIndex: i, State: api.ExecutionRunning})
		}
		a.Vertices = append(a.Vertices, av)
	}
	return a
}

// runCall is one call of the fakeProgramRunner.
type runCall struct {
	ProgramClass string // of the jar
	EntryClass   string
	Args         []string
	Parallelism  int
}

// fakeProgramRunner is a rest.ProgramRunner that records its calls and,
// unless JobGraphFunc says otherwise, builds smallJobGraph.
type fakeProgramRunner struct {
	JobGraphFunc func(program *client.PackagedProgram, entryClass string, args []string, parallelism int) (*jobgraph.JobGraph, error)

	mu    sync.Mutex
	calls []runCall
}

var _ rest.ProgramRunner = (*fakeProgramRunner)(nil)

func (f *fakeProgramRunner) JobGraph(program *client.PackagedProgram, entryClass string, args []string, parallelism int) (*jobgraph.JobGraph, error) {
	f.mu.Lock()
	f.calls = append(f.calls, runCall{program.ProgramClass(), entryClass, args, parallelism})
	f.mu.Unlock()
	if f.JobGraphFunc != nil {
		return f.JobGraphFunc(program, entryClass, args, parallelism)
	}
	return smallJobGraph(entryClass, parallelism), nil
}

func (f *fakeProgramRunner) Calls() []runCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]runCall(nil), f.calls...)
}

// smallJobGraph is a valid two-vertex job: a source and a keyed sink
// joined by a HASH edge.
func smallJobGraph(name string, parallelism int) *jobgraph.JobGraph {
	if parallelism == client.ParallelismDefault {
		parallelism = 1
	}
	g := jobgraph.New(name)
	source := jobgraph.NewJobVertex("Source: words", "flinklab.test.Source", parallelism)
	sink := jobgraph.NewJobVertex("Keyed Aggregation -> Sink: print", "flinklab.test.Sink", parallelism)
	g.AddVertex(source)
	g.AddVertex(sink)
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded).ShipStrategyName = "HASH"
	return g
}

// fakeResourceManager is a ResourceManagerGateway that answers the REST
// endpoint's questions from a fixed table of TaskManagers: two by
// default, one with a slot in use. Its other methods are gatewaytest's,
// which the endpoint never calls.
type fakeResourceManager struct {
	gatewaytest.ResourceManagerGateway

	mu           sync.Mutex
	taskManagers []gateway.TaskManagerInfo
	err          error // answered by both methods when set
}

var _ gateway.ResourceManagerGateway = (*fakeResourceManager)(nil)

func newFakeResourceManager() *fakeResourceManager {
	total, half, memory := defaultTaskManager()
	return &fakeResourceManager{taskManagers: []gateway.TaskManagerInfo{
		{ResourceID: "taskexecutor-0", Address: "local://taskexecutor-0", InstanceID: api.NewInstanceID(), NumberSlots: 2, NumberFreeSlots: 1,
			TotalResource: total, FreeResource: half, MemoryConfiguration: memory, Hardware: fakeHardware,
			AllocatedSlots: []gateway.SlotInfo{{JobID: jobInSlot, ResourceProfile: half}}},
		{ResourceID: "taskexecutor-1", Address: "local://taskexecutor-1", InstanceID: api.NewInstanceID(), NumberSlots: 2, NumberFreeSlots: 2,
			TotalResource: total, FreeResource: total, MemoryConfiguration: memory, Hardware: fakeHardware},
	}}
}

// jobInSlot is the job that holds a slot of the fake's taskexecutor-0.
var jobInSlot = func() api.JobID {
	id, err := api.ParseJobID("3e7a6a2b9c1d4f5e8a7b6c5d4e3f2a1b")
	if err != nil {
		panic(err)
	}
	return id
}()

// fakeHardware is the machine of the fake's TaskManagers.
var fakeHardware = gateway.HardwareDescription{CPUCores: 8, PhysicalMemory: 16 << 30, FreeMemory: 536870902, ManagedMemory: 536870920}

// defaultTaskManager returns the resources of a TaskManager with two slots
// and Flink's default configuration (taskmanager.memory.process.size:
// 1728m), as its ResourceManager reports them: its total, one slot's
// share (half of it), and its memory configuration.
func defaultTaskManager() (total, half api.ResourceProfile, memory clusterframework.TaskExecutorMemoryConfiguration) {
	spec, err := clusterframework.ProcessSpecFromConfig(map[string]string{
		"taskmanager.memory.process.size": "1728m",
		"taskmanager.numberOfTaskSlots":   "2",
	})
	if err != nil {
		panic(err)
	}
	total = clusterframework.TotalResourceProfile(spec)
	return total, clusterframework.DefaultSlotResourceProfile(total, 2), clusterframework.NewTaskExecutorMemoryConfiguration(spec)
}

func (f *fakeResourceManager) RequestResourceOverview(context.Context) (gateway.ResourceOverview, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return gateway.ResourceOverview{}, f.err
	}
	o := gateway.ResourceOverview{NumberTaskManagers: len(f.taskManagers)}
	for _, tm := range f.taskManagers {
		o.NumberRegisteredSlots += tm.NumberSlots
		o.NumberFreeSlots += tm.NumberFreeSlots
	}
	return o, nil
}

func (f *fakeResourceManager) RequestTaskManagerInfo(context.Context) ([]gateway.TaskManagerInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return append([]gateway.TaskManagerInfo(nil), f.taskManagers...), nil
}
