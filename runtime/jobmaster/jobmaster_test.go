package jobmaster_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// Every test drives a real JobMaster through its gateway, inside a synctest
// bubble: time is fake, so a 30 s registration pause passes at once, and
// synctest.Wait returns once the JobMaster and the fakes have done all they
// can. The JobMaster finds a fake ResourceManager through the embedded HA
// services, and fake TaskExecutors in the same rpc.LocalService.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const rmAddress = "pekko://flink/user/rpc/resourcemanager_fake"

var slotProfile = api.ResourceProfileFromResources(1, 512)

// harness is one JobMaster for the job source(2) →ALL_TO_ALL→ sink(2), a
// fake ResourceManager that leads, and the journal of what the fakes saw.
type harness struct {
	t           *testing.T
	ctx         context.Context
	rpc         *rpc.LocalService
	ha          *highavailability.EmbeddedHaServices
	journal     *journal
	rm          *fakeResourceManager
	rmID        api.ResourceManagerID
	rmElection  highavailability.LeaderElection
	jobGraph    *jobgraph.JobGraph
	jobMasterID api.JobMasterID
	jm          *jobmaster.JobMaster
	gw          gateway.JobMasterGateway // the JobMaster, as a TaskExecutor reaches it
	finals      chan *gateway.ArchivedExecutionGraph
	faults      *fault.Injector // nothing armed unless a test arms it
	trace       *trace.Recorder
	logs        *logbuf.Buffer // the JobMaster's log, unless the test gave it a Logger
}

// newHarness creates the JobMaster and the fakes but starts nothing, so a
// test can set the fakes' behaviour first. Everything is closed when the
// test ends.
func newHarness(t *testing.T, cfg jobmaster.Config) *harness {
	t.Helper()
	return newArmedHarness(t, cfg)
}

// newArmedHarness is newHarness with faults armed before the JobMaster is
// created, for the faults it asks for then.
func newArmedHarness(t *testing.T, cfg jobmaster.Config, armed ...fault.Fault) *harness {
	t.Helper()
	g := jobgraph.New("two-stage job")
	source := jobgraph.NewJobVertex("Source", "test.Source", 2)
	sink := jobgraph.NewJobVertex("Sink", "test.Sink", 2)
	source.SlotSharingGroup, sink.SlotSharingGroup = "default", "default"
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)

	h := &harness{
		t:           t,
		ctx:         context.Background(),
		rpc:         rpc.NewLocalService(),
		ha:          highavailability.NewEmbeddedHaServices(),
		journal:     newJournal(),
		jobGraph:    g,
		jobMasterID: api.NewJobMasterID(),
		finals:      make(chan *gateway.ArchivedExecutionGraph, 4),
		faults:      fault.NewInjector(nil),
		trace:       trace.NewRecorder(),
		logs:        &logbuf.Buffer{},
	}
	for _, f := range armed {
		require.NoError(t, h.faults.Inject(f))
	}
	h.rm = &fakeResourceManager{journal: h.journal}
	require.NoError(t, h.rpc.Register(rmAddress, gateway.ResourceManagerGateway(h.rm)))

	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(h.logs, nil))
	}
	jm, err := jobmaster.New(cfg, jobmaster.Deps{RPC: h.rpc, HA: h.ha, Faults: h.faults, Trace: h.trace}, g, h.jobMasterID,
		func(final *gateway.ArchivedExecutionGraph) { h.finals <- final })
	require.NoError(t, err)
	h.jm = jm
	t.Cleanup(func() {
		assert.NoError(t, h.jm.Close())
		if h.rmElection != nil {
			assert.NoError(t, h.rmElection.Close())
		}
	})
	return h
}

// start makes the fake ResourceManager the leader and starts the JobMaster.
func (h *harness) start() {
	h.t.Helper()
	h.rmElection = h.ha.ResourceManagerLeaderElection()
	contender := &leaderContender{election: h.rmElection, address: rmAddress, granted: make(chan api.LeaderSessionID, 1)}
	require.NoError(h.t, h.rmElection.StartLeaderElection(contender))
	h.rmID = api.ResourceManagerID(<-contender.granted)

	require.NoError(h.t, h.jm.Start())
	gw, err := rpc.Connect[gateway.JobMasterGateway](h.ctx, h.rpc, h.jm.Address())
	require.NoError(h.t, err)
	h.gw = gw
}

// startHarness starts a JobMaster and waits until it has registered at the
// ResourceManager and declared its requirements.
func startHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, jobmaster.Config{})
	h.start()
	h.journal.await("DeclareRequiredResources", 1)
	synctest.Wait()
	return h
}

// newTaskExecutor makes a fake TaskExecutor reachable under its name.
func (h *harness) newTaskExecutor(name string) *fakeTaskExecutor {
	h.t.Helper()
	te := &fakeTaskExecutor{journal: h.journal}
	te.location = gateway.TaskManagerLocation{ResourceID: api.ResourceID(name), Address: h.rpc.Address(name)}
	require.NoError(h.t, h.rpc.Register(te.location.Address, gateway.TaskExecutorGateway(te)))
	return te
}

// register connects a TaskExecutor to the JobMaster, as its job leader
// service would.
func (h *harness) register(te *fakeTaskExecutor) {
	h.t.Helper()
	got, err := h.gw.RegisterTaskManager(h.ctx, h.jobMasterID, h.jobGraph.JobID, te.location)
	require.NoError(h.t, err)
	require.NotEmpty(h.t, got.JobManagerResourceID)
}

