package jobmaster_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/rpc"
)

// The JobMaster asks its TaskExecutors for heartbeats and answers the
// ResourceManager's. The fakes answer only when a test makes them.

// fast are short heartbeat options: a silent peer is lost after 5 s.
var fast = heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 5 * time.Second}

// startHarnessWithHeartbeats starts a JobMaster with the fast heartbeat
// options, one restart 1 s after a failure, and its log in a buffer, and
// waits until it has declared its requirements.
func startHarnessWithHeartbeats(t *testing.T) (*harness, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	h := newHarness(t, jobmaster.Config{
		Heartbeat:       fast,
		RestartStrategy: failover.Config{Type: failover.TypeFixedDelay, FixedDelay: failover.FixedDelayConfig{Attempts: 1, Delay: time.Second}},
		Logger:          slog.New(slog.NewJSONHandler(logs, nil)),
	})
	h.start()
	h.journal.await("DeclareRequiredResources", 1)
	synctest.Wait()
	return h, logs
}

// answering makes te answer every heartbeat request of the JobMaster, as a
// live TaskExecutor does, and counts the answers.
func (h *harness) answering(te *fakeTaskExecutor) *atomic.Int32 {
	var answers atomic.Int32
	te.heartbeatFromJobManager = func(ctx context.Context, _ api.ResourceID) error {
		answers.Add(1)
		return h.jm.HeartbeatFromTaskManager(ctx, te.location.ResourceID, gateway.TaskExecutorToJobManagerHeartbeatPayload{})
	}
	return &answers
}

// A TaskExecutor that stops answering (it died) is disconnected after
// heartbeat.timeout: "Heartbeat of TaskManager with id … timed out.", its
// slots are released, the tasks in them fail with that TimeoutException,
// the job restarts, and the TaskExecutor is told, in case it is alive.
func TestASilentTaskExecutorIsDisconnectedAfterTheHeartbeatTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, logs := startHarnessWithHeartbeats(t)
		te := h.newTaskExecutor("taskexecutor-0") // never answers
		registeredAt := time.Since(h.journal.start)
		_, tasks := h.deploy(te)
		for _, s := range tasks {
			h.report(s, api.ExecutionInitializing)
			h.report(s, api.ExecutionRunning)
		}

		told := h.journal.await("TaskExecutor.DisconnectJobManager", 1)[0]
		assert.Equal(t, registeredAt+fast.Timeout, told.At, "disconnected exactly heartbeat.timeout after it was monitored")
		synctest.Wait()

		timedOut := "Heartbeat of TaskManager with id taskexecutor-0 timed out."
		var timeout *gateway.TimeoutException
		require.ErrorAs(t, told.Arg.(error), &timeout)
		assert.Equal(t, timedOut, timeout.Message)
		assert.Equal(t, []string{timedOut}, logs.Messages("Heartbeat of TaskManager"))
		assert.Equal(t, []string{"Disconnect TaskExecutor taskexecutor-0 because: " + timedOut}, logs.Messages("Disconnect TaskExecutor"))

		// The tasks failed with the timeout and the job restarts; with no
		// TaskExecutor left its new attempts wait for slots.
		assert.Equal(t, api.JobRestarting, h.status())
		job := h.job()
		require.NotEmpty(t, job.ExceptionHistory)
		assert.Equal(t, "TimeoutException: "+timedOut, job.ExceptionHistory[0].Exception)
		assert.Equal(t, api.ResourceID("taskexecutor-0"), job.ExceptionHistory[0].TaskManagerID)
		time.Sleep(time.Second) // the restart delay
		synctest.Wait()
		assert.Equal(t, api.JobRunning, h.status())
		assert.Equal(t, allTasks(api.ExecutionScheduled), subtaskStates(h.job()))
		_, err := h.gw.OfferSlots(h.ctx, h.jobMasterID, te.location.ResourceID, nil)
		assert.EqualError(t, err, "Unknown TaskManager taskexecutor-0", "it must register again")
	})
}

// A TaskExecutor that keeps answering is never disconnected, however long
// the job runs.
func TestALiveTaskExecutorIsNeverDisconnected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, logs := startHarnessWithHeartbeats(t)
		te := h.newTaskExecutor("taskexecutor-0")
		answers := h.answering(te)
		_, tasks := h.deploy(te)
		for _, s := range tasks {
			h.report(s, api.ExecutionInitializing)
			h.report(s, api.ExecutionRunning)
		}

		time.Sleep(12 * fast.Timeout)
		synctest.Wait()

		assert.EqualValues(t, 60, answers.Load(), "one request per heartbeat.interval")
		assert.Empty(t, h.journal.of("TaskExecutor.DisconnectJobManager"))
		assert.Empty(t, logs.Messages("Disconnect TaskExecutor"))
		assert.Equal(t, api.JobRunning, h.status())
		assert.Equal(t, allTasks(api.ExecutionRunning), subtaskStates(h.job()))
	})
}

