package slotpool

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// fakeBulk is a bulk whose requests the test moves by hand.
type fakeBulk struct {
	pending   []api.ResourceProfile
	fulfilled []api.AllocationID
	cancelled []error
}

func (b *fakeBulk) PendingRequests() []api.ResourceProfile               { return b.pending }
func (b *fakeBulk) AllocationIDsOfFulfilledRequests() []api.AllocationID { return b.fulfilled }
func (b *fakeBulk) Cancel(cause error)                                   { b.cancelled = append(b.cancelled, cause) }

var _ PhysicalSlotRequestBulk = (*fakeBulk)(nil)

func TestCheckPhysicalSlotRequestBulkTimeout(t *testing.T) {
	const timeout = 5 * time.Minute
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	small, big := api.ResourceProfile{CPUCores: 1}, api.ResourceProfile{CPUCores: 4}
	held := api.NewAllocationID()
	free := func(profile api.ResourceProfile) SlotInfo {
		return SlotInfo{AllocationID: api.NewAllocationID(), ResourceProfile: profile}
	}
	tests := []struct {
		name      string
		bulk      fakeBulk
		since     time.Time // zero: fulfillable so far
		slots     []SlotInfo
		now       time.Time
		want      timeoutCheckResult
		wantSince time.Time
	}{
		{
			name: "nothing waits any more: fulfilled, however late",
			bulk: fakeBulk{fulfilled: []api.AllocationID{held}}, since: t0, now: t0.Add(time.Hour),
			want: bulkFulfilled, wantSince: t0,
		},
		{
			name: "unfulfillable for the whole timeout: timed out",
			bulk: fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}}, since: t0, now: t0.Add(timeout),
			want: bulkTimedOut, wantSince: t0,
		},
		{
			name: "unfulfillable for less than the timeout: pending",
			bulk: fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}}, since: t0.Add(time.Second), now: t0.Add(timeout),
			want: bulkPending, wantSince: t0.Add(time.Second),
		},
		{
			name: "unfulfillable from now on: the clock starts",
			bulk: fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}}, now: t0.Add(timeout),
			want: bulkPending, wantSince: t0.Add(timeout),
		},
		{
			name: "a free slot the pool holds could serve it: the clock stops",
			bulk: fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}}, since: t0,
			slots: []SlotInfo{free(small)}, now: t0.Add(timeout),
			want: bulkPending,
		},
		{
			name: "a slot serving a streaming task for good does not count",
			bulk: fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}}, since: t0,
			slots: []SlotInfo{{AllocationID: api.NewAllocationID(), WillBeOccupiedIndefinitely: true}}, now: t0.Add(timeout),
			want: bulkTimedOut, wantSince: t0,
		},
		{
			name: "a slot the bulk's own fulfilled request holds does not count",
			bulk: fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}, fulfilled: []api.AllocationID{held}}, since: t0,
			slots: []SlotInfo{{AllocationID: held}}, now: t0.Add(timeout),
			want: bulkTimedOut, wantSince: t0,
		},
		{
			name: "a slot too small for the request does not count",
			bulk: fakeBulk{pending: []api.ResourceProfile{big}}, since: t0,
			slots: []SlotInfo{free(small)}, now: t0.Add(timeout),
			want: bulkTimedOut, wantSince: t0,
		},
		{
			name: "each request needs a slot of its own",
			bulk: fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile, api.UnknownResourceProfile}}, since: t0,
			slots: []SlotInfo{free(small)}, now: t0.Add(timeout),
			want: bulkTimedOut, wantSince: t0,
		},
		{
			name: "a larger slot serves a smaller request",
			bulk: fakeBulk{pending: []api.ResourceProfile{small, api.UnknownResourceProfile}}, since: t0,
			slots: []SlotInfo{free(big), free(small)}, now: t0.Add(timeout),
			want: bulkPending,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &bulkWithTimestamp{PhysicalSlotRequestBulk: &tt.bulk, unfulfillableSince: tt.since}
			got := checkPhysicalSlotRequestBulkTimeout(b, tt.slots, timeout, tt.now)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantSince, b.unfulfillableSince, "unfulfillable since")
			assert.Empty(t, tt.bulk.cancelled, "the decision cancels nothing itself")
		})
	}
}

