package slotpool

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// newTestPool returns a pool whose "next mailbox turn" runs when the test
// calls turn().
func newTestPool(t *testing.T) (p *SlotPool, turn func(), declared *[]gateway.ResourceRequirements) {
	t.Helper()
	var queued []func()
	declared = &[]gateway.ResourceRequirements{}
	p = New(api.NewJobID(), "pekko://flink/user/rpc/jobmanager_0", func(fn func()) { queued = append(queued, fn) }, quiet)
	turn = func() {
		run := queued
		queued = nil
		for _, fn := range run {
			fn()
		}
	}
	p.ConnectToResourceManager(func(r gateway.ResourceRequirements) { *declared = append(*declared, r) })
	turn()
	return p, turn, declared
}

func offer(slotIndex int) gateway.SlotOffer {
	return gateway.SlotOffer{AllocationID: api.NewAllocationID(), SlotIndex: slotIndex}
}

var quiet = slog.New(slog.DiscardHandler)

var tm = gateway.TaskManagerLocation{ResourceID: "taskexecutor-0", Address: "pekko://flink/user/rpc/taskmanager_0"}

func TestRequestsAreDeclaredOncePerMailboxTurn(t *testing.T) {
	p, turn, declared := newTestPool(t)
	require.Len(t, *declared, 1, "connecting declares the current requirements, even none")
	*declared = nil

	for i := range 4 {
		p.RequestNewAllocatedSlot(SlotRequestID(i+1), api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	}
	assert.Empty(t, *declared, "declaring waits for the next mailbox turn")
	turn()
	require.Len(t, *declared, 1, "four requests in one turn make one declaration")
	assert.Equal(t, 4, (*declared)[0].TotalSlots())
	assert.Equal(t, "pekko://flink/user/rpc/jobmanager_0", (*declared)[0].TargetAddress)
}

func TestOffersFulfilOldestRequestsAndRejectTheRest(t *testing.T) {
	p, turn, _ := newTestPool(t)
	var got []SlotRequestID
	for i := range 2 {
		id := SlotRequestID(i + 1)
		p.RequestNewAllocatedSlot(id, api.UnknownResourceProfile, func(PhysicalSlot) { got = append(got, id) }, nil)
	}
	turn()

	offers := []gateway.SlotOffer{offer(0), offer(1), offer(2)}
	accepted := p.OfferSlots(tm, offers)
	assert.Equal(t, offers[:2], accepted, "the third slot is not needed")
	assert.Equal(t, []SlotRequestID{1, 2}, got, "oldest request first")
	assert.Equal(t, 0, p.PendingRequests())
	assert.Equal(t, 2, p.NumberOfSlots())

	again := p.OfferSlots(tm, offers[:1])
	assert.Equal(t, offers[:1], again, "a repeated offer of an accepted slot is accepted again")
	assert.Equal(t, 2, p.NumberOfSlots())
}

func TestProfilesMustMatch(t *testing.T) {
	p, turn, _ := newTestPool(t)
	big := api.ResourceProfileFromResources(4, 1024)
	p.RequestNewAllocatedSlot(1, big, func(PhysicalSlot) { t.Error("a too-small slot was handed out") }, nil)
	turn()
	small := gateway.SlotOffer{AllocationID: api.NewAllocationID(), ResourceProfile: api.ResourceProfileFromResources(1, 256)}
	assert.Empty(t, p.OfferSlots(tm, []gateway.SlotOffer{small}))
	assert.Equal(t, 1, p.PendingRequests())
}

// When the job ends, its slots are freed but stay in the pool (until
// their TaskExecutor is released), and the job declares that it needs
// nothing any more.
func TestFreeReservedSlotsKeepsTheSlotsAndClearsRequirements(t *testing.T) {
	p, turn, declared := newTestPool(t)
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	p.RequestNewAllocatedSlot(2, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	turn()
	p.OfferSlots(tm, []gateway.SlotOffer{offer(0)})

	p.FreeReservedSlots()
	assert.Equal(t, 1, p.NumberOfSlots(), "the slot stays in the pool")
	assert.Equal(t, 0, p.PendingRequests())
	turn()
	last := (*declared)[len(*declared)-1]
	assert.Equal(t, 0, last.TotalSlots(), "the job now needs nothing")

	released := p.ReleaseTaskManager(tm.ResourceID)
	assert.Len(t, released, 1, "its TaskExecutor's release takes it")
	assert.Equal(t, 0, p.NumberOfSlots())
}

func TestCancelledRequestShrinksRequirements(t *testing.T) {
	p, turn, declared := newTestPool(t)
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	p.RequestNewAllocatedSlot(2, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	turn()
	p.CancelSlotRequest(2)
	turn()
	assert.Equal(t, 1, (*declared)[len(*declared)-1].TotalSlots())
}

func TestNothingIsDeclaredBeforeTheResourceManagerIsConnected(t *testing.T) {
	var queued []func()
	p := New(api.NewJobID(), "jm", func(fn func()) { queued = append(queued, fn) }, quiet)
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	assert.Empty(t, queued)

	var declared []gateway.ResourceRequirements
	p.ConnectToResourceManager(func(r gateway.ResourceRequirements) { declared = append(declared, r) })
	for _, fn := range queued {
		fn()
	}
	require.Len(t, declared, 1, "connecting declares what waited")
	assert.Equal(t, 1, declared[0].TotalSlots())
}

func TestReleaseTaskManagerDropsItsSlots(t *testing.T) {
	p, turn, _ := newTestPool(t)
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	turn()
	other := gateway.TaskManagerLocation{ResourceID: "taskexecutor-1"}
	p.OfferSlots(other, []gateway.SlotOffer{offer(0)})
	assert.Empty(t, p.ReleaseTaskManager("taskexecutor-0"))
	assert.Len(t, p.ReleaseTaskManager("taskexecutor-1"), 1)
	assert.Equal(t, 0, p.NumberOfSlots())
}

func TestAChangeOfProfileWithTheSameTotalIsDeclared(t *testing.T) {
	p, turn, declared := newTestPool(t)
	big := api.ResourceProfile{CPUCores: 2}
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	turn()
	p.CancelSlotRequest(1)
	p.RequestNewAllocatedSlot(2, big, func(PhysicalSlot) {}, nil)
	before := len(*declared)
	turn()
	require.Len(t, *declared, before+1, "one slot before, one slot after, but of another profile")
	assert.Equal(t, big, (*declared)[before].Requirements[0].ResourceProfile)
}

func TestNotEnoughResourcesFailsTheWaitingRequestsOnly(t *testing.T) {
	p, turn, declared := newTestPool(t)
	var failures []error
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, func(err error) { t.Error("a served request failed") })
	p.OfferSlots(tm, []gateway.SlotOffer{offer(0)})
	for id := SlotRequestID(2); id <= 3; id++ {
		p.RequestNewAllocatedSlot(id, api.UnknownResourceProfile, func(PhysicalSlot) { t.Error("served") },
			func(err error) { failures = append(failures, err) })
	}
	turn()
	require.Equal(t, 3, (*declared)[len(*declared)-1].TotalSlots())

	p.NotifyNotEnoughResourcesAvailable(1)
	turn()
	require.Len(t, failures, 2)
	for _, err := range failures {
		assert.ErrorIs(t, err, ErrNoResourceAvailable)
		assert.EqualError(t, err, "NoResourceAvailableException: Could not acquire the minimum required resources.")
	}
	assert.Equal(t, 0, p.PendingRequests())
	assert.Equal(t, 1, p.NumberOfSlots(), "the slot the pool holds stays")
	assert.Equal(t, 1, (*declared)[len(*declared)-1].TotalSlots(), "the requirements shrink to what is held")

	p.NotifyNotEnoughResourcesAvailable(1) // nothing waits: nothing happens
	assert.Len(t, failures, 2)
}

// A request for any slot, served by a slot the ResourceManager cut of the
// default profile, is still declared as a request for any slot: the
// declaration does not change when the slot arrives, as in Flink, whose
// pool declares the requests' profiles.
func TestARequestIsDeclaredWithItsOwnProfileOnceServed(t *testing.T) {
	p, turn, declared := newTestPool(t)
	sized := api.ResourceProfileFromResources(0.25, 64)
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	p.RequestNewAllocatedSlot(2, sized, func(PhysicalSlot) {}, nil)
	turn()
	want := []gateway.ResourceRequirement{
		{ResourceProfile: api.UnknownResourceProfile, NumberOfRequiredSlots: 1},
		{ResourceProfile: sized, NumberOfRequiredSlots: 1},
	}
	require.Len(t, *declared, 2)
	assert.Equal(t, want, (*declared)[1].Requirements)

	defaultSlot := offer(0)
	defaultSlot.ResourceProfile = api.ResourceProfileFromResources(1, 192)
	require.Len(t, p.OfferSlots(tm, []gateway.SlotOffer{defaultSlot}), 1)
	turn()
	assert.Len(t, *declared, 2, "nothing changed: nothing declared")
	assert.ElementsMatch(t, want, p.Requirements().Requirements)
}
