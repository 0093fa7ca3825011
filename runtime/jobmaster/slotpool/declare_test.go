package slotpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// The AdaptiveScheduler's way: declare slots, take them free, use them
// later; lost ones are asked for again, and none of it fails when the
// ResourceManager has too few.
func TestDeclaredSlotsArriveFreeAndAreAskedForAgainWhenLost(t *testing.T) {
	p, turn, declared := newTestPool(t)
	news := 0
	p.OnNewSlots(func() { news++ })
	p.DeclareRequiredSlots(3)
	turn()
	assert.Equal(t, 3, (*declared)[len(*declared)-1].TotalSlots())

	p.NotifyNotEnoughResourcesAvailable(0)
	assert.Equal(t, 3, p.PendingRequests(), "declared slots are waited for, not failed")

	accepted := p.OfferSlots(tm, []gateway.SlotOffer{offer(0), offer(1)})
	assert.Len(t, accepted, 2)
	assert.Equal(t, 0, news, "the listener hears on the next mailbox turn")
	turn()
	assert.Equal(t, 1, news, "once for the offer")
	assert.Equal(t, 2, p.FreeSlots())
	assert.Equal(t, 3, (*declared)[len(*declared)-1].TotalSlots(), "still 3: two held, one asked for")

	var got []PhysicalSlot
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(s PhysicalSlot) { got = append(got, s) }, nil)
	require.Len(t, got, 1, "a task takes a free slot at once")
	assert.Equal(t, 1, p.FreeSlots())

	p.ReleaseTaskManager(tm.ResourceID)
	assert.Equal(t, 3, p.PendingRequests(), "the two lost slots are asked for again")
	p.DeclareRequiredSlots(1)
	assert.Equal(t, 1, p.PendingRequests(), "a smaller declaration withdraws the rest")
}

// A slot that a task gives back stays free: it does not count as a new
// slot for the declaration, which still waits for the slots it lacks.
func TestAFreedSlotDoesNotServeADeclaredSlot(t *testing.T) {
	p, turn, _ := newTestPool(t)
	p.DeclareRequiredSlots(2)
	p.OfferSlots(tm, []gateway.SlotOffer{offer(0)})
	turn()
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	p.CancelSlotRequest(1)
	turn()
	assert.Equal(t, 1, p.FreeSlots())
	assert.Equal(t, 1, p.PendingRequests(), "one declared slot is still missing")
	accepted := p.OfferSlots(tm, []gateway.SlotOffer{offer(1)})
	assert.Len(t, accepted, 1, "and an offer is taken for it")
}

// A task whose request waits behind a standing one gets the slot that
// arrives for the standing one.
func TestATaskRequestWaitingBehindADeclaredSlotGetsTheOffer(t *testing.T) {
	p, turn, _ := newTestPool(t)
	p.DeclareRequiredSlots(1)
	var got []PhysicalSlot
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(s PhysicalSlot) { got = append(got, s) }, nil)
	p.OfferSlots(tm, []gateway.SlotOffer{offer(0)})
	require.Empty(t, got, "the standing request was first")
	turn()
	assert.Len(t, got, 1)
}
