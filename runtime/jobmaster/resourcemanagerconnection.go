package jobmaster

import (
	"context"
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// resourceManagerLeaderListener hands leader changes to the main thread.
type resourceManagerLeaderListener struct{ jm *JobMaster }

func (l resourceManagerLeaderListener) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	l.jm.RunAsync(func() { l.jm.notifyOfNewResourceManagerLeader(address, api.ResourceManagerID(session)) })
}

// notifyOfNewResourceManagerLeader drops the old connection and connects to
// the new leader (Flink's reconnectToResourceManager).
func (jm *JobMaster) notifyOfNewResourceManagerLeader(address string, rmID api.ResourceManagerID) {
	jm.rmLeader = nil
	if address != "" {
		jm.rmLeader = &resourceManagerAddress{address: address, id: rmID}
	}
	if jm.rmRegistration != nil {
		jm.rmRegistration.Cancel()
		jm.rmRegistration = nil
	}
	if jm.rm != nil {
		jm.forgetResourceManager()
	}
	jm.tryConnectToResourceManager()
}

// tryConnectToResourceManager connects to the leader we know, if there is
// one and the job still needs it.
func (jm *JobMaster) tryConnectToResourceManager() {
	if jm.rmLeader == nil || jm.completed {
		return
	}
	jm.connectToResourceManager(jm.rmLeader.address, jm.rmLeader.id)
}

// connectToResourceManager registers at the ResourceManager (step m5):
// resolve its address, then RegisterJobMaster, retried with Flink's backoff
// until it succeeds.
func (jm *JobMaster) connectToResourceManager(address string, rmID api.ResourceManagerID) {
	jm.log.Info(fmt.Sprintf("Connecting to ResourceManager %s", address))
	jobMasterID, jobID := jm.FencingToken(), jm.jobGraph.JobID
	resourceID, jmAddress, svc := jm.resourceID, jm.address, jm.deps.RPC
	faults, tr := jm.deps.Faults, jm.deps.Trace

	jm.rmRegistration = &registration.RetryingRegistration[gateway.ResourceManagerGateway, gateway.JobMasterRegistrationSuccess]{
		Owner:          jm.Endpoint,
		Logger:         jm.log,
		TargetName:     "ResourceManager",
		TargetAddress:  address,
		Config:         jm.cfg.Registration,
		ResolveTimeout: jm.cfg.RPCTimeout,
		Resolve: func(ctx context.Context) (gateway.ResourceManagerGateway, error) {
			return rpc.Connect[gateway.ResourceManagerGateway](ctx, svc, address)
		},
		Invoke: func(ctx context.Context, rm gateway.ResourceManagerGateway) (gateway.JobMasterRegistrationSuccess, error) {
			if kind, ok := faults.Fire(trace.M5, jobID); ok {
				if kind == fault.RegistrationError {
					// Step m5 (fault): the call fails at once (Flink: an
					// RpcConnectionException); the registration pauses for
					// cluster.registration.error-delay and starts over.
					err := fmt.Errorf("Could not connect to rpc endpoint under address %s.: %w", address, fault.Injected(trace.M5, kind))
					tr.EmitFailure(trace.M5, "JobMaster", "ResourceManager", jobID, "registerJobMaster: %v", err)
					return gateway.JobMasterRegistrationSuccess{}, err
				}
				// Step m5 (fault): the ResourceManager does not answer; this
				// attempt times out and the registration tries again later.
				tr.EmitFailure(trace.M5, "JobMaster", "ResourceManager", jobID,
					"registerJobMaster: no answer from the ResourceManager at %s: %v", address, fault.Injected(trace.M5, kind))
				<-ctx.Done()
				return gateway.JobMasterRegistrationSuccess{}, fmt.Errorf("%w: %w", rpc.ErrTimeout, ctx.Err())
			}
			// Step m5: registerJobMaster (the ResourceManager records the step).
			return rm.RegisterJobMaster(ctx, rmID, jobMasterID, resourceID, jmAddress, jobID)
		},
		OnSuccess: func(rm gateway.ResourceManagerGateway, success gateway.JobMasterRegistrationSuccess) {
			jm.establishResourceManagerConnection(registeredResourceManager{
				address: address, id: rmID, resourceID: success.ResourceManagerResourceID, gateway: rm,
			})
		},
		OnRejection: func(err error) {
			jm.log.Error("The ResourceManager should never reject a JobMaster registration.", "cause", err.Error())
		},
	}
	jm.rmRegistration.Start()
}

// establishResourceManagerConnection makes a successful registration the
// connection: the ResourceManager's heartbeat requests are expected from
// now on, and the slot pool declares its requirements.
func (jm *JobMaster) establishResourceManagerConnection(rm registeredResourceManager) {
	jm.rmRegistration = nil
	jm.rm = &rm
	jm.declareBackoff = 0
	jm.log.Info(fmt.Sprintf("JobManager successfully registered at ResourceManager, leader id: %s.", rm.id))
	jm.resourceManagerHeartbeatManager.MonitorTarget(rm.resourceID,
		heartbeat.HeartbeatReceiver[struct{}](func(ctx context.Context, from api.ResourceID, _ struct{}) error {
			return rm.gateway.HeartbeatFromJobManager(ctx, from)
		}))
	jm.slotPool.ConnectToResourceManager(jm.declareResourceRequirements)
}

