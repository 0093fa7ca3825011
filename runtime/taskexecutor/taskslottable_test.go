package taskexecutor

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// fakePayload stands in for a Task in the slot table's tests.
type fakePayload struct {
	jobID        api.JobID
	attemptID    api.ExecutionAttemptID
	allocationID api.AllocationID
}

func (p fakePayload) JobID() api.JobID                    { return p.jobID }
func (p fakePayload) ExecutionID() api.ExecutionAttemptID { return p.attemptID }
func (p fakePayload) AllocationID() api.AllocationID      { return p.allocationID }

func newAttemptID(subtask int) api.ExecutionAttemptID {
	return api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID(), SubtaskIndex: subtask},
	}
}

var slotProfile = api.ResourceProfileFromResources(1, 512)

// newTable returns a table of slots static slots, each of slotProfile,
// sharing a total of exactly that many slotProfiles.
func newTable(slots int) *TaskSlotTable[fakePayload] {
	return NewTaskSlotTable[fakePayload](slots, slotProfile.Multiply(slots), slotProfile, slog.New(slog.DiscardHandler))
}

func TestAllocateSlot(t *testing.T) {
	jobA, jobB := api.NewJobID(), api.NewJobID()
	alloc1, alloc2 := api.NewAllocationID(), api.NewAllocationID()

	// Each case starts from a table of 2 slots in which slot 0 holds alloc1
	// of jobA.
	tests := []struct {
		name    string
		index   int
		jobID   api.JobID
		alloc   api.AllocationID
		wantErr error
		wantMsg string
	}{
		{name: "a free slot", index: 1, jobID: jobB, alloc: alloc2},
		{name: "the same allocation again is idempotent", index: 0, jobID: jobA, alloc: alloc1},
		{name: "a slot allocated to another allocation", index: 0, jobID: jobB, alloc: alloc2,
			wantErr: gateway.ErrSlotOccupied, wantMsg: "The slot with index 0 is already assigned to another allocation with id " + alloc1.String() + "."},
		{name: "the same allocation for another slot", index: 1, jobID: jobA, alloc: alloc1,
			wantErr: gateway.ErrSlotAllocation, wantMsg: "Slot with allocationId " + alloc1.String() + " already exist"},
		{name: "an index out of range", index: 2, jobID: jobA, alloc: alloc2,
			wantErr: gateway.ErrSlotAllocation, wantMsg: "Could not allocate slot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := newTable(2)
			require.NoError(t, table.AllocateSlot(0, jobA, alloc1, api.UnknownResourceProfile))

			err := table.AllocateSlot(tt.index, tt.jobID, tt.alloc, api.UnknownResourceProfile)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				assert.ErrorContains(t, err, tt.wantMsg)
				return
			}
			require.NoError(t, err)
			assert.True(t, table.IsAllocated(tt.index, tt.jobID, tt.alloc))
			slot, ok := table.Slot(tt.alloc)
			require.True(t, ok)
			assert.Equal(t, SlotAllocated, slot.State)
			assert.Equal(t, slotProfile, slot.ResourceProfile, "an unknown profile takes the slot's default")
		})
	}
}

func TestSlotLifecycle(t *testing.T) {
	table := newTable(2)
	jobID, alloc := api.NewJobID(), api.NewAllocationID()
	require.NoError(t, table.AllocateSlot(1, jobID, alloc, api.UnknownResourceProfile))
	assert.Equal(t, 1, table.NumberOfFreeSlots())
	assert.Len(t, table.AllocatedSlots(jobID), 1, "allocated, so it will be offered")

	// A task cannot go into a slot its JobMaster has not accepted.
	task := fakePayload{jobID: jobID, attemptID: newAttemptID(0), allocationID: alloc}
	assert.ErrorIs(t, table.AddTask(task), gateway.ErrSlotNotActive)

	// The JobMaster accepts the offer.
	active, err := table.MarkSlotActive(alloc)
	require.NoError(t, err)
	assert.True(t, active)
	assert.Empty(t, table.AllocatedSlots(jobID), "an active slot is not offered again")
	assert.Equal(t, []api.AllocationID{alloc}, table.ActiveSlots(jobID))

	require.NoError(t, table.AddTask(task))
	assert.ErrorIs(t, table.AddTask(task), ErrDuplicateTask)
	assert.Equal(t, []fakePayload{task}, table.Tasks(alloc))
	assert.Equal(t, []fakePayload{task}, table.JobTasks(jobID))

	// Freeing a slot with a task leaves it RELEASING until the task is gone.
	_, err = table.FreeSlot(alloc)
	assert.ErrorIs(t, err, ErrSlotNotEmpty)
	slot, _ := table.Slot(alloc)
	assert.Equal(t, SlotReleasing, slot.State)
	assert.False(t, table.TryMarkSlotActive(jobID, alloc), "a releasing slot takes no more tasks")

	removed, ok := table.RemoveTask(task.attemptID)
	require.True(t, ok)
	assert.Equal(t, task, removed)
	index, err := table.FreeSlot(alloc)
	require.NoError(t, err)
	assert.Equal(t, 1, index)
	assert.True(t, table.IsSlotFree(1))
	assert.Equal(t, 2, table.NumberOfFreeSlots())
	assert.Empty(t, table.AllocationIDsPerJob(jobID))

	_, err = table.FreeSlot(alloc)
	assert.ErrorIs(t, err, gateway.ErrSlotNotFound)
	assert.ErrorContains(t, err, "Could not find slot for "+alloc.String()+".")
}

