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

// TaskSlotState is the state of one slot in a TaskSlotTable (Flink's
// TaskSlotState, plus FREE for a slot that holds no allocation, which Flink
// expresses by the slot's absence from the table):
//
//	FREE ─AllocateSlot─► ALLOCATED ─MarkSlotActive─► ACTIVE
//	                        ▲  │                       │
//	                        │  └───────FreeSlot────────┤ (no tasks left: FREE;
//	                        └────MarkSlotInactive──────┘  tasks left: RELEASING)
//	RELEASING ─last task removed, FreeSlot again─► FREE
//
// ALLOCATED means the ResourceManager gave the slot to a job, which has not
// accepted it yet; ACTIVE means the job's JobMaster accepted the offer and
// may deploy tasks into it.
//
// These moves, and no others, are legal (CanTransitionTo); a slot changes
// state only through taskSlot.transitionTo, which panics on any other move:
//
//	FREE      → ALLOCATED
//	ALLOCATED → ACTIVE, RELEASING, FREE
//	ACTIVE    → ALLOCATED, RELEASING, FREE
//	RELEASING → FREE
type TaskSlotState int

// The slot states.
const (
	SlotFree TaskSlotState = iota
	SlotAllocated
	SlotActive
	SlotReleasing
)

func (s TaskSlotState) String() string {
	switch s {
	case SlotFree:
		return "FREE"
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
	case SlotFree:
		return next == SlotAllocated
	case SlotAllocated:
		return next == SlotActive || next == SlotReleasing || next == SlotFree
	case SlotActive:
		return next == SlotAllocated || next == SlotReleasing || next == SlotFree
	case SlotReleasing:
		return next == SlotFree
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

// TaskSlot is a snapshot of one slot of a TaskSlotTable.
type TaskSlot struct {
	Index           int
	State           TaskSlotState
	ResourceProfile api.ResourceProfile
	JobID           api.JobID        // zero when FREE
	AllocationID    api.AllocationID // zero when FREE
	NumberOfTasks   int
}

func (s TaskSlot) String() string {
	return fmt.Sprintf("TaskSlot(index:%d, state:%s, resource profile: %s, allocationId: %s, jobId: %s)",
		s.Index, s.State, s.ResourceProfile, s.AllocationID, s.JobID)
}

// taskSlot is one slot of the table.
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

// TaskSlotTable is the TaskExecutor's book of its slots: which slot is
// allocated to which job under which AllocationID, whether the job has
// accepted it, and which tasks run in it (Flink's TaskSlotTableImpl).
//
// It is a plain data structure: no goroutines, no clock, no I/O but logging.
// The TaskExecutor calls it only on its main thread. T is the task type
// (*taskmanager.Task in the TaskExecutor).
//
// Differs from Flink: there are only static slots (an index per slot, no
// dynamic slots carved out of a resource budget), and no slot timeout
// (taskmanager.slot.timeout) that frees a slot left inactive.
type TaskSlotTable[T TaskSlotPayload] struct {
	defaultProfile api.ResourceProfile
	slots          []*taskSlot[T]
	byAllocation   map[api.AllocationID]*taskSlot[T]
	taskSlots      map[api.ExecutionAttemptID]*taskSlot[T]
	logger         *slog.Logger
}

// NewTaskSlotTable returns a table of numberOfSlots FREE slots, each
// offering defaultProfile. A nil logger means slog.Default().
func NewTaskSlotTable[T TaskSlotPayload](numberOfSlots int, defaultProfile api.ResourceProfile, logger *slog.Logger) *TaskSlotTable[T] {
	if logger == nil {
		logger = slog.Default()
	}
	t := &TaskSlotTable[T]{
		defaultProfile: defaultProfile,
		slots:          make([]*taskSlot[T], numberOfSlots),
		byAllocation:   make(map[api.AllocationID]*taskSlot[T]),
		taskSlots:      make(map[api.ExecutionAttemptID]*taskSlot[T]),
		logger:         logger.With("logger", "TaskSlotTableImpl"),
	}
	for i := range t.slots {
		t.slots[i] = &taskSlot[T]{index: i, state: SlotFree, profile: defaultProfile}
	}
	return t
}

// NumberOfSlots returns how many slots the table has.
func (t *TaskSlotTable[T]) NumberOfSlots() int { return len(t.slots) }

// AllocateSlot allocates the slot at index to a job under allocationID.
// Allocating the same allocation to the same job and slot again succeeds
// and changes nothing, so a repeated RequestSlot is harmless. An unknown
// profile takes the table's default.
func (t *TaskSlotTable[T]) AllocateSlot(index int, jobID api.JobID, allocationID api.AllocationID, profile api.ResourceProfile) error {
	if index < 0 || index >= len(t.slots) {
		return fmt.Errorf("%w: Could not allocate slot: the slot index %d is not in [0, %d).", gateway.ErrSlotAllocation, index, len(t.slots))
	}
	if profile.IsUnknown() {
		profile = t.defaultProfile
	}
	if existing, ok := t.byAllocation[allocationID]; ok {
		if existing.jobID == jobID && existing.index == index {
			return nil // a duplicate request
		}
		return fmt.Errorf("%w: Slot with allocationId %s already exist, with resource profile %s, job id %s and index %d. The required index is %d.",
			gateway.ErrSlotAllocation, allocationID, existing.profile, existing.jobID, existing.index, index)
	}
	slot := t.slots[index]
	if slot.state != SlotFree {
		return fmt.Errorf("%w: The slot %d has already been allocated for a different job.", gateway.ErrSlotOccupied, index)
	}
	slot.transitionTo(SlotAllocated)
	slot.jobID = jobID
	slot.allocationID = allocationID
	slot.profile = profile
	slot.tasks = make(map[api.ExecutionAttemptID]T)
	t.byAllocation[allocationID] = slot
	t.logger.Info(fmt.Sprintf("Allocated slot for %s with resources %s.", allocationID, profile))
	return nil
}

// IsSlotFree reports whether the slot at index is FREE.
func (t *TaskSlotTable[T]) IsSlotFree(index int) bool {
	return index >= 0 && index < len(t.slots) && t.slots[index].state == SlotFree
}

// IsAllocated reports whether the slot at index holds allocationID of
// jobID (in any state but FREE).
func (t *TaskSlotTable[T]) IsAllocated(index int, jobID api.JobID, allocationID api.AllocationID) bool {
	slot, ok := t.byAllocation[allocationID]
	return ok && slot.index == index && slot.jobID == jobID
}

// OwningJob returns the job an allocation belongs to.
func (t *TaskSlotTable[T]) OwningJob(allocationID api.AllocationID) (api.JobID, bool) {
	slot, ok := t.byAllocation[allocationID]
	if !ok {
		return api.JobID{}, false
	}
	return slot.jobID, true
}

// Slot returns a snapshot of the slot holding allocationID.
func (t *TaskSlotTable[T]) Slot(allocationID api.AllocationID) (TaskSlot, bool) {
	slot, ok := t.byAllocation[allocationID]
	if !ok {
		return TaskSlot{}, false
	}
	return slot.snapshot(), true
}

// Slots returns a snapshot of every slot, by index.
func (t *TaskSlotTable[T]) Slots() []TaskSlot {
	out := make([]TaskSlot, len(t.slots))
	for i, slot := range t.slots {
		out[i] = slot.snapshot()
	}
	return out
}

// NumberOfFreeSlots returns how many slots are FREE.
func (t *TaskSlotTable[T]) NumberOfFreeSlots() int {
	n := 0
	for _, slot := range t.slots {
		if slot.state == SlotFree {
			n++
		}
	}
	return n
}

// MarkSlotActive marks the slot of allocationID ACTIVE: its job accepted
// the offer. It reports false if the slot is RELEASING.
func (t *TaskSlotTable[T]) MarkSlotActive(allocationID api.AllocationID) (bool, error) {
	slot, ok := t.byAllocation[allocationID]
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
	slot, ok := t.byAllocation[allocationID]
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
	slot, ok := t.byAllocation[allocationID]
	return ok && slot.jobID == jobID && (slot.state == SlotAllocated || slot.state == SlotActive)
}

// MarkSlotInactive moves an ACTIVE slot back to ALLOCATED, for example
// when its JobManager is gone, so that it can be offered again. It reports
// false if the slot is RELEASING.
func (t *TaskSlotTable[T]) MarkSlotInactive(allocationID api.AllocationID) (bool, error) {
	slot, ok := t.byAllocation[allocationID]
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

// FreeSlot frees the slot of allocationID and returns its index. A slot
// that still has tasks is not freed: it becomes RELEASING and FreeSlot
// returns an error wrapping ErrSlotNotEmpty. The caller fails the tasks and
// frees the slot again when the last one is removed.
func (t *TaskSlotTable[T]) FreeSlot(allocationID api.AllocationID) (int, error) {
	slot, ok := t.byAllocation[allocationID]
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
	delete(t.byAllocation, allocationID)
	slot.transitionTo(SlotFree)
	slot.profile = t.defaultProfile
	slot.jobID = api.JobID{}
	slot.allocationID = api.AllocationID{}
	slot.tasks = nil
	return slot.index, nil
}

// AddTask puts a task into the slot of its allocation, which must be
// ACTIVE for the task's job.
func (t *TaskSlotTable[T]) AddTask(task T) error {
	slot, ok := t.byAllocation[task.AllocationID()]
	if !ok {
		return slotNotFound(task.AllocationID())
	}
	if slot.state != SlotActive || slot.jobID != task.JobID() {
		return fmt.Errorf("%w: No active slot for job %s and allocation ID %s.", gateway.ErrSlotNotActive, task.JobID(), task.AllocationID())
	}
	if _, dup := t.taskSlots[task.ExecutionID()]; dup {
		return fmt.Errorf("%w: TaskManager already contains a task for id %s.", ErrDuplicateTask, task.ExecutionID())
	}
	slot.tasks[task.ExecutionID()] = task
	t.taskSlots[task.ExecutionID()] = slot
	return nil
}

// RemoveTask takes a task out of its slot and returns it. If that slot is
// RELEASING and now empty, the caller should free it.
func (t *TaskSlotTable[T]) RemoveTask(attemptID api.ExecutionAttemptID) (T, bool) {
	slot, ok := t.taskSlots[attemptID]
	if !ok {
		var zero T
		return zero, false
	}
	task := slot.tasks[attemptID]
	delete(slot.tasks, attemptID)
	delete(t.taskSlots, attemptID)
	return task, true
}

// Task returns the task of an attempt.
func (t *TaskSlotTable[T]) Task(attemptID api.ExecutionAttemptID) (T, bool) {
	slot, ok := t.taskSlots[attemptID]
	if !ok {
		var zero T
		return zero, false
	}
	return slot.tasks[attemptID], true
}

// Tasks returns the tasks in the slot of allocationID.
func (t *TaskSlotTable[T]) Tasks(allocationID api.AllocationID) []T {
	slot, ok := t.byAllocation[allocationID]
	if !ok {
		return nil
	}
	return sortedTasks(slot.tasks)
}

// JobTasks returns the tasks of a job, in all its slots.
func (t *TaskSlotTable[T]) JobTasks(jobID api.JobID) []T {
	var out []T
	for _, slot := range t.slots {
		if slot.state != SlotFree && slot.jobID == jobID {
			out = append(out, sortedTasks(slot.tasks)...)
		}
	}
	return out
}

// AllTasks returns every task in the table.
func (t *TaskSlotTable[T]) AllTasks() []T {
	var out []T
	for _, slot := range t.slots {
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
	for _, slot := range t.slots {
		if slot.state != SlotFree && slot.jobID == jobID && keep(slot.state) {
			out = append(out, slot.snapshot())
		}
	}
	return out
}

// CreateSlotReport describes every slot for the ResourceManager: its ID,
// profile, and the allocation and job holding it (zero when free).
func (t *TaskSlotTable[T]) CreateSlotReport(resourceID api.ResourceID) gateway.SlotReport {
	report := make(gateway.SlotReport, len(t.slots))
	for i, slot := range t.slots {
		report[i] = gateway.SlotStatus{
			SlotID:          api.SlotID{ResourceID: resourceID, SlotNumber: slot.index},
			ResourceProfile: slot.profile,
			AllocationID:    slot.allocationID,
			JobID:           slot.jobID,
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
