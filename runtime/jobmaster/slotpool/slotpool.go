package slotpool

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// SlotRequestID names one request of the scheduler for a physical slot.
type SlotRequestID uint64

// PhysicalSlot is a slot the pool holds: allocated on a TaskExecutor for
// this job and accepted from its offer.
type PhysicalSlot struct {
	AllocationID    api.AllocationID
	TaskManager     gateway.TaskManagerLocation
	SlotIndex       int
	ResourceProfile api.ResourceProfile
}

type pendingRequest struct {
	id      SlotRequestID
	profile api.ResourceProfile
	fulfill func(PhysicalSlot)
	fail    func(error) // may be nil
	batch   bool        // the slot will not be occupied indefinitely
	// standing: a request of DeclareRequiredSlots, which the pool makes
	// itself; the slot that serves it stays free.
	standing bool
}

type heldSlot struct {
	slot    PhysicalSlot
	request SlotRequestID // 0 while the slot is free
	batch   bool          // the request it serves is a batch request
}

// SlotPool holds the job's slots and its waiting slot requests. Use it only
// on the JobMaster's main thread.
type SlotPool struct {
	jobID            api.JobID
	jobMasterAddress string
	log              *slog.Logger

	pending []*pendingRequest // oldest first
	slots   map[api.AllocationID]*heldSlot
	order   []api.AllocationID // slots in the order they were accepted
	// requested is the profile each request asked for, waiting or served:
	// what the job declares. A slot of the default profile serves a request
	// for any slot, and the job still declares a slot of any profile.
	requested map[SlotRequestID]api.ResourceProfile

	// schedule runs a function on the next mailbox turn.
	schedule         func(func())
	declare          func(gateway.ResourceRequirements) // nil until connected to the RM
	declareScheduled bool
	matchScheduled   bool // matchFreeSlots will run on the next mailbox turn

	// declaredSlots is what DeclareRequiredSlots asked for; the pool holds
	// or requests that many slots, used or not. onNewSlots hears of each
	// slot that arrives for them; newSlotsScheduled coalesces the calls.
	declaredSlots     int
	nextStandingID    SlotRequestID
	onNewSlots        func()
	newSlotsScheduled bool
	lastDeclared      *gateway.ResourceRequirements // nil: declare even if nothing changed
}

// New returns an empty pool. schedule must run a function later on the
// JobMaster's main thread (rpc.Endpoint.RunAsync).
func New(jobID api.JobID, jobMasterAddress string, schedule func(func()), logger *slog.Logger) *SlotPool {
	if logger == nil {
		logger = slog.Default()
	}
	return &SlotPool{
		jobID:            jobID,
		jobMasterAddress: jobMasterAddress,
		log:              logger.With("logger", "DeclarativeSlotPoolBridge"),
		slots:            make(map[api.AllocationID]*heldSlot),
		requested:        make(map[SlotRequestID]api.ResourceProfile),
		schedule:         schedule,
	}
}

// RequestNewAllocatedSlot asks for a slot of the given profile. A free slot
// that matches is handed over at once (fulfill); otherwise the request waits
// for an offer and the job's requirements grow (Flink's
// requestNewAllocatedSlot). A waiting request may instead fail
// (FailPendingRequests), and then fail is called, if it is not nil.
func (p *SlotPool) RequestNewAllocatedSlot(id SlotRequestID, profile api.ResourceProfile, fulfill func(PhysicalSlot), fail func(error)) {
	p.request(&pendingRequest{id: id, profile: profile, fulfill: fulfill, fail: fail})
}

// RequestNewAllocatedBatchSlot is RequestNewAllocatedSlot for a task of a
// BATCH job (Flink's requestNewAllocatedBatchSlot): its slot will be free
// again when the task finishes, so the request does not fail when the
// ResourceManager cannot find all the job's slots
// (NotifyNotEnoughResourcesAvailable), and the slot request bulk checker
// counts on its slot to be free again.
func (p *SlotPool) RequestNewAllocatedBatchSlot(id SlotRequestID, profile api.ResourceProfile, fulfill func(PhysicalSlot), fail func(error)) {
	p.request(&pendingRequest{id: id, profile: profile, fulfill: fulfill, fail: fail, batch: true})
}

