package resourcemanager

import (
	"cmp"
	"context"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/rpc"
)

// The methods in this file answer questions about the cluster's resources
// for tests and the REST API (Flink's requestResourceOverview and
// requestTaskManagerInfo). They are not fenced, as in Flink, and run on the
// main thread like everything else.

// ResourceOverview counts the cluster's TaskManagers and slots (Flink's
// ResourceOverview, shown on the web UI's overview page).
type ResourceOverview struct {
	NumberTaskManagers    int `json:"taskmanagers"`
	NumberRegisteredSlots int `json:"slots-total"`
	NumberFreeSlots       int `json:"slots-available"`
}

// TaskManagerInfo describes one registered TaskExecutor (the part of
// Flink's TaskManagerInfo we have). NumberSlots and NumberFreeSlots are 0
// until its first slot report.
type TaskManagerInfo struct {
	ResourceID      api.ResourceID `json:"id"`
	Address         string         `json:"path"`
	InstanceID      api.InstanceID `json:"instanceId"`
	NumberSlots     int            `json:"slotsNumber"`
	NumberFreeSlots int            `json:"freeSlots"`
}

// RequestResourceOverview returns the counts of TaskManagers and slots.
func (rm *ResourceManager) RequestResourceOverview(ctx context.Context) (ResourceOverview, error) {
	return rpc.CallAsync(ctx, rm.Endpoint, func() (ResourceOverview, error) {
		return ResourceOverview{
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
// by ResourceID.
func (rm *ResourceManager) RequestTaskManagerInfo(ctx context.Context) ([]TaskManagerInfo, error) {
	return rpc.CallAsync(ctx, rm.Endpoint, func() ([]TaskManagerInfo, error) {
		infos := make([]TaskManagerInfo, 0, len(rm.taskExecutors))
		for _, reg := range rm.taskExecutors {
			infos = append(infos, TaskManagerInfo{
				ResourceID:      reg.resourceID,
				Address:         reg.address,
				InstanceID:      reg.instanceID,
				NumberSlots:     rm.slotManager.NumberOfRegisteredSlotsOf(reg.instanceID),
				NumberFreeSlots: rm.slotManager.NumberOfFreeSlotsOf(reg.instanceID),
			})
		}
		slices.SortFunc(infos, func(a, b TaskManagerInfo) int { return cmp.Compare(a.ResourceID, b.ResourceID) })
		return infos, nil
	})
}
