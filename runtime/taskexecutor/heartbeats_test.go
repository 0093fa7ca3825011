package taskexecutor_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/rpc"
	"flinklab/runtime/taskexecutor"
)

// The TaskExecutor answers heartbeats; its JobMasters and the
// ResourceManager ask. The fakes never ask on their own: a test plays a
// live asker with keepAsking, and a silent (dead) one by doing nothing.

// fast are short heartbeat options: a silent peer is lost after 5 s.
var fast = heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 5 * time.Second}

// keepAsking sends a heartbeat request every fast.Interval, as a live
// JobMaster or ResourceManager does, until the test ends.
func keepAsking(t *testing.T, request func(ctx context.Context) error) {
	ctx := t.Context()
	go func() {
		ticker := time.NewTicker(fast.Interval)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				_ = request(ctx)
			}
		}
	}()
}

// askingResourceManager keeps the fake ResourceManager alive for the
// TaskExecutor, so a test about a JobMaster is not disturbed by it.
func (h *harness) askingResourceManager() {
	keepAsking(h.t, func(ctx context.Context) error { return h.te.HeartbeatFromResourceManager(ctx, "resourcemanager") })
}

// atTheTimeout lets fake time run to just before the heartbeat timeout of
// a target monitored since start, checks that lost() is still false, and
// then to the timeout itself, where lost() must have become true.
func atTheTimeout(t *testing.T, start time.Time, lost func() bool) {
	t.Helper()
	time.Sleep(time.Until(start.Add(fast.Timeout - time.Millisecond)))
	synctest.Wait()
	require.False(t, lost(), "lost before the heartbeat timeout")
	time.Sleep(time.Millisecond)
	synctest.Wait()
	require.True(t, lost(), "not lost at the heartbeat timeout")
}

// A JobMaster that stops asking for heartbeats (it died, or the network
// between us did) is lost after heartbeat.timeout: the job's tasks fail
// with "Disconnect from JobManager responsible for <jobId>.", the JobMaster
// is told, in case it still listens, and the job's slot goes back to the
// ResourceManager.
func TestASilentJobMasterIsLostAfterTheHeartbeatTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWith(t, harnessOptions{heartbeat: fast})
		h.askingResourceManager()
		start := time.Now()
		job := h.newDeployableJob() // connected now; the JobMaster never asks
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, blockingTask), job.jmID))
		synctest.Wait()
		drain(job.jm.states)

		var disconnects []error
		atTheTimeout(t, start, func() bool {
			disconnects = append(disconnects, drain(job.jm.disconnects)...)
			return len(disconnects) > 0
		})

		timedOut := "The heartbeat of JobManager with id " + string(job.jm.resourceID) + " timed out."
		assert.Contains(t, h.logs.String(), `msg="`+timedOut+`"`)
		require.Len(t, disconnects, 1)
		var timeout *gateway.TimeoutException
		require.ErrorAs(t, disconnects[0], &timeout, "the JobMaster is told why")
		assert.Equal(t, timedOut, timeout.Message)

		final := drain(job.jm.states)
		require.Len(t, final, 1)
		assert.Equal(t, api.ExecutionFailed, final[0].State)
		assert.EqualError(t, final[0].FailureCause, "Disconnect from JobManager responsible for "+job.jobID.String()+". Caused by: "+timedOut)
		assert.Equal(t, []api.AllocationID{job.allocationID}, drain(h.rm.slotsAvailable))
		assert.True(t, h.slotIsFree(0))
		connected, err := h.te.IsConnectedToJobManager(context.Background(), job.jobID)
		require.NoError(t, err)
		assert.False(t, connected)
	})
}

// A JobMaster that keeps asking is never lost, however long the job runs,
// and hears an answer to every request.
func TestALiveJobMasterIsNeverLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWith(t, harnessOptions{heartbeat: fast})
		h.askingResourceManager()
		job := h.newDeployableJob()
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, blockingTask), job.jmID))
		keepAsking(t, func(ctx context.Context) error {
			return h.te.HeartbeatFromJobManager(ctx, job.jm.resourceID, gateway.AllocatedSlotReport{})
		})

		time.Sleep(12 * fast.Timeout)
		synctest.Wait()

		assert.Len(t, drain(job.jm.heartbeats), 60, "one answer per request")
		assert.Empty(t, drain(job.jm.disconnects))
		assert.NotContains(t, h.logs.String(), "timed out")
		tasks, err := h.te.Tasks(context.Background())
		require.NoError(t, err)
		assert.Len(t, tasks, 1)
		for _, state := range tasks {
			assert.Equal(t, api.ExecutionRunning, state)
		}
	})
}