// checkerOnMainThread returns a checker whose checks run on a main
// thread, reading the slots slots returns, and a function that runs fn
// there and waits for it.
func checkerOnMainThread(t *testing.T, slots func() []SlotInfo) (*PhysicalSlotRequestBulkChecker, func(fn func())) {
	main := rpc.NewEndpoint("jobmanager_test")
	main.Start(nil)
	t.Cleanup(func() { main.Close(nil) })
	checker := NewPhysicalSlotRequestBulkChecker(slots, func(fn func(), delay time.Duration) { main.ScheduleRunAsync(fn, delay) })
	onMain := func(fn func()) {
		_, err := rpc.CallAsync(context.Background(), main, func() (struct{}, error) { fn(); return struct{}{}, nil })
		require.NoError(t, err)
	}
	return checker, onMain
}

func TestABulkThatStaysUnfulfillableIsCancelledAfterTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		checker, onMain := checkerOnMainThread(t, func() []SlotInfo { return nil })
		bulk := &fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile, api.UnknownResourceProfile}}
		onMain(func() { checker.SchedulePendingRequestBulkTimeoutCheck(bulk, 10*time.Second) })

		time.Sleep(10*time.Second - time.Millisecond) // fake time
		synctest.Wait()
		onMain(func() { assert.Empty(t, bulk.cancelled, "not before the timeout") })

		time.Sleep(time.Millisecond)
		synctest.Wait()
		onMain(func() {
			require.Len(t, bulk.cancelled, 1)
			assert.ErrorIs(t, bulk.cancelled[0], ErrNoResourceAvailable)
			assert.EqualError(t, bulk.cancelled[0], "NoResourceAvailableException: Slot request bulk is not fulfillable! "+
				"Could not allocate the required slot within slot request timeout Caused by: TimeoutException: Timeout has occurred: PT10S")
		})
	})
}

func TestABulkThatGotItsSlotsIsNotCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		checker, onMain := checkerOnMainThread(t, func() []SlotInfo { return nil })
		bulk := &fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}}
		onMain(func() { checker.SchedulePendingRequestBulkTimeoutCheck(bulk, time.Minute) })

		time.Sleep(59 * time.Second)
		onMain(func() { bulk.pending, bulk.fulfilled = nil, []api.AllocationID{api.NewAllocationID()} })
		time.Sleep(time.Hour)
		synctest.Wait()
		onMain(func() { assert.Empty(t, bulk.cancelled) })
	})
}

// A bulk that the pool's slots could serve is not timed out: its clock
// starts again when the slots are gone, and it fails a whole timeout
// after the check that found it unfulfillable again.
func TestAFulfillableBulkStartsItsClockAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		freeSlot := []SlotInfo{{AllocationID: api.NewAllocationID()}}
		var slots []SlotInfo
		checker, onMain := checkerOnMainThread(t, func() []SlotInfo { return slots })
		bulk := &fakeBulk{pending: []api.ResourceProfile{api.UnknownResourceProfile}}
		onMain(func() {
			slots = freeSlot
			checker.SchedulePendingRequestBulkTimeoutCheck(bulk, time.Minute)
		})

		time.Sleep(time.Minute + time.Second) // 1st check: fulfillable
		onMain(func() { slots = nil })
		time.Sleep(time.Minute) // 2nd check: unfulfillable from now on
		synctest.Wait()
		onMain(func() { assert.Empty(t, bulk.cancelled, "unfulfillable only since the 2nd check") })

		time.Sleep(time.Minute) // 3rd check: a whole timeout later
		synctest.Wait()
		onMain(func() { assert.Len(t, bulk.cancelled, 1) })
	})
}

func TestAllSlotInfosTellFreeSlotsFromSlotsInUse(t *testing.T) {
	p, turn, _ := newTestPool(t)
	p.RequestNewAllocatedSlot(1, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	turn()
	inUse, free := offer(0), offer(1)
	p.OfferSlots(tm, []gateway.SlotOffer{inUse})
	p.RequestNewAllocatedSlot(2, api.UnknownResourceProfile, func(PhysicalSlot) {}, nil)
	p.OfferSlots(tm, []gateway.SlotOffer{free})
	p.CancelSlotRequest(2) // its slot is free again

	assert.Equal(t, []SlotInfo{
		{AllocationID: inUse.AllocationID, WillBeOccupiedIndefinitely: true},
		{AllocationID: free.AllocationID},
	}, p.AllSlotInfos())
}

func TestJavaDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                   "PT0S",
		5 * time.Minute:                     "PT5M",
		10 * time.Second:                    "PT10S",
		500 * time.Millisecond:              "PT0.5S",
		90 * time.Minute:                    "PT1H30M",
		time.Hour + 2*time.Second:           "PT1H2S",
		time.Minute + 1500*time.Microsecond: "PT1M0.0015S",
	} {
		assert.Equal(t, want, javaDuration(d), "%v", d)
	}
}
