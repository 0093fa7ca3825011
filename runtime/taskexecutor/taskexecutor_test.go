package taskexecutor_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/network"
	"flinklab/runtime/rpc"
	"flinklab/runtime/taskexecutor"
	"flinklab/runtime/taskmanager"
	"flinklab/runtime/trace"
)

// Every test runs in a synctest bubble: time is fake, and synctest.Wait
// returns once the TaskExecutor, its tasks and the fakes have done all they
// can, so the tests need neither sleeps nor polling.

var slotProfile = api.ResourceProfileFromResources(1, 512)

// harness is one TaskExecutor with 2 slots, a fake ResourceManager that
// leads, and a BlobServer holding one jar.
type harness struct {
	t          *testing.T
	rpc        *rpc.LocalService
	ha         *highavailability.EmbeddedHaServices
	rm         *fakeResourceManager
	rmID       api.ResourceManagerID
	rmElection highavailability.LeaderElection
	blobServer *blob.BlobServer
	trace      *trace.Recorder
	faults     *fault.Injector // nothing armed unless a test arms it
	logs       *logbuf.Buffer
	shuffle    *network.ShuffleEnvironment
	tmpDir     string // where the shuffle writes blocking partitions
	te         *taskexecutor.TaskExecutor
}

// newHarness starts the fake ResourceManager, lets configure adjust it, and
// starts the TaskExecutor.
func newHarness(t *testing.T, configure func(rm *fakeResourceManager)) *harness {
	t.Helper()
	return newHarnessWith(t, harnessOptions{configure: configure})
}

// newHarnessWithHA is newHarness whose TaskExecutor sees the HA services
// through wrapHA (nil: as they are).
func newHarnessWithHA(t *testing.T, configure func(rm *fakeResourceManager),
	wrapHA func(highavailability.Services) highavailability.Services) *harness {
	t.Helper()
	return newHarnessWith(t, harnessOptions{configure: configure, wrapHA: wrapHA})
}

// harnessOptions adjust a harness; the zero value is newHarness(t, nil).
type harnessOptions struct {
	configure   func(rm *fakeResourceManager)                             // nil: the fake as it is
	wrapHA      func(highavailability.Services) highavailability.Services // nil: the HA services as they are
	heartbeat   heartbeat.HeartbeatServices                               // zero: Flink's defaults
	dataAddress string                                                    // empty: partitions are read in-process
}