// A ResourceManager that stops asking for heartbeats has lost us (or
// died): after heartbeat.timeout the TaskExecutor closes the connection,
// tells it, and registers again, with a fresh slot report. The new
// registration waits for the disconnect, which must not overtake it.
func TestASilentResourceManagerIsLostAndTheTaskExecutorRegistersAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu    sync.Mutex
			calls []string
		)
		note := func(call string) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call)
		}
		start := time.Now()
		h := newHarnessWith(t, harnessOptions{heartbeat: fast, configure: func(rm *fakeResourceManager) {
			rm.registerTaskExecutor = func(context.Context, api.ResourceManagerID, gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
				note("RegisterTaskExecutor")
				return gateway.TaskExecutorRegistrationSuccess{RegistrationID: api.NewInstanceID(), ResourceManagerResourceID: "resourcemanager"}, nil
			}
			rm.disconnectTaskManager = func(context.Context, error) error {
				note("DisconnectTaskManager")
				return nil
			}
		}})
		synctest.Wait()
		require.Len(t, drain(h.rm.slotReports), 1)

		atTheTimeout(t, start, func() bool { return len(h.rm.disconnects) > 0 })

		timedOut := "The heartbeat of ResourceManager with id resourcemanager timed out."
		assert.Contains(t, h.logs.String(), `msg="`+timedOut+`"`)
		disconnects := drain(h.rm.disconnects)
		require.Len(t, disconnects, 1)
		assert.ErrorIs(t, disconnects[0], gateway.ErrTaskManager)
		assert.EqualError(t, disconnects[0], "TaskManagerException: "+timedOut)
		assert.Len(t, drain(h.rm.registrations), 2, "registered again")
		assert.Len(t, drain(h.rm.slotReports), 1, "and reported its slots again")
		mu.Lock()
		assert.Equal(t, []string{"RegisterTaskExecutor", "DisconnectTaskManager", "RegisterTaskExecutor"}, calls)
		mu.Unlock()
		connected, err := h.te.IsConnectedToResourceManager(context.Background())
		require.NoError(t, err)
		assert.True(t, connected)
	})
}

// A ResourceManager that keeps asking is never lost.
func TestALiveResourceManagerIsNeverLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWith(t, harnessOptions{heartbeat: fast})
		synctest.Wait()
		h.askingResourceManager()

		time.Sleep(12 * fast.Timeout)
		synctest.Wait()

		assert.Len(t, drain(h.rm.heartbeats), 60, "one answer per request")
		assert.Len(t, drain(h.rm.registrations), 1, "never registered again")
		assert.Empty(t, drain(h.rm.disconnects))
		assert.NotContains(t, h.logs.String(), "timed out")
	})
}

// A TaskExecutor that shuts down says goodbye to the ResourceManager and to
// the JobMaster of each job at once, before it waits for its tasks: they
// release its slots without waiting for a heartbeat timeout. Here the task
// ignores its cancellation, so Close waits task.cancellation.timeout for
// it; the goodbyes were said at the start.
func TestShutdownSaysGoodbyeAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		job := h.newDeployableJob()
		release := make(chan struct{})
		stuckTaskRelease.Store(job.jobID, release)
		defer stuckTaskRelease.Delete(job.jobID)
		require.NoError(t, h.te.SubmitTask(context.Background(), h.tdd(job, stuckTask), job.jmID))
		synctest.Wait()

		start := time.Now()
		var rmToldAfter, jmToldAfter time.Duration
		h.rm.disconnectTaskManager = func(context.Context, error) error { rmToldAfter = time.Since(start); return nil }
		job.jm.disconnectTaskManager = func(context.Context, error) error { jmToldAfter = time.Since(start); return nil }
		require.NoError(t, h.te.Close())
		assert.Equal(t, taskexecutor.DefaultTaskCancellationTimeout, time.Since(start), "Close waited for the stuck task")

		assert.Zero(t, rmToldAfter, "the ResourceManager was told at once")
		assert.Zero(t, jmToldAfter, "the JobMaster was told at once")
		for _, cause := range append(drain(h.rm.disconnects), drain(job.jm.disconnects)...) {
			assert.EqualError(t, cause, "The TaskExecutor is shutting down.")
		}
		close(release)
		synctest.Wait()
	})
}

