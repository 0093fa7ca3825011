package slotpool

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/api"
)

// DefaultSlotRequestTimeout is Flink's default for slot.request.timeout:
// how long the slot requests of one scheduling round may stay
// unfulfillable before they fail.
const DefaultSlotRequestTimeout = 5 * time.Minute

// PhysicalSlotRequestBulk is the slot requests of one scheduling round, as
// the bulk checker sees them (Flink's PhysicalSlotRequestBulk). The
// scheduler makes one per round; every method runs on the JobMaster's main
// thread.
type PhysicalSlotRequestBulk interface {
	// PendingRequests returns the profile of each request that still
	// waits for a slot.
	PendingRequests() []api.ResourceProfile
	// AllocationIDsOfFulfilledRequests returns the slots the bulk's other
	// requests got.
	AllocationIDsOfFulfilledRequests() []api.AllocationID
	// Cancel fails the bulk's requests with cause.
	Cancel(cause error)
}

// SlotInfo is what the bulk checker asks of each slot the pool holds
// (Flink's SlotInfo).
type SlotInfo struct {
	AllocationID    api.AllocationID
	ResourceProfile api.ResourceProfile
	// WillBeOccupiedIndefinitely is true for a slot that serves a request
	// of a streaming job: it is not given back while the job runs, so no
	// other request can count on it.
	WillBeOccupiedIndefinitely bool
}

// AllSlotInfos returns every slot the pool holds, free or serving a
// request (Flink: PhysicalSlotRequestBulkCheckerImpl#getAllSlotInfos, the
// free slots and the allocated ones). A slot serving a request will be
// occupied indefinitely, unless the request is a batch request.
func (p *SlotPool) AllSlotInfos() []SlotInfo {
	infos := make([]SlotInfo, 0, len(p.order))
	for _, allocationID := range p.order {
		held := p.slots[allocationID]
		infos = append(infos, SlotInfo{
			AllocationID:               allocationID,
			ResourceProfile:            held.slot.ResourceProfile,
			WillBeOccupiedIndefinitely: held.request != 0 && !held.batch,
		})
	}
	return infos
}

// PhysicalSlotRequestBulkChecker fails the slot requests of a scheduling
// round that stay unfulfillable for slot.request.timeout (Flink's
// PhysicalSlotRequestBulkCheckerImpl). It runs on the JobMaster's main
// thread: a check is a timer there, and it reads the pool's slots when it
// fires.
//
// A bulk is checked every timeout. It is fulfilled when none of its
// requests waits any more (they got their slots, or the scheduler withdrew
// them); then the checks stop. It is fulfillable when the slots the pool
// holds could serve its waiting requests, even if they have not yet; then
// its clock starts again. Otherwise it is unfulfillable, and one that has
// been so for the whole timeout is cancelled:
//
//	NoResourceAvailableException: Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout
//
// and the scheduler fails the tasks that waited, as for any other slot
// request that failed.
type PhysicalSlotRequestBulkChecker struct {
	slots    func() []SlotInfo
	schedule func(fn func(), delay time.Duration)
}

// NewPhysicalSlotRequestBulkChecker returns a checker that reads the
// pool's slots with slots (SlotPool.AllSlotInfos) and runs its checks
// with schedule, which must run fn on the JobMaster's main thread after
// delay (rpc.Endpoint.ScheduleRunAsync). Flink's createFromSlotPool and
// start(mainThreadExecutor) in one.
func NewPhysicalSlotRequestBulkChecker(slots func() []SlotInfo, schedule func(fn func(), delay time.Duration)) *PhysicalSlotRequestBulkChecker {
	return &PhysicalSlotRequestBulkChecker{slots: slots, schedule: schedule}
}

// SchedulePendingRequestBulkTimeoutCheck watches a bulk that was just
// requested: it counts as unfulfillable from now on, and is checked after
// timeout (Flink's schedulePendingRequestBulkTimeoutCheck).
func (c *PhysicalSlotRequestBulkChecker) SchedulePendingRequestBulkTimeoutCheck(bulk PhysicalSlotRequestBulk, timeout time.Duration) {
	b := &bulkWithTimestamp{PhysicalSlotRequestBulk: bulk}
	b.markUnfulfillable(time.Now())
	c.scheduleCheck(b, timeout)
}

func (c *PhysicalSlotRequestBulkChecker) scheduleCheck(b *bulkWithTimestamp, timeout time.Duration) {
	c.schedule(func() {
		switch checkPhysicalSlotRequestBulkTimeout(b, c.slots(), timeout, time.Now()) {
		case bulkPending:
			c.scheduleCheck(b, timeout)
		case bulkTimedOut:
			b.Cancel(slotRequestBulkNotFulfillable(timeout))
		case bulkFulfilled:
			// Nothing waits any more: the checks end.
		}
	}, timeout)
}

