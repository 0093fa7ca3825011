package jobmaster

import (
	"context"
	"errors"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rpc"
)

// The JobMaster sits in two heartbeat pairs (package heartbeat). Towards
// its TaskExecutors it is the sender: it asks each registered one for a
// heartbeat every heartbeat.interval. Towards the ResourceManager it is
// the receiver: the ResourceManager asks, and the JobMaster answers.

// startHeartbeatServices creates the two heartbeat managers (Flink:
// JobMaster#startHeartbeatServices, from startJobMasterServices). Main
// thread only.
func (jm *JobMaster) startHeartbeatServices() {
	jm.taskManagerHeartbeatManager = heartbeat.CreateHeartbeatManagerSender[gateway.TaskExecutorToJobManagerHeartbeatPayload, gateway.AllocatedSlotReport](
		jm.cfg.Heartbeat, jm.resourceID, taskManagerHeartbeatListener{jm}, jm.Endpoint, jm.log)
	jm.resourceManagerHeartbeatManager = heartbeat.CreateHeartbeatManager[struct{}, struct{}](
		jm.cfg.Heartbeat, jm.resourceID, resourceManagerHeartbeatListener{jm}, jm.Endpoint, jm.log)
}

// stopHeartbeatServices stops both managers: no more requests, no more
// timeouts. Main thread only.
func (jm *JobMaster) stopHeartbeatServices() {
	jm.taskManagerHeartbeatManager.Stop()
	jm.resourceManagerHeartbeatManager.Stop()
}

// HeartbeatFromTaskManager is a TaskExecutor's answer to the JobMaster's
// heartbeat request: it restarts that TaskExecutor's timeout (Flink:
// JobMaster#heartbeatFromTaskManager). Not fenced, as every heartbeat RPC
// here: an answer from a TaskExecutor that is not monitored is ignored.
func (jm *JobMaster) HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.TaskExecutorToJobManagerHeartbeatPayload) error {
	_, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		jm.taskManagerHeartbeatManager.ReceiveHeartbeat(resourceID, payload)
		return struct{}{}, nil
	})
	return err
}

// HeartbeatFromResourceManager is the ResourceManager's heartbeat request
// (Flink: JobMaster#heartbeatFromResourceManager): the ResourceManager is
// alive, and the manager answers with its HeartbeatFromJobManager.
func (jm *JobMaster) HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error {
	_, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		jm.resourceManagerHeartbeatManager.RequestHeartbeat(resourceID, struct{}{})
		return struct{}{}, nil
	})
	return err
}

// taskManagerHeartbeatListener is Flink's
// JobMaster.TaskManagerHeartbeatListener: a TaskExecutor that stops
// answering is disconnected, which releases its slots and fails the tasks
// that ran there, so the job fails over to other slots.
type taskManagerHeartbeatListener struct{ jm *JobMaster }

var _ heartbeat.HeartbeatListener[gateway.TaskExecutorToJobManagerHeartbeatPayload, gateway.AllocatedSlotReport] = taskManagerHeartbeatListener{}

func (l taskManagerHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.TaskManagerTimedOutAtJobMaster, id)
	l.jm.log.Info(msg)
	l.jm.disconnectTaskManager(id, &gateway.TimeoutException{Message: msg})
}

func (l taskManagerHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.TaskManagerUnreachable, id)
	l.jm.log.Info(msg)
	l.jm.disconnectTaskManager(id, errors.New(msg)) // Flink: a JobMasterException
}

// ReportPayload has nothing to do: the payload is empty (see
// gateway.TaskExecutorToJobManagerHeartbeatPayload).
func (taskManagerHeartbeatListener) ReportPayload(api.ResourceID, gateway.TaskExecutorToJobManagerHeartbeatPayload) {
}

// RetrievePayload returns the empty request payload (see
// gateway.AllocatedSlotReport).
func (taskManagerHeartbeatListener) RetrievePayload(api.ResourceID) gateway.AllocatedSlotReport {
	return gateway.AllocatedSlotReport{}
}

// resourceManagerHeartbeatListener is Flink's
// JobMaster.ResourceManagerHeartbeatListener: a ResourceManager that stops
// asking has lost us (or died), so the JobMaster connects again.
type resourceManagerHeartbeatListener struct{ jm *JobMaster }

var _ heartbeat.HeartbeatListener[struct{}, struct{}] = resourceManagerHeartbeatListener{}

func (l resourceManagerHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.ResourceManagerTimedOut, id)
	l.jm.log.Info(msg)
	l.jm.handleResourceManagerConnectionLoss(id, &gateway.TimeoutException{Message: msg})
}

func (l resourceManagerHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.ResourceManagerUnreachable, id)
	l.jm.log.Info(msg)
	l.jm.handleResourceManagerConnectionLoss(id, errors.New(msg)) // Flink: a JobMasterException
}

// ReportPayload has nothing to do: the requests carry nothing, in Flink
// too.
func (resourceManagerHeartbeatListener) ReportPayload(api.ResourceID, struct{}) {}

// RetrievePayload returns the empty answer.
func (resourceManagerHeartbeatListener) RetrievePayload(api.ResourceID) struct{} { return struct{}{} }

// handleResourceManagerConnectionLoss reconnects to the ResourceManager if
// the lost target is still the one we are registered at.
func (jm *JobMaster) handleResourceManagerConnectionLoss(id api.ResourceID, cause error) {
	if jm.rm != nil && jm.rm.resourceID == id {
		jm.reconnectToResourceManager(cause)
	}
}
