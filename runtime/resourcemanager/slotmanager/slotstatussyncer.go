package slotmanager

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// slotStatusSyncer keeps the SlotManager's view of slots in step with the
// TaskExecutors (Flink's DefaultSlotStatusSyncer). It is the only part of
// the SlotManager that talks to TaskExecutors: it sends requestSlot, and it
// reconciles the tracker with the slot reports TaskExecutors send.
//
// It runs on the ResourceManager's main thread. requestSlot goes out
// through rpc.Ask, so the main thread never waits for a TaskExecutor; the
// answer comes back as a mailbox message and is handled by
// handleRequestSlotResponse, again on the main thread.
type slotStatusSyncer struct {
	log            *slog.Logger
	trace          *trace.Recorder
	requestTimeout time.Duration
	tracker        *taskManagerTracker

	// Set by initialize, cleared by close.
	started    bool
	rmID       api.ResourceManagerID
	mainThread *rpc.Endpoint
	// pendingSlotAllocations holds the allocations whose requestSlot has
	// not been answered yet. An answer for an allocation that is no longer
	// here (freed, TaskManager gone, slot manager suspended) is ignored.
	pendingSlotAllocations map[api.AllocationID]struct{}
}

func (s *slotStatusSyncer) initialize(rmID api.ResourceManagerID, mainThread *rpc.Endpoint) {
	s.rmID, s.mainThread = rmID, mainThread
	s.pendingSlotAllocations = make(map[api.AllocationID]struct{})
	s.started = true
}

func (s *slotStatusSyncer) close() {
	s.rmID, s.mainThread = api.ResourceManagerID{}, nil
	s.pendingSlotAllocations = nil
	s.started = false
}

// allocateSlot asks a TaskExecutor to cut a slot out of its resources for
// a job. The slot is PENDING until the answer arrives. onFailure runs on
// the main thread when the TaskExecutor refuses or does not answer in time.
func (s *slotStatusSyncer) allocateSlot(a SlotAllocation, targetAddress string, onFailure func()) {
	tm, ok := s.tracker.taskManager(a.InstanceID)
	if !ok {
		panic(fmt.Sprintf("allocateSlot: Could not find a registered task manager for instance id %s.", a.InstanceID))
	}
	allocationID := api.NewAllocationID()
	slotID := api.DynamicSlotID(tm.conn.ResourceID)

	s.log.Info(fmt.Sprintf("Starting allocation of slot %s from %s for job %s with resource profile %s.",
		allocationID, tm.conn.ResourceID, a.JobID, a.ResourceProfile.String()))
	s.tracker.addSlot(tm, allocationID, a.JobID, a.ResourceProfile, SlotPending)
	s.pendingSlotAllocations[allocationID] = struct{}{}

	// Step m7: the SlotManager matched the job's requirement to this
	// TaskExecutor's free resources and asks it for a new dynamic slot of
	// that profile. The TaskExecutor will then offer the slot to the
	// JobMaster at targetAddress (step m8).
	s.trace.Emit(trace.M7, "SlotManager", "TaskExecutor", a.JobID,
		"requestSlot: slot %s of TaskExecutor %s for job %s (allocation %s)", slotID, tm.conn.ResourceID, a.JobID, allocationID)
	gw, rmID, instanceID := tm.conn.Gateway, s.rmID, tm.conn.InstanceID
	rpc.Ask(s.mainThread, s.requestTimeout,
		func(ctx context.Context) (struct{}, error) {
			return struct{}{}, gw.RequestSlot(ctx, slotID, a.JobID, allocationID, a.ResourceProfile, targetAddress, rmID)
		},
		func(_ struct{}, err error) {
			s.handleRequestSlotResponse(instanceID, a.JobID, allocationID, err, onFailure)
		})
}

// handleRequestSlotResponse runs on the main thread when requestSlot has
// been answered (or has timed out).
func (s *slotStatusSyncer) handleRequestSlotResponse(instanceID api.InstanceID, jobID api.JobID,
	allocationID api.AllocationID, err error, onFailure func()) {
	if _, pending := s.pendingSlotAllocations[allocationID]; !pending {
		s.log.Debug(fmt.Sprintf("Ignoring slot allocation update from task manager %s for allocation %s and job %s, "+
			"because the allocation was already completed or cancelled.", instanceID, allocationID, jobID))
		return
	}
	delete(s.pendingSlotAllocations, allocationID)
	slot, ok := s.tracker.allocatedOrPendingSlot(allocationID)
	if !ok {
		s.log.Debug(fmt.Sprintf("The slot %s has been removed before. Ignore the future.", allocationID))
		return
	}

	if err == nil {
		s.log.Debug(fmt.Sprintf("Completed allocation of allocation %s for job %s.", allocationID, jobID))
		s.tracker.completeAllocation(slot)
		return
	}

	s.log.Warn(fmt.Sprintf("Slot allocation for allocation %s for job %s failed.", allocationID, jobID), "error", err)
	s.tracker.freeSlot(slot)
	onFailure()
}

