package taskexecutor_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/taskexecutor"
)

// Two offers for one job overlap: the first carries slot 0, the second
// (sent when slot 1 arrives) carries both. The answer to the first comes
// back first and is discarded, which restarts the timeout of slot 0, still
// merely allocated then; the answer to the second makes both slots ACTIVE.
// An ACTIVE slot is in use, so that timeout must not free it.
func TestAnAcceptedSlotDoesNotTimeOutAfterADiscardedOfferAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		synctest.Wait()
		jobID := api.NewJobID()
		jm, _ := h.startJobMaster(jobID)
		secondOfferSent := make(chan struct{})
		var calls atomic.Int32
		jm.offerSlots = func(_ context.Context, offers []gateway.SlotOffer) ([]gateway.SlotOffer, error) {
			if calls.Add(1) == 1 { // the first waits for the second to arrive
				<-secondOfferSent
			} else {
				close(secondOfferSent)
				<-time.After(time.Second) // answer after the first answer was handled
			}
			return offers, nil
		}

		_, err := h.requestSlot(0, jobID)
		require.NoError(t, err)
		synctest.Wait()
		_, err = h.requestSlot(1, jobID)
		require.NoError(t, err)
		<-time.After(2 * time.Second)
		synctest.Wait()
		require.Len(t, drain(jm.offers), 2, "two offers, the second carrying both slots")
		require.Equal(t, taskexecutor.SlotActive, h.slotState(0))
		require.Equal(t, taskexecutor.SlotActive, h.slotState(1))

		<-time.After(taskexecutor.DefaultRPCTimeout) // the slot timeout (Flink's fallback: pekko.ask.timeout)
		synctest.Wait()
		assert.Equal(t, taskexecutor.SlotActive, h.slotState(0), "an accepted slot must not time out")
		assert.Equal(t, taskexecutor.SlotActive, h.slotState(1))
		assert.Empty(t, drain(h.rm.slotsAvailable), "no slot goes back to the ResourceManager")
	})
}
