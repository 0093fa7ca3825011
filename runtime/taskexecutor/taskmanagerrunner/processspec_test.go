package taskmanagerrunner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
)

// The distribution's taskmanager.memory.process.size: 1728m applies when
// the configuration sizes the memory in none of Flink's three ways, and
// steps aside for any of them.
func TestProcessSpecDefaultsToTheDistributions1728m(t *testing.T) {
	tests := []struct {
		name                   string
		conf                   map[string]string
		wantTotalProcessMemory configuration.MemorySize
		wantSlots              int
		wantCPUCores           float64
	}{
		{"nothing configured", nil, configuration.OfMebiBytes(1728), 1, 1},
		{"only slots", map[string]string{"taskmanager.numberOfTaskSlots": "2"}, configuration.OfMebiBytes(1728), 2, 2},
		{"slots and cores", map[string]string{"taskmanager.numberOfTaskSlots": "4", "taskmanager.cpu.cores": "1.5"}, configuration.OfMebiBytes(1728), 4, 1.5},
		{"process size", map[string]string{"taskmanager.memory.process.size": "4g"}, configuration.OfMebiBytes(4096), 1, 1},
		// 2g of Flink memory, 256m of metaspace, and an overhead of 0.1 of
		// the process it makes: 2304m × 0.1f/(1 − 0.1f), 4 bytes over 256m.
		{"flink size", map[string]string{"taskmanager.memory.flink.size": "2g"}, configuration.OfMebiBytes(2560) + 4, 1, 1},
		{"task heap and managed", map[string]string{
			"taskmanager.memory.task.heap.size": "512m",
			"taskmanager.memory.managed.size":   "512m",
		}, 1491308091 + configuration.OfMebiBytes(256+192), 1, 1},
		// Task heap alone is not a way of sizing the memory: 1728m, with
		// 200m of it task heap, and network memory what is left.
		{"task heap alone", map[string]string{"taskmanager.memory.task.heap.size": "200m"}, configuration.OfMebiBytes(1728), 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := ProcessSpec(tt.conf)
			require.NoError(t, err)
			assert.Equal(t, tt.wantTotalProcessMemory, spec.TotalProcessMemorySize())
			assert.Equal(t, tt.wantSlots, spec.NumSlots)
			assert.Equal(t, tt.wantCPUCores, spec.CPUCores)
		})
	}

	// The caller's map is left as it was.
	conf := map[string]string{"taskmanager.numberOfTaskSlots": "2"}
	_, err := ProcessSpec(conf)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"taskmanager.numberOfTaskSlots": "2"}, conf)
}

// A configuration that cannot work is refused with Flink's
// IllegalConfigurationException and its text.
func TestProcessSpecRefusesAnIllegalConfiguration(t *testing.T) {
	_, err := ProcessSpec(map[string]string{"taskmanager.memory.process.size": "700m"})
	require.ErrorIs(t, err, configuration.ErrIllegalConfiguration)
	assert.EqualError(t, err, "TaskManager memory configuration failed: Sum of configured Framework Heap Memory "+
		"(128.000mb (134217728 bytes)), Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Off-Heap Memory "+
		"(0 bytes), Managed Memory (100.800mb (105696462 bytes)) and Network Memory (64.000mb (67108864 bytes)) "+
		"exceed configured Total Flink Memory (252.000mb (264241152 bytes)).")

	// 2g of Flink memory do not fit into the distribution's 1728m: Flink,
	// whose configuration file sets 1728m, refuses -D
	// taskmanager.memory.flink.size=2g so. Here the default steps aside
	// for it, but two sizes the user sets must still agree.
	_, err = ProcessSpec(map[string]string{
		"taskmanager.memory.process.size": "1728m",
		"taskmanager.memory.flink.size":   "2g",
	})
	require.ErrorIs(t, err, clusterframework.ErrIllegalConfiguration)
	assert.EqualError(t, err, "TaskManager memory configuration failed: The configured Total Process Memory size "+
		"(1.688gb (1811939328 bytes)) is less than the sum of the derived Total Flink Memory size (2.000gb (2147483648 bytes)) "+
		"and the configured or default JVM Metaspace size  (256.000mb (268435456 bytes)).")
}