// offer offers n fresh slots of te to the JobMaster (step m8) and returns
// the offers and the accepted ones.
func (h *harness) offer(te *fakeTaskExecutor, n int) (offers, accepted []gateway.SlotOffer) {
	h.t.Helper()
	for i := range n {
		offers = append(offers, gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: i, ResourceProfile: slotProfile})
	}
	accepted, err := h.gw.OfferSlots(h.ctx, h.jobMasterID, te.location.ResourceID, offers)
	require.NoError(h.t, err)
	return offers, accepted
}

// deploy registers te, offers it 2 slots and waits for the 4 tasks to be
// submitted to it (step m9). It returns the accepted offers and the
// submissions by task, "Source_0" ... "Sink_1".
func (h *harness) deploy(te *fakeTaskExecutor) ([]gateway.SlotOffer, map[string]taskSubmission) {
	h.t.Helper()
	h.register(te)
	offers, accepted := h.offer(te, 2)
	require.Equal(h.t, offers, accepted, "both slots must be accepted")
	tasks := make(map[string]taskSubmission)
	for _, c := range h.journal.await("SubmitTask", 4) {
		s := c.Arg.(taskSubmission)
		tasks[taskKey(s.TDD.TaskInfo.TaskName, s.TDD.SubtaskIndex())] = s
	}
	require.Len(h.t, tasks, 4)
	synctest.Wait()
	return accepted, tasks
}

// report sends a task's state report, as its TaskExecutor would.
func (h *harness) report(s taskSubmission, state api.ExecutionState) {
	h.t.Helper()
	err := h.gw.UpdateTaskExecutionState(h.ctx, h.jobMasterID, gateway.TaskExecutionState{AttemptID: s.TDD.ExecutionAttemptID, State: state})
	require.NoError(h.t, err, "report %s", state)
}

func (h *harness) status() api.JobStatus {
	h.t.Helper()
	got, err := h.gw.RequestJobStatus(h.ctx)
	require.NoError(h.t, err)
	return got
}

func (h *harness) job() *gateway.ArchivedExecutionGraph {
	h.t.Helper()
	got, err := h.gw.RequestJob(h.ctx)
	require.NoError(h.t, err)
	return got
}

// final returns the graph the JobMaster handed to onComplete, or nil if it
// has not called it.
func (h *harness) final() *gateway.ArchivedExecutionGraph {
	select {
	case g := <-h.finals:
		return g
	default:
		return nil
	}
}

func taskKey(name string, subtask int) string { return fmt.Sprintf("%s_%d", name, subtask) }

// subtaskStates returns the state of every subtask, by taskKey.
func subtaskStates(g *gateway.ArchivedExecutionGraph) map[string]api.ExecutionState {
	out := make(map[string]api.ExecutionState)
	for _, v := range g.Vertices {
		for _, s := range v.Subtasks {
			out[taskKey(v.Name, s.SubtaskIndex)] = s.State
		}
	}
	return out
}

func allTasks(state api.ExecutionState) map[string]api.ExecutionState {
	return map[string]api.ExecutionState{"Source_0": state, "Source_1": state, "Sink_0": state, "Sink_1": state}
}

func allocationIDs(offers []gateway.SlotOffer) []api.AllocationID {
	var out []api.AllocationID
	for _, o := range offers {
		out = append(out, o.AllocationID)
	}
	return out
}

// Scenario 1: on start the JobMaster registers at the ResourceManager it
// learned from leader retrieval (step m5), and declares its requirements
// (step m6) only once the registration has succeeded.
func TestStartRegistersAtResourceManagerThenDeclaresRequirements(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, jobmaster.Config{})
		hold := make(gate)
		h.rm.registerJobMaster = func(ctx context.Context, reg jobMasterRegistration) (gateway.JobMasterRegistrationSuccess, error) {
			if err := hold.wait(ctx); err != nil {
				return gateway.JobMasterRegistrationSuccess{}, err
			}
			return gateway.JobMasterRegistrationSuccess{ResourceManagerID: reg.RMID}, nil
		}
		h.start()
		synctest.Wait()

		// Step m5: RegisterJobMaster is in flight; nothing is declared yet.
		assert.Equal(t, []string{"RegisterJobMaster"}, h.journal.methods())
		reg := h.journal.of("RegisterJobMaster")[0].Arg.(jobMasterRegistration)
		assert.Equal(t, h.rmID, reg.RMID, "fencing token of the ResourceManager")
		assert.Equal(t, h.jobMasterID, reg.JobMasterID)
		assert.Equal(t, h.jobGraph.JobID, reg.JobID)
		assert.Equal(t, h.jm.Address(), reg.Address)
		assert.Contains(t, string(reg.JobManagerResourceID), "jobmanager-")

		// Step m6: once the ResourceManager accepts, the 2 shared slots are declared.
		hold.release()
		synctest.Wait()
		assert.Equal(t, []string{"RegisterJobMaster", "DeclareRequiredResources"}, h.journal.methods())
		got := h.journal.of("DeclareRequiredResources")[0].Arg.(requirementsDeclaration)
		want := requirementsDeclaration{
			RMID:        h.rmID,
			JobMasterID: h.jobMasterID,
			Requirements: gateway.ResourceRequirements{
				JobID:         h.jobGraph.JobID,
				TargetAddress: h.jm.Address(),
				Requirements:  []gateway.ResourceRequirement{{ResourceProfile: api.UnknownResourceProfile, NumberOfRequiredSlots: 2}},
			},
		}
		assert.Equal(t, want, got)
		assert.Equal(t, api.JobRunning, h.status())

		// A TaskExecutor learns the same JobManager ResourceID.
		te := h.newTaskExecutor("taskexecutor-0")
		success, err := h.gw.RegisterTaskManager(h.ctx, h.jobMasterID, h.jobGraph.JobID, te.location)
		require.NoError(t, err)
		assert.Equal(t, reg.JobManagerResourceID, success.JobManagerResourceID)
	})
}