func (p *SlotPool) request(r *pendingRequest) {
	p.requested[r.id] = r.profile
	for _, allocationID := range p.order {
		held := p.slots[allocationID]
		if held.request == 0 && held.slot.ResourceProfile.IsMatching(r.profile) {
			held.request, held.batch = r.id, r.batch
			r.fulfill(held.slot)
			return
		}
	}
	p.pending = append(p.pending, r)
	p.requirementsChanged()
}

// CancelSlotRequest withdraws a waiting request, or frees the slot it got.
// A freed slot goes, on the next mailbox turn, to a request that waits for
// one like it, as an offered slot would (Flink: freeReservedSlot tells the
// pool's new slots listener): that is how the stages of a batch job take
// turns in fewer slots than they have tasks.
func (p *SlotPool) CancelSlotRequest(id SlotRequestID) {
	delete(p.requested, id)
	if i := slices.IndexFunc(p.pending, func(r *pendingRequest) bool { return r.id == id }); i >= 0 {
		p.pending = slices.Delete(p.pending, i, i+1)
		p.requirementsChanged()
		return
	}
	for _, allocationID := range p.order {
		held := p.slots[allocationID]
		if held.request != id {
			continue
		}
		held.request, held.batch = 0, false
		p.scheduleMatchFreeSlots()
		return
	}
}

// scheduleMatchFreeSlots runs matchFreeSlots on the next mailbox turn, if
// a request waits.
func (p *SlotPool) scheduleMatchFreeSlots() {
	if len(p.pending) > 0 && !p.matchScheduled {
		p.matchScheduled = true
		p.schedule(p.matchFreeSlots)
	}
}

// matchFreeSlots hands the free slots to the requests that wait, oldest
// slot first.
func (p *SlotPool) matchFreeSlots() {
	p.matchScheduled = false
	for _, allocationID := range p.order {
		held := p.slots[allocationID]
		if held.request != 0 {
			continue
		}
		if i := p.pendingRequestFor(held.slot.ResourceProfile); i >= 0 {
			request := p.pending[i]
			p.pending = slices.Delete(p.pending, i, i+1)
			held.request, held.batch = request.id, request.batch
			request.fulfill(held.slot)
		}
	}
}

// pendingRequestFor returns the index of the waiting request a free slot of
// the given profile serves, by the rule OfferSlots applies to an offered
// one (step m8): the oldest of exactly its profile, or else the oldest it
// matches; -1 if none. Standing requests are left out: they wait for new
// slots, and a free slot the pool holds counts for them already.
func (p *SlotPool) pendingRequestFor(slotProfile api.ResourceProfile) int {
	if i := slices.IndexFunc(p.pending, func(r *pendingRequest) bool { return !r.standing && r.profile == slotProfile }); i >= 0 {
		return i
	}
	return slices.IndexFunc(p.pending, func(r *pendingRequest) bool { return !r.standing && slotProfile.IsMatching(r.profile) })
}

// ErrNoResourceAvailable is Flink's NoResourceAvailableException: the job
// cannot get the slots it needs.
var ErrNoResourceAvailable = errors.New("NoResourceAvailableException")

// NotifyNotEnoughResourcesAvailable fails the waiting requests, because the
// ResourceManager reported that it cannot meet the job's requirements,
// having acquired that many slots for it (Flink:
// DeclarativeSlotPoolBridge#notifyNotEnoughResourcesAvailable). A batch
// request waits on: "batch jobs do not require all resources requirements
// to be fulfilled at the same time", says Flink's failPendingRequests; a
// task before it may free a slot, and if none ever does, the slot request
// bulk checker fails it after slot.request.timeout.
func (p *SlotPool) NotifyNotEnoughResourcesAvailable(acquired int) {
	failing := func(r *pendingRequest) bool { return !r.standing && !r.batch }
	if !slices.ContainsFunc(p.pending, failing) {
		return
	}
	p.log.Warn(fmt.Sprintf("Could not acquire the minimum required resources, failing slot requests. Acquired: %d slot(s). Current slot pool status: %d slot(s) held, %d request(s) waiting.",
		acquired, len(p.order), len(p.pending)))
	p.failPendingRequests(failing, fmt.Errorf("%w: Could not acquire the minimum required resources.", ErrNoResourceAvailable))
}

