package clusterframework

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// The memory configuration a default TaskManager reports in REST, Flink's
// numbers to the byte.
func TestMemoryConfigurationOfTheDefaultTaskManager(t *testing.T) {
	spec, err := ProcessSpecFromConfig(map[string]string{"taskmanager.memory.process.size": "1728m"})
	require.NoError(t, err)
	assert.Equal(t, TaskExecutorMemoryConfiguration{
		FrameworkHeap:      134217728,
		TaskHeap:           402653174,
		FrameworkOffHeap:   134217728,
		TaskOffHeap:        0,
		NetworkMemory:      134217730,
		ManagedMemory:      536870920,
		JVMMetaspace:       268435456,
		JVMOverhead:        201326592,
		TotalFlinkMemory:   1342177280,
		TotalProcessMemory: 1811939328,
	}, NewTaskExecutorMemoryConfiguration(spec))
}

// A TaskManager's total and a slot's share of it, with Flink's rounding:
// memory in whole bytes, rounded down; CPU cores to 16 decimal places,
// rounded down.
func TestDefaultSlotResourceProfile(t *testing.T) {
	spec, err := ProcessSpecFromConfig(map[string]string{
		"taskmanager.memory.process.size": "1728m",
		"taskmanager.numberOfTaskSlots":   "3",
		"taskmanager.cpu.cores":           "1",
	})
	require.NoError(t, err)
	total := TotalResourceProfile(spec)
	assert.Equal(t, api.ResourceProfile{CPUCores: 1, TaskHeapMemory: 402653174, ManagedMemory: 536870920, NetworkMemory: 134217730}, total)

	share := DefaultSlotResourceProfile(total, 3)
	// 402653174 / 3 = 134217724.67, 536870920 / 3 = 178956973.33,
	// 134217730 / 3 = 44739243.33; 1 / 3 = 0.3333333333333333.
	assert.Equal(t, api.ResourceProfile{CPUCores: 0.3333333333333333, TaskHeapMemory: 134217724, ManagedMemory: 178956973, NetworkMemory: 44739243}, share)

	// What is left once slots take their shares: what rounding down kept
	// back stays free.
	free := total.Subtract(share)
	assert.Equal(t, api.ResourceProfile{CPUCores: 0.6666666666666667, TaskHeapMemory: 268435450, ManagedMemory: 357913947, NetworkMemory: 89478487}, free)
	free = free.Subtract(share).Subtract(share)
	assert.Equal(t, api.ResourceProfile{CPUCores: 1e-16, TaskHeapMemory: 2, ManagedMemory: 1, NetworkMemory: 1}, free)

	assert.Equal(t, total, DefaultSlotResourceProfile(total, 1))
	assert.Panics(t, func() { DefaultSlotResourceProfile(total, 0) })
	assert.Equal(t, api.UnknownResourceProfile, DefaultSlotResourceProfile(api.UnknownResourceProfile, 2),
		"a TaskManager not told its resources has unknown shares")
	assert.Panics(t, func() { share.Subtract(total) }, "a slot cannot take more than is there")
}
