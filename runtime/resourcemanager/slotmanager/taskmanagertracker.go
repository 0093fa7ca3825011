package slotmanager

import (
	"fmt"
	"math"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// TaskExecutorConnection is what the SlotManager knows about a registered
// TaskExecutor: who it is, which registration this is, and the gateway to
// call it through (Flink's TaskExecutorConnection).
type TaskExecutorConnection struct {
	ResourceID api.ResourceID
	InstanceID api.InstanceID
	Gateway    gateway.TaskExecutorGateway
}

// TaskManagerResources is what a TaskExecutor registers with besides its
// slot report (Flink: registerTaskManager's totalResourceProfile and
// defaultSlotResourceProfile, from the TaskExecutorRegistration).
type TaskManagerResources struct {
	// Total is everything the TaskExecutor's slots may share.
	Total api.ResourceProfile
	// DefaultSlotProfile is the profile of one static slot: Total divided
	// by taskmanager.numberOfTaskSlots. A requirement for
	// api.UnknownResourceProfile gets a slot of this profile.
	DefaultSlotProfile api.ResourceProfile
}

// SlotInfo is a snapshot of one slot a job holds, for tests and the REST
// API.
type SlotInfo struct {
	AllocationID    api.AllocationID
	InstanceID      api.InstanceID
	JobID           api.JobID
	ResourceProfile api.ResourceProfile
	State           SlotState
}

// taskManagerSlot is one slot cut out of a TaskManager's resources for a
// job (Flink's FineGrainedTaskManagerSlot): PENDING while requestSlot is
// on its way, ALLOCATED once the TaskExecutor confirmed it. A free slot is
// not tracked at all: what no slot holds is the TaskManager's available
// resource. Its state changes only through the tracker.
type taskManagerSlot struct {
	allocationID api.AllocationID
	instanceID   api.InstanceID
	jobID        api.JobID
	profile      api.ResourceProfile
	state        SlotState
}

func (s *taskManagerSlot) info() SlotInfo {
	return SlotInfo{AllocationID: s.allocationID, InstanceID: s.instanceID, JobID: s.jobID,
		ResourceProfile: s.profile, State: s.state}
}

// transitionTo moves the slot to another state. An illegal move is a bug in
// the SlotManager, so it panics.
func (s *taskManagerSlot) transitionTo(to SlotState) {
	if err := checkSlotTransition(s.state, to); err != nil {
		panic(fmt.Sprintf("slot %s: %v", s.allocationID, err))
	}
	s.state = to
}

// taskManagerInfo is one registered TaskExecutor: its resources and the
// slots cut out of them (Flink's FineGrainedTaskManagerRegistration).
type taskManagerInfo struct {
	conn               TaskExecutorConnection
	total              api.ResourceProfile
	defaultSlotProfile api.ResourceProfile
	defaultNumSlots    int
	slots              []*taskManagerSlot  // PENDING and ALLOCATED, in the order they were made
	available          api.ResourceProfile // total minus the profile of every slot
}

// taskManagerTracker knows every registered TaskExecutor, its resources
// and every slot cut out of them (Flink's FineGrainedTaskManagerTracker).
// It is plain bookkeeping: no goroutines, no RPC. The SlotManager calls it
// on the main thread.
type taskManagerTracker struct {
	taskManagers []*taskManagerInfo // in registration order: the strategy's order
	byInstance   map[api.InstanceID]*taskManagerInfo
	slots        map[api.AllocationID]*taskManagerSlot // PENDING and ALLOCATED slots
}

func newTaskManagerTracker() *taskManagerTracker {
	t := &taskManagerTracker{}
	t.clear()
	return t
}

func (t *taskManagerTracker) clear() {
	t.taskManagers = nil
	t.byInstance = make(map[api.InstanceID]*taskManagerInfo)
	t.slots = make(map[api.AllocationID]*taskManagerSlot)
}

// addTaskManager registers a TaskExecutor with all of its resources
// available. Allocations in its slot report are applied afterwards by the
// slot status syncer.
func (t *taskManagerTracker) addTaskManager(conn TaskExecutorConnection, resources TaskManagerResources) *taskManagerInfo {
	tm := &taskManagerInfo{
		conn:               conn,
		total:              resources.Total,
		defaultSlotProfile: resources.DefaultSlotProfile,
		defaultNumSlots:    calculateDefaultNumSlots(resources.Total, resources.DefaultSlotProfile),
		available:          resources.Total,
	}
	t.taskManagers = append(t.taskManagers, tm)
	t.byInstance[conn.InstanceID] = tm
	return tm
}

// calculateDefaultNumSlots counts how many default slots fit into total
// (Flink's SlotManagerUtils#calculateDefaultNumSlots): the number of
// slots the TaskManager was started with. Flink subtracts one default slot
// after the other; the count is estimated here by dividing each dimension,
// then confirmed the same way, so that it costs the same for 2 slots as
// for 2,000.
func calculateDefaultNumSlots(total, defaultSlot api.ResourceProfile) int {
	switch {
	case defaultSlot.IsUnknown() || defaultSlot == api.ZeroResourceProfile || total.IsUnknown():
		return 0
	case total == api.AnyResourceProfile:
		return math.MaxInt
	}
	fits := func(n int) bool { return total.AllFieldsNoLessThan(defaultSlot.Multiply(n)) }
	n := math.MaxInt
	shrink := func(have, per float64) {
		if per > 0 {
			n = min(n, int(math.Min(have/per, math.MaxInt32)))
		}
	}
	shrink(total.CPUCores, defaultSlot.CPUCores)
	shrink(float64(total.TaskHeapMemory), float64(defaultSlot.TaskHeapMemory))
	shrink(float64(total.TaskOffHeapMemory), float64(defaultSlot.TaskOffHeapMemory))
	shrink(float64(total.ManagedMemory), float64(defaultSlot.ManagedMemory))
	shrink(float64(total.NetworkMemory), float64(defaultSlot.NetworkMemory))
	for n > 0 && !fits(n) {
		n--
	}
	for fits(n + 1) {
		n++
	}
	return n
}

// removeTaskManager forgets a TaskExecutor and all of its slots.
func (t *taskManagerTracker) removeTaskManager(instanceID api.InstanceID) {
	tm, ok := t.byInstance[instanceID]
	if !ok {
		return
	}
	for _, slot := range tm.slots {
		delete(t.slots, slot.allocationID)
	}
	delete(t.byInstance, instanceID)
	t.taskManagers = slices.DeleteFunc(t.taskManagers, func(x *taskManagerInfo) bool { return x == tm })
}

func (t *taskManagerTracker) taskManager(instanceID api.InstanceID) (*taskManagerInfo, bool) {
	tm, ok := t.byInstance[instanceID]
	return tm, ok
}

// allocatedOrPendingSlot finds the slot of an allocation.
func (t *taskManagerTracker) allocatedOrPendingSlot(allocationID api.AllocationID) (*taskManagerSlot, bool) {
	s, ok := t.slots[allocationID]
	return s, ok
}

// addSlot cuts a new slot of profile out of a TaskManager's available
// resources, PENDING (the SlotManager sent requestSlot) or ALLOCATED (a
// slot report told of an allocation this SlotManager did not make).
func (t *taskManagerTracker) addSlot(tm *taskManagerInfo, allocationID api.AllocationID, jobID api.JobID,
	profile api.ResourceProfile, state SlotState) *taskManagerSlot {
	slot := &taskManagerSlot{allocationID: allocationID, instanceID: tm.conn.InstanceID, jobID: jobID,
		profile: profile, state: SlotFree}
	slot.transitionTo(state)
	tm.slots = append(tm.slots, slot)
	tm.available = tm.available.Subtract(profile)
	t.slots[allocationID] = slot
	return slot
}

// completeAllocation takes a PENDING slot to ALLOCATED.
func (t *taskManagerTracker) completeAllocation(slot *taskManagerSlot) {
	slot.transitionTo(SlotAllocated)
}

// freeSlot frees a PENDING or ALLOCATED slot: it is no longer tracked and
// its resources are available again.
func (t *taskManagerTracker) freeSlot(slot *taskManagerSlot) {
	slot.transitionTo(SlotFree)
	delete(t.slots, slot.allocationID)
	if tm, ok := t.byInstance[slot.instanceID]; ok {
		tm.slots = slices.DeleteFunc(tm.slots, func(s *taskManagerSlot) bool { return s == slot })
		tm.available = tm.available.Merge(slot.profile)
	}
}

// resources lists the registered TaskManagers as the allocation strategy
// sees them, in registration order.
func (t *taskManagerTracker) resources() []RegisteredTaskManager {
	out := make([]RegisteredTaskManager, 0, len(t.taskManagers))
	for _, tm := range t.taskManagers {
		out = append(out, RegisteredTaskManager{
			InstanceID:         tm.conn.InstanceID,
			DefaultSlotProfile: tm.defaultSlotProfile,
			Total:              tm.total,
			Available:          tm.available,
		})
	}
	return out
}

// acquiredProfiles returns, for each PENDING or ALLOCATED slot of a job, the
// profile it was allocated with.
func (t *taskManagerTracker) acquiredProfiles(jobID api.JobID) []api.ResourceProfile {
	var acquired []api.ResourceProfile
	for _, tm := range t.taskManagers {
		for _, slot := range tm.slots {
			if slot.jobID == jobID {
				acquired = append(acquired, slot.profile)
			}
		}
	}
	return acquired
}

// numberOfRegisteredSlots is the number of static slots of every
// TaskManager (Flink counts getDefaultNumSlots, not dynamic slots).
func (t *taskManagerTracker) numberOfRegisteredSlots() int {
	n := 0
	for _, tm := range t.taskManagers {
		n += tm.defaultNumSlots
	}
	return n
}

func (t *taskManagerTracker) numberOfFreeSlots() int {
	n := 0
	for _, tm := range t.taskManagers {
		n += tm.numberOfFreeSlots()
	}
	return n
}

// numberOfFreeSlots is Flink's "free slots" of a TaskManager: its static
// slots minus the slots it holds, never below zero.
func (tm *taskManagerInfo) numberOfFreeSlots() int { return max(0, tm.defaultNumSlots-len(tm.slots)) }

func (t *taskManagerTracker) allocatedSlotsOf(instanceID api.InstanceID) []SlotInfo {
	var infos []SlotInfo
	if tm, ok := t.byInstance[instanceID]; ok {
		for _, slot := range tm.slots {
			infos = append(infos, slot.info())
		}
	}
	return infos
}

func (t *taskManagerTracker) slotInfos() []SlotInfo {
	var infos []SlotInfo
	for _, tm := range t.taskManagers {
		for _, slot := range tm.slots {
			infos = append(infos, slot.info())
		}
	}
	return infos
}