// FailPendingRequests fails every waiting request with cause, because the
// ResourceManager said the job's requirements cannot be met (Flink:
// DeclarativeSlotPoolBridge#failPendingRequests, on
// notifyNotEnoughResourcesAvailable). The slots the pool holds stay.
func (p *SlotPool) FailPendingRequests(cause error) {
	p.failPendingRequests(func(*pendingRequest) bool { return true }, cause)
}

// failPendingRequests fails the waiting requests that match.
func (p *SlotPool) failPendingRequests(match func(*pendingRequest) bool, cause error) {
	var failed []*pendingRequest
	p.pending = slices.DeleteFunc(p.pending, func(r *pendingRequest) bool {
		if match(r) {
			failed = append(failed, r)
			return true
		}
		return false
	})
	for _, r := range failed {
		delete(p.requested, r.id)
	}
	p.requirementsChanged()
	for _, r := range failed {
		if r.fail != nil {
			r.fail(cause)
		}
	}
}

// PendingRequests returns how many requests wait for a slot.
func (p *SlotPool) PendingRequests() int { return len(p.pending) }

// Requirements returns what the job needs now: a slot for every request,
// waiting or served, of the profile the request asked for (Flink's
// DeclarativeSlotPoolBridge declares the requests' profiles, not those of
// the slots that serve them).
func (p *SlotPool) Requirements() gateway.ResourceRequirements {
	var profiles []api.ResourceProfile
	for _, allocationID := range p.order {
		if held := p.slots[allocationID]; held.request != 0 {
			profiles = append(profiles, p.requested[held.request])
		} else if p.declaredSlots > 0 {
			profiles = append(profiles, api.UnknownResourceProfile) // declared, free
		}
	}
	for _, r := range p.pending {
		profiles = append(profiles, r.profile)
	}
	return gateway.ResourceRequirements{JobID: p.jobID, TargetAddress: p.jobMasterAddress,
		Requirements: RequirementsOf(profiles)}
}

// RequirementsOf counts requests by profile: one ResourceRequirement per
// profile, in the order the profiles first occur, as the pool declares
// them (Flink's ResourceCounter).
func RequirementsOf(profiles []api.ResourceProfile) []gateway.ResourceRequirement {
	var reqs []gateway.ResourceRequirement
	index := make(map[api.ResourceProfile]int)
	for _, profile := range profiles {
		i, seen := index[profile]
		if !seen {
			i = len(reqs)
			index[profile] = i
			reqs = append(reqs, gateway.ResourceRequirement{ResourceProfile: profile})
		}
		reqs[i].NumberOfRequiredSlots++
	}
	return reqs
}

// ConnectToResourceManager starts declaring requirements through declare,
// beginning with the current ones (Flink's connectToResourceManager).
func (p *SlotPool) ConnectToResourceManager(declare func(gateway.ResourceRequirements)) {
	p.declare = declare
	p.lastDeclared = nil
	p.requirementsChanged()
}

// DisconnectResourceManager stops declaring until the next connection.
func (p *SlotPool) DisconnectResourceManager() { p.declare = nil }

// requirementsChanged declares the requirements on the next mailbox turn,
// once for all changes made until then.
func (p *SlotPool) requirementsChanged() {
	if p.declare == nil || p.declareScheduled {
		return
	}
	p.declareScheduled = true
	p.schedule(func() {
		p.declareScheduled = false
		if p.declare == nil {
			return
		}
		req := p.Requirements()
		if p.lastDeclared != nil && slices.Equal(req.Requirements, p.lastDeclared.Requirements) {
			return // nothing changed since the last declaration
		}
		p.lastDeclared = &req
		p.log.Debug(fmt.Sprintf("Declare new resource requirements for job %s: %d slots.", p.jobID, req.TotalSlots()))
		p.declare(req)
	})
}