// Scenario 2: the JobMaster retries RegisterJobMaster forever, following
// the registration package's rules, and declares its requirements only
// after the registration succeeded.
func TestRegistrationRetries(t *testing.T) {
	type answer int
	const (
		refuse  answer = iota // gateway.RegistrationFailure
		fail                  // any other error
		noReply               // no answer before the attempt's timeout
		accept
	)
	tests := []struct {
		name     string
		cfg      registration.Config
		answers  []answer
		wantAtts []time.Duration // when each attempt reaches the ResourceManager
	}{
		{
			name:     "refused twice, Flink's refused-registration-delay of 30 s",
			answers:  []answer{refuse, refuse, accept},
			wantAtts: []time.Duration{0, 30 * time.Second, 60 * time.Second},
		},
		{
			name:     "refused twice, a refused delay of 2 s",
			cfg:      registration.Config{RefusedDelay: 2 * time.Second},
			answers:  []answer{refuse, refuse, accept},
			wantAtts: []time.Duration{0, 2 * time.Second, 4 * time.Second},
		},
		{
			name:     "an error waits the error delay of 10 s",
			answers:  []answer{fail, accept},
			wantAtts: []time.Duration{0, 10 * time.Second},
		},
		{
			name:     "timed-out attempts are retried at once with double the timeout",
			answers:  []answer{noReply, noReply, accept},
			wantAtts: []time.Duration{0, 100 * time.Millisecond, 300 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, jobmaster.Config{Registration: tt.cfg})
				var attempt atomic.Int32
				h.rm.registerJobMaster = func(ctx context.Context, reg jobMasterRegistration) (gateway.JobMasterRegistrationSuccess, error) {
					switch tt.answers[attempt.Add(1)-1] {
					case refuse:
						return gateway.JobMasterRegistrationSuccess{}, gateway.RegistrationFailure("not now")
					case fail:
						return gateway.JobMasterRegistrationSuccess{}, errors.New("connection reset")
					case noReply:
						<-ctx.Done()
						return gateway.JobMasterRegistrationSuccess{}, ctx.Err()
					}
					return gateway.JobMasterRegistrationSuccess{ResourceManagerID: reg.RMID}, nil
				}
				h.start()

				attempts := h.journal.await("RegisterJobMaster", len(tt.answers))
				declared := h.journal.await("DeclareRequiredResources", 1)
				synctest.Wait()

				var got []time.Duration
				for _, c := range attempts {
					got = append(got, c.At)
				}
				assert.Equal(t, tt.wantAtts, got, "attempt times")
				last := tt.wantAtts[len(tt.wantAtts)-1]
				assert.Equal(t, last, declared[0].At, "requirements are declared when the registration succeeds")
				methods := h.journal.methods()
				assert.Equal(t, "DeclareRequiredResources", methods[len(methods)-1], "declared only after the last attempt: %v", methods)
				assert.Len(t, h.journal.of("RegisterJobMaster"), len(tt.answers), "no attempt after the success")
			})
		})
	}
}

// Scenario 3a: a TaskExecutor that asks for another job is rejected with
// Flink's text, and stays unknown.
func TestRegisterTaskManagerForWrongJobIsRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		te := h.newTaskExecutor("taskexecutor-0")
		otherJob := api.NewJobID()

		_, err := h.gw.RegisterTaskManager(h.ctx, h.jobMasterID, otherJob, te.location)
		require.Error(t, err)
		assert.ErrorIs(t, err, gateway.ErrRegistrationRejected)
		assert.Contains(t, err.Error(), fmt.Sprintf(
			"The JobManager is not responsible for job %s. Maybe the TaskManager used outdated connection information.", otherJob))

		_, err = h.gw.OfferSlots(h.ctx, h.jobMasterID, te.location.ResourceID, nil)
		assert.EqualError(t, err, "Unknown TaskManager taskexecutor-0")
	})
}

// Scenario 3b: slots offered by a TaskExecutor that never registered are
// refused, and nothing is deployed.
func TestOfferSlotsFromUnknownTaskManagerFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		offers := []gateway.SlotOffer{{AllocationID: api.NewAllocationID(), ResourceProfile: slotProfile}}

		got, err := h.gw.OfferSlots(h.ctx, h.jobMasterID, "taskexecutor-unknown", offers)
		assert.EqualError(t, err, "Unknown TaskManager taskexecutor-unknown")
		assert.Empty(t, got)
		synctest.Wait()
		assert.Empty(t, h.journal.of("SubmitTask"))
		assert.Equal(t, allTasks(api.ExecutionScheduled), subtaskStates(h.job()))
	})
}

