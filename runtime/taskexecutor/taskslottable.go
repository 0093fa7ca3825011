package taskexecutor

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// TaskSlotState is the state of one allocated slot in a TaskSlotTable
// (Flink's TaskSlotState). A free slot has no state: it is not in the
// table at all (TaskSlotTable.IsSlotFree).
//
//	(free) ─AllocateSlot─► ALLOCATED ─MarkSlotActive─► ACTIVE
//	                         ▲  │                        │
//	                         │  └───────FreeSlot─────────┤ (no tasks left: free;
//	                         └────MarkSlotInactive───────┘  tasks left: RELEASING)
//	RELEASING ─last task removed, FreeSlot again─► (free)
//
// ALLOCATED means the ResourceManager gave the slot to a job, which has not
// accepted it yet; ACTIVE means the job's JobMaster accepted the offer and
// may deploy tasks into it; RELEASING means the slot is being freed and
// waits for its last task to be removed.
//
// These moves between states, and no others, are legal (CanTransitionTo);
// a slot changes state only through taskSlot.transitionTo, which panics on
// any other move. Leaving the table is not a move between states: a slot
// in any state is freed once it holds no task.
//
//	ALLOCATED → ACTIVE, RELEASING
//	ACTIVE    → ALLOCATED, RELEASING
type TaskSlotState int

// The slot states. The zero value is none of them.
const (
	SlotAllocated TaskSlotState = iota + 1
	SlotActive
	SlotReleasing
)

func (s TaskSlotState) String() string {
	switch s {
	case SlotAllocated:
		return "ALLOCATED"
	case SlotActive:
		return "ACTIVE"
	case SlotReleasing:
		return "RELEASING"
	}
	return fmt.Sprintf("TaskSlotState(%d)", int(s))
}

// CanTransitionTo reports whether a slot may move from s to next: whether
// the move is an arrow of the diagram above. Staying in the same state is
// not a move.
func (s TaskSlotState) CanTransitionTo(next TaskSlotState) bool {
	switch s {
	case SlotAllocated:
		return next == SlotActive || next == SlotReleasing
	case SlotActive:
		return next == SlotAllocated || next == SlotReleasing
	}
	return false
}

// Errors of the TaskSlotTable that stay inside the TaskExecutor. The ones
// RequestSlot and SubmitTask answer with (gateway.ErrSlotAllocation,
// gateway.ErrSlotOccupied, gateway.ErrSlotNotFound,
// gateway.ErrSlotNotActive) are declared next to the TaskExecutorGateway.
// Each is wrapped with Flink's message; test with errors.Is.
var (
	// ErrSlotNotEmpty: FreeSlot found tasks in the slot. The slot is now
	// RELEASING; free it again once its last task is removed.
	ErrSlotNotEmpty = errors.New("slot still has tasks")
	// ErrDuplicateTask: the slot already holds a task of that attempt.
	ErrDuplicateTask = errors.New("duplicate task")
)

// TaskSlotPayload is what a TaskSlotTable holds in its slots: a task
// (Flink's TaskSlotPayload, implemented by Task).
type TaskSlotPayload interface {
	JobID() api.JobID
	ExecutionID() api.ExecutionAttemptID
	AllocationID() api.AllocationID
}

// TaskSlot is a snapshot of one allocated slot of a TaskSlotTable.
type TaskSlot struct {
	Index           int
	State           TaskSlotState
	ResourceProfile api.ResourceProfile
	JobID           api.JobID
	AllocationID    api.AllocationID
	NumberOfTasks   int
}

func (s TaskSlot) String() string {
	return fmt.Sprintf("TaskSlot(index:%d, state:%s, resource profile: %s, allocationId: %s, jobId: %s)",
		s.Index, s.State, s.ResourceProfile, s.AllocationID, s.JobID)
}

// taskSlot is one allocated slot of the table.
type taskSlot[T TaskSlotPayload] struct {
	index        int
	state        TaskSlotState
	profile      api.ResourceProfile
	jobID        api.JobID
	allocationID api.AllocationID
	tasks        map[api.ExecutionAttemptID]T
}

// transitionTo moves the slot to next. A move that is not in the diagram of
// TaskSlotState is a bug in the table, so it panics.
func (s *taskSlot[T]) transitionTo(next TaskSlotState) {
	if !s.state.CanTransitionTo(next) {
		panic(fmt.Sprintf("taskexecutor: illegal transition of slot %d from %s to %s", s.index, s.state, next))
	}
	s.state = next
}

func (s *taskSlot[T]) snapshot() TaskSlot {
	return TaskSlot{Index: s.index, State: s.state, ResourceProfile: s.profile,
		JobID: s.jobID, AllocationID: s.allocationID, NumberOfTasks: len(s.tasks)}
}

