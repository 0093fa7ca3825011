package slots

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"flinklab/runtime/api"
	"flinklab/runtime/rest"
)

// Running is a job on a running cluster as Flink's REST API shows it: the
// TaskManagers with their resources and allocated slots, and the subtasks
// each TaskManager runs. REST does not say which slot a subtask runs in,
// so subtasks belong to a TaskManager, not to a slot.
type Running struct {
	JobID    api.JobID
	JobName  string
	JobState api.JobStatus
	// TaskManagers are the registered TaskManagers in the order GET
	// /taskmanagers lists them (by ID), then any TaskManager a subtask
	// names that is no longer registered.
	TaskManagers []*RunningTaskManager
	// Unassigned are the subtasks REST places on no TaskManager: their
	// current attempt has no slot (yet).
	Unassigned []RunningSubtask
}

// RunningTaskManager is one TaskManager of GET /taskmanagers/{taskmanagerid}.
type RunningTaskManager struct {
	ID api.ResourceID
	// Registered is false for a TaskManager that a subtask names but GET
	// /taskmanagers does not list: it is gone, and nothing else is known
	// of it.
	Registered             bool
	SlotsNumber, FreeSlots int
	Total, Free            rest.ResourceProfileInfo
	// Slots are its allocated slots, of every job, in REST's order.
	Slots []RunningSlot
	// Subtasks are the job's subtasks whose current attempt runs (or ran)
	// here, vertex by vertex in the job's order, then by index.
	Subtasks []RunningSubtask
}

// RunningSlot is one allocated slot: the job it belongs to and its size.
type RunningSlot struct {
	JobID    api.JobID
	Resource rest.ResourceProfileInfo
}

// RunningSubtask is the current attempt of one subtask.
type RunningSubtask struct {
	Subtask
	Attempt int
	State   api.ExecutionState
}

// String is the subtask, its attempt and state: "tokenize (1/2) #0 RUNNING".
func (s RunningSubtask) String() string {
	return fmt.Sprintf("%s #%d %s", s.Subtask, s.Attempt, s.State)
}

// NewRunning puts together the REST answers about a job: GET
// /jobs/{jobid} (job), GET /jobs/{jobid}/vertices/{vertexid} for each of its
// vertices (vertices, in the job's order), and GET
// /taskmanagers/{taskmanagerid} for each registered TaskManager
// (taskManagers, in the order of GET /taskmanagers).
func NewRunning(job rest.JobDetailsInfo, vertices []rest.JobVertexDetailsInfo, taskManagers []rest.TaskManagerDetailsInfo) *Running {
	r := &Running{JobID: job.JobID, JobName: job.Name, JobState: job.State}
	byID := make(map[api.ResourceID]*RunningTaskManager, len(taskManagers))
	for _, info := range taskManagers {
		tm := &RunningTaskManager{
			ID: info.ID, Registered: true, SlotsNumber: info.SlotsNumber, FreeSlots: info.FreeSlots,
			Total: info.TotalResource, Free: info.FreeResource,
		}
		for _, slot := range info.AllocatedSlots {
			tm.Slots = append(tm.Slots, RunningSlot{JobID: slot.JobID, Resource: slot.Resource})
		}
		byID[info.ID] = tm
		r.TaskManagers = append(r.TaskManagers, tm)
	}
	var gone []*RunningTaskManager
	for _, v := range vertices {
		subtasks := slices.Clone(v.Subtasks)
		slices.SortStableFunc(subtasks, func(a, b rest.SubtaskExecutionAttemptDetailsInfo) int { return cmp.Compare(a.Subtask, b.Subtask) })
		for _, s := range subtasks {
			subtask := RunningSubtask{Subtask: Subtask{Vertex: v.Name, Index: s.Subtask, Parallelism: v.Parallelism}, Attempt: s.Attempt, State: s.Status}
			id := api.ResourceID(s.TaskManagerID)
			if s.TaskManagerID == "" || s.TaskManagerID == rest.Unassigned {
				r.Unassigned = append(r.Unassigned, subtask)
				continue
			}
			tm, ok := byID[id]
			if !ok {
				tm = &RunningTaskManager{ID: id}
				byID[id] = tm
				gone = append(gone, tm)
			}
			tm.Subtasks = append(tm.Subtasks, subtask)
		}
	}
	r.TaskManagers = append(r.TaskManagers, gone...)
	return r
}

// SlotsOf counts the TaskManager's allocated slots that belong to job.
func (tm *RunningTaskManager) SlotsOf(job api.JobID) int {
	n := 0
	for _, s := range tm.Slots {
		if s.JobID == job {
			n++
		}
	}
	return n
}

// ShortInfo is a REST profile in a few words, as Short is for a
// ResourceProfile: "cpu 1, heap 191 MiB, managed 256 MiB". REST gives
// memory in whole MiB, rounded down.
func ShortInfo(p rest.ResourceProfileInfo) string {
	return fmt.Sprintf("cpu %s, heap %d MiB, managed %d MiB", strconv.FormatFloat(p.CPUCores, 'f', -1, 64), p.TaskHeapMemory, p.ManagedMemory)
}

// FullInfo is every dimension of a REST profile, in the order and with the
// names of Flink's ResourceProfileInfo: "cpuCores=1, taskHeapMemory=191
// MiB, taskOffHeapMemory=0 MiB, managedMemory=256 MiB, networkMemory=64 MiB".
func FullInfo(p rest.ResourceProfileInfo) string {
	return fmt.Sprintf("cpuCores=%s, taskHeapMemory=%d MiB, taskOffHeapMemory=%d MiB, managedMemory=%d MiB, networkMemory=%d MiB",
		strconv.FormatFloat(p.CPUCores, 'f', -1, 64), p.TaskHeapMemory, p.TaskOffHeapMemory, p.ManagedMemory, p.NetworkMemory)
}
