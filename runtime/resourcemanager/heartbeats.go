package resourcemanager

import (
	"context"
	"errors"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rpc"
)

// The ResourceManager is the sender of both its heartbeat pairs (package
// heartbeat): every heartbeat.interval it asks each registered TaskExecutor
// and each registered JobMaster for a heartbeat. One that does not answer
// for heartbeat.timeout is disconnected, as if it had said goodbye.

// startHeartbeatServices creates the two heartbeat managers when
// leadership is granted (Flink: ResourceManager#startHeartbeatServices).
// Main thread only.
func (rm *ResourceManager) startHeartbeatServices() {
	rm.taskManagerHeartbeatManager = heartbeat.CreateHeartbeatManagerSender[gateway.TaskExecutorHeartbeatPayload, struct{}](
		rm.cfg.Heartbeat, rm.cfg.ResourceID, taskManagerHeartbeatListener{rm}, rm.Endpoint, rm.log)
	rm.jobManagerHeartbeatManager = heartbeat.CreateHeartbeatManagerSender[struct{}, struct{}](
		rm.cfg.Heartbeat, rm.cfg.ResourceID, jobManagerHeartbeatListener{rm}, rm.Endpoint, rm.log)
}

// stopHeartbeatServices stops both managers when leadership is revoked or
// the ResourceManager stops. Main thread only.
func (rm *ResourceManager) stopHeartbeatServices() {
	rm.taskManagerHeartbeatManager.Stop()
	rm.jobManagerHeartbeatManager.Stop()
	rm.taskManagerHeartbeatManager = heartbeat.NoOpHeartbeatManager[gateway.TaskExecutorHeartbeatPayload, struct{}]{}
	rm.jobManagerHeartbeatManager = heartbeat.NoOpHeartbeatManager[struct{}, struct{}]{}
}

// HeartbeatFromTaskManager is a TaskExecutor's answer to the
// ResourceManager's heartbeat request (Flink:
// ResourceManager#heartbeatFromTaskManager). Not fenced: an answer from a
// TaskExecutor the current leadership does not monitor is ignored.
func (rm *ResourceManager) HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID,
	payload gateway.TaskExecutorHeartbeatPayload) error {
	_, err := rpc.CallAsync(ctx, rm.Endpoint, func() (struct{}, error) {
		rm.taskManagerHeartbeatManager.ReceiveHeartbeat(resourceID, payload)
		return struct{}{}, nil
	})
	return err
}

// HeartbeatFromJobManager is a JobMaster's answer to the ResourceManager's
// heartbeat request (Flink: ResourceManager#heartbeatFromJobManager). Not
// fenced, like HeartbeatFromTaskManager.
func (rm *ResourceManager) HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID) error {
	_, err := rpc.CallAsync(ctx, rm.Endpoint, func() (struct{}, error) {
		rm.jobManagerHeartbeatManager.ReceiveHeartbeat(resourceID, struct{}{})
		return struct{}{}, nil
	})
	return err
}

// taskManagerHeartbeatListener is Flink's
// ResourceManager.TaskManagerHeartbeatListener: a TaskExecutor that stops
// answering is closed like one that left, so its slots are gone from the
// SlotManager and the jobs that held them are served elsewhere.
type taskManagerHeartbeatListener struct{ rm *ResourceManager }

var _ heartbeat.HeartbeatListener[gateway.TaskExecutorHeartbeatPayload, struct{}] = taskManagerHeartbeatListener{}

func (l taskManagerHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.TaskManagerTimedOut, id)
	l.rm.log.Info(msg)
	l.rm.closeTaskManagerConnection(id, &gateway.TimeoutException{Message: msg})
}

func (l taskManagerHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.TaskManagerUnreachable, id)
	l.rm.log.Info(msg)
	l.rm.closeTaskManagerConnection(id, errors.New(msg)) // Flink: a ResourceManagerException
}

// ReportPayload has nothing to do: the payload is empty (see
// gateway.TaskExecutorHeartbeatPayload). Flink hands the SlotReport in it
// to SlotManager#reportSlotStatus here.
func (taskManagerHeartbeatListener) ReportPayload(api.ResourceID, gateway.TaskExecutorHeartbeatPayload) {
}

// RetrievePayload returns the empty request payload: the requests carry
// nothing, in Flink too.
func (taskManagerHeartbeatListener) RetrievePayload(api.ResourceID) struct{} { return struct{}{} }

// jobManagerHeartbeatListener is Flink's
// ResourceManager.JobManagerHeartbeatListener: a JobMaster that stops
// answering is disconnected, but its job's requirements stay, for the
// JobMaster to find when it registers again (or for the job's next
// JobMaster).
type jobManagerHeartbeatListener struct{ rm *ResourceManager }

var _ heartbeat.HeartbeatListener[struct{}, struct{}] = jobManagerHeartbeatListener{}

func (l jobManagerHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.JobManagerTimedOut, id)
	l.rm.log.Info(msg)
	l.rm.handleJobManagerConnectionLoss(id, &gateway.TimeoutException{Message: msg})
}

func (l jobManagerHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.JobManagerUnreachable, id)
	l.rm.log.Info(msg)
	l.rm.handleJobManagerConnectionLoss(id, errors.New(msg)) // Flink: a ResourceManagerException
}

// ReportPayload has nothing to do: the answers carry nothing, in Flink too.
func (jobManagerHeartbeatListener) ReportPayload(api.ResourceID, struct{}) {}

// RetrievePayload returns the empty request payload.
func (jobManagerHeartbeatListener) RetrievePayload(api.ResourceID) struct{} { return struct{}{} }

// handleJobManagerConnectionLoss disconnects the JobMaster whose heartbeat
// target ID is id: "Disconnect job manager {}@{} for job {} from the
// resource manager.", and the job's requirements are kept.
func (rm *ResourceManager) handleJobManagerConnectionLoss(id api.ResourceID, cause error) {
	for jobID, reg := range rm.jobManagerRegistrations {
		if reg.resourceID == id {
			rm.closeJobManagerConnection(jobID, false, cause)
			return
		}
	}
}
