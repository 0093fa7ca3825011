package jobmaster

import (
	"context"
	"fmt"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
)

// resourceManagerLeaderListener hands leader changes to the main thread.
type resourceManagerLeaderListener struct{ jm *JobMaster }

func (l resourceManagerLeaderListener) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	l.jm.RunAsync(func() { l.jm.notifyOfNewResourceManagerLeader(address, api.ResourceManagerID(session)) })
}

// notifyOfNewResourceManagerLeader drops the old connection and connects to
// the new leader (Flink's reconnectToResourceManager).
func (jm *JobMaster) notifyOfNewResourceManagerLeader(address string, rmID api.ResourceManagerID) {
	if jm.rmRegistration != nil {
		jm.rmRegistration.Cancel()
		jm.rmRegistration = nil
	}
	if jm.rm != nil {
		jm.rm = nil
		jm.slotPool.DisconnectResourceManager()
	}
	if address == "" || jm.completed {
		return
	}
	jm.connectToResourceManager(address, rmID)
}

// connectToResourceManager registers at the ResourceManager (step m5):
// resolve its address, then RegisterJobMaster, retried with Flink's backoff
// until it succeeds.
func (jm *JobMaster) connectToResourceManager(address string, rmID api.ResourceManagerID) {
	jm.log.Info(fmt.Sprintf("Connecting to ResourceManager %s", address))
	jobMasterID, jobID := jm.FencingToken(), jm.jobGraph.JobID
	resourceID, jmAddress, svc := jm.resourceID, jm.address, jm.deps.RPC

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
			// Step m5: registerJobMaster (the ResourceManager records the step).
			return rm.RegisterJobMaster(ctx, rmID, jobMasterID, resourceID, jmAddress, jobID)
		},
		OnSuccess: func(rm gateway.ResourceManagerGateway, _ gateway.JobMasterRegistrationSuccess) {
			jm.establishResourceManagerConnection(registeredResourceManager{address: address, id: rmID, gateway: rm})
		},
		OnRejection: func(err error) {
			jm.log.Error("The ResourceManager should never reject a JobMaster registration.", "cause", err.Error())
		},
	}
	jm.rmRegistration.Start()
}

func (jm *JobMaster) establishResourceManagerConnection(rm registeredResourceManager) {
	jm.rmRegistration = nil
	jm.rm = &rm
	jm.declareBackoff = 0
	jm.log.Info(fmt.Sprintf("JobManager successfully registered at ResourceManager, leader id: %s.", rm.id))
	jm.slotPool.ConnectToResourceManager(jm.declareResourceRequirements)
}

// resourceManagerLane orders the JobMaster's messages to the
// ResourceManager: declarations, then the final disconnect.
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
	// Step m6: declare the job's resource requirements (the ResourceManager
	// records the step on receipt).
	rpc.AskInOrder(jm.Endpoint, resourceManagerLane, jm.cfg.RPCTimeout, func(ctx context.Context) (struct{}, error) {
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
