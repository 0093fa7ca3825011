package slots_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/api"
	"flinklab/runtime/rest"
	"flinklab/tools/graphs/slots"
)

// NewRunning files each subtask under the TaskManager REST names for it:
// a registered one, one that is gone, or none.
func TestNewRunning(t *testing.T) {
	job, other := api.NewJobID(), api.NewJobID()
	slot := rest.ResourceProfileInfo{CPUCores: 1, TaskHeapMemory: 191, ManagedMemory: 256, NetworkMemory: 64}
	subtask := func(index int, tm string) rest.SubtaskExecutionAttemptDetailsInfo {
		return rest.SubtaskExecutionAttemptDetailsInfo{Subtask: index, Status: api.ExecutionRunning, TaskManagerID: tm}
	}
	got := slots.NewRunning(
		rest.JobDetailsInfo{JobID: job, Name: "WordCount", State: api.JobRunning},
		[]rest.JobVertexDetailsInfo{
			{Name: "tokenize", Parallelism: 3, Subtasks: []rest.SubtaskExecutionAttemptDetailsInfo{
				subtask(2, "tm-b"), subtask(0, "tm-a"), subtask(1, rest.Unassigned),
			}},
			{Name: "count", Parallelism: 1, Subtasks: []rest.SubtaskExecutionAttemptDetailsInfo{subtask(0, "tm-gone")}},
		},
		[]rest.TaskManagerDetailsInfo{
			{TaskManagerInfo: rest.TaskManagerInfo{ID: "tm-a", SlotsNumber: 2, FreeSlots: 0},
				AllocatedSlots: []rest.SlotInfo{{JobID: job, Resource: slot}, {JobID: other, Resource: slot}}},
			{TaskManagerInfo: rest.TaskManagerInfo{ID: "tm-b", SlotsNumber: 2, FreeSlots: 1},
				AllocatedSlots: []rest.SlotInfo{{JobID: job, Resource: slot}}},
		})

	summary := map[api.ResourceID][]string{}
	for _, tm := range got.TaskManagers {
		for _, s := range tm.Subtasks {
			summary[tm.ID] = append(summary[tm.ID], s.String())
		}
	}
	assert.Equal(t, map[api.ResourceID][]string{
		"tm-a":    {"tokenize (1/3) #0 RUNNING"},
		"tm-b":    {"tokenize (3/3) #0 RUNNING"},
		"tm-gone": {"count (1/1) #0 RUNNING"},
	}, summary)
	assert.Len(t, got.TaskManagers, 3)
	assert.False(t, got.TaskManagers[2].Registered, "tm-gone is not in GET /taskmanagers")
	assert.Equal(t, 1, got.TaskManagers[0].SlotsOf(job), "one of tm-a's two slots is another job's")
	assert.Equal(t, []string{"tokenize (2/3) #0 RUNNING"}, []string{got.Unassigned[0].String()})

	assert.Equal(t, "cpu 1, heap 191 MiB, managed 256 MiB", slots.ShortInfo(slot))
	assert.Equal(t, "cpuCores=1, taskHeapMemory=191 MiB, taskOffHeapMemory=0 MiB, managedMemory=256 MiB, networkMemory=64 MiB", slots.FullInfo(slot))
}
