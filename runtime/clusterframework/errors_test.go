package clusterframework

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/configuration"
)

// failed is the prefix Flink's TaskExecutorProcessUtils#processSpecFromConfig
// puts before every IllegalConfigurationException it passes on.
const failed = "TaskManager memory configuration failed: "

// units is the list Flink's MemorySize names in its unit error.
const units = "(b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / (t | tb | tebibytes)"

// messages returns err's message and its causes' messages, outermost
// first, as the "Caused by:" lines of Flink's stack trace list them.
func messages(err error) []string {
	var msgs []string
	for err != nil {
		msgs = append(msgs, err.Error())
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if e != ErrIllegalConfiguration && e != configuration.ErrArithmetic {
					next = e
				}
			}
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		}
		err = next
	}
	return msgs
}

// TestProcessSpecFromConfigErrors has one case per error Flink's memory
// model throws, with Flink's exact text. Where a case comes from Flink's
// own tests (TaskExecutorProcessUtilsTest, ProcessMemoryUtilsTestBase) or
// from a real Flink log, the comment says so.
func TestProcessSpecFromConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]string
		// want is the error's message. causes are the messages of its
		// causes, innermost last, below the exception that Flink's
		// "TaskManager memory configuration failed: " wraps (whose message
		// is want without that prefix).
		want   string
		causes []string
		// illegalConfiguration: the error wraps ErrIllegalConfiguration.
		illegalConfiguration bool
	}{
		{
			// Nothing configured (Flink's testExceptionShouldContainRequiredConfigOptions).
			// Flink formats the two total options with ConfigOption#toString,
			// as a real Flink log shows: "(Key: 'jobmanager.memory.flink.size' ,
			// default: null (fallback keys: []))" for a JobManager.
			name:   "no memory configured",
			config: map[string]string{},
			want: failed + "Either required fine-grained memory (taskmanager.memory.task.heap.size and " +
				"taskmanager.memory.managed.size), or Total Flink Memory size (Key: 'taskmanager.memory.flink.size' , " +
				"default: null (fallback keys: [])), or Total Process Memory size (Key: 'taskmanager.memory.process.size' , " +
				"default: null (fallback keys: [])) need to be configured explicitly.",
			illegalConfiguration: true,
		},
		{
			// Task heap alone is not enough: the fine-grained way needs
			// managed memory too.
			name:   "task heap without managed memory",
			config: map[string]string{"taskmanager.memory.task.heap.size": "512m"},
			want: failed + "Either required fine-grained memory (taskmanager.memory.task.heap.size and " +
				"taskmanager.memory.managed.size), or Total Flink Memory size (Key: 'taskmanager.memory.flink.size' , " +
				"default: null (fallback keys: [])), or Total Process Memory size (Key: 'taskmanager.memory.process.size' , " +
				"default: null (fallback keys: [])) need to be configured explicitly.",
			illegalConfiguration: true,
		},
		{
			// The configured parts exceed the configured Total Flink Memory:
			// 100m + 128m + 100m + 100m + 100m = 528m > 499m (Flink's
			// testFlinkInternalMemorySizeAddUpFailure).
			name: "fine-grained parts exceed flink size",
			config: map[string]string{
				"taskmanager.memory.flink.size":          "499m",
				"taskmanager.memory.framework.heap.size": "100m",
				"taskmanager.memory.task.heap.size":      "100m",
				"taskmanager.memory.task.off-heap.size":  "100m",
				"taskmanager.memory.network.min":         "100m",
				"taskmanager.memory.network.max":         "100m",
				"taskmanager.memory.managed.size":        "100m",
			},
			want: failed + "Sum of configured Framework Heap Memory (100.000mb (104857600 bytes)), " +
				"Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Heap Memory (100.000mb (104857600 bytes)), " +
				"Task Off-Heap Memory (100.000mb (104857600 bytes)) and Managed Memory (100.000mb (104857600 bytes)) " +
				"exceed configured Total Flink Memory (499.000mb (523239424 bytes)).",
			illegalConfiguration: true,
		},
		{
			// Task heap configured, managed derived: 128m + 128m + 400m + 0 +
			// 0.4 × 500m = 856m > 500m.
			name: "task heap and managed exceed flink size",
			config: map[string]string{
				"taskmanager.memory.flink.size":     "500m",
				"taskmanager.memory.task.heap.size": "400m",
			},
			want: failed + "Sum of configured Framework Heap Memory (128.000mb (134217728 bytes)), " +
				"Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Heap Memory (400.000mb (419430400 bytes)), " +
				"Task Off-Heap Memory (0 bytes) and Managed Memory (200.000mb (209715203 bytes)) " +
				"exceed configured Total Flink Memory (500.000mb (524288000 bytes)).",
			illegalConfiguration: true,
		},
		{
			// A process too small for the fixed parts: 700m − 256m − 192m =
			// 252m of Flink memory, less than 128m + 128m + 0 + 100.8m + 64m.
			// This exact message (after the prefix) appears in a real Flink
			// Kubernetes operator error, for a TaskManager left with 252m of
			// Flink memory: 700m of process memory with the defaults.
			name:   "process size 700m is too small",
			config: map[string]string{"taskmanager.memory.process.size": "700m"},
			want: failed + "Sum of configured Framework Heap Memory (128.000mb (134217728 bytes)), " +
				"Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Off-Heap Memory (0 bytes), " +
				"Managed Memory (100.800mb (105696462 bytes)) and Network Memory (64.000mb (67108864 bytes)) " +
				"exceed configured Total Flink Memory (252.000mb (264241152 bytes)).",
			illegalConfiguration: true,
		},
		{
			// Total Flink, task heap and managed configured: network is the
			// rest, 1280m − 128m − 128m − 100m − 0 − 200m = 724m, outside
			// [100m, 150m] (Flink's
			// testConsistencyCheckOfDerivedNetworkMemoryGreaterThanMaxFails).
			name: "derived network outside its range",
			config: map[string]string{
				"taskmanager.memory.flink.size":     "1280m",
				"taskmanager.memory.task.heap.size": "100m",
				"taskmanager.memory.managed.size":   "200m",
				"taskmanager.memory.network.min":    "100m",
				"taskmanager.memory.network.max":    "150m",
			},
			want: failed + "If Total Flink, Task Heap and (or) Managed Memory sizes are explicitly configured then " +
				"the Network Memory size is the rest of the Total Flink memory after subtracting all other " +
				"configured types of memory, but the derived Network Memory is inconsistent with its configuration.",
			causes: []string{
				"Derived Network Memory size (724.000mb (759169024 bytes)) is not in configured Network Memory range " +
					"[100.000mb (104857600 bytes), 150.000mb (157286400 bytes)].",
			},
			illegalConfiguration: true,
		},
		{
			// Network min > max (Flink's testConfigNetworkMemoryRangeFailure).
			// Flink prints the fraction option with its deprecated key, and
			// the fraction as the double it widened the float to.
			name: "network min greater than max",
			config: map[string]string{
				"taskmanager.memory.process.size": "1728m",
				"taskmanager.memory.network.min":  "200m",
				"taskmanager.memory.network.max":  "50m",
			},
			want: failed + "Inconsistently configured Key: 'taskmanager.memory.network.fraction' , default: 0.1 " +
				"(fallback keys: [{key=taskmanager.network.memory.fraction, isDeprecated=true}]) (0.10000000149011612) " +
				"and its min (200.000mb (209715200 bytes)), max (50.000mb (52428800 bytes)) value",
			causes:               []string{"min value must be less or equal to max value"},
			illegalConfiguration: true,
		},
		{
			// A fraction must be in [0, 1) (Flink's
			// testConfigManagedMemoryFractionFailure). Managed memory has no
			// cap: its range is [0, MAX_VALUE].
			name: "managed fraction 1.0",
			config: map[string]string{
				"taskmanager.memory.process.size":     "1728m",
				"taskmanager.memory.managed.fraction": "1.0",
			},
			want: failed + "Inconsistently configured Key: 'taskmanager.memory.managed.fraction' , default: 0.4 " +
				"(fallback keys: []) (1.0) and its min (0 bytes), max (8388608.000tb (9223372036854775807 bytes)) value",
			causes:               []string{"fraction must be in range [0, 1)"},
			illegalConfiguration: true,
		},
		{
			// JVM overhead min > max (Flink's testConfigJvmOverheadRangeFailure).
			name: "jvm overhead min greater than max",
			config: map[string]string{
				"taskmanager.memory.process.size":     "1728m",
				"taskmanager.memory.jvm-overhead.min": "200m",
				"taskmanager.memory.jvm-overhead.max": "50m",
			},
			want: failed + "Inconsistently configured Key: 'taskmanager.memory.jvm-overhead.fraction' , default: 0.1 " +
				"(fallback keys: []) (0.10000000149011612) and its min (200.000mb (209715200 bytes)), " +
				"max (50.000mb (52428800 bytes)) value",
			causes:               []string{"min value must be less or equal to max value"},
			illegalConfiguration: true,
		},
		{
			// Metaspace 256m and overhead 192m (its minimum) leave nothing of
			// a 300m process.
			name:   "metaspace and overhead exceed process size",
			config: map[string]string{"taskmanager.memory.process.size": "300m"},
			want: failed + "Sum of configured JVM Metaspace (256.000mb (268435456 bytes)) and JVM Overhead " +
				"(192.000mb (201326592 bytes)) exceed configured Total Process Memory (300.000mb (314572800 bytes)).",
			illegalConfiguration: true,
		},
		{
			// Flink size larger than process size: the values of a real
			// Flink log (process 3g, flink 4g). Note Flink's two spaces
			// before "(256.000mb".
			name: "flink size larger than process size",
			config: map[string]string{
				"taskmanager.memory.process.size": "3g",
				"taskmanager.memory.flink.size":   "4g",
			},
			want: failed + "The configured Total Process Memory size (3.000gb (3221225472 bytes)) is less than " +
				"the sum of the derived Total Flink Memory size (4.000gb (4294967296 bytes)) and the configured or default " +
				"JVM Metaspace size  (256.000mb (268435456 bytes)).",
			illegalConfiguration: true,
		},
		{
			// Both totals: overhead is what is left, 1000m − 800m − 100m =
			// 100m, outside [150m, 200m] (Flink's
			// testConfigJvmOverheadDeriveFromProcessAndFlinkMemorySizeFailure).
			name: "derived jvm overhead outside its range",
			config: map[string]string{
				"taskmanager.memory.process.size":          "1000m",
				"taskmanager.memory.flink.size":            "800m",
				"taskmanager.memory.jvm-metaspace.size":    "100m",
				"taskmanager.memory.jvm-overhead.min":      "150m",
				"taskmanager.memory.jvm-overhead.max":      "200m",
				"taskmanager.memory.jvm-overhead.fraction": "0.5",
			},
			want: failed + "Derived JVM Overhead size (100.000mb (104857600 bytes)) is not in configured " +
				"JVM Overhead range [150.000mb (157286400 bytes), 200.000mb (209715200 bytes)].",
			illegalConfiguration: true,
		},
		{
			// Totals that do not add up: 1199m ≠ 1000m + 100m + 100m (Flink's
			// testConfigTotalProcessMemoryAddUpFailure, with a Total Flink
			// Memory that holds a TaskManager's fixed parts). Flink fails on
			// the overhead range, 99m not in [100m, 100m], before its "do not
			// add up" check could.
			name: "totals do not add up",
			config: map[string]string{
				"taskmanager.memory.process.size":       "1199m",
				"taskmanager.memory.flink.size":         "1000m",
				"taskmanager.memory.jvm-metaspace.size": "100m",
				"taskmanager.memory.jvm-overhead.min":   "100m",
				"taskmanager.memory.jvm-overhead.max":   "100m",
			},
			want: failed + "Derived JVM Overhead size (99.000mb (103809024 bytes)) is not in configured " +
				"JVM Overhead range [100.000mb (104857600 bytes), 100.000mb (104857600 bytes)].",
			illegalConfiguration: true,
		},
		{
			// A size that does not parse.
			name:   "process size that does not parse",
			config: map[string]string{"taskmanager.memory.process.size": "1728 megs"},
			want:   failed + "Cannot read memory size from config option 'taskmanager.memory.process.size'.",
			causes: []string{
				"Could not parse value '1728 megs' for key 'taskmanager.memory.process.size'.",
				"Memory size unit 'megs' does not match any of the recognized units: " + units,
			},
			illegalConfiguration: true,
		},
		{
			// Zero cores (Flink's testConfigNegativeCpuCores uses -0.1).
			name: "zero cpu cores",
			config: map[string]string{
				"taskmanager.memory.process.size": "1728m",
				"taskmanager.cpu.cores":           "0",
			},
			want: failed + "TaskExecutors need to be started with a positive number of CPU cores. " +
				"Please configure taskmanager.cpu.cores accordingly.",
			illegalConfiguration: true,
		},
		{
			// Without taskmanager.cpu.cores, the slots are the cores.
			name: "zero slots",
			config: map[string]string{
				"taskmanager.memory.process.size": "1728m",
				"taskmanager.numberOfTaskSlots":   "0",
			},
			want: failed + "TaskExecutors need to be started with a positive number of CPU cores. " +
				"Please configure taskmanager.cpu.cores accordingly.",
			illegalConfiguration: true,
		},
		{
			// A fraction that does not parse is Flink's
			// IllegalArgumentException: not an IllegalConfigurationException,
			// and without the "TaskManager memory configuration failed" prefix.
			name: "managed fraction that does not parse",
			config: map[string]string{
				"taskmanager.memory.process.size":     "1728m",
				"taskmanager.memory.managed.fraction": "40%",
			},
			want:                 "Could not parse value '40%' for key 'taskmanager.memory.managed.fraction'.",
			causes:               []string{`For input string: "40%"`},
			illegalConfiguration: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ProcessSpecFromConfig(tt.config)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, tt.illegalConfiguration, errors.Is(err, ErrIllegalConfiguration))

			chain := messages(err)[1:]
			if tt.illegalConfiguration {
				// The exception Flink's prefix wraps: the same message, unprefixed.
				require.NotEmpty(t, chain)
				assert.Equal(t, strings.TrimPrefix(tt.want, failed), chain[0])
				chain = chain[1:]
			}
			assert.Equal(t, tt.causes, nilIfEmpty(chain), "causes")
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Sizes whose sum does not fit in 64 bits: Flink's Math.addExact throws an
// ArithmeticException; ProcessSpecFromConfig returns it rather than panic.
func TestProcessSpecFromConfigOverflow(t *testing.T) {
	_, err := ProcessSpecFromConfig(map[string]string{
		"taskmanager.memory.task.heap.size": "8000000t",
		"taskmanager.memory.managed.size":   "8000000t",
	})
	require.Error(t, err)
	assert.Equal(t, "long overflow", err.Error())
	assert.True(t, errors.Is(err, configuration.ErrArithmetic))
	assert.False(t, errors.Is(err, ErrIllegalConfiguration))
}