// Scenario 3c: every fenced method checks the JobMasterID first; a stale
// one is refused and changes nothing.
func TestFencedMethodsRejectStaleJobMasterID(t *testing.T) {
	tests := []struct {
		name string
		call func(h *harness, te *fakeTaskExecutor, tasks map[string]taskSubmission, token api.JobMasterID) error
	}{
		{"RegisterTaskManager", func(h *harness, te *fakeTaskExecutor, _ map[string]taskSubmission, token api.JobMasterID) error {
			_, err := h.gw.RegisterTaskManager(h.ctx, token, h.jobGraph.JobID, te.location)
			return err
		}},
		{"OfferSlots", func(h *harness, te *fakeTaskExecutor, _ map[string]taskSubmission, token api.JobMasterID) error {
			_, err := h.gw.OfferSlots(h.ctx, token, te.location.ResourceID,
				[]gateway.SlotOffer{{AllocationID: api.NewAllocationID(), ResourceProfile: slotProfile}})
			return err
		}},
		{"UpdateTaskExecutionState", func(h *harness, _ *fakeTaskExecutor, tasks map[string]taskSubmission, token api.JobMasterID) error {
			return h.gw.UpdateTaskExecutionState(h.ctx, token, gateway.TaskExecutionState{
				AttemptID: tasks["Source_0"].TDD.ExecutionAttemptID, State: api.ExecutionFailed, FailureCause: errors.New("boom"),
			})
		}},
		{"DisconnectTaskManager", func(h *harness, te *fakeTaskExecutor, _ map[string]taskSubmission, token api.JobMasterID) error {
			return h.gw.DisconnectTaskManager(h.ctx, token, te.location.ResourceID, errors.New("gone"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := startHarness(t)
				te := h.newTaskExecutor("taskexecutor-0")
				_, tasks := h.deploy(te)
				before := h.journal.all()

				err := tt.call(h, te, tasks, api.NewJobMasterID())
				assert.ErrorIs(t, err, rpc.ErrFencingTokenMismatch)
				synctest.Wait()

				// Nothing happened: the job runs on, the TaskExecutor is
				// still registered, no fake was called.
				assert.Equal(t, api.JobRunning, h.status())
				assert.Equal(t, allTasks(api.ExecutionDeploying), subtaskStates(h.job()))
				assert.Equal(t, before, h.journal.all())
				_, err = h.gw.OfferSlots(h.ctx, h.jobMasterID, te.location.ResourceID, nil)
				assert.NoError(t, err, "the TaskExecutor is still registered")
			})
		})
	}
}

// Scenario 4: a registered TaskExecutor offers 2 slots (step m8): both are
// accepted, the 4 tasks are deployed into them (step m9) with the
// JobMasterID as token, and a slot nobody needs is rejected.
func TestOfferedSlotsAreAcceptedAndTasksDeployed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		te := h.newTaskExecutor("taskexecutor-0")
		accepted, tasks := h.deploy(te)

		slotOf := make(map[string]api.AllocationID)
		for key, s := range tasks {
			assert.Equal(t, h.jobMasterID, s.JobMasterID, "%s: fencing token", key)
			assert.Equal(t, te.location.ResourceID, s.TaskManager, "%s: TaskExecutor", key)
			assert.Equal(t, h.jobGraph.JobID, s.TDD.JobID, "%s: job", key)
			assert.Contains(t, allocationIDs(accepted), s.TDD.AllocationID, "%s: slot", key)
			slotOf[key] = s.TDD.AllocationID
		}
		// Slot sharing: subtask i of Source and of Sink share one slot, and
		// the two subtask indexes use different slots.
		assert.Equal(t, slotOf["Source_0"], slotOf["Sink_0"])
		assert.Equal(t, slotOf["Source_1"], slotOf["Sink_1"])
		assert.NotEqual(t, slotOf["Source_0"], slotOf["Source_1"])

		third := []gateway.SlotOffer{{AllocationID: api.NewAllocationID(), SlotIndex: 2, ResourceProfile: slotProfile}}
		got, err := h.gw.OfferSlots(h.ctx, h.jobMasterID, te.location.ResourceID, third)
		require.NoError(t, err)
		assert.Empty(t, got, "a third slot is rejected")
		synctest.Wait()
		assert.Len(t, h.journal.of("SubmitTask"), 4, "no task is deployed twice")
		assert.Len(t, h.journal.of("DeclareRequiredResources"), 1, "the requirements did not change")
	})
}

// finishAll reports every task INITIALIZING, RUNNING, then FINISHED (step
// m11 and the end).
func (h *harness) finishAll(tasks map[string]taskSubmission) {
	h.t.Helper()
	for _, state := range []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished} {
		for _, key := range []string{"Source_0", "Source_1", "Sink_0", "Sink_1"} {
			h.report(tasks[key], state)
		}
	}
}

// closeInBackground calls Close on a goroutine of its own; the channel
// gets its result.
func (h *harness) closeInBackground() <-chan error {
	closed := make(chan error, 1)
	go func() { closed <- h.jm.Close() }()
	return closed
}

