package resourcemanager

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// jobManagerRegistration is a registered JobMaster (Flink's
// JobManagerRegistration).
type jobManagerRegistration struct {
	jobID       api.JobID
	jobMasterID api.JobMasterID
	resourceID  api.ResourceID // the JobMaster's; its heartbeat target ID
	address     string
	gateway     jobMasterGateway
}

// jobMasterGateway is a JobMaster as the ResourceManager sees it: its
// gateway and its heartbeat RPCs.
type jobMasterGateway interface {
	gateway.JobMasterGateway
	gateway.JobMasterHeartbeatGateway
}

// RegisterJobMaster connects a job's JobMaster to the ResourceManager
// (step m5). A JobMaster with a new JobMasterID replaces the job's previous
// one; registering the same JobMaster again is harmless.
func (rm *ResourceManager) RegisterJobMaster(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	jobManagerResourceID api.ResourceID, jobMasterAddress string, jobID api.JobID) (gateway.JobMasterRegistrationSuccess, error) {
	// Connecting back may dial the JobMaster's process, so it happens here,
	// on the caller's goroutine, and the main thread goes on with the
	// outcome (Flink: rpcService.connect(...) combined with the job's leader
	// id, then continued on the main thread).
	jobMaster, connectErr := rpc.Connect[jobMasterGateway](ctx, rm.deps.RPC, jobMasterAddress)
	return rpc.CallFenced(ctx, rm.FencedEndpoint, rmID, func() (gateway.JobMasterRegistrationSuccess, error) {
		success, err := rm.registerJobMaster(jobMaster, connectErr, jobMasterID, jobManagerResourceID, jobMasterAddress, jobID)
		if err == nil {
			// Step m5: the JobMaster is registered; from now on it may declare
			// the resources its job needs.
			rm.deps.Trace.Emit(trace.M5, "JobMaster", "ResourceManager", jobID,
				"registerJobMaster: job manager %s@%s registered for job %s", jobMasterID, jobMasterAddress, jobID)
		}
		return success, err
	})
}

// registerJobMaster registers a JobMaster the ResourceManager has tried to
// connect back to: jobMaster is its gateway, or connectErr says why it
// could not be reached (Flink's ResourceManager#registerJobMaster, after
// the fencing token was checked). Main thread only.
//
// Step m5: the ResourceManager decides whether it takes the JobMaster: one
// it could not connect back to is refused, any other is registered.
func (rm *ResourceManager) registerJobMaster(jobMaster jobMasterGateway, connectErr error, jobMasterID api.JobMasterID,
	jobManagerResourceID api.ResourceID, jobMasterAddress string, jobID api.JobID) (gateway.JobMasterRegistrationSuccess, error) {
	rm.log.Info(fmt.Sprintf("Registering job manager %s@%s for job %s.", jobMasterID, jobMasterAddress, jobID))
	if connectErr != nil {
		rm.log.Warn(fmt.Sprintf("Registration of job manager %s@%s failed.", jobMasterID, jobMasterAddress), "error", connectErr)
		return gateway.JobMasterRegistrationSuccess{}, gateway.RegistrationFailure(
			"Could not connect to the JobMaster of job %s at %s: %v", jobID, jobMasterAddress, connectErr)
	}
	rm.registerJobMasterInternal(&jobManagerRegistration{
		jobID:       jobID,
		jobMasterID: jobMasterID,
		resourceID:  jobManagerResourceID,
		address:     jobMasterAddress,
		gateway:     jobMaster,
	})
	return gateway.JobMasterRegistrationSuccess{
		ResourceManagerID:         rm.FencingToken(),
		ResourceManagerResourceID: rm.cfg.ResourceID,
	}, nil
}

// registerJobMasterInternal records the registration, replacing the job's
// previous JobMaster, and starts watching the JobMaster's heartbeat. Main
// thread only.
//
// Step m5: the JobMaster becomes the one its job's requirements come from
// (Flink's jobManagerRegistrations); a new leader of the job replaces the
// old one.
func (rm *ResourceManager) registerJobMasterInternal(reg *jobManagerRegistration) {
	if old, ok := rm.jobManagerRegistrations[reg.jobID]; ok {
		if old.jobMasterID == reg.jobMasterID {
			rm.log.Debug(fmt.Sprintf("Job manager %s@%s was already registered.", reg.jobMasterID, reg.address))
		} else {
			// A new leader for the job: the old JobMaster is disconnected,
			// but the job's requirements stay for the new one.
			rm.closeJobManagerConnection(reg.jobID, false, fmt.Errorf("New job leader for job %s found.", reg.jobID))
		}
	}
	rm.jobManagerRegistrations[reg.jobID] = reg
	rm.log.Info(fmt.Sprintf("Registered job manager %s@%s for job %s.", reg.jobMasterID, reg.address, reg.jobID))
	// From now on the JobMaster is asked for a heartbeat every
	// heartbeat.interval; one that stops answering is disconnected.
	rm.jobManagerHeartbeatManager.MonitorTarget(reg.resourceID,
		heartbeat.HeartbeatSender[struct{}](func(ctx context.Context, from api.ResourceID, _ struct{}) error {
			return reg.gateway.HeartbeatFromResourceManager(ctx, from)
		}))
}

