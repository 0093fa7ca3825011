package resourcemanager

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/resourcemanager/slotmanager"
	"flinklab/runtime/rpc"
)

// workerRegistration is a registered TaskExecutor (Flink's
// WorkerRegistration). Each registration gets a fresh InstanceID, so a
// message from an older registration of the same TaskExecutor can be told
// apart and ignored.
type workerRegistration struct {
	resourceID api.ResourceID
	instanceID api.InstanceID
	address    string
	gateway    gateway.TaskExecutorGateway
	// What the TaskExecutor registered with: its resources for the
	// SlotManager, the rest for GET /taskmanagers.
	resources           slotmanager.TaskManagerResources
	memoryConfiguration clusterframework.TaskExecutorMemoryConfiguration
	hardwareDescription gateway.HardwareDescription
	// atSlotManager is set once the first slot report registered the
	// TaskExecutor at the SlotManager.
	atSlotManager bool
}

func (w *workerRegistration) connection() slotmanager.TaskExecutorConnection {
	return slotmanager.TaskExecutorConnection{ResourceID: w.resourceID, InstanceID: w.instanceID, Gateway: w.gateway}
}

// RegisterTaskExecutor connects a TaskExecutor. The TaskExecutor then sends
// its slot report (SendSlotReport), which makes its slots known to the
// SlotManager. A TaskExecutor that registers again (it restarted, or lost
// its connection) replaces its old registration, whose slots are forgotten.
func (rm *ResourceManager) RegisterTaskExecutor(ctx context.Context, rmID api.ResourceManagerID,
	registration gateway.TaskExecutorRegistration) (gateway.TaskExecutorRegistrationSuccess, error) {
	// Connecting back may dial the TaskExecutor's process: off the main
	// thread, as in RegisterJobMaster.
	taskExecutor, err := rpc.Connect[gateway.TaskExecutorGateway](ctx, rm.deps.RPC, registration.TaskExecutorAddress)
	return rpc.CallFenced(ctx, rm.FencedEndpoint, rmID, func() (gateway.TaskExecutorRegistrationSuccess, error) {
		if err != nil {
			return gateway.TaskExecutorRegistrationSuccess{}, gateway.RegistrationFailure(
				"Could not connect to the TaskExecutor %s at %s: %v", registration.ResourceID, registration.TaskExecutorAddress, err)
		}
		if problem := resourcesProblem(registration); problem != "" {
			return gateway.TaskExecutorRegistrationSuccess{}, gateway.RegistrationFailure(
				"The TaskExecutor %s registered %s (total %s, %d slots, default slot %s).", registration.ResourceID,
				problem, registration.TotalResourceProfile, registration.NumberOfSlots, registration.DefaultSlotResourceProfile)
		}
		reg := rm.registerTaskExecutorInternal(taskExecutor, registration)
		return gateway.TaskExecutorRegistrationSuccess{
			RegistrationID:            reg.instanceID,
			ResourceManagerResourceID: rm.cfg.ResourceID,
			ClusterInformation:        rm.cfg.ClusterInformation,
		}, nil
	})
}

func (rm *ResourceManager) registerTaskExecutorInternal(taskExecutor gateway.TaskExecutorGateway,
	registration gateway.TaskExecutorRegistration) *workerRegistration {
	resourceID := registration.ResourceID
	if old, ok := rm.taskExecutors[resourceID]; ok {
		rm.log.Debug(fmt.Sprintf("Replacing old registration of TaskExecutor %s.", resourceID))
		delete(rm.taskExecutors, resourceID)
		rm.taskManagerHeartbeatManager.UnmonitorTarget(resourceID)
		if old.atSlotManager {
			rm.slotManager.UnregisterTaskManager(old.instanceID)
		}
	}

	// A standalone ResourceManager accepts every TaskExecutor. An active one
	// accepts only the workers its ResourceManagerDriver started (Flink:
	// getWorkerNodeIfAcceptRegistration) and rejects the others.
	reg := &workerRegistration{
		resourceID:          resourceID,
		instanceID:          api.NewInstanceID(),
		address:             registration.TaskExecutorAddress,
		gateway:             taskExecutor,
		resources:           resourcesOf(registration),
		memoryConfiguration: registration.MemoryConfiguration,
		hardwareDescription: registration.HardwareDescription,
	}
	rm.log.Info(fmt.Sprintf("Registering TaskManager with ResourceID %s (%s) at ResourceManager", resourceID, reg.address))
	rm.taskExecutors[resourceID] = reg
	// From now on the TaskExecutor is asked for a heartbeat every
	// heartbeat.interval; one that stops answering is disconnected.
	rm.taskManagerHeartbeatManager.MonitorTarget(resourceID,
		heartbeat.HeartbeatSender[struct{}](func(ctx context.Context, from api.ResourceID, _ struct{}) error {
			return taskExecutor.HeartbeatFromResourceManager(ctx, from)
		}))
	return reg
}