// A TaskExecutor that says it leaves (DisconnectTaskManager) is handled
// like one whose heartbeat timed out, at once.
func TestADepartingTaskExecutorIsDisconnectedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, logs := startHarnessWithHeartbeats(t)
		te := h.newTaskExecutor("taskexecutor-0")
		h.answering(te)
		_, tasks := h.deploy(te)
		for _, s := range tasks {
			h.report(s, api.ExecutionInitializing)
			h.report(s, api.ExecutionRunning)
		}

		start := time.Now()
		shuttingDown := "The TaskExecutor is shutting down."
		require.NoError(t, h.gw.DisconnectTaskManager(h.ctx, h.jobMasterID, te.location.ResourceID, errors.New(shuttingDown)))
		synctest.Wait()

		assert.Zero(t, time.Since(start))
		assert.Equal(t, []string{"Disconnect TaskExecutor taskexecutor-0 because: " + shuttingDown}, logs.Messages("Disconnect TaskExecutor"))
		assert.Equal(t, api.JobRestarting, h.status())
		assert.Equal(t, shuttingDown, h.job().ExceptionHistory[0].Exception)
		assert.Empty(t, logs.Messages("Heartbeat of TaskManager"), "no timeout: it is not monitored any more")
		time.Sleep(2 * fast.Timeout)
		synctest.Wait()
		assert.Empty(t, logs.Messages("Heartbeat of TaskManager"), "no timeout: it is not monitored any more")
	})
}

// A ResourceManager that stops asking for heartbeats has lost the
// JobMaster (or died): after heartbeat.timeout the JobMaster logs "The
// heartbeat of ResourceManager with id … timed out.", tells it
// (DisconnectJobManager with the job's status, so the requirements stay),
// registers again and declares its requirements again. The registration
// waits for the disconnect, which must not overtake it.
func TestASilentResourceManagerIsLostAndTheJobMasterRegistersAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, logs := startHarnessWithHeartbeats(t) // the fake never asks
		registeredAt := h.journal.of("RegisterJobMaster")[0].At

		again := h.journal.await("RegisterJobMaster", 2)[1]
		synctest.Wait()
		assert.Equal(t, registeredAt+fast.Timeout, again.At, "lost exactly heartbeat.timeout after it was monitored")

		timedOut := "The heartbeat of ResourceManager with id resourcemanager-fake timed out."
		assert.Equal(t, []string{timedOut}, logs.Messages("The heartbeat of ResourceManager"))
		assert.Equal(t, []string{"Close ResourceManager connection resourcemanager-fake: " + timedOut},
			logs.Messages("Close ResourceManager connection"))
		assert.Equal(t, []string{"RegisterJobMaster", "DeclareRequiredResources", "DisconnectJobManager", "RegisterJobMaster", "DeclareRequiredResources"},
			h.journal.methods())
		disconnect := h.journal.of("DisconnectJobManager")[0]
		assert.Equal(t, jobManagerDisconnect{RMID: h.rmID, JobID: h.jobGraph.JobID, Status: api.JobRunning}, disconnect.Arg,
			"not globally terminal: the ResourceManager keeps the requirements")
		assert.Equal(t, again.At, disconnect.At)
	})
}

// A ResourceManager that keeps asking is never lost, and every request is
// answered.
func TestALiveResourceManagerIsNeverLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, logs := startHarnessWithHeartbeats(t)
		var answers atomic.Int32
		h.rm.heartbeatFromJobManager = func(api.ResourceID) { answers.Add(1) }
		requests := 0
		for range 12 * int(fast.Timeout/fast.Interval) {
			time.Sleep(fast.Interval)
			require.NoError(t, h.jm.HeartbeatFromResourceManager(h.ctx, "resourcemanager-fake"))
			requests++
		}
		synctest.Wait()

		assert.EqualValues(t, requests, answers.Load(), "one answer per request")
		assert.Empty(t, logs.Messages("The heartbeat of ResourceManager"))
		assert.Equal(t, []string{"RegisterJobMaster", "DeclareRequiredResources"}, h.journal.methods())
	})
}

// A TaskExecutor whose heartbeat requests cannot be delivered at all is
// lost after heartbeat.rpc-failure-threshold (2) failed requests in a row,
// without waiting for the timeout.
func TestAnUnreachableTaskExecutorIsDisconnectedAfterTwoFailedRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, logs := startHarnessWithHeartbeats(t)
		te := h.newTaskExecutor("taskexecutor-0")
		te.heartbeatFromJobManager = func(context.Context, api.ResourceID) error {
			return fmt.Errorf("%w: the TaskExecutor's RPC service is gone", rpc.ErrRecipientUnreachable)
		}
		h.deploy(te)
		registeredAt := time.Since(h.journal.start)

		told := h.journal.await("TaskExecutor.DisconnectJobManager", 1)[0]
		assert.Equal(t, registeredAt+2*fast.Interval, told.At, "the second failed request decides")
		unreachable := "TaskManager with id taskexecutor-0 is no longer reachable."
		assert.EqualError(t, told.Arg.(error), unreachable)
		assert.Equal(t, []string{unreachable}, logs.Messages("TaskManager with id"))
		assert.Equal(t, []string{"Disconnect TaskExecutor taskexecutor-0 because: " + unreachable}, logs.Messages("Disconnect TaskExecutor"))
	})
}

func TestNewRejectsInvalidHeartbeatOptions(t *testing.T) {
	g := jobgraph.New("job")
	g.AddVertex(jobgraph.NewJobVertex("Source", "test.Source", 1))
	_, err := jobmaster.New(jobmaster.Config{Heartbeat: heartbeat.HeartbeatServices{RPCFailureThreshold: -2}},
		jobmaster.Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()}, g, api.NewJobMasterID(), nil)
	assert.ErrorContains(t, err, "The number of failed heartbeat RPC requests has to be larger than 0 or -1 (deactivated).")
}