func newHarnessWith(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	configure, wrapHA := opts.configure, opts.wrapHA
	h := &harness{
		t:      t,
		rpc:    rpc.NewLocalService(),
		ha:     highavailability.NewEmbeddedHaServices(),
		rm:     newFakeResourceManager(),
		trace:  trace.NewRecorder(),
		faults: fault.NewInjector(nil),
		logs:   &logbuf.Buffer{},
	}
	if configure != nil {
		configure(h.rm)
	}
	h.rmElection = h.ha.ResourceManagerLeaderElection()
	h.rmID = api.ResourceManagerID(h.lead(h.rmElection, "resourcemanager_0", h.rm))

	var err error
	h.blobServer, err = blob.NewBlobServer(blob.ServerConfig{StorageDir: t.TempDir(), Logger: discard()})
	require.NoError(t, err)
	cache, err := blob.NewPermanentBlobCache(blob.CacheConfig{StorageDir: t.TempDir(), Source: h.blobServer, Logger: discard()})
	require.NoError(t, err)
	h.tmpDir = t.TempDir()
	h.shuffle, err = network.NewShuffleEnvironment(network.Config{TmpDir: h.tmpDir})
	require.NoError(t, err)

	var ha highavailability.Services = h.ha
	if wrapHA != nil {
		ha = wrapHA(h.ha)
	}
	h.te, err = taskexecutor.New(taskexecutor.Config{
		ResourceID:         "tm-1",
		NumberOfSlots:      2,
		DefaultSlotProfile: slotProfile,
		Heartbeat:          opts.heartbeat,
		DataAddress:        opts.dataAddress,
		Logger:             slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}, taskexecutor.Deps{RPC: h.rpc, HA: ha, BlobCache: cache, Shuffle: h.shuffle, Trace: h.trace, Faults: h.faults})
	require.NoError(t, err)
	require.NoError(t, h.te.Start())
	t.Cleanup(func() {
		require.NoError(t, h.te.Close())
		_ = cache.Close()
		_ = h.blobServer.Close()
	})
	return h
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// lead registers a fake gateway under name and makes it the leader of an
// election; it returns the leader session, from which the fencing token
// follows.
func (h *harness) lead(election highavailability.LeaderElection, name string, fake any) api.LeaderSessionID {
	address := h.rpc.Address(name)
	require.NoError(h.t, h.rpc.Register(address, fake))
	contender := &fakeContender{election: election, address: address}
	require.NoError(h.t, election.StartLeaderElection(contender))
	return contender.session
}

// startJobMaster makes a fake JobMaster the leader of a job.
func (h *harness) startJobMaster(jobID api.JobID) (*fakeJobMaster, api.JobMasterID) {
	jm := newFakeJobMaster()
	session := h.lead(h.ha.JobManagerLeaderElection(jobID), "jobmanager_"+jobID.String(), jm)
	return jm, api.JobMasterID(session)
}

// requestSlot is the SlotManager's step m7 for slot index of job.
func (h *harness) requestSlot(index int, jobID api.JobID) (api.AllocationID, error) {
	allocationID := api.NewAllocationID()
	err := h.te.RequestSlot(context.Background(), api.SlotID{ResourceID: h.te.ResourceID(), SlotNumber: index},
		jobID, allocationID, api.UnknownResourceProfile, "", h.rmID)
	return allocationID, err
}

// slotState returns the state of the slot at index, which must be
// allocated.
func (h *harness) slotState(index int) taskexecutor.TaskSlotState {
	slots, err := h.te.Slots(context.Background())
	require.NoError(h.t, err)
	for _, slot := range slots {
		if slot.Index == index {
			return slot.State
		}
	}
	h.t.Fatalf("slot %d is free: it has no state", index)
	return 0
}

// slotIsFree reports whether no slot holds index.
func (h *harness) slotIsFree(index int) bool {
	free, err := h.te.IsSlotFree(context.Background(), index)
	require.NoError(h.t, err)
	return free
}

// deployableJob is a job with a JobMaster that holds an active slot here.
type deployableJob struct {
	jobID        api.JobID
	jm           *fakeJobMaster
	jmID         api.JobMasterID
	allocationID api.AllocationID
}

// newDeployableJob runs steps m7 and m8 for one slot of a new job.
func (h *harness) newDeployableJob() deployableJob {
	h.t.Helper()
	synctest.Wait()
	jobID := api.NewJobID()
	jm, jmID := h.startJobMaster(jobID)
	allocationID, err := h.requestSlot(0, jobID)
	require.NoError(h.t, err)
	synctest.Wait()
	require.Equal(h.t, taskexecutor.SlotActive, h.slotState(0))
	return deployableJob{jobID: jobID, jm: jm, jmID: jmID, allocationID: allocationID}
}

// tdd describes subtask 1 of 1 of a "Source" vertex whose invokable is
// className, with the job's jar.
func (h *harness) tdd(job deployableJob, className string) gateway.TaskDeploymentDescriptor {
	jarKey, err := h.blobServer.PutPermanentBytes(job.jobID, []byte("PK\x03\x04 wordcount.jar"))
	require.NoError(h.t, err)
	attempt := api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID()},
	}
	return gateway.TaskDeploymentDescriptor{
		JobID:              job.jobID,
		JobName:            "WordCount",
		ExecutionAttemptID: attempt,
		AllocationID:       job.allocationID,
		TaskInfo: gateway.TaskInformation{
			JobVertexID: attempt.ExecutionVertexID.JobVertexID, TaskName: "Source", NumberOfSubtasks: 1,
			InvokableClassName: className,
		},
		UserJarBlobKeys: []blob.PermanentBlobKey{jarKey},
	}
}

// testInvokable finishes at once, or, if block is set, runs until cancelled.
type testInvokable struct{ block bool }

func (i testInvokable) Restore(context.Context) error { return nil }

