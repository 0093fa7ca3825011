package slotpool

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// A BATCH job runs more tasks than it has slots: a slot freed by a task
// that finished goes to the next request on the next mailbox turn.
func TestAFreedSlotGoesToAWaitingRequest(t *testing.T) {
	p, turn, _ := newTestPool(t)
	var got []SlotRequestID
	for i := range 2 {
		id := SlotRequestID(i + 1)
		p.RequestNewAllocatedBatchSlot(id, api.UnknownResourceProfile, func(PhysicalSlot) { got = append(got, id) }, nil)
	}
	p.OfferSlots(tm, []gateway.SlotOffer{offer(0)})
	require.Equal(t, []SlotRequestID{1}, got)

	p.CancelSlotRequest(1)
	assert.Equal(t, []SlotRequestID{1}, got, "not within the call that freed it")
	turn()
	assert.Equal(t, []SlotRequestID{1, 2}, got)
	assert.Equal(t, 0, p.PendingRequests())
}

// Flink's failPendingRequests: "batch jobs do not require all resources
// requirements to be fulfilled at the same time". A streaming request
// fails when the ResourceManager cannot serve the job; a batch request
// waits (until the slot request bulk checker gives up on it).
func TestNotEnoughResourcesFailsStreamingRequestsOnly(t *testing.T) {
	p, _, _ := newTestPool(t)
	var failed []SlotRequestID
	fail := func(id SlotRequestID) func(error) {
		return func(err error) {
			assert.True(t, errors.Is(err, ErrNoResourceAvailable))
			failed = append(failed, id)
		}
	}
	p.RequestNewAllocatedBatchSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, fail(1))
	p.RequestNewAllocatedBatchSlot(2, api.UnknownResourceProfile, func(PhysicalSlot) {}, fail(2))
	p.OfferSlots(tm, []gateway.SlotOffer{offer(0)})

	p.NotifyNotEnoughResourcesAvailable(1)
	assert.Empty(t, failed, "the batch request waits")

	p.RequestNewAllocatedSlot(3, api.UnknownResourceProfile, func(PhysicalSlot) {}, fail(3))
	p.NotifyNotEnoughResourcesAvailable(1)
	assert.Equal(t, []SlotRequestID{3}, failed, "a streaming request needs its slot for good")

	p.NotifyNotEnoughResourcesAvailable(0)
	assert.Equal(t, []SlotRequestID{3}, failed, "even with no slot at all")
}

func TestABatchRequestsSlotWillBeFreeAgain(t *testing.T) {
	p, _, _ := newTestPool(t)
	p.RequestNewAllocatedBatchSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	p.RequestNewAllocatedSlot(2, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	p.OfferSlots(tm, []gateway.SlotOffer{offer(0), offer(1)})
	infos := p.AllSlotInfos()
	require.Len(t, infos, 2)
	assert.False(t, infos[0].WillBeOccupiedIndefinitely, "serves a batch request")
	assert.True(t, infos[1].WillBeOccupiedIndefinitely, "serves a streaming request")
}