// OfferSlots takes the slots a TaskExecutor offers and returns those it
// accepted (Flink's offerSlots).
//
// Step m8: the job decides here which offered slots it takes. Each
// accepted slot goes to the oldest waiting request of exactly its
// profile, or, if there is none, to the oldest request it matches (one
// for UnknownResourceProfile), as Flink's DefaultRequirementMatcher
// matches a slot to the exactly equal requirement first: a slot cut for a
// slot sharing group with resources must not serve a request any slot
// would do for. An offer already accepted before is accepted again (the
// TaskExecutor may retry after a timeout).
func (p *SlotPool) OfferSlots(tm gateway.TaskManagerLocation, offers []gateway.SlotOffer) []gateway.SlotOffer {
	var accepted []gateway.SlotOffer
	for _, offer := range offers {
		if _, held := p.slots[offer.AllocationID]; held {
			accepted = append(accepted, offer)
			continue
		}
		i := slices.IndexFunc(p.pending, func(r *pendingRequest) bool {
			return r.profile == offer.ResourceProfile
		})
		if i < 0 {
			i = slices.IndexFunc(p.pending, func(r *pendingRequest) bool {
				return offer.ResourceProfile.IsMatching(r.profile)
			})
		}
		if i < 0 {
			continue // nobody needs it: rejected
		}
		request := p.pending[i]
		p.pending = slices.Delete(p.pending, i, i+1)
		slot := PhysicalSlot{
			AllocationID:    offer.AllocationID,
			TaskManager:     tm,
			SlotIndex:       offer.SlotIndex,
			ResourceProfile: offer.ResourceProfile,
		}
		p.slots[offer.AllocationID] = &heldSlot{slot: slot, request: request.id, batch: request.batch}
		p.order = append(p.order, offer.AllocationID)
		accepted = append(accepted, offer)
		request.fulfill(slot)
	}
	return accepted
}

// ReleaseTaskManager drops every slot on a TaskExecutor that is gone and
// returns them, so the caller can fail what ran in them.
func (p *SlotPool) ReleaseTaskManager(resourceID api.ResourceID) []PhysicalSlot {
	var released []PhysicalSlot
	p.order = slices.DeleteFunc(p.order, func(allocationID api.AllocationID) bool {
		held := p.slots[allocationID]
		if held.slot.TaskManager.ResourceID != resourceID {
			return false
		}
		p.log.Info(fmt.Sprintf("Releasing slot [%s].", allocationID))
		released = append(released, held.slot)
		delete(p.slots, allocationID)
		return true
	})
	p.requestDeclaredSlots()
	p.requirementsChanged()
	return released
}

// FreeReservedSlots frees every slot the job's requests hold and drops the
// requests still waiting, because the job has ended: the slots stay in
// the pool, free, until their TaskExecutor is released, and the job's
// requirements fall to zero, which the pool declares on the next mailbox
// turn. In Flink the same happens one execution at a time, as each ends
// and releases its slot (DeclarativeSlotPoolBridge#releaseSlot:
// freeReservedSlot, then decreaseResourceRequirementsBy).
func (p *SlotPool) FreeReservedSlots() {
	for _, held := range p.slots {
		held.request, held.batch = 0, false
	}
	p.pending = nil
	clear(p.requested)
	p.declaredSlots = 0
	p.requirementsChanged()
}

// Slot returns the slot the pool holds under allocationID.
func (p *SlotPool) Slot(allocationID api.AllocationID) (PhysicalSlot, bool) {
	held, ok := p.slots[allocationID]
	if !ok {
		return PhysicalSlot{}, false
	}
	return held.slot, true
}

// NumberOfSlots returns how many slots the pool holds.
func (p *SlotPool) NumberOfSlots() int { return len(p.order) }