func (i testInvokable) Invoke(ctx context.Context) error {
	if i.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// stuckInvokable is user code that ignores its ctx: cancelling it does
// nothing, it returns only when release is closed.
type stuckInvokable struct{ release <-chan struct{} }

func (i stuckInvokable) Restore(context.Context) error { return nil }

func (i stuckInvokable) Invoke(context.Context) error {
	<-i.release
	return nil
}

// stuckTaskRelease holds, per job, the channel that releases the job's
// stuckTask. A test creates it inside its bubble before deploying.
var stuckTaskRelease sync.Map // api.JobID → chan struct{}

const (
	finishingTask = "org.flinklab.test.FinishingTask"
	blockingTask  = "org.flinklab.test.BlockingTask"
	stuckTask     = "org.flinklab.test.StuckTask"
)

func init() {
	taskmanager.RegisterInvokable(stuckTask, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		release, ok := stuckTaskRelease.Load(env.JobID)
		if !ok {
			return nil, errors.New("no release channel for the stuck task of job " + env.JobID.String())
		}
		return stuckInvokable{release: release.(chan struct{})}, nil
	})
	taskmanager.RegisterInvokable(finishingTask, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return testInvokable{}, nil
	})
	taskmanager.RegisterInvokable(blockingTask, func(*taskmanager.Environment) (taskmanager.Invokable, error) {
		return testInvokable{block: true}, nil
	})
}

// states returns the states the JobMaster received so far.
func states(jm *fakeJobMaster) []api.ExecutionState {
	var out []api.ExecutionState
	for _, s := range drain(jm.states) {
		out = append(out, s.State)
	}
	return out
}

func TestRegistersAtResourceManagerAndReportsSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()

		registration := <-h.rm.registrations
		assert.Equal(t, gateway.TaskExecutorRegistration{
			ResourceID: "tm-1", TaskExecutorAddress: h.te.Address(), NumberOfSlots: 2, DefaultSlotResourceProfile: slotProfile,
		}, registration)
		assert.Equal(t, gateway.SlotReport{
			{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 0}, ResourceProfile: slotProfile},
			{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 1}, ResourceProfile: slotProfile},
		}, <-h.rm.slotReports)

		logs := h.logs.String()
		assert.Contains(t, logs, "Connecting to ResourceManager "+h.rpc.Address("resourcemanager_0"))
		assert.Contains(t, logs, "Successful registration at resource manager "+h.rpc.Address("resourcemanager_0")+" under registration id")
	})
}

func TestRegistrationRetriesWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var attemptsAt []time.Duration
		h := newHarness(t, func(rm *fakeResourceManager) {
			rm.registerTaskExecutor = func(context.Context, api.ResourceManagerID, gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
				attemptsAt = append(attemptsAt, time.Since(start))
				if len(attemptsAt) <= 2 {
					return gateway.TaskExecutorRegistrationSuccess{}, gateway.RegistrationFailure("the SlotManager is not started yet")
				}
				return gateway.TaskExecutorRegistrationSuccess{RegistrationID: api.NewInstanceID()}, nil
			}
		})

		<-h.rm.slotReports // registered, at last
		// Each failure waits cluster.registration.refused-registration-delay.
		assert.Equal(t, []time.Duration{0, 30 * time.Second, 60 * time.Second}, attemptsAt)
		assert.Contains(t, h.logs.String(), "Pausing and re-attempting registration in 30000 ms")
		assert.Contains(t, h.logs.String(), "Registration at ResourceManager attempt 1 (timeout=100ms)")
	})
}

func TestReconnectsToANewResourceManagerLeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		<-h.rm.slotReports

		// The leader leaves; another ResourceManager takes over.
		require.NoError(t, h.rmElection.Close())
		synctest.Wait()
		assert.Len(t, drain(h.rm.disconnects), 1, "the old leader is told we left")

		rm2 := newFakeResourceManager()
		session := h.lead(h.ha.ResourceManagerLeaderElection(), "resourcemanager_1", rm2)
		synctest.Wait()
		assert.Len(t, drain(rm2.slotReports), 1, "registered at the new leader")

		// Slot requests now come from the new leader only.
		h.rmID = api.ResourceManagerID(session)
		_, err := h.requestSlot(0, api.NewJobID())
		assert.NoError(t, err)
	})
}

func TestRequestSlotFromAnotherResourceManagerIsRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()

		stale := api.NewResourceManagerID()
		err := h.te.RequestSlot(context.Background(), api.SlotID{ResourceID: "tm-1"}, api.NewJobID(), api.NewAllocationID(),
			api.UnknownResourceProfile, "", stale)
		assert.ErrorIs(t, err, gateway.ErrTaskManager)
		assert.EqualError(t, err, "TaskManagerException: TaskManager is not connected to the resource manager "+stale.String()+".")
		free, err := h.te.NumberOfFreeSlots(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 2, free)
	})
}

