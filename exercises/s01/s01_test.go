// Exercise s01: a TaskManager's memory, computed as Flink computes it.
//
// The tests look at the computation from three distances:
//
//   - TestTheMemoryOfATaskManager gives clusterframework.ProcessSpecFromConfig
//     a TaskManager's configuration, as a configuration file or `-D
//     key=value` gives it, and compares every part of the memory it
//     derives with Flink's figures, to the byte. Each case says, in why,
//     the rule it checks.
//   - TestTheLogOfTheDefaultTaskManager and TestConfigurationsThatDoNotAddUp
//     look at what a person running Flink sees: the "Final TaskExecutor
//     Memory configuration" block and the JVM flags a TaskManager's log
//     starts with, and Flink's IllegalConfigurationException when the
//     parts do not fit.
//   - The TestAMiniCluster… tests start a cluster, whose TaskManager
//     registers at the ResourceManager with what its slots may share, or
//     does not start at all.
package s01_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
	"flinklab/runtime/minicluster"
)

const mb = configuration.MemorySize(1 << 20)

// memory is a TaskManager's memory in its eight parts, in the order of
// Flink's TaskExecutorProcessSpec.
type memory struct {
	frameworkHeap, frameworkOffHeap, taskHeap, taskOffHeap, network, managed, jvmMetaspace, jvmOverhead configuration.MemorySize
}

func memoryOf(spec clusterframework.TaskExecutorProcessSpec) memory {
	return memory{spec.FrameworkHeapSize, spec.FrameworkOffHeapSize, spec.TaskHeapSize, spec.TaskOffHeapSize,
		spec.NetworkMemSize, spec.ManagedMemorySize, spec.JVMMetaspaceSize, spec.JVMOverheadSize}
}

// processSpec derives a TaskManager's memory from config. A derivation
// that panics fails the test here, with what it panicked with, instead of
// ending the whole test binary.
func processSpec(t *testing.T, config map[string]string) (spec clusterframework.TaskExecutorProcessSpec, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("deriving the TaskManager's memory must not panic: %v", r)
		}
	}()
	return clusterframework.ProcessSpecFromConfig(config)
}

// assertMemory compares each part of got with want, and names each part
// that differs, in Flink's words and in bytes.
func assertMemory(t *testing.T, want, got memory, why string) {
	t.Helper()
	parts := []struct {
		name      string
		want, got configuration.MemorySize
	}{
		{"Framework Heap Memory", want.frameworkHeap, got.frameworkHeap},
		{"Framework Off-Heap Memory", want.frameworkOffHeap, got.frameworkOffHeap},
		{"Task Heap Memory", want.taskHeap, got.taskHeap},
		{"Task Off-Heap Memory", want.taskOffHeap, got.taskOffHeap},
		{"Network Memory", want.network, got.network},
		{"Managed Memory", want.managed, got.managed},
		{"JVM Metaspace", want.jvmMetaspace, got.jvmMetaspace},
		{"JVM Overhead", want.jvmOverhead, got.jvmOverhead},
	}
	var wrong []string
	for _, p := range parts {
		if p.got != p.want {
			wrong = append(wrong, fmt.Sprintf("%s is %s, want %s (%+d bytes)",
				p.name, p.got.ToHumanReadableString(), p.want.ToHumanReadableString(), p.got.Bytes()-p.want.Bytes()))
		}
	}
	if len(wrong) > 0 {
		t.Errorf("%s\nThe rule this case checks: %s", strings.Join(wrong, "\n"), why)
	}
}