// resourceBudget is Flink's ResourceBudgetManager: what is left of the
// TaskManager's total once every allocated slot has taken its profile.
type resourceBudget struct {
	total, available api.ResourceProfile
}

// reserve takes profile out of the budget, if every dimension of what is
// available is at least as large.
func (b *resourceBudget) reserve(profile api.ResourceProfile) bool {
	if !b.available.AllFieldsNoLessThan(profile) {
		return false
	}
	b.available = b.available.Subtract(profile)
	return true
}

// release gives profile back to the budget.
func (b *resourceBudget) release(profile api.ResourceProfile) {
	b.available = b.available.Merge(profile)
}

// TaskSlotTable is the TaskExecutor's book of its slots: which slot is
// allocated to which job under which AllocationID, whether the job has
// accepted it, and which tasks run in it (Flink's TaskSlotTableImpl).
//
// A TaskManager has numberSlots static slots, indexes 0 to numberSlots-1,
// each offering the default slot profile (the total divided by
// numberSlots). Only allocated slots are in the table: a static slot
// nobody holds is free (IsSlotFree). An allocation with a negative index
// asks for a dynamic slot: it gets the next index from numberSlots up and
// the profile it asks for. Every slot, static or dynamic, is carved out
// of the TaskManager's total (Flink's ResourceBudgetManager); an
// allocation that does not fit in what is left is refused.
//
// It is a plain data structure: no goroutines, no clock, no I/O but logging.
// The TaskExecutor calls it only on its main thread. T is the task type
// (*taskmanager.Task in the TaskExecutor).
//
// Differs from Flink: there is no slot timeout (taskmanager.slot.timeout)
// in the table itself; the TaskExecutor keeps it.
type TaskSlotTable[T TaskSlotPayload] struct {
	numberSlots        int
	defaultSlotProfile api.ResourceProfile
	budget             resourceBudget
	taskSlots          map[int]*taskSlot[T]                    // by index: the allocated slots
	allocatedSlots     map[api.AllocationID]*taskSlot[T]       // the same slots, by allocation
	slotsOfTasks       map[api.ExecutionAttemptID]*taskSlot[T] // the slot of each task
	logger             *slog.Logger
}

// NewTaskSlotTable returns a table of numberSlots free static slots, each
// offering defaultSlotProfile, sharing totalProfile (Flink:
// TaskManagerServices#createTaskSlotTable, from the TaskManager's
// TaskExecutorResourceSpec). An unknown totalProfile puts no bound on the
// slots (api.AnyResourceProfile). A nil logger means slog.Default().
func NewTaskSlotTable[T TaskSlotPayload](numberSlots int, totalProfile, defaultSlotProfile api.ResourceProfile, logger *slog.Logger) *TaskSlotTable[T] {
	if logger == nil {
		logger = slog.Default()
	}
	if totalProfile.IsUnknown() {
		totalProfile = api.AnyResourceProfile // no bound: a TaskManager that was not told its resources
	}
	return &TaskSlotTable[T]{
		numberSlots:        numberSlots,
		defaultSlotProfile: defaultSlotProfile,
		budget:             resourceBudget{total: totalProfile, available: totalProfile},
		taskSlots:          make(map[int]*taskSlot[T]),
		allocatedSlots:     make(map[api.AllocationID]*taskSlot[T]),
		slotsOfTasks:       make(map[api.ExecutionAttemptID]*taskSlot[T]),
		logger:             logger.With("logger", "TaskSlotTableImpl"),
	}
}

// NumberOfSlots returns how many static slots the table has.
func (t *TaskSlotTable[T]) NumberOfSlots() int { return t.numberSlots }

