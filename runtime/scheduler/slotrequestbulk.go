package scheduler

import (
	"flinklab/runtime/api"
	"flinklab/runtime/jobmaster/slotpool"
)

// sharingPhysicalSlotRequestBulk is the shared slots one scheduling round
// (one allocateSlotsAndDeploy) requested, as the slot pool's bulk checker
// sees them (Flink's SharingPhysicalSlotRequestBulk).
//
// It keeps no state of its own but the round's requests: one is pending
// while the scheduler still waits for it, and fulfilled once its slot has
// arrived. A request the scheduler gave up (the job was cancelled, failed
// or restarted, or the request failed) is neither, so the bulk of an
// earlier round is empty and never fires; Flink clears a bulk's pending
// requests when one of their slot futures fails, to the same end.
type sharingPhysicalSlotRequestBulk struct {
	scheduler *DefaultScheduler
	keys      []*executionSlotSharingGroup // in the order they were requested
	requests  map[*executionSlotSharingGroup]slotpool.SlotRequestID
}

var _ slotpool.PhysicalSlotRequestBulk = (*sharingPhysicalSlotRequestBulk)(nil)

// PendingRequests returns a profile for each shared slot of the round the
// scheduler still waits for.
func (b *sharingPhysicalSlotRequestBulk) PendingRequests() []api.ResourceProfile {
	var pending []api.ResourceProfile
	for _, key := range b.keys {
		if id, ok := b.scheduler.waiting[key]; ok && id == b.requests[key] {
			pending = append(pending, b.scheduler.sharedSlotProfile(key))
		}
	}
	return pending
}

// AllocationIDsOfFulfilledRequests returns the slots the round's shared
// slots got and still hold.
func (b *sharingPhysicalSlotRequestBulk) AllocationIDsOfFulfilledRequests() []api.AllocationID {
	var fulfilled []api.AllocationID
	for _, key := range b.keys {
		if a, ok := b.scheduler.arrived[key]; ok && a.request == b.requests[key] {
			fulfilled = append(fulfilled, a.slot.AllocationID)
		}
	}
	return fulfilled
}

// Cancel fails the round's waiting requests with cause: each is withdrawn
// from the pool, and the executions that waited for it fail (Flink:
// SharingPhysicalSlotRequestBulk#cancel fails their logical slot
// requests, and DefaultExecutionDeployer marks the executions failed). The
// first failure starts the failover, which cancels the rest of the round,
// and gives back the slots that did arrive.
func (b *sharingPhysicalSlotRequestBulk) Cancel(cause error) {
	s := b.scheduler
	for _, key := range b.keys {
		id := b.requests[key]
		if waiting, ok := s.waiting[key]; !ok || waiting != id {
			continue // arrived, or given up by the failover the first failure started
		}
		s.deps.SlotPool.CancelSlotRequest(id)
		s.slotRequestFailed(key, id, cause)
	}
}
