package clusterframework

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the start script of a default TaskManager (1728m) passes to its
// JVM, as real TaskManager logs show it under "RESOURCE_PARAMS extraction
// logs:", character for character.
func TestStartScriptParametersOfTheDefaultTaskManager(t *testing.T) {
	spec, err := ProcessSpecFromConfig(map[string]string{"taskmanager.memory.process.size": "1728m"})
	require.NoError(t, err)

	assert.Equal(t,
		"-Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456",
		GenerateJVMParametersStr(spec))
	assert.Equal(t,
		"-D taskmanager.memory.network.min=134217730b -D taskmanager.cpu.cores=1.0 "+
			"-D taskmanager.memory.task.off-heap.size=0b -D taskmanager.memory.jvm-metaspace.size=268435456b "+
			"-D external-resources=none -D taskmanager.memory.jvm-overhead.min=201326592b "+
			"-D taskmanager.memory.framework.off-heap.size=134217728b -D taskmanager.memory.network.max=134217730b "+
			"-D taskmanager.memory.framework.heap.size=134217728b -D taskmanager.memory.managed.size=536870920b "+
			"-D taskmanager.memory.task.heap.size=402653174b -D taskmanager.numberOfTaskSlots=1 "+
			"-D taskmanager.memory.jvm-overhead.max=201326592b",
		GenerateDynamicConfigsStr(spec))
}

// 4g with two slots and one and a half cores: the same properties in the
// same order, with the 4g sizes.
func TestStartScriptParametersOf4g(t *testing.T) {
	spec, err := ProcessSpecFromConfig(map[string]string{
		"taskmanager.memory.process.size": "4g",
		"taskmanager.numberOfTaskSlots":   "2",
		"taskmanager.cpu.cores":           "1.5",
	})
	require.NoError(t, err)

	// Heap 128m + 1530082070; direct 128m + 0 + 359703515.
	assert.Equal(t,
		"-Xmx1664299798 -Xms1664299798 -XX:MaxDirectMemorySize=493921243 -XX:MaxMetaspaceSize=268435456",
		GenerateJVMParametersStr(spec))
	assert.Equal(t,
		"-D taskmanager.memory.network.min=359703515b -D taskmanager.cpu.cores=1.5 "+
			"-D taskmanager.memory.task.off-heap.size=0b -D taskmanager.memory.jvm-metaspace.size=268435456b "+
			"-D external-resources=none -D taskmanager.memory.jvm-overhead.min=429496736b "+
			"-D taskmanager.memory.framework.off-heap.size=134217728b -D taskmanager.memory.network.max=359703515b "+
			"-D taskmanager.memory.framework.heap.size=134217728b -D taskmanager.memory.managed.size=1438814063b "+
			"-D taskmanager.memory.task.heap.size=1530082070b -D taskmanager.numberOfTaskSlots=2 "+
			"-D taskmanager.memory.jvm-overhead.max=429496736b",
		GenerateDynamicConfigsStr(spec))
}

// javaHashMapOrder follows java.util.HashMap: buckets by the folded
// String#hashCode, 16 of them until a map holds more than 12 keys, and
// within a bucket the order of insertion.
func TestJavaHashMapOrder(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want []string
	}{
		{
			// "a".hashCode() = 97 = bucket 1, "b" 98 = 2, "c" 99 = 3.
			name: "one key per bucket, in bucket order",
			keys: []string{"c", "a", "b"},
			want: []string{"a", "b", "c"},
		},
		{
			// "q" (113) and "a" (97) share bucket 1 of 16: the order
			// they were put in.
			name: "a shared bucket keeps the order of insertion",
			keys: []string{"q", "a", "b"},
			want: []string{"q", "a", "b"},
		},
		{
			// 13 keys make 32 buckets: "q" (113 = bucket 17) now comes
			// after "a" (bucket 1) and "b" (2).
			name: "more than 12 keys double the buckets",
			keys: []string{"q", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"},
			want: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "q"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, javaHashMapOrder(tt.keys))
		})
	}
	// "taskmanager.cpu.cores".hashCode() is 0x85402908 in Java (-2059392760).
	assert.Equal(t, uint32(0x85402908^0x8540), javaHashMapHash("taskmanager.cpu.cores"))
}