func TestTryMarkSlotActive(t *testing.T) {
	jobID, otherJob := api.NewJobID(), api.NewJobID()
	alloc := api.NewAllocationID()
	tests := []struct {
		name  string
		jobID api.JobID
		alloc api.AllocationID
		want  bool
	}{
		{"the job's allocation", jobID, alloc, true},
		{"another job", otherJob, alloc, false},
		{"an unknown allocation", jobID, api.NewAllocationID(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := newTable(1)
			require.NoError(t, table.AllocateSlot(0, jobID, alloc, api.UnknownResourceProfile))
			assert.Equal(t, tt.want, table.TryMarkSlotActive(tt.jobID, tt.alloc))
		})
	}
}

func TestMarkSlotInactive(t *testing.T) {
	table := newTable(1)
	jobID, alloc := api.NewJobID(), api.NewAllocationID()
	require.NoError(t, table.AllocateSlot(0, jobID, alloc, api.UnknownResourceProfile))
	require.True(t, table.TryMarkSlotActive(jobID, alloc))

	inactive, err := table.MarkSlotInactive(alloc)
	require.NoError(t, err)
	assert.True(t, inactive)
	assert.Len(t, table.AllocatedSlots(jobID), 1, "an inactive slot is offered again")

	_, err = table.MarkSlotInactive(api.NewAllocationID())
	assert.ErrorIs(t, err, gateway.ErrSlotNotFound)
}

func TestCreateSlotReport(t *testing.T) {
	table := newTable(2)
	jobID, alloc := api.NewJobID(), api.NewAllocationID()
	profile := api.ResourceProfileFromResources(0.5, 256)
	require.NoError(t, table.AllocateSlot(1, jobID, alloc, profile))

	got := table.CreateSlotReport("tm-1")
	want := gateway.SlotReport{
		{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 0}, ResourceProfile: slotProfile},
		{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 1}, ResourceProfile: profile, AllocationID: alloc, JobID: jobID},
	}
	assert.Equal(t, want, got)
}

func TestSlotTransitions(t *testing.T) {
	// Every pair of states; the legal ones are the arrows of the diagram on
	// TaskSlotState. Freeing a slot is no move: it leaves the table.
	legal := map[[2]TaskSlotState]bool{
		{SlotAllocated, SlotActive}:    true,
		{SlotAllocated, SlotReleasing}: true,
		{SlotActive, SlotAllocated}:    true,
		{SlotActive, SlotReleasing}:    true,
	}
	all := []TaskSlotState{SlotAllocated, SlotActive, SlotReleasing}
	for _, from := range all {
		for _, to := range all {
			want := legal[[2]TaskSlotState{from, to}]
			t.Run(from.String()+"→"+to.String(), func(t *testing.T) {
				assert.Equal(t, want, from.CanTransitionTo(to))

				slot := &taskSlot[fakePayload]{index: 3, state: from}
				if !want {
					assert.PanicsWithValue(t,
						"taskexecutor: illegal transition of slot 3 from "+from.String()+" to "+to.String(),
						func() { slot.transitionTo(to) })
					assert.Equal(t, from, slot.state, "an illegal move changes nothing")
					return
				}
				slot.transitionTo(to)
				assert.Equal(t, to, slot.state)
			})
		}
	}
}