// A TaskExecutor whose partitions are served over TCP tells each JobMaster
// where, when it registers there; the scheduler puts that address into the
// shuffle descriptors of the partitions produced in its slots.
func TestTaskExecutorAdvertisesItsDataAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWith(t, harnessOptions{dataAddress: "10.0.0.7:41234"})
		synctest.Wait()
		jobID := api.NewJobID()
		jm, _ := h.startJobMaster(jobID)

		_, err := h.requestSlot(0, jobID)
		require.NoError(t, err)
		synctest.Wait()

		assert.Equal(t, []gateway.TaskManagerLocation{{ResourceID: "tm-1", Address: h.te.Address(), DataAddress: "10.0.0.7:41234"}},
			drain(jm.registrations))
	})
}

func TestRequestSlotOffersTheSlotToTheJobMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()
		jobID := api.NewJobID()
		jm, jmID := h.startJobMaster(jobID)

		// m7: the SlotManager asks for slot 1.
		allocationID, err := h.requestSlot(1, jobID)
		require.NoError(t, err)
		synctest.Wait()

		// The TaskExecutor registered at the job's leader and offered the slot (m8).
		assert.Equal(t, []gateway.TaskManagerLocation{{ResourceID: "tm-1", Address: h.te.Address()}}, drain(jm.registrations))
		assert.Equal(t, []offerCall{{
			jobMasterID: jmID, taskManager: "tm-1",
			offers: []gateway.SlotOffer{{AllocationID: allocationID, SlotIndex: 1, ResourceProfile: slotProfile}},
		}}, drain(jm.offers))
		assert.Equal(t, taskexecutor.SlotActive, h.slotState(1), "the JobMaster accepted it")

		// A second slot for the same job is offered at once: the JobMaster is connected.
		_, err = h.requestSlot(0, jobID)
		require.NoError(t, err)
		synctest.Wait()
		assert.Empty(t, drain(jm.registrations), "no second registration")
		assert.Len(t, drain(jm.offers), 1)
		assert.Equal(t, taskexecutor.SlotActive, h.slotState(0))

		for _, line := range []string{
			"Receive slot request " + allocationID.String() + " for job " + jobID.String() + " from resource manager with leader id " + h.rmID.String() + ".",
			"Try to register at job manager " + h.rpc.Address("jobmanager_"+jobID.String()) + " with leader id " + jmID.String() + ".",
			"Successful registration at job manager " + h.rpc.Address("jobmanager_"+jobID.String()) + " for job " + jobID.String() + ".",
			"Establish JobManager connection for job " + jobID.String() + ".",
			"Offer reserved slots to the leader of job " + jobID.String() + ".",
		} {
			assert.Contains(t, h.logs.String(), line)
		}
	})
}

func TestRejectedSlotIsFreedAndReturnedToTheResourceManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()
		jobID := api.NewJobID()
		jm, _ := h.startJobMaster(jobID)
		jm.offerSlots = func(context.Context, []gateway.SlotOffer) ([]gateway.SlotOffer, error) { return nil, nil }

		allocationID, err := h.requestSlot(0, jobID)
		require.NoError(t, err)
		synctest.Wait()

		assert.Equal(t, []api.AllocationID{allocationID}, drain(h.rm.slotsAvailable))
		assert.True(t, h.slotIsFree(0))
		// With no slot left for the job, its JobManager connection is closed.
		assert.Len(t, drain(jm.disconnects), 1)
		connected, err := h.te.IsConnectedToJobManager(context.Background(), jobID)
		require.NoError(t, err)
		assert.False(t, connected)
	})
}

func TestSlotOfferingIsRetriedAfterATimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()
		jobID := api.NewJobID()
		jm, _ := h.startJobMaster(jobID)
		start := time.Now()
		var offersAt []time.Duration
		jm.offerSlots = func(ctx context.Context, offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
			offersAt = append(offersAt, time.Since(start))
			if len(offersAt) == 1 {
				<-ctx.Done() // the JobMaster is too busy to answer
				return nil, ctx.Err()
			}
			return offers, nil
		}

		_, err := h.requestSlot(0, jobID)
		require.NoError(t, err)
		<-jm.offers
		<-jm.offers // fake time runs on until the first offer times out and is retried
		synctest.Wait()

		assert.Equal(t, []time.Duration{0, taskexecutor.DefaultRPCTimeout}, offersAt)
		assert.Equal(t, taskexecutor.SlotActive, h.slotState(0))
		assert.Contains(t, h.logs.String(), "Slot offering to JobManager did not finish in time. Retrying the slot offering.")
	})
}

