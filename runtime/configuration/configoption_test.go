package configuration

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Flink's error messages print options with ConfigOption#toString; these
// are the texts Flink prints.
func TestConfigOptionString(t *testing.T) {
	tests := []struct {
		option stringer
		want   string
	}{
		// As in Flink's own message: "... or Total Flink Memory size (Key:
		// 'jobmanager.memory.flink.size' , default: null (fallback keys: [])) ...".
		{TotalFlinkMemory, "Key: 'taskmanager.memory.flink.size' , default: null (fallback keys: [])"},
		{TotalProcessMemory, "Key: 'taskmanager.memory.process.size' , default: null (fallback keys: [])"},
		{FrameworkHeapMemory, "Key: 'taskmanager.memory.framework.heap.size' , default: 128 mb (fallback keys: [])"},
		{TaskOffHeapMemory, "Key: 'taskmanager.memory.task.off-heap.size' , default: 0 bytes (fallback keys: [])"},
		{ManagedMemorySize, "Key: 'taskmanager.memory.managed.size' , default: null (fallback keys: [{key=taskmanager.memory.size, isDeprecated=true}])"},
		// A float default prints as Float.toString prints it: 0.4, not
		// 0.4000000059604645.
		{ManagedMemoryFraction, "Key: 'taskmanager.memory.managed.fraction' , default: 0.4 (fallback keys: [])"},
		{NetworkMemoryFraction, "Key: 'taskmanager.memory.network.fraction' , default: 0.1 (fallback keys: [{key=taskmanager.network.memory.fraction, isDeprecated=true}])"},
		{NetworkMemoryMax, "Key: 'taskmanager.memory.network.max' , default: 9223372036854775807 bytes (fallback keys: [{key=taskmanager.network.memory.max, isDeprecated=true}])"},
		{JVMOverheadMax, "Key: 'taskmanager.memory.jvm-overhead.max' , default: 1 gb (fallback keys: [])"},
		{CPUCores, "Key: 'taskmanager.cpu.cores' , default: null (fallback keys: [])"},
		{NumTaskSlots, "Key: 'taskmanager.numberOfTaskSlots' , default: 1 (fallback keys: [])"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.option.String())
	}
}

type stringer interface{ String() string }

// The keys and defaults of Flink 1.17+'s TaskManagerOptions.
func TestTaskManagerOptionDefaults(t *testing.T) {
	memory := []struct {
		option     ConfigOption[MemorySize]
		key        string
		hasDefault bool
		def        MemorySize
	}{
		{TotalProcessMemory, "taskmanager.memory.process.size", false, 0},
		{TotalFlinkMemory, "taskmanager.memory.flink.size", false, 0},
		{FrameworkHeapMemory, "taskmanager.memory.framework.heap.size", true, 128 << 20},
		{FrameworkOffHeapMemory, "taskmanager.memory.framework.off-heap.size", true, 128 << 20},
		{TaskHeapMemory, "taskmanager.memory.task.heap.size", false, 0},
		{TaskOffHeapMemory, "taskmanager.memory.task.off-heap.size", true, 0},
		{ManagedMemorySize, "taskmanager.memory.managed.size", false, 0},
		{NetworkMemoryMin, "taskmanager.memory.network.min", true, 64 << 20},
		{NetworkMemoryMax, "taskmanager.memory.network.max", true, MaxMemorySize}, // since Flink 1.17; 1g before
		{JVMMetaspace, "taskmanager.memory.jvm-metaspace.size", true, 256 << 20},
		{JVMOverheadMin, "taskmanager.memory.jvm-overhead.min", true, 192 << 20},
		{JVMOverheadMax, "taskmanager.memory.jvm-overhead.max", true, 1 << 30},
	}
	for _, tt := range memory {
		assert.Equal(t, tt.key, tt.option.Key())
		assert.Equal(t, tt.hasDefault, tt.option.HasDefaultValue(), tt.key)
		assert.Equal(t, tt.def, tt.option.DefaultValue(), tt.key)
	}

	fractions := []struct {
		option ConfigOption[float64]
		key    string
		def    float32
	}{
		{ManagedMemoryFraction, "taskmanager.memory.managed.fraction", 0.4},
		{NetworkMemoryFraction, "taskmanager.memory.network.fraction", 0.1},
		{JVMOverheadFraction, "taskmanager.memory.jvm-overhead.fraction", 0.1},
	}
	for _, tt := range fractions {
		assert.Equal(t, tt.key, tt.option.Key())
		assert.Equal(t, float64(tt.def), tt.option.DefaultValue(), "%s is a Java float widened to a double", tt.key)
	}

	assert.Equal(t, "taskmanager.cpu.cores", CPUCores.Key())
	assert.False(t, CPUCores.HasDefaultValue())
	assert.Equal(t, "taskmanager.numberOfTaskSlots", NumTaskSlots.Key())
	assert.Equal(t, 1, NumTaskSlots.DefaultValue())
}

