package slotpool

import "flinklab/runtime/api"

// The AdaptiveScheduler does not request a slot per task. It declares how
// many slots it wants (the desired resources), takes what comes, and
// decides the job's parallelism from what it has (Flink: the
// DeclarativeSlotPool behind DeclarativeSlotPoolService, whose
// setResourceRequirements the AdaptiveScheduler calls). The pool asks for
// the declared slots with standing requests of its own: a slot offered
// for one is accepted as for any request (step m8) and then stays free,
// for the scheduler's tasks to take with RequestNewAllocatedSlot. Standing
// requests never fail: a job that waits for resources waits until its
// scheduler gives up (jobmanager.adaptive-scheduler.resource-wait-timeout).

// DeclareRequiredSlots declares that the job needs n slots of any profile,
// used or not, and requests those the pool does not hold. Slots beyond n
// are not given back: they stay until their TaskExecutor goes.
func (p *SlotPool) DeclareRequiredSlots(n int) {
	p.declaredSlots = n
	p.requestDeclaredSlots()
	p.requirementsChanged()
}

// OnNewSlots registers the function that hears, on a later mailbox turn,
// that slots arrived for the declared requirements (Flink: the pool's
// NewSlotsListener, which tells the AdaptiveScheduler
// onNewResourcesAvailable).
func (p *SlotPool) OnNewSlots(listener func()) { p.onNewSlots = listener }

// FreeSlots returns how many slots the pool holds that no request uses.
func (p *SlotPool) FreeSlots() int {
	n := 0
	for _, held := range p.slots {
		if held.request == 0 {
			n++
		}
	}
	return n
}

// requestDeclaredSlots keeps as many standing requests waiting as the pool
// lacks slots for the declaration: more when slots are lost, fewer when
// the declaration shrinks.
func (p *SlotPool) requestDeclaredSlots() {
	standing := 0
	for _, r := range p.pending {
		if r.standing {
			standing++
		}
	}
	want := max(0, p.declaredSlots-len(p.order))
	for ; standing < want; standing++ {
		p.nextStandingID--
		id := p.nextStandingID // counting down from the top: never a scheduler's id
		p.requested[id] = api.UnknownResourceProfile
		p.pending = append(p.pending, &pendingRequest{id: id, profile: api.UnknownResourceProfile, standing: true,
			fulfill: func(slot PhysicalSlot) { p.standingRequestServed(id, slot) }})
	}
	for i := len(p.pending) - 1; i >= 0 && standing > want; i-- {
		if r := p.pending[i]; r.standing {
			delete(p.requested, r.id)
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			standing--
		}
	}
}

// standingRequestServed frees the slot that served a standing request and
// tells the listener, on the next mailbox turn. A task's request that
// waits, behind the standing one, gets the slot then.
func (p *SlotPool) standingRequestServed(id SlotRequestID, slot PhysicalSlot) {
	delete(p.requested, id)
	p.slots[slot.AllocationID].request = 0
	p.scheduleMatchFreeSlots()
	if p.onNewSlots != nil && !p.newSlotsScheduled {
		p.newSlotsScheduled = true
		p.schedule(func() {
			p.newSlotsScheduled = false
			p.onNewSlots()
		})
	}
}