// A free slot is no entry in the table: nothing is allocated at a free
// index, and freeing a slot takes it out of the table again.
func TestAFreeSlotIsNotInTheTable(t *testing.T) {
	table := newTable(2)
	assert.Empty(t, table.Slots())
	assert.True(t, table.IsSlotFree(0))
	assert.True(t, table.IsSlotFree(1))
	assert.True(t, table.IsSlotFree(2), "no dynamic slot holds index 2 yet")

	jobID, alloc := api.NewJobID(), api.NewAllocationID()
	require.NoError(t, table.AllocateSlot(0, jobID, alloc, api.UnknownResourceProfile))
	assert.False(t, table.IsSlotFree(0))
	assert.Equal(t, []TaskSlot{{Index: 0, State: SlotAllocated, ResourceProfile: slotProfile, JobID: jobID, AllocationID: alloc}},
		table.Slots())

	_, err := table.FreeSlot(alloc)
	require.NoError(t, err)
	assert.True(t, table.IsSlotFree(0))
	assert.Empty(t, table.Slots())
}

// An allocation with a negative index gets a dynamic slot: the next index
// from the number of static slots up, with the profile it asks for, cut
// out of what the static and dynamic slots before it left of the total.
func TestDynamicSlotsAreCarvedOutOfTheRemainingBudget(t *testing.T) {
	var logs bytes.Buffer
	total := api.ResourceProfileFromResources(4, 2048)
	half := api.ResourceProfileFromResources(2, 1024)
	quarter := api.ResourceProfileFromResources(1, 512)
	table := NewTaskSlotTable[fakePayload](2, total, half, slog.New(slog.NewTextHandler(&logs, nil)))
	jobID := api.NewJobID()

	static, dynamic1, dynamic2, tooLarge := api.NewAllocationID(), api.NewAllocationID(), api.NewAllocationID(), api.NewAllocationID()
	require.NoError(t, table.AllocateSlot(0, jobID, static, api.UnknownResourceProfile))
	require.NoError(t, table.AllocateSlot(-1, jobID, dynamic1, quarter))
	require.NoError(t, table.AllocateSlot(-1, jobID, dynamic2, quarter))
	assert.Contains(t, logs.String(), "Allocated slot for "+dynamic1.String()+" with resources "+quarter.String()+".")

	slot, ok := table.Slot(dynamic1)
	require.True(t, ok)
	assert.Equal(t, 2, slot.Index, "the first dynamic slot comes after the two static ones")
	slot, _ = table.Slot(dynamic2)
	assert.Equal(t, 3, slot.Index)
	assert.Equal(t, 1, table.NumberOfFreeSlots(), "static slot 1 is free, though the budget is spent")

	err := table.AllocateSlot(-1, jobID, tooLarge, quarter)
	assert.ErrorIs(t, err, gateway.ErrSlotAllocation)
	assert.ErrorContains(t, err, "Cannot allocate the requested resources. Trying to allocate "+quarter.String()+
		", while the currently remaining available resources are "+api.ZeroResourceProfile.String()+", total is "+total.String()+".")
	err = table.AllocateSlot(1, jobID, tooLarge, api.UnknownResourceProfile)
	assert.ErrorIs(t, err, gateway.ErrSlotAllocation, "a static slot takes its share of the budget too")

	// Freeing a dynamic slot gives its resources back, and its index.
	index, err := table.FreeSlot(dynamic1)
	require.NoError(t, err)
	assert.Equal(t, 2, index)
	require.NoError(t, table.AllocateSlot(-1, jobID, tooLarge, quarter))
	slot, _ = table.Slot(tooLarge)
	assert.Equal(t, 2, slot.Index, "the lowest free dynamic index")

	// The report lists every static index, then the dynamic slots.
	report := table.CreateSlotReport("tm-1")
	want := gateway.SlotReport{
		{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 0}, ResourceProfile: half, AllocationID: static, JobID: jobID},
		{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 1}, ResourceProfile: half},
		{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 2}, ResourceProfile: quarter, AllocationID: tooLarge, JobID: jobID},
		{SlotID: api.SlotID{ResourceID: "tm-1", SlotNumber: 3}, ResourceProfile: quarter, AllocationID: dynamic2, JobID: jobID},
	}
	assert.Equal(t, want, report)
}

func TestTaskSlotTableLogsAsTaskSlotTableImpl(t *testing.T) {
	var logs bytes.Buffer
	table := NewTaskSlotTable[fakePayload](1, slotProfile, slotProfile, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, table.AllocateSlot(0, api.NewJobID(), api.NewAllocationID(), api.UnknownResourceProfile))

	assert.Contains(t, logs.String(), "logger=TaskSlotTableImpl", "Flink's class name")
}