// freeSlot frees an allocated or pending slot: its resources are
// available again.
func (s *slotStatusSyncer) freeSlot(slot *taskManagerSlot) {
	s.log.Info(fmt.Sprintf("Freeing slot %s.", slot.allocationID))
	delete(s.pendingSlotAllocations, slot.allocationID)
	s.tracker.freeSlot(slot)
}

// dropTaskManager forgets the pending requests to a TaskExecutor that is
// going away, so their late answers are ignored.
func (s *slotStatusSyncer) dropTaskManager(tm *taskManagerInfo) {
	for _, slot := range tm.slots {
		delete(s.pendingSlotAllocations, slot.allocationID)
	}
}

// reportSlotStatus reconciles the tracker with what a TaskExecutor says
// about its slots (Flink's DefaultSlotStatusSyncer#reportSlotStatus). The
// TaskExecutor is the authority on its slots, and a slot is known by its
// allocation:
//
//   - an ALLOCATED slot whose allocation the report does not list was
//     freed there (its job let it go, or the TaskExecutor restarted): it
//     is freed here too;
//   - a PENDING slot whose allocation the report lists has been
//     allocated: ALLOCATED (the requestSlot answer is still to come and
//     will be ignored);
//   - an allocation the report lists that we do not know (made before a
//     ResourceManager failover) becomes an ALLOCATED slot of its profile.
//
// A PENDING slot the report does not list stays PENDING: the requestSlot
// may simply not have arrived yet. Entries without an allocation (the
// free static slots) say nothing the SlotManager tracks. reportSlotStatus
// returns whether the report changed what jobs hold, in which case the
// requirements must be checked again.
func (s *slotStatusSyncer) reportSlotStatus(tm *taskManagerInfo, report gateway.SlotReport) (changed bool) {
	s.log.Debug(fmt.Sprintf("Received slot report from instance %s: %d slot(s).", tm.conn.InstanceID, len(report)))
	reported := make(map[api.AllocationID]bool, len(report))
	for _, status := range report {
		reported[status.AllocationID] = true
	}
	for _, slot := range slices.Clone(tm.slots) {
		if !reported[slot.allocationID] && slot.state == SlotAllocated {
			s.log.Info(fmt.Sprintf("Freeing slot %s by slot report.", slot.allocationID))
			s.tracker.freeSlot(slot)
			changed = true
		}
	}
	for _, status := range report {
		if status.AllocationID.IsZero() {
			continue
		}
		if s.syncAllocatedSlotStatus(tm, status) {
			changed = true
		}
	}
	return changed
}

// syncAllocatedSlotStatus applies one allocated entry of a slot report.
func (s *slotStatusSyncer) syncAllocatedSlotStatus(tm *taskManagerInfo, status gateway.SlotStatus) (changed bool) {
	slot, known := s.tracker.allocatedOrPendingSlot(status.AllocationID)
	switch {
	case known && slot.instanceID != tm.conn.InstanceID:
		s.log.Warn(fmt.Sprintf("Ignoring the status of slot %s: allocation %s is held on another TaskManager.",
			status.SlotID, status.AllocationID))
		return false
	case known:
		if slot.state == SlotPending { // the allocation is complete
			delete(s.pendingSlotAllocations, slot.allocationID)
			s.tracker.completeAllocation(slot)
		}
		return false
	case status.ResourceProfile.IsUnknown() || !tm.available.AllFieldsNoLessThan(status.ResourceProfile):
		// A TaskExecutor's slots are cut out of the total it registered
		// with, and none has an unknown profile: a report that says
		// otherwise is not one to trust with the resources of others.
		s.log.Warn(fmt.Sprintf("Ignoring the status of slot %s: allocation %s of %s does not fit into what TaskManager %s has left (%s).",
			status.SlotID, status.AllocationID, status.ResourceProfile, tm.conn.ResourceID, tm.available))
		return false
	default: // allocated to something we do not know
		s.tracker.addSlot(tm, status.AllocationID, status.JobID, status.ResourceProfile, SlotAllocated)
		return true
	}
}