func TestSubmitTaskChecks(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(job deployableJob, tdd *gateway.TaskDeploymentDescriptor, jmID *api.JobMasterID)
		wantMsg func(job deployableJob, tdd gateway.TaskDeploymentDescriptor, jmID api.JobMasterID) string
	}{
		{
			name: "no JobManager connection for the job",
			mutate: func(_ deployableJob, tdd *gateway.TaskDeploymentDescriptor, _ *api.JobMasterID) {
				tdd.JobID = api.NewJobID()
			},
			wantMsg: func(_ deployableJob, tdd gateway.TaskDeploymentDescriptor, _ api.JobMasterID) string {
				return "Could not submit task because there is no JobManager associated for the job " + tdd.JobID.String() + "."
			},
		},
		{
			name: "the JobMasterID of another leader",
			mutate: func(_ deployableJob, _ *gateway.TaskDeploymentDescriptor, jmID *api.JobMasterID) {
				*jmID = api.NewJobMasterID()
			},
			wantMsg: func(job deployableJob, _ gateway.TaskDeploymentDescriptor, jmID api.JobMasterID) string {
				return "Rejecting the task submission because the job manager leader id " + jmID.String() +
					" does not match the expected job manager leader id " + job.jmID.String() + "."
			},
		},
		{
			name: "no slot allocated under the allocation ID",
			mutate: func(_ deployableJob, tdd *gateway.TaskDeploymentDescriptor, _ *api.JobMasterID) {
				tdd.AllocationID = api.NewAllocationID()
			},
			wantMsg: func(_ deployableJob, tdd gateway.TaskDeploymentDescriptor, _ api.JobMasterID) string {
				return "No task slot allocated for job ID " + tdd.JobID.String() + " and allocation ID " + tdd.AllocationID.String() + "."
			},
		},
	}
	for _, tt := range tests {
		for _, armed := range []bool{false, true} {
			name := tt.name
			if armed {
				name += ", with step m9's fault armed"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					h := newHarness(t, nil)
					job := h.newDeployableJob()
					tdd, jmID := h.tdd(job, finishingTask), job.jmID
					tt.mutate(job, &tdd, &jmID)
					if armed {
						// The fault breaks only a deployment that passed the
						// checks; this one is refused as without it.
						require.NoError(t, h.faults.Inject(fault.Fault{Step: trace.M9, Times: fault.Always}))
					}

					err := h.te.SubmitTask(context.Background(), tdd, jmID)
					assert.ErrorIs(t, err, gateway.ErrTaskSubmission)
					assert.EqualError(t, err, "TaskSubmissionException: "+tt.wantMsg(job, tdd, jmID))
					assert.Empty(t, h.faults.Fired(), "the fault fired before the checks")
					tasks, err := h.te.Tasks(context.Background())
					require.NoError(t, err, "the TaskExecutor is alive")
					assert.Empty(t, tasks)
					events := h.trace.Events()
					require.Len(t, events, 1, "a rejected task is one broken m9, nothing more")
					assert.True(t, events[0].Failed)
					assert.Equal(t, trace.M9, events[0].Step)
					assert.Equal(t, "submitTask rejected: "+tt.wantMsg(job, tdd, jmID), events[0].Message)
				})
			})
		}
	}
}