// AllocateSlot allocates a slot to a job under allocationID: the static
// slot at index, or, if index is negative, a new dynamic slot. An unknown
// profile takes the default slot profile. Allocating the same allocation
// to the same job and profile again, at the same static index or as a
// dynamic slot, succeeds and changes nothing, so a repeated RequestSlot is
// harmless (Flink's isDuplicatedSlot).
//
// Step m7: the ResourceManager's requestSlot arrives here; the TaskExecutor
// cuts the slot it asks for out of its budget, ALLOCATED to the job, to be
// offered to the job's JobMaster (m8).
func (t *TaskSlotTable[T]) AllocateSlot(index int, jobID api.JobID, allocationID api.AllocationID, profile api.ResourceProfile) error {
	if index >= t.numberSlots {
		return fmt.Errorf("%w: Could not allocate slot: the slot index %d is not below the number of slots %d.",
			gateway.ErrSlotAllocation, index, t.numberSlots)
	}
	if index < 0 {
		index = t.nextDynamicSlotIndex()
	}
	if profile.IsUnknown() {
		profile = t.defaultSlotProfile
	}
	if existing, ok := t.allocatedSlots[allocationID]; ok {
		if existing.jobID == jobID && existing.profile == profile && (index >= t.numberSlots || existing.index == index) {
			return nil // a duplicate request: a dynamic one has a new index, but is the same
		}
		return fmt.Errorf("%w: Slot with allocationId %s already exist, with resource profile %s, job id %s and index %d. The required index is %d.",
			gateway.ErrSlotAllocation, allocationID, existing.profile, existing.jobID, existing.index, index)
	}
	if taken, ok := t.taskSlots[index]; ok {
		return fmt.Errorf("%w: The slot with index %d is already assigned to another allocation with id %s.",
			gateway.ErrSlotOccupied, index, taken.allocationID)
	}
	if !t.budget.reserve(profile) {
		return fmt.Errorf("%w: Cannot allocate the requested resources. Trying to allocate %s, while the currently remaining available resources are %s, total is %s.",
			gateway.ErrSlotAllocation, profile, t.budget.available, t.budget.total)
	}
	t.logger.Info(fmt.Sprintf("Allocated slot for %s with resources %s.", allocationID, profile))
	slot := &taskSlot[T]{index: index, state: SlotAllocated, profile: profile, jobID: jobID,
		allocationID: allocationID, tasks: make(map[api.ExecutionAttemptID]T)}
	t.taskSlots[index] = slot
	t.allocatedSlots[allocationID] = slot
	return nil
}

// nextDynamicSlotIndex returns the lowest index from numberSlots up that
// no slot holds.
func (t *TaskSlotTable[T]) nextDynamicSlotIndex() int {
	index := t.numberSlots
	for t.taskSlots[index] != nil {
		index++
	}
	return index
}

// IsSlotFree reports whether no slot holds index (Flink:
// !taskSlots.containsKey(index)). Every index from NumberOfSlots up is
// free until a dynamic slot takes it.
func (t *TaskSlotTable[T]) IsSlotFree(index int) bool {
	_, taken := t.taskSlots[index]
	return !taken
}

// IsAllocated reports whether the slot at index holds allocationID of
// jobID (in any state).
func (t *TaskSlotTable[T]) IsAllocated(index int, jobID api.JobID, allocationID api.AllocationID) bool {
	slot, ok := t.allocatedSlots[allocationID]
	return ok && slot.index == index && slot.jobID == jobID
}

// OwningJob returns the job an allocation belongs to.
func (t *TaskSlotTable[T]) OwningJob(allocationID api.AllocationID) (api.JobID, bool) {
	slot, ok := t.allocatedSlots[allocationID]
	if !ok {
		return api.JobID{}, false
	}
	return slot.jobID, true
}

// Slot returns a snapshot of the slot holding allocationID.
func (t *TaskSlotTable[T]) Slot(allocationID api.AllocationID) (TaskSlot, bool) {
	slot, ok := t.allocatedSlots[allocationID]
	if !ok {
		return TaskSlot{}, false
	}
	return slot.snapshot(), true
}

// Slots returns a snapshot of every allocated slot, static and dynamic,
// by index. Free slots are not in it.
func (t *TaskSlotTable[T]) Slots() []TaskSlot {
	out := make([]TaskSlot, 0, len(t.taskSlots))
	for _, slot := range t.slotsByIndex() {
		out = append(out, slot.snapshot())
	}
	return out
}

// NumberOfFreeSlots returns how many static slots are free.
func (t *TaskSlotTable[T]) NumberOfFreeSlots() int {
	n := 0
	for i := range t.numberSlots {
		if t.IsSlotFree(i) {
			n++
		}
	}
	return n
}

// MarkSlotActive marks the slot of allocationID ACTIVE: its job accepted
// the offer. It reports false if the slot is RELEASING.
func (t *TaskSlotTable[T]) MarkSlotActive(allocationID api.AllocationID) (bool, error) {
	slot, ok := t.allocatedSlots[allocationID]
	if !ok {
		return false, slotNotFound(allocationID)
	}
	if slot.state != SlotAllocated && slot.state != SlotActive {
		return false, nil
	}
	if slot.state == SlotAllocated {
		t.logger.Info(fmt.Sprintf("Activate slot %s.", allocationID))
		slot.transitionTo(SlotActive)
	}
	return true, nil
}