// Scenario 5, the end of a job in Flink's order: as soon as the job is
// FINISHED, its slots are freed in the pool and the job declares that it
// needs none, and the runner learns the result. Nothing is disconnected
// until the runner stops the JobMaster (Close, when the Dispatcher removes
// the job): then the JobMaster disconnects from its TaskExecutor, and only
// after that from the ResourceManager, with the job's status.
//
// The TaskExecutor frees the job's slots when it is disconnected, so the
// ResourceManager must have the lowered requirements first, or the
// SlotManager could hand a freed slot back to the finished job: the
// disconnect waits until the ResourceManager has answered the declaration.
func TestAFinishedJobIsReportedAtOnceAndDisconnectsOnlyWhenStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		declareAnswer := make(gate)
		h.rm.declareRequiredResources = func(ctx context.Context, _ requirementsDeclaration) error { return declareAnswer.wait(ctx) }
		te := h.newTaskExecutor("taskexecutor-0")
		accepted, tasks := h.deploy(te)

		h.finishAll(tasks)
		synctest.Wait()
		assert.Equal(t, api.JobFinished, h.status())

		// The result is reported at once.
		final := h.final()
		require.NotNil(t, final, "onComplete as soon as the job is FINISHED")
		assert.Equal(t, h.jobGraph.JobID, final.JobID)
		assert.Equal(t, api.JobFinished, final.State)
		assert.Equal(t, allTasks(api.ExecutionFinished), subtaskStates(final))

		// The job now needs no slot, and says so; nothing is disconnected.
		declarations := h.journal.of("DeclareRequiredResources")
		require.Len(t, declarations, 2)
		assert.Equal(t, 0, declarations[1].Arg.(requirementsDeclaration).Requirements.TotalSlots(), "the job's requirements fall to zero")
		assert.Empty(t, h.journal.of("TaskExecutor.DisconnectJobManager"))
		assert.Empty(t, h.journal.of("DisconnectJobManager"))
		assert.Empty(t, h.journal.of("FreeSlot"))

		// The runner stops the JobMaster. The ResourceManager has not
		// answered the declaration yet: the TaskExecutor must wait.
		closed := h.closeInBackground()
		synctest.Wait()
		assert.Empty(t, h.journal.of("TaskExecutor.DisconnectJobManager"),
			"the TaskExecutor was disconnected (and would free the slots) before the ResourceManager had the lowered requirements")

		// The declaration is answered: first the TaskExecutor frees the
		// slots and is disconnected, then the ResourceManager is
		// disconnected, with the job's status.
		declareAnswer.release()
		require.NoError(t, <-closed)
		methods := h.journal.methods()
		assert.Equal(t, []string{"DeclareRequiredResources", "FreeSlot", "FreeSlot", "TaskExecutor.DisconnectJobManager", "DisconnectJobManager"},
			methods[len(methods)-5:])
		var freed []api.AllocationID
		for _, c := range h.journal.of("FreeSlot") {
			freed = append(freed, c.Arg.(slotRelease).AllocationID)
		}
		assert.ElementsMatch(t, allocationIDs(accepted), freed, "every slot is freed exactly once")
		cause := fmt.Sprintf("Stopping JobMaster for job 'two-stage job' (%s).", h.jobGraph.JobID)
		assert.EqualError(t, h.journal.of("TaskExecutor.DisconnectJobManager")[0].Arg.(error), cause)
		assert.Equal(t, jobManagerDisconnect{RMID: h.rmID, JobID: h.jobGraph.JobID, Status: api.JobFinished},
			h.journal.of("DisconnectJobManager")[0].Arg)
		assert.Nil(t, h.final(), "onComplete is called once")

		// Flink's log lines, in Flink's order.
		assertInOrder(t, h.logs.String(),
			fmt.Sprintf("Stopping the JobMaster for job 'two-stage job' (%s).", h.jobGraph.JobID),
			"Disconnect TaskExecutor taskexecutor-0 because: "+cause,
			"Releasing slot [",
			"Close ResourceManager connection ")
	})
}

// assertInOrder checks that each line appears in log after the one before.
func assertInOrder(t *testing.T, log string, lines ...string) {
	t.Helper()
	rest := log
	for _, line := range lines {
		_, after, found := strings.Cut(rest, line)
		if !assert.True(t, found, "%q missing, or not after the lines before it, in:\n%s", line, log) {
			return
		}
		rest = after
	}
}

// Scenario 6: Cancel moves the job to CANCELLING, cancels the tasks that
// were deployed and have not ended, and the job is CANCELED once they all
// report CANCELED.
func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		te := h.newTaskExecutor("taskexecutor-0")
		accepted, tasks := h.deploy(te)
		// Source_0 has finished, Source_1 runs, Sink_0 initializes, Sink_1
		// is still DEPLOYING.
		for _, state := range []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished} {
			h.report(tasks["Source_0"], state)
		}
		h.report(tasks["Source_1"], api.ExecutionInitializing)
		h.report(tasks["Source_1"], api.ExecutionRunning)
		h.report(tasks["Sink_0"], api.ExecutionInitializing)

		require.NoError(t, h.gw.Cancel(h.ctx))
		assert.Equal(t, api.JobCancelling, h.status())
		want := map[string]api.ExecutionState{
			"Source_0": api.ExecutionFinished, "Source_1": api.ExecutionCanceling,
			"Sink_0": api.ExecutionCanceling, "Sink_1": api.ExecutionCanceling,
		}
		assert.Equal(t, want, subtaskStates(h.job()))
		synctest.Wait()
		var cancelled []api.ExecutionAttemptID
		for _, c := range h.journal.of("CancelTask") {
			cancelled = append(cancelled, c.Arg.(taskCancellation).AttemptID)
		}
		assert.ElementsMatch(t, []api.ExecutionAttemptID{
			tasks["Source_1"].TDD.ExecutionAttemptID, tasks["Sink_0"].TDD.ExecutionAttemptID, tasks["Sink_1"].TDD.ExecutionAttemptID,
		}, cancelled)

		// The TaskExecutor reports the cancelled tasks one by one.
		h.report(tasks["Source_1"], api.ExecutionCanceled)
		h.report(tasks["Sink_0"], api.ExecutionCanceled)
		assert.Equal(t, api.JobCancelling, h.status(), "one task still runs")
		assert.Nil(t, h.final())
		h.report(tasks["Sink_1"], api.ExecutionCanceled)
		assert.Equal(t, api.JobCanceled, h.status())
		synctest.Wait()

		final := h.final()
		require.NotNil(t, final)
		assert.Equal(t, api.JobCanceled, final.State)
		want["Source_1"], want["Sink_0"], want["Sink_1"] = api.ExecutionCanceled, api.ExecutionCanceled, api.ExecutionCanceled
		assert.Equal(t, want, subtaskStates(final))
		assert.Empty(t, h.journal.of("DisconnectJobManager"), "disconnected before the JobMaster stops")

		// Stopped, the JobMaster tells the ResourceManager that the job was
		// CANCELED, after the TaskExecutor that held its slots.
		require.NoError(t, h.jm.Close())
		assert.Len(t, h.journal.of("FreeSlot"), len(accepted))
		assert.Len(t, h.journal.of("TaskExecutor.DisconnectJobManager"), 1)
		assert.Equal(t, jobManagerDisconnect{RMID: h.rmID, JobID: h.jobGraph.JobID, Status: api.JobCanceled},
			h.journal.of("DisconnectJobManager")[0].Arg)
	})
}