// Step m9's fault breaks a deployment that passed every check: the
// TaskExecutor dies before the task arrives, and the JobMaster's call gets
// no answer until its RPC timeout.
func TestTheSubmitTaskFaultFiresForADeploymentThatPassedTheChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		tdd := h.tdd(job, finishingTask)
		require.NoError(t, h.faults.Inject(fault.Fault{Step: trace.M9}))

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		err := h.te.SubmitTask(ctx, tdd, job.jmID)
		assert.ErrorIs(t, err, rpc.ErrTimeout)
		assert.Equal(t, 10*time.Second, time.Since(start), "no answer before the RPC timeout")
		require.Len(t, h.faults.Fired(), 1)
		assert.Equal(t, tdd.JobID, h.faults.Fired()[0].JobID)

		events := h.trace.JobEvents(job.jobID)
		require.NotEmpty(t, events)
		last := events[len(events)-1]
		assert.True(t, last.Failed)
		assert.Equal(t, trace.M9, last.Step)
		assert.Contains(t, last.Message, "died before the task arrived")
		assert.Empty(t, states(job.jm), "the task never ran")
		assert.NotContains(t, h.logs.String(), "dies", "a TaskManager killed as with kill -9 writes nothing about it")
		assert.NotContains(t, h.logs.String(), "Received task")
	})
}

func TestSubmittedTaskReportsItsStatesToTheJobMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		tdd := h.tdd(job, finishingTask)

		// m9: the JobMaster deploys.
		require.NoError(t, h.te.SubmitTask(context.Background(), tdd, job.jmID))
		synctest.Wait()

		// DEPLOYING and CANCELING stay in the TaskExecutor; the rest reach
		// the JobMaster, in order.
		assert.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFinished}, states(job.jm))
		assert.Equal(t, []trace.Step{trace.M9, trace.M10, trace.M11}, trace.Steps(h.trace.JobEvents(job.jobID)))
		assert.Contains(t, h.logs.String(), "Received task Source (1/1)#0 ("+tdd.ExecutionAttemptID.String()+
			"), deploy into slot with allocation id "+job.allocationID.String()+".")
		assert.Contains(t, h.logs.String(), "Loading JAR files for task Source (1/1)#0.")

		// The finished task is unregistered; its slot stays with the job.
		tasks, err := h.te.Tasks(context.Background())
		require.NoError(t, err)
		assert.Empty(t, tasks)
		assert.Equal(t, taskexecutor.SlotActive, h.slotState(0))
	})
}

func TestCancelTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()

		unknown := api.ExecutionAttemptID{ExecutionGraphID: api.NewExecutionGraphID()}
		err := h.te.CancelTask(context.Background(), unknown)
		assert.ErrorIs(t, err, gateway.ErrTask)
		assert.EqualError(t, err, "TaskException: Cannot find task to stop for execution "+unknown.String()+".")

		tdd := h.tdd(job, blockingTask)
		require.NoError(t, h.te.SubmitTask(context.Background(), tdd, job.jmID))
		synctest.Wait()
		require.NoError(t, h.te.CancelTask(context.Background(), tdd.ExecutionAttemptID))
		synctest.Wait()

		assert.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionCanceled}, states(job.jm))
	})
}

func TestFreeSlotFailsItsTasksAndNotifiesTheResourceManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		tdd := h.tdd(job, blockingTask)
		require.NoError(t, h.te.SubmitTask(context.Background(), tdd, job.jmID))
		synctest.Wait()
		drain(job.jm.states)

		released := errors.New("the JobMaster released the slot")
		require.NoError(t, h.te.FreeSlot(context.Background(), job.allocationID, job.jmID, released))
		synctest.Wait()

		final := drain(job.jm.states)
		require.Len(t, final, 1)
		assert.Equal(t, api.ExecutionFailed, final[0].State)
		assert.ErrorIs(t, final[0].FailureCause, released)
		assert.Equal(t, []api.AllocationID{job.allocationID}, drain(h.rm.slotsAvailable))
		assert.True(t, h.slotIsFree(0))
		// The job has no slot left here: its connection is closed.
		disconnects := drain(job.jm.disconnects)
		require.Len(t, disconnects, 1)
		assert.ErrorContains(t, disconnects[0], "has no more allocated slots for job "+job.jobID.String())
	})
}

// A JobMaster of an older leader session, which lost the leadership
// without knowing it yet (it was paused), lets the TaskExecutor go. The
// TaskExecutor is connected to the job's new leader by then: it ignores
// the old one, and the new leader's tasks run on.
func TestDisconnectJobManagerOfAnOldLeaderIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, blockingTask), job.jmID))
		synctest.Wait()
		drain(job.jm.states)

		oldLeader := api.NewJobMasterID()
		require.NoError(t, h.te.DisconnectJobManager(context.Background(), job.jobID, oldLeader, errors.New("Job leader for job id lost leadership.")))
		synctest.Wait()

		assert.Empty(t, drain(job.jm.states), "the new leader's task keeps running")
		free, err := h.te.NumberOfFreeSlots(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, free, "its slot stays the job's")
	})
}