// forgetResourceManager drops the connection on this side: no more
// declarations, no more heartbeats. Telling the ResourceManager is the
// caller's business. Main thread only.
func (jm *JobMaster) forgetResourceManager() {
	if jm.rm == nil {
		return
	}
	jm.resourceManagerHeartbeatManager.UnmonitorTarget(jm.rm.resourceID)
	jm.rm = nil
	jm.slotPool.DisconnectResourceManager()
}

// reconnectToResourceManager closes the connection to the ResourceManager
// and registers at the leader again (Flink: JobMaster#reconnectToResourceManager),
// when the ResourceManager's heartbeat timed out. The ResourceManager is
// told first, with the job's current status, so it keeps the job's
// requirements. The new registration starts once it has answered, or did
// not within the RPC timeout: a disconnect that overtook it would make the
// ResourceManager forget the new registration instead of the old one.
func (jm *JobMaster) reconnectToResourceManager(cause error) {
	jm.closeResourceManagerConnection(jm.scheduler.RequestJobStatus(), cause, func(error) {
		if jm.rm == nil && jm.rmRegistration == nil { // nobody has connected meanwhile
			jm.tryConnectToResourceManager()
		}
	})
}

// closeResourceManagerConnection closes the connection to the
// ResourceManager (Flink's closeResourceManagerConnection and
// dissolveResourceManagerConnection): "Close ResourceManager connection
// <id>: <cause>", no more heartbeats, no more declarations, and the
// ResourceManager is told (DisconnectJobManager) with the job's status. A
// globally terminal status makes it clear the job's requirements; any
// other keeps them for the job's next JobMaster. The call goes out on the
// lane of the JobMaster's other messages to the ResourceManager, after
// them; then runs on the main thread with its answer, or at once if no
// connection was established. Main thread only.
func (jm *JobMaster) closeResourceManagerConnection(status api.JobStatus, cause error, then func(error)) {
	rm := jm.rm
	if rm == nil {
		then(nil)
		return
	}
	jm.log.Info(fmt.Sprintf("Close ResourceManager connection %s: %v", rm.resourceID, cause))
	jm.forgetResourceManager()
	jobID := jm.jobGraph.JobID
	rpc.AskInOrder(jm.Endpoint, resourceManagerLane, jm.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, rm.gateway.DisconnectJobManager(ctx, rm.id, jobID, status, cause)
	}, func(_ struct{}, err error) { then(err) })
}

// resourceManagerLane orders the JobMaster's messages to the
// ResourceManager: the declarations of the job's requirements, in the
// order they were made, then the disconnect. When the JobMaster stops, its
// disconnects from the TaskExecutors go on the lane too, behind the last
// declaration: a TaskExecutor frees the job's slots when it is
// disconnected, and the ResourceManager must know by then that the job no
// longer needs them (see disconnectTaskManagerResourceManagerConnections).
const resourceManagerLane = "resourcemanager"

// declareResourceRequirements sends the slot pool's requirements. A failed
// declaration is sent again with exponential backoff from 1 ms to 10 s, as
// Flink's DefaultDeclareResourceRequirementServiceConnectionManager does, as
// long as it is still the latest. Declarations go out in order (one lane),
// so an older one can never overtake a newer one.
func (jm *JobMaster) declareResourceRequirements(req gateway.ResourceRequirements) {
	rm := jm.rm
	if rm == nil {
		return
	}
	jobMasterID := jm.FencingToken()
	faults, tr := jm.deps.Faults, jm.deps.Trace
	// Step m6: declare the job's resource requirements (the ResourceManager
	// records the step on receipt).
	rpc.AskInOrder(jm.Endpoint, resourceManagerLane, jm.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
		if kind, ok := faults.Fire(trace.M6, req.JobID); ok {
			// Step m6 (fault): the declaration is lost on the way; the
			// JobMaster waits for an answer until its RPC timeout, then
			// declares again.
			tr.EmitFailure(trace.M6, "JobMaster", "ResourceManager", req.JobID,
				"declareRequiredResources: %d slot(s) declared, the message was lost: %v", req.TotalSlots(), fault.Injected(trace.M6, kind))
			<-ctx.Done()
			return struct{}{}, fmt.Errorf("%w: %w", rpc.ErrTimeout, ctx.Err())
		}
		return struct{}{}, rm.gateway.DeclareRequiredResources(ctx, rm.id, jobMasterID, req)
	}, func(_ struct{}, err error) {
		if err == nil {
			jm.declareBackoff = 0
			return
		}
		if jm.rm != rm {
			return // disconnected meanwhile; the next connection declares anew
		}
		jm.declareBackoff = min(max(2*jm.declareBackoff, time.Millisecond), 10*time.Second)
		jm.log.Warn(fmt.Sprintf("Failed to declare resource requirements of job %s; retrying in %d ms.",
			jm.jobGraph.JobID, jm.declareBackoff.Milliseconds()), "cause", err.Error())
		jm.ScheduleRunAsync(func() {
			if jm.rm == rm {
				jm.declareResourceRequirements(jm.slotPool.Requirements())
			}
		}, jm.declareBackoff)
	})
}