// The sizes of real TaskManagers. The fractions are Java floats: 0.4f is
// 0.4000000059604645 and 0.1f is 0.10000000149011612 as doubles, and Flink
// multiplies by those and truncates, so managed and network memory come
// out a few bytes over round numbers, and task heap, which is what is
// left, a few bytes under.
func TestTheMemoryOfATaskManager(t *testing.T) {
	tests := []struct {
		name   string
		why    string // the rule a failure of this case breaks
		config map[string]string
		want   memory
	}{
		{
			name: "process size 1728m, the distribution's default",
			why: "JVM Metaspace (256m) and JVM Overhead (192m) come off the process first and leave 1280m of Total Flink Memory; " +
				"managed memory is its fraction (0.4) of Total Flink Memory, network memory its fraction (0.1) within [64m, ∞), " +
				"framework heap and off-heap have their sizes (128m each), task off-heap its size (0), and task heap is what is left",
			config: map[string]string{"taskmanager.memory.process.size": "1728m"},
			want:   memory{128 * mb, 128 * mb, 402653174, 0, 134217730, 536870920, 256 * mb, 192 * mb},
		},
		{
			name: "process size 4g",
			why: "Total Flink Memory is what JVM Metaspace and JVM Overhead (0.1 of 4g: 409.6m) leave of the process, 3.35g; " +
				"managed memory is 0.4 and network memory 0.1 of it, and task heap is what is left",
			config: map[string]string{"taskmanager.memory.process.size": "4g"},
			want:   memory{128 * mb, 128 * mb, 1530082070, 0, 359703515, 1438814063, 256 * mb, 429496736},
		},
		{
			name: "flink size 1280m: the parts of the default, without taking anything off a process first",
			why: "a configured Total Flink Memory is split into its parts as the one left of a process is; " +
				"JVM Metaspace and JVM Overhead are added around it",
			config: map[string]string{"taskmanager.memory.flink.size": "1280m"},
			want:   memory{128 * mb, 128 * mb, 402653174, 0, 134217730, 536870920, 256 * mb, 192 * mb},
		},
		{
			name: "a small TaskManager: network memory held at its 64m minimum",
			why: "network memory is its fraction of Total Flink Memory only within its range: 0.1 of 576m is 57.6m, " +
				"under taskmanager.memory.network.min (64m), so it is 64m, and task heap gets what is left after that",
			config: map[string]string{"taskmanager.memory.process.size": "1g"},
			want:   memory{128 * mb, 128 * mb, 26843542, 0, 64 * mb, 241591914, 256 * mb, 192 * mb},
		},
		{
			name: "network memory held at its configured maximum",
			why: "network memory is its fraction of Total Flink Memory only within its range: 0.1 of 1280m is 128m, " +
				"over taskmanager.memory.network.max (100m), so it is 100m, and task heap gets the other 28m",
			config: map[string]string{
				"taskmanager.memory.process.size": "1728m",
				"taskmanager.memory.network.max":  "100m",
			},
			want: memory{128 * mb, 128 * mb, 432013304, 0, 100 * mb, 536870920, 256 * mb, 192 * mb},
		},
		{
			name: "managed memory configured as a size: none, for a job without RocksDB or batch operators",
			why:  "a configured taskmanager.memory.managed.size is managed memory, and its fraction does not count; task heap gets the 512m",
			config: map[string]string{
				"taskmanager.memory.process.size": "1728m",
				"taskmanager.memory.managed.size": "0",
			},
			want: memory{128 * mb, 128 * mb, 939524094, 0, 134217730, 0, 256 * mb, 192 * mb},
		},
		{
			name: "managed memory as a configured fraction",
			why:  "managed memory is the configured taskmanager.memory.managed.fraction (0.5) of Total Flink Memory, not the default 0.4",
			config: map[string]string{
				"taskmanager.memory.process.size":     "1728m",
				"taskmanager.memory.managed.fraction": "0.5",
			},
			want: memory{128 * mb, 128 * mb, 268435454, 0, 134217730, 640 * mb, 256 * mb, 192 * mb},
		},
		{
			name: "task off-heap memory configured: task heap gives it up",
			why:  "task heap is what is left after every other part of Total Flink Memory, task off-heap memory (64m) included",
			config: map[string]string{
				"taskmanager.memory.process.size":       "1728m",
				"taskmanager.memory.task.off-heap.size": "64m",
			},
			want: memory{128 * mb, 128 * mb, 335544310, 64 * mb, 134217730, 536870920, 256 * mb, 192 * mb},
		},
		{
			name: "task heap configured with a flink size: network memory is what is left",
			why: "with task heap configured, task heap is its size, managed memory still its fraction (0.4) of Total Flink Memory, " +
				"and network memory is what is left of Total Flink Memory (412m), which must lie in its range",
			config: map[string]string{
				"taskmanager.memory.flink.size":     "1280m",
				"taskmanager.memory.task.heap.size": "100m",
			},
			want: memory{128 * mb, 128 * mb, 100 * mb, 0, 432013304, 536870920, 256 * mb, 192 * mb},
		},
		{
			name: "task heap configured with a process size",
			why: "with task heap configured (384m), network memory is what is left of the 1280m of Total Flink Memory: " +
				"1280m − 128m − 128m − 384m − 0 − managed memory",
			config: map[string]string{
				"taskmanager.memory.process.size":   "1728m",
				"taskmanager.memory.task.heap.size": "384m",
			},
			want: memory{128 * mb, 128 * mb, 384 * mb, 0, 134217720, 536870920, 256 * mb, 192 * mb},
		},
		{
			// Not through the hole: configured task heap and managed memory
			// add Total Flink Memory up from its parts
			// (deriveFromRequiredFineGrainedOptions), and network memory is
			// chosen to be 0.1 of the total it makes: 1280m × 0.1/0.9.
			name: "task heap and managed memory configured: the total is added up, not split",
			why:  "the fine-grained way adds Total Flink Memory up from its parts; it is not yours to change",
			config: map[string]string{
				"taskmanager.memory.task.heap.size": "512m",
				"taskmanager.memory.managed.size":   "512m",
			},
			want: memory{128 * mb, 128 * mb, 512 * mb, 0, 149130811, 512 * mb, 256 * mb, 192 * mb},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := processSpec(t, tt.config)
			require.NoError(t, err, "this configuration adds up: the TaskManager must start\nThe rule this case checks: %s", tt.why)
			assertMemory(t, tt.want, memoryOf(spec), tt.why)
			assert.Equal(t, spec.TotalProcessMemorySize()-spec.JVMMetaspaceSize-spec.JVMOverheadSize, spec.TotalFlinkMemorySize(),
				"the six parts of Total Flink Memory add up to it")
		})
	}
}