func TestConfigurationContainsAndGet(t *testing.T) {
	conf := Configuration{
		"taskmanager.memory.process.size":     "1728m",
		"taskmanager.network.memory.min":      "200m", // deprecated key of taskmanager.memory.network.min
		"taskmanager.memory.network.max":      "1g",
		"taskmanager.network.memory.max":      "2g", // ignored: the key itself is set
		"taskmanager.memory.managed.fraction": "0.5",
	}

	assert.True(t, conf.Contains(TotalProcessMemory))
	assert.False(t, conf.Contains(TotalFlinkMemory))
	assert.False(t, conf.Contains(FrameworkHeapMemory), "a default does not make an option contained")
	assert.True(t, conf.Contains(NetworkMemoryMin), "a deprecated key makes an option contained")

	get := func(o ConfigOption[MemorySize]) MemorySize {
		v, err := Get(conf, o)
		require.NoError(t, err)
		return v
	}
	assert.Equal(t, MemorySize(1728<<20), get(TotalProcessMemory))
	assert.Equal(t, MemorySize(128<<20), get(FrameworkHeapMemory), "the default")
	assert.Equal(t, MemorySize(200<<20), get(NetworkMemoryMin), "the deprecated key")
	assert.Equal(t, MemorySize(1<<30), get(NetworkMemoryMax), "the key before its deprecated key")
	assert.Equal(t, MemorySize(0), get(TotalFlinkMemory), "no value and no default: Flink's null")

	fraction, err := Get(conf, ManagedMemoryFraction)
	require.NoError(t, err)
	assert.Equal(t, float64(float32(0.5)), fraction)
}

// A value that does not parse gives Flink's IllegalArgumentException text,
// and its cause.
func TestGetParseErrors(t *testing.T) {
	tests := []struct {
		conf      Configuration
		get       func(Configuration) error
		want      string
		wantCause string
	}{
		{
			Configuration{"taskmanager.memory.process.size": "1728 megs"},
			func(c Configuration) error { _, err := Get(c, TotalProcessMemory); return err },
			"Could not parse value '1728 megs' for key 'taskmanager.memory.process.size'.",
			"Memory size unit 'megs' does not match any of the recognized units: " +
				"(b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / (t | tb | tebibytes)",
		},
		{
			Configuration{"taskmanager.network.memory.fraction": "a tenth"},
			func(c Configuration) error { _, err := Get(c, NetworkMemoryFraction); return err },
			// The key of the option, though the value came from its deprecated key.
			"Could not parse value 'a tenth' for key 'taskmanager.memory.network.fraction'.",
			`For input string: "a tenth"`,
		},
		{
			Configuration{"taskmanager.numberOfTaskSlots": "two"},
			func(c Configuration) error { _, err := Get(c, NumTaskSlots); return err },
			"Could not parse value 'two' for key 'taskmanager.numberOfTaskSlots'.",
			`For input string: "two"`,
		},
	}
	for _, tt := range tests {
		err := tt.get(tt.conf)
		require.Error(t, err)
		assert.Equal(t, tt.want, err.Error())
		assert.False(t, errors.Is(err, ErrIllegalConfiguration), "an IllegalArgumentException in Flink")
		var cause error
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			cause = e
		}
		require.NotNil(t, cause)
		assert.Equal(t, tt.wantCause, cause.Error())
	}
}

func TestIllegalConfigurationError(t *testing.T) {
	cause := errors.New("min value must be less or equal to max value")
	err := NewIllegalConfigurationError("Inconsistently configured ...", cause)
	assert.Equal(t, "Inconsistently configured ...", err.Error(), "the message alone, as getMessage")
	assert.True(t, errors.Is(err, ErrIllegalConfiguration))
	assert.True(t, errors.Is(err, cause))
}

// FormatJavaDouble prints as Java's Double.toString, the way Flink's
// messages print fractions.
func TestFormatJavaDouble(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{float64(float32(0.1)), "0.10000000149011612"},
		{float64(float32(0.4)), "0.4000000059604645"},
		{float64(float32(-0.1)), "-0.10000000149011612"},
		{1, "1.0"},
		{3, "3.0"},
		{0, "0.0"},
		{0.5, "0.5"},
		{0.001, "0.001"},
		{0.0001, "1.0E-4"},
		{1234567, "1234567.0"},
		{12345678, "1.2345678E7"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FormatJavaDouble(tt.v), "FormatJavaDouble(%v)", tt.v)
	}
	assert.Equal(t, "0.1", formatJava(float64(float32(0.1)), 32), "Float.toString")
}