// resourcesProblem says what makes a registration's resources unusable,
// or returns "": the SlotManager cuts slots out of the total, and a slot
// of the default profile for every requirement of unknown size, so both
// must be real amounts and the default slot an equal share of the total,
// as every TaskExecutor computes it (Flink:
// TaskExecutorResourceUtils#generateDefaultSlotResourceProfile).
func resourcesProblem(registration gateway.TaskExecutorRegistration) string {
	total := registration.TotalResourceProfile
	switch {
	case registration.NumberOfSlots <= 0:
		return "without slots"
	case total.IsUnknown() || total == api.ZeroResourceProfile || total == api.AnyResourceProfile:
		return "without its resources"
	case !registration.DefaultSlotResourceProfile.IsUnknown() &&
		registration.DefaultSlotResourceProfile != clusterframework.DefaultSlotResourceProfile(total, registration.NumberOfSlots):
		return "a default slot that is not an equal share of its total"
	}
	return ""
}

// resourcesOf is what the SlotManager cuts slots out of: the TaskExecutor's
// total, and its default slot profile, as registered or, where the
// registration left it out, the total divided by the number of slots.
func resourcesOf(registration gateway.TaskExecutorRegistration) slotmanager.TaskManagerResources {
	defaultSlot := registration.DefaultSlotResourceProfile
	if defaultSlot.IsUnknown() {
		defaultSlot = clusterframework.DefaultSlotResourceProfile(registration.TotalResourceProfile, registration.NumberOfSlots)
	}
	return slotmanager.TaskManagerResources{Total: registration.TotalResourceProfile, DefaultSlotProfile: defaultSlot}
}

// SendSlotReport tells the ResourceManager which slots a TaskExecutor has.
// The first report after a registration registers the TaskExecutor at the
// SlotManager; later ones reconcile the SlotManager's view with it.
func (rm *ResourceManager) SendSlotReport(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
	instanceID api.InstanceID, report gateway.SlotReport) error {
	_, err := rpc.CallFenced(ctx, rm.FencedEndpoint, rmID, func() (struct{}, error) {
		reg, ok := rm.taskExecutors[taskManager]
		if !ok || reg.instanceID != instanceID {
			return struct{}{}, fmt.Errorf("%w: Unknown TaskManager registration id %s.", gateway.ErrUnknownTaskManager, instanceID)
		}
		if reg.atSlotManager {
			// Flink receives later reports with the TaskExecutor's
			// heartbeats; ours carry none (gateway.TaskExecutorHeartbeatPayload),
			// so any later report comes here.
			rm.slotManager.ReportSlotStatus(instanceID, report)
			return struct{}{}, nil
		}
		rm.slotManager.RegisterTaskManager(reg.connection(), report, reg.resources)
		reg.atSlotManager = true
		return struct{}{}, nil
	})
	return err
}

// NotifySlotAvailable tells the ResourceManager that a slot was freed on its
// TaskExecutor. The SlotManager marks it FREE if it still belongs to that
// allocation, and checks the requirements again.
func (rm *ResourceManager) NotifySlotAvailable(ctx context.Context, rmID api.ResourceManagerID, instanceID api.InstanceID,
	slotID api.SlotID, allocationID api.AllocationID) error {
	_, err := rpc.CallFenced(ctx, rm.FencedEndpoint, rmID, func() (struct{}, error) {
		reg, ok := rm.taskExecutors[slotID.ResourceID]
		switch {
		case !ok:
			rm.log.Debug(fmt.Sprintf("Could not find registration for resource id %s. Discarding the slot available message %s.",
				slotID.ResourceID, slotID))
		case reg.instanceID != instanceID:
			rm.log.Debug("Invalid registration id for slot available message. This indicates an outdated request.")
		case !reg.atSlotManager:
			rm.log.Debug(fmt.Sprintf("TaskExecutor %s has not sent its slot report yet. Discarding the slot available message %s.",
				slotID.ResourceID, slotID))
		default:
			rm.slotManager.FreeSlot(slotID, allocationID)
		}
		return struct{}{}, nil
	})
	return err
}

// DisconnectTaskManager tells the ResourceManager that a TaskExecutor is
// going away: its slots are gone. Jobs that held slots there keep their
// requirements, so the SlotManager looks for other slots for them. It is
// what a TaskExecutor that shuts down sends, and what the ResourceManager
// does itself when a TaskExecutor's heartbeat times out.
func (rm *ResourceManager) DisconnectTaskManager(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
	cause error) error {
	_, err := rpc.CallFenced(ctx, rm.FencedEndpoint, rmID, func() (struct{}, error) {
		rm.closeTaskManagerConnection(taskManager, cause)
		return struct{}{}, nil
	})
	return err
}

// closeTaskManagerConnection forgets a TaskExecutor and its slots, and
// stops watching its heartbeat.
//
// Differs from Flink: Flink also tells the TaskExecutor
// (TaskExecutorGateway#disconnectResourceManager); our gateway has no such
// method. A TaskExecutor that is still alive notices all the same: no more
// heartbeat requests come, it times the ResourceManager out and registers
// again.
func (rm *ResourceManager) closeTaskManagerConnection(resourceID api.ResourceID, cause error) {
	rm.taskManagerHeartbeatManager.UnmonitorTarget(resourceID)
	reg, ok := rm.taskExecutors[resourceID]
	if !ok {
		rm.log.Debug(fmt.Sprintf("No open TaskExecutor connection %s. Ignoring close TaskExecutor connection. Closing reason was: %s",
			resourceID, causeMessage(cause)))
		return
	}
	delete(rm.taskExecutors, resourceID)
	rm.log.Info(fmt.Sprintf("Closing TaskExecutor connection %s because: %s", resourceID, causeMessage(cause)))
	if reg.atSlotManager {
		rm.slotManager.UnregisterTaskManager(reg.instanceID)
	}
}