// Kill is kill -9: the TaskExecutor answers nothing from then on (its
// callers time out), its tasks stop without a report, and it tells nobody,
// not even its log.
func TestAKilledTaskExecutorAnswersNothingAndTellsNobody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessWith(t, harnessOptions{heartbeat: fast})
		job := h.newDeployableJob()
		tdd := h.tdd(job, blockingTask)
		require.NoError(t, h.te.SubmitTask(context.Background(), tdd, job.jmID))
		synctest.Wait()
		drain(job.jm.states)

		lastWords := h.logs.String()
		h.te.Kill()
		synctest.Wait()

		// Every gateway method waits for its caller's timeout.
		calls := map[string]func(ctx context.Context) error{
			"RequestSlot": func(ctx context.Context) error {
				return h.te.RequestSlot(ctx, api.SlotID{ResourceID: "tm-1", SlotNumber: 1}, job.jobID, api.NewAllocationID(),
					api.UnknownResourceProfile, "", h.rmID)
			},
			"SubmitTask":           func(ctx context.Context) error { return h.te.SubmitTask(ctx, tdd, job.jmID) },
			"CancelTask":           func(ctx context.Context) error { return h.te.CancelTask(ctx, tdd.ExecutionAttemptID) },
			"FreeSlot":             func(ctx context.Context) error { return h.te.FreeSlot(ctx, job.allocationID, job.jmID, nil) },
			"DisconnectJobManager": func(ctx context.Context) error { return h.te.DisconnectJobManager(ctx, job.jobID, job.jmID, nil) },
			"HeartbeatFromJobManager": func(ctx context.Context) error {
				return h.te.HeartbeatFromJobManager(ctx, job.jm.resourceID, gateway.AllocatedSlotReport{})
			},
			"HeartbeatFromResourceManager": func(ctx context.Context) error {
				return h.te.HeartbeatFromResourceManager(ctx, "resourcemanager")
			},
		}
		for name, call := range calls {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			start := time.Now()
			err := call(ctx)
			cancel()
			assert.ErrorIs(t, err, rpc.ErrTimeout, name)
			assert.Equal(t, 3*time.Second, time.Since(start), "%s did not wait for the caller's timeout", name)
		}

		// Long after any heartbeat timeout: not a word to anybody.
		time.Sleep(10 * fast.Timeout)
		synctest.Wait()
		assert.Empty(t, drain(job.jm.states), "the task's end was reported")
		assert.Empty(t, drain(job.jm.heartbeats), "a heartbeat was answered")
		assert.Empty(t, drain(job.jm.disconnects), "the JobMaster was told")
		assert.Empty(t, drain(h.rm.disconnects), "the ResourceManager was told")
		assert.Empty(t, drain(h.rm.slotsAvailable), "a slot was given back")
		assert.Empty(t, drain(h.rm.heartbeats), "a heartbeat was answered")
		assert.NotContains(t, h.logs.String(), "timed out.", "the dead TaskExecutor noticed something")
		assert.Equal(t, lastWords, h.logs.String(), "a killed process writes no line, not even of the task it stopped")

		// Close releases what is left (the bubble ends only without a
		// goroutine left), and a second Kill does nothing.
		require.NoError(t, h.te.Close())
		h.te.Kill()
		_, err := h.te.NumberOfFreeSlots(context.Background())
		assert.True(t, errors.Is(err, rpc.ErrRecipientUnreachable), "the views do not wait: %v", err)
	})
}

func TestNewRejectsInvalidHeartbeatOptions(t *testing.T) {
	_, err := taskexecutor.New(taskexecutor.Config{Heartbeat: heartbeat.HeartbeatServices{Interval: -time.Second}},
		taskexecutor.Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()})
	assert.EqualError(t, err, "create TaskExecutor: The heartbeat interval must be larger than 0.")
}
