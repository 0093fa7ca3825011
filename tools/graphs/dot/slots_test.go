package dot

import (
	"bytes"
	"testing"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/sharing"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/rest"
	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/slots"
)

// planSlots plans program at parallelism 2 on tms TaskManagers × 2 slots.
func planSlots(t *testing.T, program string, args []string, tms int) *slots.Plan {
	t.Helper()
	sg, err := streaming.PlanProgram(program, args, 2)
	if err != nil {
		t.Fatal(err)
	}
	jg, err := sg.JobGraph()
	if err != nil {
		t.Fatal(err)
	}
	p, err := slots.PlanJob(jg, slots.Cluster{TaskManagers: tms, Configuration: map[string]string{"taskmanager.numberOfTaskSlots": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSlotPlanWordCount(t *testing.T) {
	got := SlotPlan(planSlots(t, wordcount.ProgramClass, nil, 1))
	checkGolden(t, "wordcount_slots.dot", got)
	// Planning again (new random IDs) draws the same bytes.
	if again := SlotPlan(planSlots(t, wordcount.ProgramClass, nil, 1)); !bytes.Equal(again, got) {
		t.Errorf("SlotPlan differs between two plans of the same program")
	}
}

// The counting slots of 8 cores fit no TaskManager: they are drawn outside,
// in a dashed box that says why, with the subtasks that wait.
func TestSlotPlanWaiting(t *testing.T) {
	got := SlotPlan(planSlots(t, sharing.ProgramClass, []string{"--counting-cpu", "8"}, 1))
	checkGolden(t, "sharing_waiting_slots.dot", got)
	if !bytes.Contains(got, []byte(`label="waiting: no TaskManager can fit\nResourceProfile{cpuCores=8,\n`)) {
		t.Errorf("no waiting box:\n%s", got)
	}
}

func TestRunningSlots(t *testing.T) {
	job, err := api.ParseJobID("8d4f0000000000000000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	other, err := api.ParseJobID("8d4f0000000000000000000000000002")
	if err != nil {
		t.Fatal(err)
	}
	slot := rest.ResourceProfileInfo{CPUCores: 1, TaskHeapMemory: 191, ManagedMemory: 256, NetworkMemory: 64}
	total := rest.ResourceProfileInfo{CPUCores: 2, TaskHeapMemory: 383, ManagedMemory: 512, NetworkMemory: 128}
	r := slots.NewRunning(
		rest.JobDetailsInfo{JobID: job, Name: `Word "Count"`, State: api.JobRunning},
		[]rest.JobVertexDetailsInfo{{Name: "Source: in -> tokenize", Parallelism: 3, Subtasks: []rest.SubtaskExecutionAttemptDetailsInfo{
			{Subtask: 0, Status: api.ExecutionRunning, TaskManagerID: "taskexecutor-0"},
			{Subtask: 1, Status: api.ExecutionRunning, Attempt: 1, TaskManagerID: "taskexecutor-0"},
			{Subtask: 2, Status: api.ExecutionScheduled, TaskManagerID: rest.Unassigned},
		}}},
		[]rest.TaskManagerDetailsInfo{
			{TaskManagerInfo: rest.TaskManagerInfo{ID: "taskexecutor-0", SlotsNumber: 2, FreeSlots: 0, TotalResource: total},
				AllocatedSlots: []rest.SlotInfo{{JobID: job, Resource: slot}, {JobID: other, Resource: slot}}},
			{TaskManagerInfo: rest.TaskManagerInfo{ID: "taskexecutor-1", SlotsNumber: 2, FreeSlots: 2, TotalResource: total, FreeResource: total}},
		})
	checkGolden(t, "running_slots.dot", RunningSlots(r))
}