// Scenario 6b: a job cancelled before any slot arrived has nothing to
// cancel on a TaskExecutor and is CANCELED at once.
func TestCancelBeforeSlotsArrived(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		require.NoError(t, h.gw.Cancel(h.ctx))
		assert.Equal(t, api.JobCanceled, h.status())
		synctest.Wait()

		final := h.final()
		require.NotNil(t, final)
		assert.Equal(t, api.JobCanceled, final.State)
		assert.Equal(t, allTasks(api.ExecutionCanceled), subtaskStates(final))
		assert.Equal(t, []string{"RegisterJobMaster", "DeclareRequiredResources", "DeclareRequiredResources"}, h.journal.methods(),
			"the job declares that it needs nothing any more")
		assert.Zero(t, h.journal.of("DeclareRequiredResources")[1].Arg.(requirementsDeclaration).Requirements.TotalSlots())

		require.NoError(t, h.jm.Close())
		assert.Equal(t, []string{"RegisterJobMaster", "DeclareRequiredResources", "DeclareRequiredResources", "DisconnectJobManager"}, h.journal.methods())
	})
}

// Scenario 7: RequestJobStatus and RequestJob show the scheduler's view as
// the job goes from waiting for slots to deployed, running and finished.
func TestRequestJobStatusAndRequestJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)

		// Waiting for slots: RUNNING, every subtask SCHEDULED, none placed.
		got := h.job()
		assert.Equal(t, api.JobRunning, h.status())
		assert.Equal(t, api.JobRunning, got.State)
		assert.Equal(t, h.jobGraph.JobID, got.JobID)
		assert.Equal(t, "two-stage job", got.JobName)
		assert.WithinDuration(t, h.journal.start, got.StatusTimestamps[api.JobRunning], 0)
		require.Len(t, got.Vertices, 2)
		for i, name := range []string{"Source", "Sink"} {
			v := got.Vertices[i]
			assert.Equal(t, name, v.Name)
			assert.Equal(t, 2, v.Parallelism)
			assert.Equal(t, "default", v.SlotSharingGroup)
			// Flink's aggregate vertex state folds SCHEDULED into CREATED.
			assert.Equal(t, api.ExecutionCreated, v.State)
			for _, s := range v.Subtasks {
				assert.Empty(t, s.TaskManager, "%s_%d is not placed yet", name, s.SubtaskIndex)
			}
		}
		assert.Equal(t, allTasks(api.ExecutionScheduled), subtaskStates(got))

		// Deployed: every subtask DEPLOYING in the slot it was sent to.
		te := h.newTaskExecutor("taskexecutor-0")
		_, tasks := h.deploy(te)
		got = h.job()
		assert.Equal(t, allTasks(api.ExecutionDeploying), subtaskStates(got))
		for _, v := range got.Vertices {
			for _, s := range v.Subtasks {
				submitted := tasks[taskKey(v.Name, s.SubtaskIndex)]
				assert.Equal(t, submitted.TDD.ExecutionAttemptID, s.AttemptID)
				assert.Equal(t, submitted.TDD.AllocationID, s.AllocationID)
				assert.Equal(t, te.location.ResourceID, s.TaskManager)
			}
		}

		// Running, then finished.
		for _, s := range tasks {
			h.report(s, api.ExecutionInitializing)
			h.report(s, api.ExecutionRunning)
		}
		got = h.job()
		assert.Equal(t, api.JobRunning, got.State)
		assert.Equal(t, allTasks(api.ExecutionRunning), subtaskStates(got))
		assert.Equal(t, api.ExecutionRunning, got.Vertices[1].State)

		for _, s := range tasks {
			h.report(s, api.ExecutionFinished)
		}
		assert.Equal(t, api.JobFinished, h.status())
		got = h.job()
		assert.Equal(t, api.JobFinished, got.State)
		assert.Equal(t, allTasks(api.ExecutionFinished), subtaskStates(got))
		synctest.Wait()
		assert.NotNil(t, h.final())
	})
}

// Scenario 8: a report for an attempt the ExecutionGraph does not know is
// refused with Flink's text.
func TestUpdateTaskExecutionStateForUnknownAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		unknown := api.ExecutionAttemptID{ExecutionGraphID: api.NewExecutionGraphID(), ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID()}}

		err := h.gw.UpdateTaskExecutionState(h.ctx, h.jobMasterID, gateway.TaskExecutionState{AttemptID: unknown, State: api.ExecutionRunning})
		assert.EqualError(t, err, fmt.Sprintf("The execution attempt %s was not found.", unknown))
		assert.Equal(t, api.JobRunning, h.status())
	})
}

