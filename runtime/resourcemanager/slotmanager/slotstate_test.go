package slotmanager

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/api"
)

func TestSlotTransitions(t *testing.T) {
	tests := []struct {
		from, to SlotState
		legal    bool
	}{
		{SlotFree, SlotPending, true},
		{SlotFree, SlotAllocated, true}, // a slot report shows an allocation we did not make
		{SlotPending, SlotAllocated, true},
		{SlotPending, SlotFree, true},
		{SlotAllocated, SlotFree, true},
		{SlotFree, SlotFree, false},
		{SlotPending, SlotPending, false},
		{SlotAllocated, SlotPending, false},
		{SlotAllocated, SlotAllocated, false},
	}
	for _, tt := range tests {
		t.Run(tt.from.String()+"→"+tt.to.String(), func(t *testing.T) {
			err := checkSlotTransition(tt.from, tt.to)
			if tt.legal {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, "Slot may not switch from state "+tt.from.String()+" to "+tt.to.String()+".")
			}
		})
	}
}

func TestIllegalSlotTransitionPanics(t *testing.T) {
	allocationID := api.NewAllocationID()
	slot := &taskManagerSlot{allocationID: allocationID}
	assert.PanicsWithValue(t, "slot "+allocationID.String()+": Slot may not switch from state FREE to FREE.", func() {
		slot.transitionTo(SlotFree)
	})
}

func TestSlotStateString(t *testing.T) {
	assert.Equal(t, "FREE", SlotFree.String())
	assert.Equal(t, "PENDING", SlotPending.String())
	assert.Equal(t, "ALLOCATED", SlotAllocated.String())
	assert.Equal(t, "SlotState(7)", SlotState(7).String())
}