// A JobMaster of an older leader session frees the slots it held, as a
// stopping JobMaster does. The TaskExecutor has offered them to the job's
// new leader since: they stay, and so does the new leader's task.
func TestFreeSlotByAnOldLeaderIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, blockingTask), job.jmID))
		synctest.Wait()
		drain(job.jm.states)

		require.NoError(t, h.te.FreeSlot(context.Background(), job.allocationID, api.NewJobMasterID(), errors.New("Stopping JobMaster for job 'Ticker'.")))
		synctest.Wait()

		assert.Empty(t, drain(job.jm.states), "the new leader's task keeps running")
		assert.Empty(t, drain(h.rm.slotsAvailable), "the slot stays the job's")
	})
}

func TestDisconnectJobManagerFailsTheJobsTasksAndFreesItsSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, blockingTask), job.jmID))
		synctest.Wait()
		drain(job.jm.states)

		require.NoError(t, h.te.DisconnectJobManager(context.Background(), job.jobID, job.jmID, errors.New("JobMaster is shutting down")))
		synctest.Wait()

		final := drain(job.jm.states)
		require.Len(t, final, 1)
		assert.Equal(t, api.ExecutionFailed, final[0].State)
		assert.ErrorContains(t, final[0].FailureCause, "Disconnect from JobManager responsible for "+job.jobID.String()+".")
		assert.Equal(t, []api.AllocationID{job.allocationID}, drain(h.rm.slotsAvailable))
		free, err := h.te.NumberOfFreeSlots(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 2, free)
	})
}

func TestCloseStopsEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, blockingTask), job.jmID))
		synctest.Wait()

		require.NoError(t, h.te.Close())

		disconnects := drain(h.rm.disconnects)
		require.Len(t, disconnects, 1)
		assert.EqualError(t, disconnects[0], "The TaskExecutor is shutting down.")
		_, err := h.rpc.Connect(context.Background(), h.te.Address())
		assert.ErrorIs(t, err, rpc.ErrRecipientUnreachable, "no longer reachable")
		_, err = h.te.NumberOfFreeSlots(context.Background())
		assert.ErrorIs(t, err, rpc.ErrRecipientUnreachable)
		// The bubble ends only if no goroutine is left: the task's, the
		// main thread and every pending call have stopped.
	})
}

func TestTaskStatesFollowEachOtherWithoutWaitingForTheMainThread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		answerInitializing := make(chan struct{})
		job.jm.updateTaskExecutionState = func(_ context.Context, state gateway.TaskExecutionState) error {
			if state.State == api.ExecutionInitializing {
				<-answerInitializing // the JobMaster is slow to answer the first report
			}
			return nil
		}

		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, finishingTask), job.jmID))
		synctest.Wait()
		// The task has finished. INITIALIZING reached the JobMaster, which
		// has not answered yet; RUNNING and FINISHED wait behind it.
		require.Equal(t, []api.ExecutionState{api.ExecutionInitializing}, states(job.jm))

		// The main thread is busy with something else when the answer comes.
		busy := make(chan struct{})
		h.te.RunAsync(func() { <-busy })
		close(answerInitializing)
		synctest.Wait()

		// The next reports follow the answer at once, in order: the lane of
		// the connection does not need a turn of the main thread.
		assert.Equal(t, []api.ExecutionState{api.ExecutionRunning, api.ExecutionFinished}, states(job.jm))
		close(busy)
		synctest.Wait()
	})
}

func TestAStateReportTheJobMasterRefusesFailsTheTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		refused := errors.New("The execution attempt was not found.")
		job.jm.updateTaskExecutionState = func(_ context.Context, state gateway.TaskExecutionState) error {
			if state.State == api.ExecutionRunning {
				return refused
			}
			return nil
		}

		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, blockingTask), job.jmID))
		synctest.Wait()

		// A task the JobMaster does not know must not run on: it fails, and
		// its final state is reported after the refused one.
		got := drain(job.jm.states)
		require.Len(t, got, 3)
		assert.Equal(t, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning, api.ExecutionFailed},
			[]api.ExecutionState{got[0].State, got[1].State, got[2].State})
		assert.ErrorIs(t, got[2].FailureCause, refused)
		assert.Contains(t, h.logs.String(), "Could not report the state RUNNING of task Source (1/1)#0 to the JobManager.")
	})
}

