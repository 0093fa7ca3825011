package slotmanager

import "fmt"

// SlotState is the lifecycle of one TaskExecutor slot as the SlotManager
// sees it (Flink's org.apache.flink.runtime.resourcemanager.slotmanager.SlotState).
//
//	FREE ──allocateSlot (m7)──► PENDING ──requestSlot acknowledged──► ALLOCATED
//	 │ ▲                          │      (or a slot report shows it)     │
//	 │ └──────────────────────────┴──────────────────────────────────────┘
//	 │   requestSlot failed or timed out, slot freed (notifySlotAvailable),
//	 │   a slot report shows it free (an ALLOCATED slot only)
//	 │
//	 └──a slot report shows an allocation we did not make──► ALLOCATED
//
// PENDING means "requestSlot is on its way": its resources are not offered
// to any other job, but the TaskExecutor has not confirmed the slot yet.
// FREE is where a slot starts and ends: a slot is made FREE, moves on at
// once, and leaves the tracker when it is FREE again (its resources are
// the TaskManager's available resources once more). When its TaskManager
// unregisters, a slot in any state simply disappears.
type SlotState int

// The slot states, in Flink's declaration order.
const (
	SlotFree      SlotState = iota // no job holds the slot: it is not tracked
	SlotPending                    // requestSlot was sent; the answer has not come back
	SlotAllocated                  // the TaskExecutor confirmed the slot for a job
)

var slotStateNames = [...]string{
	SlotFree:      "FREE",
	SlotPending:   "PENDING",
	SlotAllocated: "ALLOCATED",
}

// String returns Flink's name of the state, e.g. "PENDING".
func (s SlotState) String() string {
	if s < 0 || int(s) >= len(slotStateNames) {
		return fmt.Sprintf("SlotState(%d)", int(s))
	}
	return slotStateNames[s]
}

// slotTransitions lists every legal move of a slot.
var slotTransitions = map[SlotState][]SlotState{
	SlotFree:      {SlotPending, SlotAllocated},
	SlotPending:   {SlotAllocated, SlotFree},
	SlotAllocated: {SlotFree},
}

// checkSlotTransition returns nil when a slot may move from one state to
// the other. It is the one place slot transitions are checked.
func checkSlotTransition(from, to SlotState) error {
	for _, allowed := range slotTransitions[from] {
		if allowed == to {
			return nil
		}
	}
	return fmt.Errorf("Slot may not switch from state %s to %s.", from, to)
}