// TryMarkSlotActive marks the slot of allocationID ACTIVE if it belongs to
// jobID and is ALLOCATED or ACTIVE; SubmitTask uses it to check that a task
// is deployed into a slot its job holds.
func (t *TaskSlotTable[T]) TryMarkSlotActive(jobID api.JobID, allocationID api.AllocationID) bool {
	slot, ok := t.allocatedSlots[allocationID]
	if !ok || slot.jobID != jobID {
		return false
	}
	active, _ := t.MarkSlotActive(allocationID)
	return active
}

// IsAllocatedToJob reports whether TryMarkSlotActive would succeed: the
// slot of allocationID belongs to jobID and is ALLOCATED or ACTIVE. It
// changes nothing.
func (t *TaskSlotTable[T]) IsAllocatedToJob(jobID api.JobID, allocationID api.AllocationID) bool {
	slot, ok := t.allocatedSlots[allocationID]
	return ok && slot.jobID == jobID && (slot.state == SlotAllocated || slot.state == SlotActive)
}

// MarkSlotInactive moves an ACTIVE slot back to ALLOCATED, for example
// when its JobManager is gone, so that it can be offered again. It reports
// false if the slot is RELEASING.
func (t *TaskSlotTable[T]) MarkSlotInactive(allocationID api.AllocationID) (bool, error) {
	slot, ok := t.allocatedSlots[allocationID]
	if !ok {
		return false, slotNotFound(allocationID)
	}
	if slot.state != SlotAllocated && slot.state != SlotActive {
		return false, nil
	}
	if slot.state == SlotActive {
		slot.transitionTo(SlotAllocated)
	}
	return true, nil
}

// FreeSlot frees the slot of allocationID and returns its index: the slot
// leaves the table and its resources go back to the budget. A slot that
// still has tasks is not freed: it becomes RELEASING and FreeSlot returns
// an error wrapping ErrSlotNotEmpty. The caller fails the tasks and frees
// the slot again when the last one is removed.
func (t *TaskSlotTable[T]) FreeSlot(allocationID api.AllocationID) (int, error) {
	slot, ok := t.allocatedSlots[allocationID]
	if !ok {
		return -1, slotNotFound(allocationID)
	}
	t.logger.Info(fmt.Sprintf("Free slot %s.", slot.snapshot()))
	if len(slot.tasks) > 0 {
		if slot.state != SlotReleasing {
			slot.transitionTo(SlotReleasing)
		}
		return -1, fmt.Errorf("%w: slot %d of allocation %s has %d task(s)", ErrSlotNotEmpty, slot.index, allocationID, len(slot.tasks))
	}
	delete(t.allocatedSlots, allocationID)
	delete(t.taskSlots, slot.index)
	t.budget.release(slot.profile)
	return slot.index, nil
}

// AddTask puts a task into the slot of its allocation, which must be
// ACTIVE for the task's job.
func (t *TaskSlotTable[T]) AddTask(task T) error {
	slot, ok := t.allocatedSlots[task.AllocationID()]
	if !ok {
		return slotNotFound(task.AllocationID())
	}
	if slot.state != SlotActive || slot.jobID != task.JobID() {
		return fmt.Errorf("%w: No active slot for job %s and allocation ID %s.", gateway.ErrSlotNotActive, task.JobID(), task.AllocationID())
	}
	if _, dup := t.slotsOfTasks[task.ExecutionID()]; dup {
		return fmt.Errorf("%w: TaskManager already contains a task for id %s.", ErrDuplicateTask, task.ExecutionID())
	}
	slot.tasks[task.ExecutionID()] = task
	t.slotsOfTasks[task.ExecutionID()] = slot
	return nil
}

// RemoveTask takes a task out of its slot and returns it. If that slot is
// RELEASING and now empty, the caller should free it.
func (t *TaskSlotTable[T]) RemoveTask(attemptID api.ExecutionAttemptID) (T, bool) {
	slot, ok := t.slotsOfTasks[attemptID]
	if !ok {
		var zero T
		return zero, false
	}
	task := slot.tasks[attemptID]
	delete(slot.tasks, attemptID)
	delete(t.slotsOfTasks, attemptID)
	return task, true
}

// Task returns the task of an attempt.
func (t *TaskSlotTable[T]) Task(attemptID api.ExecutionAttemptID) (T, bool) {
	slot, ok := t.slotsOfTasks[attemptID]
	if !ok {
		var zero T
		return zero, false
	}
	return slot.tasks[attemptID], true
}

// Tasks returns the tasks in the slot of allocationID.
func (t *TaskSlotTable[T]) Tasks(allocationID api.AllocationID) []T {
	slot, ok := t.allocatedSlots[allocationID]
	if !ok {
		return nil
	}
	return sortedTasks(slot.tasks)
}

