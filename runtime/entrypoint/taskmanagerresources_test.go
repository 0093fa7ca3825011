package entrypoint

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/client"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/logging"
	"flinklab/runtime/rest"
)

// Two TaskManager processes, one with Flink's default configuration
// (taskmanager.memory.process.size: 1728m, from the distribution's
// configuration file) and one started with -D
// taskmanager.memory.process.size=4g, each with two slots. GET
// /taskmanagers/{taskmanagerid} reports their memory and resources with
// Flink's numbers, to the byte; the resources in whole MiB, rounded down.
func TestATaskManagerReportsItsMemoryAsFlinkComputesIt(t *testing.T) {
	var jmLogs, tmLogs logbuf.Buffer
	jm := startSession(t, &jmLogs)
	rc := client.NewRestClusterClient(jm.RESTAddress())
	defaultTM := startTaskManager(t, jm, 2, &tmLogs)
	bigTM := NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: jm.RPCAddress(),
		BlobServerAddress: jm.BlobServerAddress(),
		RPCAddress:        "127.0.0.1:0",
		NumberOfSlots:     2,
		WorkingDir:        t.TempDir(),
		Configuration:     map[string]string{"taskmanager.memory.process.size": "4g"},
		Logger:            slog.New(slog.NewJSONHandler(&tmLogs, nil)),
	})
	require.NoError(t, bigTM.Start())
	t.Cleanup(func() { assert.NoError(t, bigTM.Close()) })
	awaitSlots(t, rc, map[string]int{string(defaultTM.ResourceID()): 2, string(bigTM.ResourceID()): 2})

	tests := []struct {
		name      string
		tm        *TaskManagerRunner
		memory    clusterframework.TaskExecutorMemoryConfiguration
		resources rest.ResourceProfileInfo
		heap      int64 // -Xmx, what Flink reports as the hardware's freeMemory
	}{
		{
			name: "1728m",
			tm:   defaultTM,
			memory: clusterframework.TaskExecutorMemoryConfiguration{
				FrameworkHeap: 134217728, TaskHeap: 402653174, FrameworkOffHeap: 134217728, TaskOffHeap: 0,
				NetworkMemory: 134217730, ManagedMemory: 536870920, JVMMetaspace: 268435456, JVMOverhead: 201326592,
				TotalFlinkMemory: 1342177280, TotalProcessMemory: 1811939328,
			},
			// 402653174 bytes of task heap are 10 short of 384 MiB: 383.
			resources: rest.ResourceProfileInfo{CPUCores: 2, TaskHeapMemory: 383, TaskOffHeapMemory: 0, ManagedMemory: 512,
				NetworkMemory: 128, ExtendedResources: map[string]float64{}},
			heap: 536870902,
		},
		{
			name: "4g",
			tm:   bigTM,
			memory: clusterframework.TaskExecutorMemoryConfiguration{
				FrameworkHeap: 134217728, TaskHeap: 1530082070, FrameworkOffHeap: 134217728, TaskOffHeap: 0,
				NetworkMemory: 359703515, ManagedMemory: 1438814063, JVMMetaspace: 268435456, JVMOverhead: 429496736,
				TotalFlinkMemory: 3597035104, TotalProcessMemory: 4294967296,
			},
			resources: rest.ResourceProfileInfo{CPUCores: 2, TaskHeapMemory: 1459, TaskOffHeapMemory: 0, ManagedMemory: 1372,
				NetworkMemory: 343, ExtendedResources: map[string]float64{}},
			heap: 1664299798,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var details rest.TaskManagerDetailsInfo
			require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet,
				"/taskmanagers/"+string(tt.tm.ResourceID()), &details))
			assert.Equal(t, tt.memory, details.MemoryConfiguration)
			assert.Equal(t, tt.resources, details.TotalResource)
			assert.Equal(t, tt.resources, details.FreeResource, "no slot is allocated")
			assert.Equal(t, []rest.SlotInfo{}, details.AllocatedSlots)
			assert.Equal(t, 2, details.SlotsNumber)
			assert.Equal(t, tt.heap, details.Hardware.FreeMemory)
			assert.Equal(t, tt.memory.ManagedMemory, details.Hardware.ManagedMemory)
			assert.Positive(t, details.Hardware.CPUCores)
		})
	}

	// GET /taskmanagers lists the same.
	var list struct {
		TaskManagers []map[string]json.RawMessage `json:"taskmanagers"`
	}
	require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/taskmanagers", &list))
	require.Len(t, list.TaskManagers, 2)
	for _, tm := range list.TaskManagers {
		assert.Contains(t, tm, "memoryConfiguration")
		assert.Contains(t, tm, "totalResource")
		assert.Contains(t, tm, "freeResource")
		assert.NotContains(t, tm, "allocatedSlots", "only the details list the slots")
	}
}