// slotRequestBulkNotFulfillable is the cause the requests of a bulk fail
// with when it has been unfulfillable for timeout: Flink's
// NoResourceAvailableException, caused by a TimeoutException that names
// the timeout as Java prints a Duration ("PT5M" for 5 min).
func slotRequestBulkNotFulfillable(timeout time.Duration) error {
	return fmt.Errorf("%w: Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout Caused by: TimeoutException: Timeout has occurred: %s",
		ErrNoResourceAvailable, javaDuration(timeout))
}

// timeoutCheckResult is what one check finds (Flink's TimeoutCheckResult).
type timeoutCheckResult int

const (
	bulkPending   timeoutCheckResult = iota // still waiting: check again after the timeout
	bulkFulfilled                           // nothing waits any more: stop checking
	bulkTimedOut                            // unfulfillable for the whole timeout: cancel it
)

func (r timeoutCheckResult) String() string {
	switch r {
	case bulkPending:
		return "PENDING"
	case bulkFulfilled:
		return "FULFILLED"
	case bulkTimedOut:
		return "TIMEOUT"
	}
	return fmt.Sprintf("timeoutCheckResult(%d)", int(r))
}

// bulkWithTimestamp is a bulk and since when it has been unfulfillable
// (Flink's PhysicalSlotRequestBulkWithTimestamp); the zero time means it
// is fulfillable.
type bulkWithTimestamp struct {
	PhysicalSlotRequestBulk
	unfulfillableSince time.Time
}

func (b *bulkWithTimestamp) markFulfillable() { b.unfulfillableSince = time.Time{} }

// markUnfulfillable starts the clock, unless it runs already.
func (b *bulkWithTimestamp) markUnfulfillable(now time.Time) {
	if b.unfulfillableSince.IsZero() {
		b.unfulfillableSince = now
	}
}

// checkPhysicalSlotRequestBulkTimeout decides what becomes of a bulk at
// now, given the slots the pool holds (Flink's
// checkPhysicalSlotRequestBulkTimeout). It only moves the bulk's clock.
func checkPhysicalSlotRequestBulkTimeout(bulk *bulkWithTimestamp, slots []SlotInfo, timeout time.Duration, now time.Time) timeoutCheckResult {
	if len(bulk.PendingRequests()) == 0 {
		return bulkFulfilled
	}
	if isSlotRequestBulkFulfillable(bulk, slots) {
		bulk.markFulfillable()
		return bulkPending
	}
	bulk.markUnfulfillable(now)
	if !bulk.unfulfillableSince.Add(timeout).After(now) {
		return bulkTimedOut
	}
	return bulkPending
}

// isSlotRequestBulkFulfillable reports whether the slots could serve every
// waiting request of the bulk at the same time (Flink's
// isSlotRequestBulkFulfillable). A slot counts if it is free, or will be
// given back while the job runs, and is not one the bulk's fulfilled
// requests hold already; each request needs a slot of its own whose
// profile matches.
func isSlotRequestBulkFulfillable(bulk PhysicalSlotRequestBulk, slots []SlotInfo) bool {
	assigned := make(map[api.AllocationID]bool)
	for _, id := range bulk.AllocationIDsOfFulfilledRequests() {
		assigned[id] = true
	}
	var reusable []SlotInfo
	for _, slot := range slots {
		if !slot.WillBeOccupiedIndefinitely && !assigned[slot.AllocationID] {
			reusable = append(reusable, slot)
		}
	}
	return areRequestsFulfillableWithSlots(bulk.PendingRequests(), reusable)
}

// areRequestsFulfillableWithSlots gives each request the first remaining
// slot that matches its profile (quadratic, as in Flink).
func areRequestsFulfillableWithSlots(requests []api.ResourceProfile, slots []SlotInfo) bool {
	taken := make([]bool, len(slots))
	for _, profile := range requests {
		matched := false
		for i, slot := range slots {
			if !taken[i] && slot.ResourceProfile.IsMatching(profile) {
				taken[i], matched = true, true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// javaDuration prints a non-negative duration as Java's Duration#toString
// does, which is how Flink's messages show a timeout: PT5M, PT10S,
// PT0.5S, PT1H30M.
func javaDuration(d time.Duration) string {
	if d <= 0 {
		return "PT0S"
	}
	hours, minutes := int64(d/time.Hour), int64(d%time.Hour/time.Minute)
	seconds, nanos := int64(d%time.Minute/time.Second), int64(d%time.Second)
	var b strings.Builder
	b.WriteString("PT")
	if hours != 0 {
		b.WriteString(strconv.FormatInt(hours, 10) + "H")
	}
	if minutes != 0 {
		b.WriteString(strconv.FormatInt(minutes, 10) + "M")
	}
	if seconds == 0 && nanos == 0 {
		return b.String()
	}
	b.WriteString(strconv.FormatInt(seconds, 10))
	if nanos != 0 {
		b.WriteString("." + strings.TrimRight(fmt.Sprintf("%09d", nanos), "0"))
	}
	b.WriteString("S")
	return b.String()
}