// JobTasks returns the tasks of a job, in all its slots.
func (t *TaskSlotTable[T]) JobTasks(jobID api.JobID) []T {
	var out []T
	for _, slot := range t.slotsByIndex() {
		if slot.jobID == jobID {
			out = append(out, sortedTasks(slot.tasks)...)
		}
	}
	return out
}

// AllTasks returns every task in the table.
func (t *TaskSlotTable[T]) AllTasks() []T {
	var out []T
	for _, slot := range t.slotsByIndex() {
		out = append(out, sortedTasks(slot.tasks)...)
	}
	return out
}

// AllocatedSlots returns the job's slots that are ALLOCATED: reserved for
// it but not yet accepted by its JobMaster. These are what the TaskExecutor
// offers.
func (t *TaskSlotTable[T]) AllocatedSlots(jobID api.JobID) []TaskSlot {
	return t.jobSlots(jobID, func(s TaskSlotState) bool { return s == SlotAllocated })
}

// ActiveSlots returns the allocations of the job's ACTIVE slots.
func (t *TaskSlotTable[T]) ActiveSlots(jobID api.JobID) []api.AllocationID {
	var out []api.AllocationID
	for _, slot := range t.jobSlots(jobID, func(s TaskSlotState) bool { return s == SlotActive }) {
		out = append(out, slot.AllocationID)
	}
	return out
}

// AllocationIDsPerJob returns the allocations the job holds, in any state.
func (t *TaskSlotTable[T]) AllocationIDsPerJob(jobID api.JobID) []api.AllocationID {
	var out []api.AllocationID
	for _, slot := range t.jobSlots(jobID, func(TaskSlotState) bool { return true }) {
		out = append(out, slot.AllocationID)
	}
	return out
}

func (t *TaskSlotTable[T]) jobSlots(jobID api.JobID, keep func(TaskSlotState) bool) []TaskSlot {
	var out []TaskSlot
	for _, slot := range t.slotsByIndex() {
		if slot.jobID == jobID && keep(slot.state) {
			out = append(out, slot.snapshot())
		}
	}
	return out
}

// slotsByIndex returns the allocated slots ordered by index, so that
// callers act on them in a repeatable order.
func (t *TaskSlotTable[T]) slotsByIndex() []*taskSlot[T] {
	out := make([]*taskSlot[T], 0, len(t.taskSlots))
	for _, slot := range t.taskSlots {
		out = append(out, slot)
	}
	slices.SortFunc(out, func(a, b *taskSlot[T]) int { return cmp.Compare(a.index, b.index) })
	return out
}

// CreateSlotReport describes the slots for the ResourceManager (Flink's
// TaskSlotTableImpl#createSlotReport): every static index, a free one
// with the default slot profile and no allocation or job, then every
// allocated dynamic slot.
func (t *TaskSlotTable[T]) CreateSlotReport(resourceID api.ResourceID) gateway.SlotReport {
	report := make(gateway.SlotReport, 0, t.numberSlots)
	for i := range t.numberSlots {
		status := gateway.SlotStatus{
			SlotID:          api.SlotID{ResourceID: resourceID, SlotNumber: i},
			ResourceProfile: t.defaultSlotProfile,
		}
		if slot, ok := t.taskSlots[i]; ok {
			status.ResourceProfile, status.AllocationID, status.JobID = slot.profile, slot.allocationID, slot.jobID
		}
		report = append(report, status)
	}
	for _, slot := range t.slotsByIndex() {
		if slot.index >= t.numberSlots {
			report = append(report, gateway.SlotStatus{
				SlotID:          api.SlotID{ResourceID: resourceID, SlotNumber: slot.index},
				ResourceProfile: slot.profile,
				AllocationID:    slot.allocationID,
				JobID:           slot.jobID,
			})
		}
	}
	return report
}

func slotNotFound(allocationID api.AllocationID) error {
	return fmt.Errorf("%w: Could not find slot for %s.", gateway.ErrSlotNotFound, allocationID)
}

// sortedTasks returns the tasks ordered by attempt, so that callers act on
// them in a repeatable order.
func sortedTasks[T TaskSlotPayload](tasks map[api.ExecutionAttemptID]T) []T {
	out := make([]T, 0, len(tasks))
	for _, task := range tasks {
		out = append(out, task)
	}
	slices.SortFunc(out, func(a, b T) int {
		return cmp.Compare(a.ExecutionID().String(), b.ExecutionID().String())
	})
	return out
}

// GoString is String: %#v, and so testify's messages, print the state by
// its name, not by its number.
func (s TaskSlotState) GoString() string { return s.String() }
