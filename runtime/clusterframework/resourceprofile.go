package clusterframework

import (
	"fmt"

	"flinklab/runtime/api"
)

// TotalResourceProfile returns everything a TaskManager with spec offers
// its slots: its CPU cores and its task heap, task off-heap, managed and
// network memory (Flink's
// TaskExecutorResourceUtils#generateTotalAvailableResourceProfile). A
// TaskExecutor registers at the ResourceManager with it, and its
// TaskSlotTable carves slots out of it. Framework memory, JVM metaspace and
// JVM overhead are the TaskManager's own and no slot's.
func TotalResourceProfile(spec TaskExecutorProcessSpec) api.ResourceProfile {
	return api.NewResourceProfile(spec.CPUCores, spec.TaskHeapSize, spec.TaskOffHeapSize,
		spec.ManagedMemorySize, spec.NetworkMemSize)
}

// DefaultSlotResourceProfile returns one slot's share of a TaskManager's
// total: each dimension divided by the number of slots (Flink's
// SlotManagerUtils#generateDefaultSlotResourceProfile, which must agree
// with TaskExecutorResourceUtils#generateDefaultSlotResourceProfile on the
// TaskManager's side). The rounding is Flink's (api.ResourceProfile.Divide):
// memory is divided in whole bytes, rounded down, so 402653174 bytes of
// task heap make two shares of 201326587; CPU cores are divided to 16
// decimal places, rounded down, so one core makes three shares of
// 0.3333333333333333.
//
// An unknown total, of a TaskManager that was not told its resources,
// has unknown shares. It panics if numSlots is not positive: a TaskManager
// has at least one slot.
func DefaultSlotResourceProfile(total api.ResourceProfile, numSlots int) api.ResourceProfile {
	if numSlots <= 0 {
		panic(fmt.Sprintf("clusterframework: a TaskManager has at least one slot, got %d", numSlots))
	}
	if total.IsUnknown() {
		return api.UnknownResourceProfile
	}
	return total.Divide(numSlots)
}
