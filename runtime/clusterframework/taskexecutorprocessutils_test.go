package clusterframework

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/configuration"
)

const mib = 1 << 20

// spec lists the sizes in Flink's field order: framework heap, framework
// off-heap, task heap, task off-heap, network, managed, metaspace, overhead.
func spec(cpuCores float64, sizes ...configuration.MemorySize) TaskExecutorProcessSpec {
	return TaskExecutorProcessSpec{
		CPUCores:             cpuCores,
		FrameworkHeapSize:    sizes[0],
		FrameworkOffHeapSize: sizes[1],
		TaskHeapSize:         sizes[2],
		TaskOffHeapSize:      sizes[3],
		NetworkMemSize:       sizes[4],
		ManagedMemorySize:    sizes[5],
		JVMMetaspaceSize:     sizes[6],
		JVMOverheadSize:      sizes[7],
		NumSlots:             1,
	}
}

// TestProcessSpecFromConfig checks the sizes Flink derives, to the byte.
//
// The fractions are Java floats: 0.1f is 0.10000000149011612 as a double and
// 0.4f is 0.4000000059604645, and Flink multiplies by those decimals and
// truncates. That is why the sizes are a few bytes off round numbers: for
// 1280m, network is 134217728 + 2 and managed 536870912 + 8 bytes, and task
// heap, the rest, is 10 bytes short of 384m.
//
// The 1728m and 2g rows are the values real Flink TaskManagers print in
// their "Final TaskExecutor Memory configuration" block (1728m: the
// distribution's default configuration file). The others follow Flink's
// algorithm and were checked against an independent computation in
// decimal arithmetic.
func TestProcessSpecFromConfig(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]string
		want   TaskExecutorProcessSpec
	}{
		{
			// Way 3, Total Process Memory: overhead = 0.1 × 1728m = 172.8m,
			// under its 192m minimum, so 192m; metaspace 256m; Total Flink
			// Memory = 1728m − 256m − 192m = 1280m. Managed = 0.4 × 1280m,
			// network = 0.1 × 1280m (within [64m, ∞)), framework heap and
			// off-heap 128m each, task off-heap 0, and task heap the rest.
			name:   "process size 1728m, the default configuration file",
			config: map[string]string{"taskmanager.memory.process.size": "1728m"},
			want:   spec(1, 128*mib, 128*mib, 402653174, 0, 134217730, 536870920, 256*mib, 192*mib),
		},
		{
			// Overhead = 0.1 × 2g = 214748368 (204.8m, within [192m, 1g]);
			// Total Flink Memory = 2g − 256m − 204.8m = 1664299824.
			name:   "process size 2g",
			config: map[string]string{"taskmanager.memory.process.size": "2g"},
			want:   spec(1, 128*mib, 128*mib, 563714445, 0, 166429984, 665719939, 256*mib, 214748368),
		},
		{
			// Overhead = 0.1 × 4g = 429496736 (409.6m); Total Flink Memory
			// = 4g − 256m − 409.6m = 3597035104 (3.35g); managed 0.4 of it
			// (1.34g), network 0.1 (343m), task heap the rest (1.425g).
			name:   "process size 4g",
			config: map[string]string{"taskmanager.memory.process.size": "4g"},
			want:   spec(1, 128*mib, 128*mib, 1530082070, 0, 359703515, 1438814063, 256*mib, 429496736),
		},
		{
			// Way 2, Total Flink Memory: the parts as for 1728m; overhead is
			// chosen to be 0.1 of the process it makes, (1280m + 256m) ×
			// 0.1/0.9 = 170.7m, under 192m, so 192m: the process is 1728m
			// again. This is why 1728m is the default: 1280m of Flink memory.
			name:   "flink size 1280m",
			config: map[string]string{"taskmanager.memory.flink.size": "1280m"},
			want:   spec(1, 128*mib, 128*mib, 402653174, 0, 134217730, 536870920, 256*mib, 192*mib),
		},
		{
			// Way 1, the fine-grained options: 128m + 128m + 512m + 0 + 512m
			// = 1280m without network; network is chosen to be 0.1 of the
			// total it makes, 1280m × 0.1/0.9 = 149130811 (142.2m); Total
			// Flink Memory 1491308091, overhead 192m (the minimum).
			name: "task heap 512m and managed 512m",
			config: map[string]string{
				"taskmanager.memory.task.heap.size": "512m",
				"taskmanager.memory.managed.size":   "512m",
			},
			want: spec(1, 128*mib, 128*mib, 512*mib, 0, 149130811, 512*mib, 256*mib, 192*mib),
		},
		{
			// Way 1 with Total Flink Memory too: network is what is left,
			// 1280m − 128m − 128m − 100m − 0 − 200m = 724m (Flink's
			// TaskExecutorProcessUtilsTest uses 100m, 200m and 1280m).
			name: "task heap 100m, managed 200m and flink size 1280m",
			config: map[string]string{
				"taskmanager.memory.task.heap.size": "100m",
				"taskmanager.memory.managed.size":   "200m",
				"taskmanager.memory.flink.size":     "1280m",
			},
			want: spec(1, 128*mib, 128*mib, 100*mib, 0, 724*mib, 200*mib, 256*mib, 192*mib),
		},
		{
			// Way 2 with task heap configured: managed 0.4 × 1280m first,
			// network the rest: 1280m − 128m − 128m − 100m − 0 − 536870920
			// = 432013304 (412m).
			name: "flink size 1280m and task heap 100m",
			config: map[string]string{
				"taskmanager.memory.flink.size":     "1280m",
				"taskmanager.memory.task.heap.size": "100m",
			},
			want: spec(1, 128*mib, 128*mib, 100*mib, 0, 432013304, 536870920, 256*mib, 192*mib),
		},
		{
			// Both totals: overhead is what is left, 1000m − 800m − 100m =
			// 100m, within [50m, 200m] (Flink's ProcessMemoryUtilsTestBase#
			// testConfigJvmOverheadDeriveFromProcessAndFlinkMemorySize).
			name: "process 1000m and flink 800m",
			config: map[string]string{
				"taskmanager.memory.process.size":          "1000m",
				"taskmanager.memory.flink.size":            "800m",
				"taskmanager.memory.jvm-metaspace.size":    "100m",
				"taskmanager.memory.jvm-overhead.min":      "50m",
				"taskmanager.memory.jvm-overhead.max":      "200m",
				"taskmanager.memory.jvm-overhead.fraction": "0.5",
			},
			// Managed 0.4 × 800m = 335544325, network 0.1 × 800m = 83886081.
			want: spec(1, 128*mib, 128*mib, 150994938, 0, 83886081, 335544325, 100*mib, 100*mib),
		},
		{
			// The 1g network maximum of Flink before 1.17: overhead 0.1 ×
			// 16g is capped to its 1g maximum, Total Flink Memory is 16g −
			// 256m − 1g = 15837691904 (14.75g), and network, 0.1 of that
			// (1583769214, 1.47g), is capped to 1g; task heap gets the rest.
			// Since 1.17 the network would keep its 1.47g.
			name: "process size 16g with the old network maximum",
			config: map[string]string{
				"taskmanager.memory.process.size": "16g",
				"taskmanager.memory.network.max":  "1g",
			},
			want: spec(1, 128*mib, 128*mib, 8160437768, 0, 1024*mib, 6335076856, 256*mib, 1024*mib),
		},
		{
			// Deprecated keys still count: taskmanager.network.memory.min is
			// taskmanager.memory.network.min.
			name: "network minimum under its deprecated key",
			config: map[string]string{
				"taskmanager.memory.process.size": "1728m",
				"taskmanager.network.memory.min":  "200m",
			},
			want: spec(1, 128*mib, 128*mib, 327155704, 0, 200*mib, 536870920, 256*mib, 192*mib),
		},
		{
			// Units as a configuration file may write them.
			name:   "process size written 1728 MB",
			config: map[string]string{"taskmanager.memory.process.size": "1728 MB"},
			want:   spec(1, 128*mib, 128*mib, 402653174, 0, 134217730, 536870920, 256*mib, 192*mib),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ProcessSpecFromConfig(tt.config)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The totals of the 1728m default, as Flink logs them.
func TestTaskExecutorProcessSpecTotals(t *testing.T) {
	got, err := ProcessSpecFromConfig(map[string]string{"taskmanager.memory.process.size": "1728m"})
	require.NoError(t, err)

	assert.Equal(t, configuration.MemorySize(1728*mib), got.TotalProcessMemorySize())
	assert.Equal(t, configuration.MemorySize(1280*mib), got.TotalFlinkMemorySize())
	assert.Equal(t, configuration.MemorySize(536870902), got.JVMHeapMemorySize())   // 128m + 384m − 10 bytes: -Xmx
	assert.Equal(t, configuration.MemorySize(268435458), got.JVMDirectMemorySize()) // 128m + 0 + 128m + 2 bytes: -XX:MaxDirectMemorySize
	assert.Equal(t,
		"TaskExecutorProcessSpec {cpuCores=1.0, frameworkHeapSize=128.000mb (134217728 bytes), "+
			"frameworkOffHeapSize=128.000mb (134217728 bytes), taskHeapSize=384.000mb (402653174 bytes), "+
			"taskOffHeapSize=0 bytes, networkMemSize=128.000mb (134217730 bytes), "+
			"managedMemorySize=512.000mb (536870920 bytes), jvmMetaspaceSize=256.000mb (268435456 bytes), "+
			"jvmOverheadSize=192.000mb (201326592 bytes)}",
		got.String())
}

// Properties Flink's TaskExecutorProcessUtilsTest and
// ProcessMemoryUtilsTestBase check in every way of configuring memory: a
// fraction configured with a range wide enough gives exactly fraction × its
// base, and a configured size is kept as it is.
func TestProcessSpecFromConfigProperties(t *testing.T) {
	ways := map[string]map[string]string{
		"explicit task heap and managed": {"taskmanager.memory.task.heap.size": "100m", "taskmanager.memory.managed.size": "200m"},
		"total flink memory":             {"taskmanager.memory.flink.size": "1280m"},
		"total process memory":           {"taskmanager.memory.process.size": "1536m"},
	}
	with := func(base, extra map[string]string) map[string]string {
		c := map[string]string{}
		for k, v := range base {
			c[k] = v
		}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	f02 := float64(float32(0.2))

	for name, base := range ways {
		// testConfigJvmOverheadFraction: overhead = 0.2 × Total Process Memory.
		got, err := ProcessSpecFromConfig(with(base, map[string]string{
			"taskmanager.memory.jvm-overhead.min":      "0",
			"taskmanager.memory.jvm-overhead.max":      "1t",
			"taskmanager.memory.jvm-overhead.fraction": "0.2",
		}))
		require.NoError(t, err, name)
		assert.Equal(t, got.TotalProcessMemorySize().Multiply(f02), got.JVMOverheadSize, "%s: overhead fraction", name)

		// testConfigJvmMetaspaceSize and testConfigTaskOffheapMemory.
		got, err = ProcessSpecFromConfig(with(base, map[string]string{
			"taskmanager.memory.jvm-metaspace.size": "50m",
			"taskmanager.memory.task.off-heap.size": "50m",
		}))
		require.NoError(t, err, name)
		assert.Equal(t, configuration.MemorySize(50*mib), got.JVMMetaspaceSize, name)
		assert.Equal(t, configuration.MemorySize(50*mib), got.TaskOffHeapSize, name)

		// testConfigNetworkMemoryRange: network stays within [200m, 500m].
		got, err = ProcessSpecFromConfig(with(base, map[string]string{
			"taskmanager.memory.network.min": "200m",
			"taskmanager.memory.network.max": "500m",
		}))
		require.NoError(t, err, name)
		assert.GreaterOrEqual(t, got.NetworkMemSize, configuration.MemorySize(200*mib), name)
		assert.LessOrEqual(t, got.NetworkMemSize, configuration.MemorySize(500*mib), name)
	}

	// testConfigNetworkMemoryFraction, with explicit task heap and managed
	// memory: network = 0.2 × Total Flink Memory.
	got, err := ProcessSpecFromConfig(with(ways["explicit task heap and managed"], map[string]string{
		"taskmanager.memory.network.min":      "0",
		"taskmanager.memory.network.max":      "1t",
		"taskmanager.memory.network.fraction": "0.2",
	}))
	require.NoError(t, err)
	assert.Equal(t, got.TotalFlinkMemorySize().Multiply(f02), got.NetworkMemSize)

	// testConfigManagedMemoryFraction, without explicit managed memory:
	// managed = 0.5 × Total Flink Memory.
	for _, name := range []string{"total flink memory", "total process memory"} {
		got, err := ProcessSpecFromConfig(with(ways[name], map[string]string{"taskmanager.memory.managed.fraction": "0.5"}))
		require.NoError(t, err, name)
		assert.Equal(t, got.TotalFlinkMemorySize().Multiply(0.5), got.ManagedMemorySize, name)
	}
}

// CPU cores: taskmanager.cpu.cores if set, else the number of slots (Flink's
// testConfigCpuCores and testConfigNoCpuCores).
func TestCPUCores(t *testing.T) {
	tests := []struct {
		name      string
		config    map[string]string
		wantCores float64
		wantSlots int
	}{
		{"nothing configured: one slot, one core", map[string]string{}, 1, 1},
		{"one core per slot", map[string]string{"taskmanager.numberOfTaskSlots": "3"}, 3, 3},
		{"cores configured", map[string]string{"taskmanager.cpu.cores": "1.5", "taskmanager.numberOfTaskSlots": "4"}, 1.5, 4},
	}
	for _, tt := range tests {
		config := map[string]string{"taskmanager.memory.process.size": "1728m"}
		for k, v := range tt.config {
			config[k] = v
		}
		got, err := ProcessSpecFromConfig(config)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.wantCores, got.CPUCores, tt.name)
		assert.Equal(t, tt.wantSlots, got.NumSlots, tt.name)
	}

	cores, err := CPUCoresWithFallback(map[string]string{}, 2.5)
	require.NoError(t, err)
	assert.Equal(t, 2.5, cores, "a positive fallback (the container's cores) comes before the slots")
}

func TestLogSummary(t *testing.T) {
	got, err := ProcessSpecFromConfig(map[string]string{"taskmanager.memory.process.size": "1728m"})
	require.NoError(t, err)

	// The block a Flink TaskManager with the default configuration prints,
	// each line after the logger's "INFO  [] - ".
	want := []string{
		"Final TaskExecutor Memory configuration:",
		"  Total Process Memory:          1.688gb (1811939328 bytes)",
		"    Total Flink Memory:          1.250gb (1342177280 bytes)",
		"      Total JVM Heap Memory:     512.000mb (536870902 bytes)",
		"        Framework:               128.000mb (134217728 bytes)",
		"        Task:                    384.000mb (402653174 bytes)",
		"      Total Off-heap Memory:     768.000mb (805306378 bytes)",
		"        Managed:                 512.000mb (536870920 bytes)",
		"        Total JVM Direct Memory: 256.000mb (268435458 bytes)",
		"          Framework:             128.000mb (134217728 bytes)",
		"          Task:                  0 bytes",
		"          Network:               128.000mb (134217730 bytes)",
		"    JVM Metaspace:               256.000mb (268435456 bytes)",
		"    JVM Overhead:                192.000mb (201326592 bytes)",
	}
	assert.Equal(t, want, LogSummary(got))
}