// A job that ends while its registration at the ResourceManager is still
// being retried must not register afterwards.
func TestJobEndingDuringRegistrationStopsTheRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, jobmaster.Config{})
		h.rm.registerJobMaster = func(context.Context, jobMasterRegistration) (gateway.JobMasterRegistrationSuccess, error) {
			return gateway.JobMasterRegistrationSuccess{}, gateway.RegistrationFailure("not now")
		}
		h.start()
		h.journal.await("RegisterJobMaster", 1)

		require.NoError(t, h.gw.Cancel(h.ctx))
		final := <-h.finals
		assert.Equal(t, api.JobCanceled, final.State)

		time.Sleep(5 * time.Minute) // fake time: ten refused-registration delays
		synctest.Wait()
		assert.Len(t, h.journal.of("RegisterJobMaster"), 1, "no attempt after the job ended")
		assert.Empty(t, h.journal.of("DeclareRequiredResources"))
	})
}

// Closing the JobMaster of a running job suspends it, in Flink's order:
// the TaskExecutor first (its slots are freed, then it is disconnected),
// then the ResourceManager, which hears SUSPENDED and keeps the requirements,
// since the job is not done. No result is reported.
func TestCloseOfARunningJobDisconnectsTaskExecutorsThenTheResourceManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		te := h.newTaskExecutor("taskexecutor-0")
		accepted, _ := h.deploy(te)

		require.NoError(t, h.jm.Close())

		methods := h.journal.methods()
		assert.Equal(t, []string{"FreeSlot", "FreeSlot", "TaskExecutor.DisconnectJobManager", "DisconnectJobManager"}, methods[len(methods)-4:])
		var freed []api.AllocationID
		for _, c := range h.journal.of("FreeSlot") {
			freed = append(freed, c.Arg.(slotRelease).AllocationID)
		}
		assert.ElementsMatch(t, allocationIDs(accepted), freed)
		cause := fmt.Sprintf("Stopping JobMaster for job 'two-stage job' (%s).", h.jobGraph.JobID)
		assert.EqualError(t, h.journal.of("TaskExecutor.DisconnectJobManager")[0].Arg.(error), cause)
		disconnect := h.journal.of("DisconnectJobManager")[0].Arg.(jobManagerDisconnect)
		assert.Equal(t, api.JobSuspended, disconnect.Status)
		assert.Nil(t, h.final(), "a suspended job has no result")
		assertInOrder(t, h.logs.String(),
			fmt.Sprintf("Stopping the JobMaster for job 'two-stage job' (%s).", h.jobGraph.JobID),
			"Disconnect TaskExecutor taskexecutor-0 because: "+cause,
			"Close ResourceManager connection ")

		require.NoError(t, h.jm.Close(), "closing twice is harmless")
		assert.Len(t, h.journal.of("DisconnectJobManager"), 1)
	})
}

// A TaskExecutor that does not answer its disconnect holds up the stop
// for the RPC timeout, no longer; the ResourceManager is told all the same.
func TestCloseGivesUpOnATaskExecutorThatDoesNotAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startHarness(t)
		te := h.newTaskExecutor("taskexecutor-0")
		te.disconnectJobManager = func(ctx context.Context, _ error) error { <-ctx.Done(); return ctx.Err() }
		h.deploy(te)

		start := time.Now()
		require.NoError(t, h.jm.Close())
		assert.Equal(t, 10*time.Second, time.Since(start), "the RPC timeout")
		assert.Len(t, h.journal.of("DisconnectJobManager"), 1)
		assert.Contains(t, h.logs.String(), "Could not disconnect job "+h.jobGraph.JobID.String()+" from TaskManager taskexecutor-0.")
	})
}

// Step m8's fault fires only where an offer would really fail: after the
// checks Flink makes first. An offer with a stale JobMasterID is refused
// with the fencing error, one from an unknown TaskManager with "Unknown
// TaskManager", and the fault stays armed; a valid offer is broken.
func TestTheSlotOfferFaultFiresOnlyAfterFlinksChecks(t *testing.T) {
	for _, kind := range fault.Kinds(trace.M8) {
		t.Run(string(kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := startHarness(t)
				te := h.newTaskExecutor("taskexecutor-0")
				h.register(te)
				require.NoError(t, h.faults.Inject(fault.Fault{Step: trace.M8, Kind: kind}))
				offers := []gateway.SlotOffer{{AllocationID: api.NewAllocationID(), ResourceProfile: slotProfile}}

				_, err := h.gw.OfferSlots(h.ctx, api.NewJobMasterID(), te.location.ResourceID, offers)
				assert.ErrorIs(t, err, rpc.ErrFencingTokenMismatch)
				_, err = h.gw.OfferSlots(h.ctx, h.jobMasterID, "taskexecutor-unknown", offers)
				assert.EqualError(t, err, "Unknown TaskManager taskexecutor-unknown")
				assert.Empty(t, h.faults.Fired(), "the fault fired before the checks")

				ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
				defer cancel()
				got, err := h.gw.OfferSlots(ctx, h.jobMasterID, te.location.ResourceID, offers)
				switch kind {
				case fault.SlotOfferRejected:
					assert.NoError(t, err)
				case fault.SlotOfferTimeout:
					assert.ErrorIs(t, err, rpc.ErrTimeout)
				}
				assert.Empty(t, got, "nothing accepted")
				require.Len(t, h.faults.Fired(), 1)
				synctest.Wait()
				assert.Empty(t, h.journal.of("SubmitTask"))

				// Fired once: the offer made again is accepted.
				got, err = h.gw.OfferSlots(h.ctx, h.jobMasterID, te.location.ResourceID, offers)
				require.NoError(t, err)
				assert.Equal(t, offers, got)
			})
		})
	}
}

