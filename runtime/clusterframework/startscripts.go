package clusterframework

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"flinklab/runtime/configuration"
)

// This file holds what Flink's start scripts make of a
// TaskExecutorProcessSpec. Before bin/taskmanager.sh starts a TaskManager's
// JVM, it runs BashJavaUtils GET_TM_RESOURCE_PARAMS, which computes the
// spec (ProcessSpecFromConfig), logs it (LogSummary) and prints two lines:
// the JVM's memory flags (GenerateJVMParametersStr) and the sizes as
// dynamic properties (GenerateDynamicConfigsStr). The script starts the
// JVM with the first and passes the second to the TaskManager, which then
// finds every size configured to the byte and derives nothing again.
//
// A Go process has no JVM: these are the flags and properties Flink would
// pass, computed to be printed, never applied.

// GenerateJVMParametersStr returns the JVM flags Flink starts a TaskManager
// with (Flink's ProcessMemoryUtils#generateJvmParametersStr), sizes in
// bytes: -Xmx and -Xms the JVM heap (framework heap + task heap),
// -XX:MaxDirectMemorySize the JVM direct memory (framework off-heap + task
// off-heap + network), -XX:MaxMetaspaceSize the JVM metaspace. For the
// default 1728m:
//
//	-Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456
//
// Managed memory is native memory the MemoryManager allocates itself, and
// JVM overhead is what the JVM needs beyond these limits: neither has a
// flag.
func GenerateJVMParametersStr(spec TaskExecutorProcessSpec) string {
	heap := spec.JVMHeapMemorySize().Bytes()
	return "-Xmx" + strconv.FormatInt(heap, 10) +
		" -Xms" + strconv.FormatInt(heap, 10) +
		" -XX:MaxDirectMemorySize=" + strconv.FormatInt(spec.JVMDirectMemorySize().Bytes(), 10) +
		" -XX:MaxMetaspaceSize=" + strconv.FormatInt(spec.JVMMetaspaceSize.Bytes(), 10)
}

// externalResources is Flink's ExternalResourceOptions.EXTERNAL_RESOURCE_LIST,
// and externalResourcesNone its value for a TaskManager without GPUs or
// other external resources.
const (
	externalResources     = "external-resources"
	externalResourcesNone = "none"
)

// GenerateDynamicConfigsStr returns the spec as the dynamic properties
// Flink's start script passes to the TaskManager (Flink's
// TaskExecutorProcessUtils#generateDynamicConfigsStr): "-D key=value",
// joined by spaces, every size in bytes with a "b" suffix. Network memory
// is given as both its min and its max, and JVM overhead likewise, so that
// the TaskManager derives nothing. For the default 1728m, as real
// TaskManager logs show it:
//
//	-D taskmanager.memory.network.min=134217730b -D taskmanager.cpu.cores=1.0 -D taskmanager.memory.task.off-heap.size=0b
//	-D taskmanager.memory.jvm-metaspace.size=268435456b -D external-resources=none -D taskmanager.memory.jvm-overhead.min=201326592b
//	-D taskmanager.memory.framework.off-heap.size=134217728b -D taskmanager.memory.network.max=134217730b
//	-D taskmanager.memory.framework.heap.size=134217728b -D taskmanager.memory.managed.size=536870920b
//	-D taskmanager.memory.task.heap.size=402653174b -D taskmanager.numberOfTaskSlots=1 -D taskmanager.memory.jvm-overhead.max=201326592b
//
// (one line in Flink). The odd order is Flink's: it puts the properties
// into a java.util.HashMap and prints them in the order the map iterates
// (javaHashMapOrder).
func GenerateDynamicConfigsStr(spec TaskExecutorProcessSpec) string {
	bytes := func(m configuration.MemorySize) string { return strconv.FormatInt(m.Bytes(), 10) + "b" }
	// Flink's configs.put calls, in Flink's order.
	keys := []string{
		configuration.CPUCores.Key(),
		configuration.FrameworkHeapMemory.Key(),
		configuration.FrameworkOffHeapMemory.Key(),
		configuration.TaskHeapMemory.Key(),
		configuration.TaskOffHeapMemory.Key(),
		configuration.NetworkMemoryMin.Key(),
		configuration.NetworkMemoryMax.Key(),
		configuration.ManagedMemorySize.Key(),
		configuration.JVMMetaspace.Key(),
		configuration.JVMOverheadMin.Key(),
		configuration.JVMOverheadMax.Key(),
		configuration.NumTaskSlots.Key(),
		externalResources,
	}
	values := map[string]string{
		configuration.CPUCores.Key():               configuration.FormatJavaDouble(spec.CPUCores),
		configuration.FrameworkHeapMemory.Key():    bytes(spec.FrameworkHeapSize),
		configuration.FrameworkOffHeapMemory.Key(): bytes(spec.FrameworkOffHeapSize),
		configuration.TaskHeapMemory.Key():         bytes(spec.TaskHeapSize),
		configuration.TaskOffHeapMemory.Key():      bytes(spec.TaskOffHeapSize),
		configuration.NetworkMemoryMin.Key():       bytes(spec.NetworkMemSize),
		configuration.NetworkMemoryMax.Key():       bytes(spec.NetworkMemSize),
		configuration.ManagedMemorySize.Key():      bytes(spec.ManagedMemorySize),
		configuration.JVMMetaspace.Key():           bytes(spec.JVMMetaspaceSize),
		configuration.JVMOverheadMin.Key():         bytes(spec.JVMOverheadSize),
		configuration.JVMOverheadMax.Key():         bytes(spec.JVMOverheadSize),
		configuration.NumTaskSlots.Key():           strconv.Itoa(spec.NumSlots),
		externalResources:                          externalResourcesNone,
	}

	// Flink's ConfigurationUtils#assembleDynamicConfigsStr.
	properties := make([]string, 0, len(keys))
	for _, key := range javaHashMapOrder(keys) {
		properties = append(properties, "-D "+key+"="+values[key])
	}
	return strings.Join(properties, " ")
}

// javaHashMapOrder returns distinct keys in the order a java.util.HashMap
// with default settings iterates over them after they were put in the
// given order. Flink's generateDynamicConfigsStr builds a HashMap, so its
// output follows this order, and real logs show it.
//
// A HashMap is an array of buckets, 16 to start with, doubled whenever it
// holds more than 3/4 as many keys as it has buckets. A key goes into
// bucket hash & (buckets-1), where hash is Java's String#hashCode with its
// upper 16 bits folded into the lower ones (HashMap#hash). Iteration walks
// the buckets in order, and within a bucket the keys in the order they
// were put (doubling splits a bucket's list in two, keeping that order).
// Trees, which replace lists of eight keys or more, are left out: a few
// keys never make one.
func javaHashMapOrder(keys []string) []string {
	buckets := 16
	for len(keys) > buckets*3/4 {
		buckets *= 2
	}
	byBucket := make([][]string, buckets)
	for _, key := range keys {
		i := javaHashMapHash(key) & uint32(buckets-1)
		byBucket[i] = append(byBucket[i], key)
	}
	ordered := make([]string, 0, len(keys))
	for _, bucket := range byBucket {
		ordered = append(ordered, bucket...)
	}
	return ordered
}

// javaHashMapHash is HashMap#hash of a String key: String#hashCode,
// s[0]*31^(n-1) + … + s[n-1] in 32-bit arithmetic over the string's UTF-16
// code units, XORed with itself shifted right by 16.
func javaHashMapHash(s string) uint32 {
	var h uint32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + uint32(c)
	}
	return h ^ (h >> 16)
}