// A TaskManager's log starts as a real Flink TaskManager's does: above the
// banner, under " Preconfiguration: ", what the start script computed
// before the JVM started, the JVM parameters, the dynamic properties and
// the memory block, logged as one message of many lines.
func TestTheTaskManagerLogStartsWithThePreconfiguration(t *testing.T) {
	var logs logbuf.Buffer
	jm := startSession(t, &logbuf.Buffer{})
	tm := NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: jm.RPCAddress(),
		BlobServerAddress: jm.BlobServerAddress(),
		RPCAddress:        "127.0.0.1:0",
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(logging.NewHandler(&logs, slog.LevelInfo)),
	})
	require.NoError(t, tm.Start())
	require.NoError(t, tm.Close())

	// The log without the timestamps.
	log := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} `).ReplaceAllString(logs.String(), "")
	want := `INFO  TaskManagerRunner [] - --------------------------------------------------------------------------------
INFO  TaskManagerRunner [] -  Preconfiguration: 
INFO  TaskManagerRunner [] - 


RESOURCE_PARAMS extraction logs:
jvm_params: -Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456
dynamic_configs: -D taskmanager.memory.network.min=134217730b -D taskmanager.cpu.cores=1.0 -D taskmanager.memory.task.off-heap.size=0b -D taskmanager.memory.jvm-metaspace.size=268435456b -D external-resources=none -D taskmanager.memory.jvm-overhead.min=201326592b -D taskmanager.memory.framework.off-heap.size=134217728b -D taskmanager.memory.network.max=134217730b -D taskmanager.memory.framework.heap.size=134217728b -D taskmanager.memory.managed.size=536870920b -D taskmanager.memory.task.heap.size=402653174b -D taskmanager.numberOfTaskSlots=1 -D taskmanager.memory.jvm-overhead.max=201326592b
logs: INFO  [] - Final TaskExecutor Memory configuration:
INFO  [] -   Total Process Memory:          1.688gb (1811939328 bytes)
INFO  [] -     Total Flink Memory:          1.250gb (1342177280 bytes)
INFO  [] -       Total JVM Heap Memory:     512.000mb (536870902 bytes)
INFO  [] -         Framework:               128.000mb (134217728 bytes)
INFO  [] -         Task:                    384.000mb (402653174 bytes)
INFO  [] -       Total Off-heap Memory:     768.000mb (805306378 bytes)
INFO  [] -         Managed:                 512.000mb (536870920 bytes)
INFO  [] -         Total JVM Direct Memory: 256.000mb (268435458 bytes)
INFO  [] -           Framework:             128.000mb (134217728 bytes)
INFO  [] -           Task:                  0 bytes
INFO  [] -           Network:               128.000mb (134217730 bytes)
INFO  [] -     JVM Metaspace:               256.000mb (268435456 bytes)
INFO  [] -     JVM Overhead:                192.000mb (201326592 bytes)

INFO  TaskManagerRunner [] - --------------------------------------------------------------------------------
INFO  TaskManagerRunner [] -  Starting TaskManager (flinklab, Go: `
	assert.True(t, strings.HasPrefix(log, want), "the log starts with the Preconfiguration block:\n%s", log)
}

// A TaskManager whose memory does not add up does not start: Flink's
// IllegalConfigurationException, with Flink's text, in the error and in
// the log.
func TestATaskManagerWithAnIllegalMemoryConfigurationDoesNotStart(t *testing.T) {
	var logs logbuf.Buffer
	tm := NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: "127.0.0.1:6123",
		RPCAddress:        "127.0.0.1:0",
		Configuration:     map[string]string{"taskmanager.memory.process.size": "700m"},
		Logger:            slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	const flinks = "TaskManager memory configuration failed: Sum of configured Framework Heap Memory " +
		"(128.000mb (134217728 bytes)), Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Off-Heap Memory " +
		"(0 bytes), Managed Memory (100.800mb (105696462 bytes)) and Network Memory (64.000mb (67108864 bytes)) " +
		"exceed configured Total Flink Memory (252.000mb (264241152 bytes))."

	err := tm.Start()
	require.ErrorIs(t, err, configuration.ErrIllegalConfiguration)
	assert.EqualError(t, err, "could not start the TaskManager: "+flinks)
	assert.Empty(t, tm.RPCAddress(), "nothing was started")
	records := logs.Records()
	require.NotEmpty(t, records)
	last := records[len(records)-1]
	assert.Equal(t, "Terminating TaskManagerRunner.", last.Msg)
	assert.NotEmpty(t, logs.Messages("Could not start the TaskManager."))
	assert.Contains(t, logs.String(), flinks)
	assert.Empty(t, logs.Messages(" Preconfiguration: "), "no memory, no Preconfiguration")

	// The same check, before anything starts, for flink start-cluster.
	_, err = TaskManagerConfig{Configuration: map[string]string{"taskmanager.memory.process.size": "700m"}}.ProcessSpec()
	assert.EqualError(t, err, flinks)
}

// awaitSlots asks GET /taskmanagers until the TaskManagers named have
// registered and reported their slots, as many as given for each.
func awaitSlots(t *testing.T, rc *client.RestClusterClient, slots map[string]int) {
	t.Helper()
	awaitTaskManagersInfo(t, rc, fmt.Sprintf("slots %v reported", slots), func(info rest.TaskManagersInfo) bool {
		reported := map[string]int{}
		for _, tm := range info.TaskManagers {
			reported[string(tm.ID)] = tm.SlotsNumber
		}
		return maps.Equal(reported, slots)
	})
}
