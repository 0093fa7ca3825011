package heartbeat_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"flinklab/runtime/api"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rpc"
)

// The payloads of the JobMaster ↔ TaskExecutor pair (simplified).
type (
	AllocatedSlotReport []api.AllocationID                                    // JobMaster → TaskExecutor
	TMPayload           struct{ DeployedExecutions []api.ExecutionAttemptID } // TaskExecutor → JobMaster
)

// The heartbeat methods of the two gateways.
type (
	TaskExecutorGateway interface {
		HeartbeatFromJobManager(ctx context.Context, from api.ResourceID, report AllocatedSlotReport) error
	}
	JobMasterGateway interface {
		HeartbeatFromTaskManager(ctx context.Context, from api.ResourceID, payload TMPayload) error
	}
)

// JobMaster is the sender side of the pair.
type JobMaster struct {
	*rpc.Endpoint
	log        *slog.Logger
	resourceID api.ResourceID
	tmHearts   heartbeat.HeartbeatManager[TMPayload, AllocatedSlotReport] // main thread only
}

// onStart creates the manager (Flink: startJobMasterServices).
func (jm *JobMaster) onStart(services heartbeat.HeartbeatServices) {
	jm.tmHearts = heartbeat.CreateHeartbeatManagerSender[TMPayload, AllocatedSlotReport](
		services, jm.resourceID, tmHeartbeatListener{jm}, jm.Endpoint, jm.log)
}

// registerTaskManager, after accepting the TaskExecutor, monitors it
// through its gateway.
func (jm *JobMaster) registerTaskManager(tmID api.ResourceID, tm TaskExecutorGateway) {
	jm.tmHearts.MonitorTarget(tmID, heartbeat.HeartbeatSender[AllocatedSlotReport](tm.HeartbeatFromJobManager))
}

// HeartbeatFromTaskManager is the JobMaster's gateway method: the answer
// enters the mailbox like any RPC.
func (jm *JobMaster) HeartbeatFromTaskManager(ctx context.Context, from api.ResourceID, payload TMPayload) error {
	_, err := rpc.CallAsync(ctx, jm.Endpoint, func() (struct{}, error) {
		jm.tmHearts.ReceiveHeartbeat(from, payload)
		return struct{}{}, nil
	})
	return err
}

// disconnectTaskManager closes the connection, and unmonitors the target.
func (jm *JobMaster) disconnectTaskManager(tmID api.ResourceID, cause error) {
	jm.log.Info(fmt.Sprintf("Disconnect TaskExecutor %s because: %v", tmID, cause))
	jm.tmHearts.UnmonitorTarget(tmID)
	// ... release the TaskExecutor's slots ...
}

// tmHeartbeatListener is Flink's JobMaster.TaskManagerHeartbeatListener.
type tmHeartbeatListener struct{ jm *JobMaster }

func (l tmHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.TaskManagerTimedOutAtJobMaster, id)
	l.jm.log.Info(msg)
	l.jm.disconnectTaskManager(id, errors.New(msg)) // Flink: a TimeoutException
}

func (l tmHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.TaskManagerUnreachable, id)
	l.jm.log.Info(msg)
	l.jm.disconnectTaskManager(id, errors.New(msg)) // Flink: a JobMasterException
}

func (l tmHeartbeatListener) ReportPayload(id api.ResourceID, p TMPayload) {
	// ... reconcile p.DeployedExecutions with the ExecutionGraph ...
}

func (l tmHeartbeatListener) RetrievePayload(id api.ResourceID) AllocatedSlotReport {
	return nil // ... the slots the job holds on TaskExecutor id ...
}

// TaskExecutor is the receiver side of the pair.
type TaskExecutor struct {
	*rpc.Endpoint
	log        *slog.Logger
	resourceID api.ResourceID
	jmHearts   heartbeat.HeartbeatManager[AllocatedSlotReport, TMPayload] // main thread only
}

func (te *TaskExecutor) onStart(services heartbeat.HeartbeatServices) {
	te.jmHearts = heartbeat.CreateHeartbeatManager[AllocatedSlotReport, TMPayload](
		services, te.resourceID, jmHeartbeatListener{te}, te.Endpoint, te.log)
}

// establishJobManagerConnection, after the registration at the JobMaster
// succeeded, monitors the JobMaster through its gateway.
func (te *TaskExecutor) establishJobManagerConnection(jmID api.ResourceID, jm JobMasterGateway) {
	te.jmHearts.MonitorTarget(jmID, heartbeat.HeartbeatReceiver[TMPayload](jm.HeartbeatFromTaskManager))
}

// HeartbeatFromJobManager is the TaskExecutor's gateway method: the
// manager answers on its own, with the listener's payload.
func (te *TaskExecutor) HeartbeatFromJobManager(ctx context.Context, from api.ResourceID, report AllocatedSlotReport) error {
	_, err := rpc.CallAsync(ctx, te.Endpoint, func() (struct{}, error) {
		te.jmHearts.RequestHeartbeat(from, report)
		return struct{}{}, nil
	})
	return err
}

// disconnectJobManager closes the connection, and unmonitors the target.
func (te *TaskExecutor) disconnectJobManager(jmID api.ResourceID, cause error) {
	te.jmHearts.UnmonitorTarget(jmID)
	// ... fail the job's tasks, free its slots, reconnect to the JobMaster ...
}

// jmHeartbeatListener is Flink's TaskExecutor.JobManagerHeartbeatListener.
type jmHeartbeatListener struct{ te *TaskExecutor }

func (l jmHeartbeatListener) NotifyHeartbeatTimeout(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.JobManagerTimedOut, id)
	l.te.log.Info(msg)
	l.te.disconnectJobManager(id, errors.New(msg)) // Flink: a TimeoutException
}

func (l jmHeartbeatListener) NotifyTargetUnreachable(id api.ResourceID) {
	msg := fmt.Sprintf(heartbeat.JobManagerUnreachable, id)
	l.te.log.Info(msg)
	l.te.disconnectJobManager(id, errors.New(msg)) // Flink: a TaskManagerException
}

func (l jmHeartbeatListener) ReportPayload(id api.ResourceID, report AllocatedSlotReport) {
	// ... free the slots of the job that the JobMaster no longer knows ...
}

func (l jmHeartbeatListener) RetrievePayload(id api.ResourceID) TMPayload {
	return TMPayload{} // ... the executions deployed here for the JobMaster's job ...
}

// A JobMaster monitors the TaskExecutors that registered with it, and each
// TaskExecutor its JobMaster. The JobMaster asks every interval; the
// TaskExecutor answers; both time the other out.
func Example_jobMasterAndTaskExecutor() {
	services := heartbeat.DefaultHeartbeatServices()
	jm := &JobMaster{Endpoint: rpc.NewEndpoint("jobmanager_0"), log: slog.Default(), resourceID: "jm-1"}
	te := &TaskExecutor{Endpoint: rpc.NewEndpoint("taskmanager_0"), log: slog.Default(), resourceID: "tm-1"}
	jm.Start(func() { jm.onStart(services) })
	te.Start(func() { te.onStart(services) })

	// On each main thread, once the TaskExecutor has registered:
	jm.RunAsync(func() { jm.registerTaskManager(te.resourceID, te) })
	te.RunAsync(func() { te.establishJobManagerConnection(jm.resourceID, jm) })

	// ...and when either stops, in its onStop: jm.tmHearts.Stop().
	jm.Close(func() { jm.tmHearts.Stop() })
	te.Close(func() { te.jmHearts.Stop() })
}