func TestCloseGivesUpOnATaskThatIgnoresCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		release := make(chan struct{})
		stuckTaskRelease.Store(job.jobID, release)
		defer stuckTaskRelease.Delete(job.jobID)
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, stuckTask), job.jmID))
		synctest.Wait()

		// Close cancels the task, which does not react. Close waits
		// task.cancellation.timeout for it, then logs it and goes on.
		start := time.Now()
		require.NoError(t, h.te.Close())
		assert.Equal(t, taskexecutor.DefaultTaskCancellationTimeout, time.Since(start))
		assert.Equal(t, 180*time.Second, taskexecutor.DefaultTaskCancellationTimeout, "Flink's default")
		assert.Contains(t, h.logs.String(),
			`level=ERROR msg="Task did not exit gracefully within 180 + seconds." logger=TaskExecutor task="Source (1/1)#0"`)

		disconnects := drain(h.rm.disconnects)
		require.Len(t, disconnects, 1, "the ResourceManager is still told we leave")
		_, err := h.te.NumberOfFreeSlots(context.Background())
		assert.ErrorIs(t, err, rpc.ErrRecipientUnreachable, "stopped")

		// The user code returns at last; its report goes nowhere.
		close(release)
		synctest.Wait()
	})
}

// failingJobLeaderRetrieval are HA services whose job leader retrieval
// cannot start.
type failingJobLeaderRetrieval struct {
	highavailability.Services
	err error
}

func (s failingJobLeaderRetrieval) JobManagerLeaderRetriever(api.JobID) highavailability.LeaderRetrievalService {
	return failingRetriever{err: s.err}
}

type failingRetriever struct{ err error }

func (r failingRetriever) Start(highavailability.LeaderRetrievalListener) error { return r.err }
func (r failingRetriever) Stop() error                                          { return nil }

func TestRequestSlotForAJobWhoseLeaderCannotBeWatchedLeavesNothingBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broken := errors.New("ZooKeeper is not reachable")
		h := newHarnessWithHA(t, nil, func(ha highavailability.Services) highavailability.Services {
			return failingJobLeaderRetrieval{Services: ha, err: broken}
		})
		synctest.Wait()
		jobID := api.NewJobID()

		_, err := h.requestSlot(0, jobID)
		assert.ErrorIs(t, err, gateway.ErrTaskManager)
		assert.ErrorIs(t, err, broken)
		assert.ErrorContains(t, err, "Could not create new job.")

		// Neither the slot nor the job is kept.
		assert.True(t, h.slotIsFree(0))
		jobs, err := h.te.JobTableForTest(context.Background())
		require.NoError(t, err)
		assert.Empty(t, jobs)
	})
}

// A slot allocated for a job whose JobMaster never shows up (it ended
// before the TaskExecutor could register there) is freed after
// taskmanager.slot.timeout and returned to the ResourceManager, as Flink's
// TaskExecutor#timeoutSlot does; a slot the JobMaster accepted is not.
func TestAnUnusedSlotTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()
		orphan, err := h.requestSlot(0, api.NewJobID()) // no leader for this job, ever
		require.NoError(t, err)
		used := api.NewJobID()
		h.startJobMaster(used)
		_, err = h.requestSlot(1, used)
		require.NoError(t, err)
		synctest.Wait()
		require.Equal(t, taskexecutor.SlotAllocated, h.slotState(0))
		require.Equal(t, taskexecutor.SlotActive, h.slotState(1))

		time.Sleep(taskexecutor.DefaultRPCTimeout - time.Millisecond) // Flink's fallback: pekko.ask.timeout
		synctest.Wait()
		assert.Equal(t, taskexecutor.SlotAllocated, h.slotState(0), "not yet")

		time.Sleep(time.Millisecond)
		synctest.Wait()
		assert.True(t, h.slotIsFree(0))
		assert.Equal(t, []api.AllocationID{orphan}, drain(h.rm.slotsAvailable), "the ResourceManager is told")
		assert.Equal(t, taskexecutor.SlotActive, h.slotState(1), "the used slot stays")
		assert.Contains(t, h.logs.String(), "The slot "+orphan.String()+" has timed out.")
	})
}