// DeclareRequiredResources replaces a job's resource requirements (step
// m6) and hands them to the SlotManager. Only the job's registered
// JobMaster may declare them.
func (rm *ResourceManager) DeclareRequiredResources(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
	requirements gateway.ResourceRequirements) error {
	_, err := rpc.CallFenced(ctx, rm.FencedEndpoint, rmID, func() (struct{}, error) {
		if err := rm.declareRequiredResources(jobMasterID, requirements); err != nil {
			return struct{}{}, err
		}
		if len(requirements.Requirements) == 0 {
			// The job needs no slots any more (it has ended, or gave up its
			// requests): not a step of the submission. The SlotManager
			// logs "Clearing resource requirements of job …".
			return struct{}{}, nil
		}
		// Step m6: the job's requirements reached the ResourceManager; the
		// SlotManager matches them to free slots after its check delay.
		rm.deps.Trace.Emit(trace.M6, "JobMaster", "ResourceManager", requirements.JobID,
			"declareRequiredResources: job %s requires %d slot(s)", requirements.JobID, requirements.TotalSlots())
		return struct{}{}, nil
	})
	return err
}

// declareRequiredResources checks that the declaration comes from the
// job's registered JobMaster and hands the requirements to the SlotManager
// (Flink's ResourceManager#declareRequiredResources, after the fencing
// token was checked). Main thread only.
//
// Step m6: only the JobMaster registered for the job (step m5), with its
// current JobMasterID, may declare what the job needs.
func (rm *ResourceManager) declareRequiredResources(jobMasterID api.JobMasterID, requirements gateway.ResourceRequirements) error {
	jobID := requirements.JobID
	reg, ok := rm.jobManagerRegistrations[jobID]
	if !ok {
		return fmt.Errorf("%w: Could not find registered job manager for job %s.", gateway.ErrUnknownJobManager, jobID)
	}
	if reg.jobMasterID != jobMasterID {
		return fmt.Errorf("%w: The job leader's id %s does not match the received id %s.",
			gateway.ErrJobLeaderIDMismatch, reg.jobMasterID, jobMasterID)
	}
	if requirements.TargetAddress == "" {
		requirements.TargetAddress = reg.address // where TaskExecutors offer the slots
	}
	rm.slotManager.ProcessResourceRequirements(requirements)
	return nil
}

// DisconnectJobManager tells the ResourceManager that a job's JobMaster is
// gone: the last thing a JobMaster does when it stops, after it has
// disconnected from its TaskExecutors. If the job reached a globally
// terminal state its requirements are cleared (Flink: removeJob, then
// closeJobManagerConnection with ResourceRequirementHandling.CLEAR);
// otherwise (the JobMaster lost leadership, the job is suspended) they
// stay for the job's next JobMaster (RETAIN). Either way the line is
// Flink's: "Disconnect job manager <JobMasterID>@<address> for job <id>
// from the resource manager."
func (rm *ResourceManager) DisconnectJobManager(ctx context.Context, rmID api.ResourceManagerID, jobID api.JobID,
	jobStatus api.JobStatus, cause error) error {
	_, err := rpc.CallFenced(ctx, rm.FencedEndpoint, rmID, func() (struct{}, error) {
		rm.closeJobManagerConnection(jobID, jobStatus.IsGloballyTerminalState(), cause)
		return struct{}{}, nil
	})
	return err
}

// closeJobManagerConnection forgets a job's JobMaster, stops watching its
// heartbeat and, when clearRequirements is set, forgets the job's
// requirements.
//
// Differs from Flink: Flink also tells the JobMaster
// (JobMasterGateway#disconnectResourceManager); our gateway has no such
// method. A JobMaster that is still alive notices all the same: no more
// heartbeat requests come, it times the ResourceManager out and registers
// again.
func (rm *ResourceManager) closeJobManagerConnection(jobID api.JobID, clearRequirements bool, cause error) {
	reg, ok := rm.jobManagerRegistrations[jobID]
	if !ok {
		rm.log.Debug(fmt.Sprintf("There was no registered job manager for job %s.", jobID))
		return
	}
	delete(rm.jobManagerRegistrations, jobID)
	rm.jobManagerHeartbeatManager.UnmonitorTarget(reg.resourceID)
	rm.log.Info(fmt.Sprintf("Disconnect job manager %s@%s for job %s from the resource manager.", reg.jobMasterID, reg.address, jobID),
		"cause", causeMessage(cause))
	if clearRequirements {
		rm.slotManager.ClearResourceRequirements(jobID)
	}
}

// causeMessage prints a possibly nil cause.
func causeMessage(cause error) string {
	if cause == nil {
		return "(no cause given)"
	}
	return cause.Error()
}