// A JobMaster that was created but never started (its runner was closed
// or cancelled meanwhile) closes at once.
func TestCloseOfAJobMasterThatNeverStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, jobmaster.Config{})
		start := time.Now()
		require.NoError(t, h.jm.Close())
		assert.Zero(t, time.Since(start), "Close must not wait for an RPC timeout")
		assert.Empty(t, h.journal.all())
	})
}

// The fault max-parallelism-exceeded of step m4 breaks the JobMaster's
// creation as a program whose max parallelism is below its parallelism
// would: the widest vertex (the first of them, in topological order) gets
// half its parallelism as max parallelism, in a copy of the JobGraph, and
// the ExecutionGraph's own check fails with Flink's words. The JobGraph the
// Dispatcher stored is left alone.
func TestTheMaxParallelismFaultFailsTheJobMastersCreation(t *testing.T) {
	tests := []struct {
		name         string
		parallelisms []int // of source → map → sink
		arm          fault.Kind
		want         string // "": the JobMaster is created
	}{
		{"the widest vertex", []int{2, 5, 5}, fault.MaxParallelismExceeded,
			"JobException: Vertex Map's parallelism (5) is higher than the max parallelism (2). " +
				"Please lower the parallelism or increase the max parallelism."},
		{"the source, widest and first", []int{4, 4, 1}, fault.MaxParallelismExceeded,
			"JobException: Vertex Source's parallelism (4) is higher than the max parallelism (2)."},
		{"parallelism 1 cannot exceed a max parallelism", []int{1, 1, 1}, fault.MaxParallelismExceeded, ""},
		{"the other kind of m4 breaks the JobMaster's start, not its creation", []int{2, 2, 2}, fault.JobMasterStartFailure, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := jobgraph.New("rescaled job")
				source := jobgraph.NewJobVertex("Source", "test.Source", tt.parallelisms[0])
				mapper := jobgraph.NewJobVertex("Map", "test.Map", tt.parallelisms[1])
				sink := jobgraph.NewJobVertex("Sink", "test.Sink", tt.parallelisms[2])
				mapper.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
				sink.ConnectNewDataSetAsInput(mapper, jobgraph.Pointwise, jobgraph.PipelinedBounded)
				g.AddVertex(sink) // out of order: the fault follows the topological order
				g.AddVertex(source)
				g.AddVertex(mapper)
				stored, err := jobgraph.Encode(g)
				require.NoError(t, err)
				faults := fault.NewInjector(nil)
				require.NoError(t, faults.Inject(fault.Fault{Step: trace.M4, Kind: tt.arm}))

				jm, err := jobmaster.New(jobmaster.Config{Logger: slog.New(slog.DiscardHandler)},
					jobmaster.Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices(), Faults: faults},
					g, api.NewJobMasterID(), func(*gateway.ArchivedExecutionGraph) {})

				if tt.want == "" {
					require.NoError(t, err)
					assert.NoError(t, jm.Close())
					assert.Len(t, faults.Armed(), 1, "the fault stays armed")
					assert.Empty(t, faults.Fired())
					return
				}
				var jobException *failover.JobException
				require.ErrorAs(t, err, &jobException)
				assert.Contains(t, err.Error(), tt.want)
				assert.NotContains(t, err.Error(), "fault", "the error is the real check's")
				assert.Len(t, faults.Fired(), 1)
				again, err := jobgraph.Encode(g)
				require.NoError(t, err)
				assert.Equal(t, string(stored), string(again), "the JobGraph itself is not changed")
			})
		})
	}
}

// tooLarge is what the fault slot-sharing-group-too-large gives a slot
// sharing group: 16 CPU cores, 256 MB of task heap, 128 MB of managed
// memory.
var tooLarge = api.NewResourceProfile(16, configuration.OfMebiBytes(256), 0, configuration.OfMebiBytes(128), 0)

// The fault slot-sharing-group-too-large of step m7 makes the JobMaster
// request its slots as a program would whose slot sharing group asks for
// more than any TaskManager has: each shared slot of the group is declared
// with that profile. The JobGraph
// the Dispatcher stored is left alone, and the JobMaster's log says
// nothing of a fault.
func TestTheSlotSharingGroupFaultDeclaresSlotsNoTaskManagerFits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newArmedHarness(t, jobmaster.Config{}, fault.Fault{Step: trace.M7, Kind: fault.SlotSharingGroupTooLarge})
		h.start()
		declared := h.journal.await("DeclareRequiredResources", 1)
		synctest.Wait()

		got := declared[0].Arg.(requirementsDeclaration).Requirements.Requirements
		assert.Equal(t, []gateway.ResourceRequirement{{ResourceProfile: tooLarge, NumberOfRequiredSlots: 2}}, got,
			"both shared slots of group default, each with the group's resources")
		assert.Nil(t, h.jobGraph.SlotSharingGroupResources, "the JobGraph itself is not changed")

		assert.Empty(t, trace.Failures(h.trace.JobEvents(h.jobGraph.JobID)),
			"the SlotManager records step m7 broken, when it gives up on the job")
		assert.Len(t, h.faults.Fired(), 1)
		assert.NotRegexp(t, `(?i)\b(?:fault|inject)`, h.logs.String(), "a word of its own, not DefaultScheduler's")
	})
}