// What a TaskManager started with the distribution's configuration file
// prints before anything else (`flink start-cluster` shows it under
// "Preconfiguration:"), and the JVM flags its start script would pass.
func TestTheLogOfTheDefaultTaskManager(t *testing.T) {
	spec, err := processSpec(t, map[string]string{"taskmanager.memory.process.size": "1728m"})
	require.NoError(t, err, "the distribution's default configuration must start a TaskManager")

	assert.Equal(t, []string{
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
	}, clusterframework.LogSummary(spec), "the block a Flink TaskManager of 1728m logs, line for line")
	assert.Equal(t, "-Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456",
		clusterframework.GenerateJVMParametersStr(spec),
		"-Xmx is framework heap + task heap, -XX:MaxDirectMemorySize framework off-heap + task off-heap + network")
}

// failed is the prefix Flink's TaskExecutorProcessUtils puts before every
// IllegalConfigurationException of the memory model.
const failed = "TaskManager memory configuration failed: "

// A configuration whose parts do not fit is refused with Flink's
// IllegalConfigurationException, word for word: these are the lines people
// search for when a TaskManager will not start.
func TestConfigurationsThatDoNotAddUp(t *testing.T) {
	tests := []struct {
		name   string
		why    string
		config map[string]string
		want   string
		cause  string // the message of the exception's cause, if it has one
	}{
		{
			name: "process size 700m: the fixed parts do not fit",
			why: "when task heap is what is left, the other five parts must fit into Total Flink Memory (here 252m), " +
				"network memory at least its minimum; if they do not, Flink names them, in its order, with their sizes",
			config: map[string]string{"taskmanager.memory.process.size": "700m"},
			want: failed + "Sum of configured Framework Heap Memory (128.000mb (134217728 bytes)), " +
				"Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Off-Heap Memory (0 bytes), " +
				"Managed Memory (100.800mb (105696462 bytes)) and Network Memory (64.000mb (67108864 bytes)) " +
				"exceed configured Total Flink Memory (252.000mb (264241152 bytes)).",
		},
		{
			name: "task heap 400m in a flink size of 500m",
			why: "when task heap is configured, it and the parts other than network memory must fit into Total Flink Memory; " +
				"Flink names them, in its order, with their sizes",
			config: map[string]string{
				"taskmanager.memory.flink.size":     "500m",
				"taskmanager.memory.task.heap.size": "400m",
			},
			want: failed + "Sum of configured Framework Heap Memory (128.000mb (134217728 bytes)), " +
				"Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Heap Memory (400.000mb (419430400 bytes)), " +
				"Task Off-Heap Memory (0 bytes) and Managed Memory (200.000mb (209715203 bytes)) " +
				"exceed configured Total Flink Memory (500.000mb (524288000 bytes)).",
		},
		{
			name: "task heap 900m in the default process size",
			why:  "a configured task heap must leave room in Total Flink Memory (1280m) for the fixed parts and managed memory",
			config: map[string]string{
				"taskmanager.memory.process.size":   "1728m",
				"taskmanager.memory.task.heap.size": "900m",
			},
			want: failed + "Sum of configured Framework Heap Memory (128.000mb (134217728 bytes)), " +
				"Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Heap Memory (900.000mb (943718400 bytes)), " +
				"Task Off-Heap Memory (0 bytes) and Managed Memory (512.000mb (536870920 bytes)) " +
				"exceed configured Total Flink Memory (1.250gb (1342177280 bytes)).",
		},
		{
			name: "task heap configured: what is left for network memory is over its maximum",
			why: "when task heap is configured, network memory is what is left, and it must lie in its range; " +
				"Flink says why it came out as it did, and names the range in the cause",
			config: map[string]string{
				"taskmanager.memory.flink.size":     "1280m",
				"taskmanager.memory.task.heap.size": "100m",
				"taskmanager.memory.network.max":    "150m",
			},
			want: failed + "If Total Flink, Task Heap and (or) Managed Memory sizes are explicitly configured then " +
				"the Network Memory size is the rest of the Total Flink memory after subtracting all other " +
				"configured types of memory, but the derived Network Memory is inconsistent with its configuration.",
			cause: "Derived Network Memory size (412.000mb (432013304 bytes)) is not in configured Network Memory range " +
				"[64.000mb (67108864 bytes), 150.000mb (157286400 bytes)].",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := processSpec(t, tt.config)
			require.Error(t, err, "this configuration does not add up: the TaskManager must not start\nThe rule this case checks: %s", tt.why)
			assert.True(t, errors.Is(err, clusterframework.ErrIllegalConfiguration),
				"the error is Flink's IllegalConfigurationException (wraps clusterframework.ErrIllegalConfiguration); got %v", err)
			assert.Equal(t, tt.want, err.Error(), "Flink's message, word for word\nThe rule this case checks: %s", tt.why)
			if tt.cause != "" {
				assert.Contains(t, causes(err), tt.cause, "the cause names the range network memory left")
			}
		})
	}
}

