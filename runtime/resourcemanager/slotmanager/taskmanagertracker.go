package slotmanager

import (
	"fmt"
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

// SlotInfo is a snapshot of one slot, for tests and the REST API.
// AllocationID and JobID are zero while the slot is FREE.
type SlotInfo struct {
	SlotID          api.SlotID
	InstanceID      api.InstanceID
	ResourceProfile api.ResourceProfile
	State           SlotState
	AllocationID    api.AllocationID
	JobID           api.JobID
}

// taskManagerSlot is one slot of a registered TaskExecutor (Flink's
// FineGrainedTaskManagerSlot). Its state changes only through the tracker.
type taskManagerSlot struct {
	slotID     api.SlotID
	instanceID api.InstanceID
	profile    api.ResourceProfile // what the slot offers, from the slot report

	state        SlotState
	allocationID api.AllocationID
	jobID        api.JobID
	// allocatedProfile is the profile the slot was allocated for: the
	// requirement's profile for our own allocations, the slot's profile for
	// allocations we learn of from a slot report.
	allocatedProfile api.ResourceProfile
}

func (s *taskManagerSlot) info() SlotInfo {
	return SlotInfo{
		SlotID:          s.slotID,
		InstanceID:      s.instanceID,
		ResourceProfile: s.profile,
		State:           s.state,
		AllocationID:    s.allocationID,
		JobID:           s.jobID,
	}
}

// transitionTo moves the slot to another state. An illegal move is a bug in
// the SlotManager, so it panics.
func (s *taskManagerSlot) transitionTo(to SlotState) {
	if err := checkSlotTransition(s.state, to); err != nil {
		panic(fmt.Sprintf("slot %s: %v", s.slotID, err))
	}
	s.state = to
}

// taskManagerInfo is one registered TaskExecutor and its slots (Flink's
// FineGrainedTaskManagerRegistration).
type taskManagerInfo struct {
	conn  TaskExecutorConnection
	slots []*taskManagerSlot // ordered by slot number
}

// taskManagerTracker knows every registered TaskExecutor and every slot
// (Flink's FineGrainedTaskManagerTracker). It is plain bookkeeping: no
// goroutines, no RPC. The SlotManager calls it on the main thread.
type taskManagerTracker struct {
	taskManagers []*taskManagerInfo // in registration order: the strategy's order
	byInstance   map[api.InstanceID]*taskManagerInfo
	slots        map[api.SlotID]*taskManagerSlot
	allocations  map[api.AllocationID]*taskManagerSlot // PENDING and ALLOCATED slots
}

func newTaskManagerTracker() *taskManagerTracker {
	t := &taskManagerTracker{}
	t.clear()
	return t
}

func (t *taskManagerTracker) clear() {
	t.taskManagers = nil
	t.byInstance = make(map[api.InstanceID]*taskManagerInfo)
	t.slots = make(map[api.SlotID]*taskManagerSlot)
	t.allocations = make(map[api.AllocationID]*taskManagerSlot)
}

// addTaskManager registers a TaskExecutor with one FREE slot per entry of
// its slot report. Allocations in the report are applied afterwards by the
// slot status syncer.
func (t *taskManagerTracker) addTaskManager(conn TaskExecutorConnection, report gateway.SlotReport) *taskManagerInfo {
	tm := &taskManagerInfo{conn: conn}
	for _, status := range report {
		if _, dup := t.slots[status.SlotID]; dup {
			continue // a slot reported twice: keep the first
		}
		slot := &taskManagerSlot{slotID: status.SlotID, instanceID: conn.InstanceID, profile: status.ResourceProfile}
		tm.slots = append(tm.slots, slot)
		t.slots[slot.slotID] = slot
	}
	slices.SortFunc(tm.slots, func(a, b *taskManagerSlot) int { return a.slotID.SlotNumber - b.slotID.SlotNumber })
	t.taskManagers = append(t.taskManagers, tm)
	t.byInstance[conn.InstanceID] = tm
	return tm
}

// removeTaskManager forgets a TaskExecutor and all of its slots.
func (t *taskManagerTracker) removeTaskManager(instanceID api.InstanceID) {
	tm, ok := t.byInstance[instanceID]
	if !ok {
		return
	}
	for _, slot := range tm.slots {
		delete(t.slots, slot.slotID)
		if slot.state != SlotFree {
			delete(t.allocations, slot.allocationID)
		}
	}
	delete(t.byInstance, instanceID)
	t.taskManagers = slices.DeleteFunc(t.taskManagers, func(x *taskManagerInfo) bool { return x == tm })
}

func (t *taskManagerTracker) taskManager(instanceID api.InstanceID) (*taskManagerInfo, bool) {
	tm, ok := t.byInstance[instanceID]
	return tm, ok
}

func (t *taskManagerTracker) slot(slotID api.SlotID) (*taskManagerSlot, bool) {
	s, ok := t.slots[slotID]
	return s, ok
}

// allocatedOrPendingSlot finds the slot that holds an allocation.
func (t *taskManagerTracker) allocatedOrPendingSlot(allocationID api.AllocationID) (*taskManagerSlot, bool) {
	s, ok := t.allocations[allocationID]
	return s, ok
}

// startAllocation takes a FREE slot to PENDING for a job.
func (t *taskManagerTracker) startAllocation(slot *taskManagerSlot, allocationID api.AllocationID, jobID api.JobID, profile api.ResourceProfile) {
	slot.transitionTo(SlotPending)
	t.hold(slot, allocationID, jobID, profile)
}

// completeAllocation takes a PENDING slot to ALLOCATED.
func (t *taskManagerTracker) completeAllocation(slot *taskManagerSlot) {
	slot.transitionTo(SlotAllocated)
}

// markAllocated takes a FREE slot straight to ALLOCATED: a slot report told
// us of an allocation this SlotManager did not make (for example one made
// before a ResourceManager failover).
func (t *taskManagerTracker) markAllocated(slot *taskManagerSlot, allocationID api.AllocationID, jobID api.JobID, profile api.ResourceProfile) {
	slot.transitionTo(SlotAllocated)
	t.hold(slot, allocationID, jobID, profile)
}

func (t *taskManagerTracker) hold(slot *taskManagerSlot, allocationID api.AllocationID, jobID api.JobID, profile api.ResourceProfile) {
	slot.allocationID, slot.jobID, slot.allocatedProfile = allocationID, jobID, profile
	t.allocations[allocationID] = slot
}

// freeSlot takes a PENDING or ALLOCATED slot back to FREE.
func (t *taskManagerTracker) freeSlot(slot *taskManagerSlot) {
	slot.transitionTo(SlotFree)
	delete(t.allocations, slot.allocationID)
	slot.allocationID, slot.jobID, slot.allocatedProfile = api.AllocationID{}, api.JobID{}, api.ResourceProfile{}
}

// freeSlots lists the FREE slots in the strategy's order: TaskManagers in
// registration order, each one's slots by slot number.
func (t *taskManagerTracker) freeSlots() []FreeSlot {
	var free []FreeSlot
	for _, tm := range t.taskManagers {
		for _, slot := range tm.slots {
			if slot.state == SlotFree {
				free = append(free, FreeSlot{SlotID: slot.slotID, InstanceID: slot.instanceID, ResourceProfile: slot.profile})
			}
		}
	}
	return free
}

// acquiredProfiles returns, for each PENDING or ALLOCATED slot of a job, the
// profile it was allocated for.
func (t *taskManagerTracker) acquiredProfiles(jobID api.JobID) []api.ResourceProfile {
	var acquired []api.ResourceProfile
	for _, tm := range t.taskManagers {
		for _, slot := range tm.slots {
			if slot.state != SlotFree && slot.jobID == jobID {
				acquired = append(acquired, slot.allocatedProfile)
			}
		}
	}
	return acquired
}

func (t *taskManagerTracker) numberOfRegisteredSlots() int { return len(t.slots) }

func (t *taskManagerTracker) numberOfFreeSlots() int { return len(t.slots) - len(t.allocations) }

func (t *taskManagerTracker) numberOfRegisteredSlotsOf(instanceID api.InstanceID) int {
	if tm, ok := t.byInstance[instanceID]; ok {
		return len(tm.slots)
	}
	return 0
}

func (t *taskManagerTracker) numberOfFreeSlotsOf(instanceID api.InstanceID) int {
	n := 0
	if tm, ok := t.byInstance[instanceID]; ok {
		for _, slot := range tm.slots {
			if slot.state == SlotFree {
				n++
			}
		}
	}
	return n
}

func (t *taskManagerTracker) allocatedSlotsOf(instanceID api.InstanceID) []SlotInfo {
	var infos []SlotInfo
	if tm, ok := t.byInstance[instanceID]; ok {
		for _, slot := range tm.slots {
			if slot.state != SlotFree {
				infos = append(infos, slot.info())
			}
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
