package resourcemanager

import (
	"cmp"
	"context"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// The methods in this file answer questions about the cluster's resources
// for tests and the REST API (Flink's requestResourceOverview and
// requestTaskManagerInfo; the answers are gateway.ResourceOverview and
// gateway.TaskManagerInfo). They are not fenced, and run on the main
// thread like everything else.

// RequestResourceOverview returns the counts of TaskManagers and slots.
func (rm *ResourceManager) RequestResourceOverview(ctx context.Context) (gateway.ResourceOverview, error) {
	return rpc.CallAsync(ctx, rm.Endpoint, func() (gateway.ResourceOverview, error) {
		return gateway.ResourceOverview{
			NumberTaskManagers:    len(rm.taskExecutors),
			NumberRegisteredSlots: rm.slotManager.NumberOfRegisteredSlots(),
			NumberFreeSlots:       rm.slotManager.NumberOfFreeSlots(),
		}, nil
	})
}

// NumberOfRegisteredTaskManagers returns how many TaskExecutors are registered.
func (rm *ResourceManager) NumberOfRegisteredTaskManagers(ctx context.Context) (int, error) {
	o, err := rm.RequestResourceOverview(ctx)
	return o.NumberTaskManagers, err
}

// NumberOfRegisteredSlots returns how many slots the registered
// TaskExecutors have reported.
func (rm *ResourceManager) NumberOfRegisteredSlots(ctx context.Context) (int, error) {
	o, err := rm.RequestResourceOverview(ctx)
	return o.NumberRegisteredSlots, err
}

// NumberOfFreeSlots returns how many of those slots are FREE.
func (rm *ResourceManager) NumberOfFreeSlots(ctx context.Context) (int, error) {
	o, err := rm.RequestResourceOverview(ctx)
	return o.NumberFreeSlots, err
}

// RequestTaskManagerInfo describes every registered TaskExecutor, ordered
// by ResourceID: its slots, its resources and what is free of them, its
// memory and its hardware (Flink's requestTaskManagerInfo and, for the
// allocated slots, requestTaskManagerDetailsInfo).
func (rm *ResourceManager) RequestTaskManagerInfo(ctx context.Context) ([]gateway.TaskManagerInfo, error) {
	return rpc.CallAsync(ctx, rm.Endpoint, func() ([]gateway.TaskManagerInfo, error) {
		infos := make([]gateway.TaskManagerInfo, 0, len(rm.taskExecutors))
		for _, reg := range rm.taskExecutors {
			allocated, free := rm.allocatedSlotsAndFreeResourceOf(reg)
			infos = append(infos, gateway.TaskManagerInfo{
				ResourceID:          reg.resourceID,
				Address:             reg.address,
				InstanceID:          reg.instanceID,
				NumberSlots:         rm.slotManager.NumberOfRegisteredSlotsOf(reg.instanceID),
				NumberFreeSlots:     rm.slotManager.NumberOfFreeSlotsOf(reg.instanceID),
				TotalResource:       reg.resources.Total,
				FreeResource:        free,
				Hardware:            reg.hardwareDescription,
				MemoryConfiguration: reg.memoryConfiguration,
				AllocatedSlots:      allocated,
			})
		}
		slices.SortFunc(infos, func(a, b gateway.TaskManagerInfo) int { return cmp.Compare(a.ResourceID, b.ResourceID) })
		return infos, nil
	})
}

// allocatedSlotsAndFreeResourceOf lists a TaskExecutor's slots, PENDING or
// ALLOCATED, each with the job it is for and the resources it takes, and
// what is left of the TaskExecutor's total once they are taken out: the
// SlotManager's own account (Flink's getAllocatedSlotsOf and
// getFreeResourceOf).
func (rm *ResourceManager) allocatedSlotsAndFreeResourceOf(reg *workerRegistration) ([]gateway.SlotInfo, api.ResourceProfile) {
	if !reg.atSlotManager { // registered, its first slot report still to come: the SlotManager knows nothing of it
		return []gateway.SlotInfo{}, api.ZeroResourceProfile
	}
	slots := rm.slotManager.AllocatedSlotsOf(reg.instanceID)
	allocated := make([]gateway.SlotInfo, 0, len(slots))
	for _, slot := range slots {
		allocated = append(allocated, gateway.SlotInfo{JobID: slot.JobID, ResourceProfile: slot.ResourceProfile})
	}
	return allocated, rm.slotManager.FreeResourceOf(reg.instanceID)
}
