package taskexecutor

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
)

// The TaskExecutor is the receiving side of both its heartbeat pairs: its
// JobMasters and the ResourceManager ask, it answers (package heartbeat).
// Each answer also tells it that the asker is alive; when one stops asking
// for heartbeat.timeout, the listener below closes the connection to it.

// HeartbeatFromJobManager is a JobMaster's heartbeat request (Flink:
// TaskExecutor#heartbeatFromJobManager): the JobMaster is alive, and the
// manager answers with HeartbeatFromTaskManager.
func (te *TaskExecutor) HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.AllocatedSlotReport) error {
	return te.callAsync(ctx, func() error {
		te.jobManagerHeartbeatManager.RequestHeartbeat(resourceID, payload)
		return nil
	})
}

// HeartbeatFromResourceManager is the ResourceManager's heartbeat request
// (Flink: TaskExecutor#heartbeatFromResourceManager).
func (te *TaskExecutor) HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error {
	return te.callAsync(ctx, func() error {
		te.resourceManagerHeartbeatManager.RequestHeartbeat(resourceID, struct{}{})
		return nil
	})
}

// jobManagerHeartbeatListener is Flink's
// TaskExecutor.JobManagerHeartbeatListener: a JobMaster that stops asking
// for heartbeats is gone, and so is its job here.
type jobManagerHeartbeatListener struct{ te *TaskExecutor }

var _ heartbeat.HeartbeatListener[gateway.AllocatedSlotReport, gateway.TaskExecutorToJobManagerHeartbeatPayload] = jobManagerHeartbeatListener{}

func (l jobManagerHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.JobManagerTimedOut, id)
	l.te.logger.Info(msg)
	l.te.handleJobManagerConnectionLoss(id, &gateway.TimeoutException{Message: msg})
}

func (l jobManagerHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.JobManagerUnreachable, id)
	l.te.logger.Info(msg)
	l.te.handleJobManagerConnectionLoss(id, newException(gateway.ErrTaskManager, nil, "%s", msg))
}

// ReportPayload has nothing to do: the payload is empty (see
// gateway.AllocatedSlotReport).
func (jobManagerHeartbeatListener) ReportPayload(api.ResourceID, gateway.AllocatedSlotReport) {}

// RetrievePayload returns the empty answer (see
// gateway.TaskExecutorToJobManagerHeartbeatPayload).
func (jobManagerHeartbeatListener) RetrievePayload(api.ResourceID) gateway.TaskExecutorToJobManagerHeartbeatPayload {
	return gateway.TaskExecutorToJobManagerHeartbeatPayload{}
}

// handleJobManagerConnectionLoss closes the connection to the JobMaster
// whose heartbeat target ID is id, as DisconnectJobManager does: the job's
// tasks fail with "Disconnect from JobManager responsible for <jobId>.",
// the JobMaster is told (if it still listens), and the job's slots are
// freed and given back to the ResourceManager.
//
// Differs from Flink: Flink keeps the slots, marked inactive, and asks the
// job leader service to register at the JobMaster again
// (disconnectAndTryReconnectToJobManager); taskmanager.slot.timeout frees
// them if the JobMaster does not come back. Without a slot timeout we free
// them at once, and the job's entry goes with its last slot.
func (te *TaskExecutor) handleJobManagerConnectionLoss(id api.ResourceID, cause error) {
	for _, job := range te.jobTable {
		if job.connection != nil && job.connection.resourceID == id {
			te.disconnectJobManager(job, cause)
			return
		}
	}
}

// resourceManagerHeartbeatListener is Flink's
// TaskExecutor.ResourceManagerHeartbeatListener: a ResourceManager that
// stops asking for heartbeats has lost us, so we register again.
type resourceManagerHeartbeatListener struct{ te *TaskExecutor }

var _ heartbeat.HeartbeatListener[struct{}, gateway.TaskExecutorHeartbeatPayload] = resourceManagerHeartbeatListener{}

func (l resourceManagerHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	l.te.handleResourceManagerConnectionLoss(id, heartbeat.ResourceManagerTimedOut)
}

func (l resourceManagerHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	l.te.handleResourceManagerConnectionLoss(id, heartbeat.ResourceManagerUnreachable)
}

// ReportPayload has nothing to do: the ResourceManager's requests carry
// nothing, in Flink too.
func (resourceManagerHeartbeatListener) ReportPayload(api.ResourceID, struct{}) {}

// RetrievePayload returns the empty answer (see
// gateway.TaskExecutorHeartbeatPayload).
func (resourceManagerHeartbeatListener) RetrievePayload(api.ResourceID) gateway.TaskExecutorHeartbeatPayload {
	return gateway.TaskExecutorHeartbeatPayload{}
}

// handleResourceManagerConnectionLoss closes the connection to the
// ResourceManager and registers at the leader again, if the lost target is
// still the ResourceManager we are connected to. The cause is a
// TaskManagerException with the message, as in Flink.
func (te *TaskExecutor) handleResourceManagerConnectionLoss(id api.ResourceID, format string) {
	conn := te.resourceManagerConnection
	if conn == nil || !conn.established || conn.resourceManagerResourceID != id {
		return // a connection closed meanwhile
	}
	msg := fmt.Sprintf(format, id)
	te.logger.Info(msg)
	te.reconnectToResourceManager(newException(gateway.ErrTaskManager, nil, "%s", msg))
}
