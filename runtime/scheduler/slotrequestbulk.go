package scheduler

import (
	"flinklab/runtime/api"
	"flinklab/runtime/jobmaster/slotpool"
)

// sharingPhysicalSlotRequestBulk is the shared slots one scheduling round
// (one allocateSlotsAndDeploy) waits for, as the slot pool's bulk checker
// sees them (Flink's SharingPhysicalSlotRequestBulk).
//
// It keeps no state of its own but the round: a shared slot of the round
// is pending while it has not arrived, and fulfilled once it has. A shared
// slot the scheduler gave up (its executions were cancelled, failed or
// restarted, or the request failed) is neither, so the bulk of an earlier
// round is empty and never fires; Flink clears a bulk's pending requests
// when one of their slot futures fails, to the same end.
type sharingPhysicalSlotRequestBulk struct {
	scheduler *DefaultScheduler
	round     *deploymentRound
}

var _ slotpool.PhysicalSlotRequestBulk = (*sharingPhysicalSlotRequestBulk)(nil)

// PendingRequests returns a profile for each shared slot of the round the
// scheduler still waits for.
func (b *sharingPhysicalSlotRequestBulk) PendingRequests() []api.ResourceProfile {
	var pending []api.ResourceProfile
	for _, shared := range b.round.slots {
		if !shared.released && shared.physical == nil {
			pending = append(pending, b.scheduler.sharedSlotProfile(shared.group))
		}
	}
	return pending
}

// AllocationIDsOfFulfilledRequests returns the slots the round's shared
// slots got and still hold.
func (b *sharingPhysicalSlotRequestBulk) AllocationIDsOfFulfilledRequests() []api.AllocationID {
	var fulfilled []api.AllocationID
	for _, shared := range b.round.slots {
		if !shared.released && shared.physical != nil {
			fulfilled = append(fulfilled, shared.physical.AllocationID)
		}
	}
	return fulfilled
}

// Cancel fails the round's waiting requests with cause: each is withdrawn
// from the pool, and the executions that waited for it fail (Flink:
// SharingPhysicalSlotRequestBulk#cancel fails their logical slot
// requests, and DefaultExecutionDeployer marks the executions failed). The
// first failure starts the failover, which cancels the rest of the region
// and gives back the slots that did arrive.
func (b *sharingPhysicalSlotRequestBulk) Cancel(cause error) {
	for _, shared := range b.round.slots {
		if !shared.released && shared.physical == nil {
			b.scheduler.slotRequestFailed(shared, cause)
		}
	}
}