// causes returns the messages of err's causes, outermost first.
func causes(err error) []string {
	var out []string
	for {
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			err = nil
			for _, e := range u.Unwrap() {
				if e != clusterframework.ErrIllegalConfiguration {
					err = e
				}
			}
		default:
			return out
		}
		if err == nil {
			return out
		}
		out = append(out, err.Error())
	}
}

// clusterConfig is a MiniCluster of one TaskManager with two slots and
// the given memory options.
func clusterConfig(memoryOptions map[string]string) minicluster.Config {
	return minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 2, Configuration: memoryOptions}
}

// startCluster starts a MiniCluster (scenario.Cluster) and waits until its
// TaskManager has registered. A derivation that panics fails the test
// here.
func startCluster(t *testing.T, cfg minicluster.Config) *minicluster.MiniCluster {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("starting a TaskManager must not panic: %v", r)
		}
	}()
	cluster, _ := scenario.Cluster(t, cfg)
	return cluster
}

// newCluster is minicluster.New, which computes the TaskManagers' memory.
// A derivation that panics fails the test here.
func newCluster(t *testing.T, cfg minicluster.Config) error {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("starting a TaskManager must not panic: %v", r)
		}
	}()
	_, err := minicluster.New(cfg)
	return err
}

// A TaskManager registers at the ResourceManager with the resources its
// slots share: its CPU cores (one per slot) and its task heap, task
// off-heap, managed and network memory. Framework memory, JVM metaspace and
// JVM overhead are its own. GET /taskmanagers/{id} reports the same.
func TestAMiniClusterTaskManagerRegistersWithWhatItsSlotsShare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster := startCluster(t, clusterConfig(map[string]string{"taskmanager.memory.process.size": "4g"}))

		infos, err := cluster.ResourceManager().RequestTaskManagerInfo(context.Background())
		require.NoError(t, err)
		require.Len(t, infos, 1)
		info := infos[0]
		assert.Equal(t, api.NewResourceProfile(2, 1530082070, 0, 1438814063, 359703515), info.TotalResource,
			"what the TaskManager's slots share: 2 cores (one per slot), task heap, task off-heap, managed and network memory")
		assert.Equal(t, clusterframework.TaskExecutorMemoryConfiguration{
			FrameworkHeap: 134217728, TaskHeap: 1530082070, FrameworkOffHeap: 134217728, TaskOffHeap: 0,
			NetworkMemory: 359703515, ManagedMemory: 1438814063, JVMMetaspace: 268435456, JVMOverhead: 429496736,
			TotalFlinkMemory: 3597035104, TotalProcessMemory: 4294967296,
		}, info.MemoryConfiguration, "the memoryConfiguration of GET /taskmanagers/{id}, in bytes")
		assert.Equal(t, api.NewResourceProfile(1, 765041035, 0, 719407031, 179851757),
			clusterframework.DefaultSlotResourceProfile(info.TotalResource, info.NumberSlots),
			"a default slot is half of it, rounded down to the byte")
	})
}

// A TaskManager whose memory does not add up does not start, and neither
// does a cluster of them.
func TestAMiniClusterRefusesATaskManagerWhoseMemoryDoesNotAddUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		err := newCluster(t, clusterConfig(map[string]string{"taskmanager.memory.process.size": "700m"}))
		require.Error(t, err, "a TaskManager of 700m must not start: its fixed parts do not fit")
		assert.ErrorContains(t, err, failed+"Sum of configured Framework Heap Memory (128.000mb (134217728 bytes))")
		assert.True(t, errors.Is(err, clusterframework.ErrIllegalConfiguration), "Flink's IllegalConfigurationException")
	})
}
