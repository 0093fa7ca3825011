package clusterframework

import (
	"flinklab/runtime/configuration"
)

// TaskExecutorProcessSpec is Flink's TaskExecutorProcessSpec: the CPU cores
// of a TaskManager and the size of each part of its memory, as
// ProcessSpecFromConfig derives them. The picture of the parts is in the
// package documentation. The fields are Flink's, in Flink's order; the
// totals are methods, as Flink's getters are, so that they always agree
// with the parts.
type TaskExecutorProcessSpec struct {
	// CPUCores is taskmanager.cpu.cores, or the number of slots.
	CPUCores float64

	// FrameworkHeapSize is the TaskManager's own JVM heap.
	FrameworkHeapSize configuration.MemorySize
	// FrameworkOffHeapSize is the TaskManager's own direct and native
	// memory (Flink: frameworkOffHeapMemorySize).
	FrameworkOffHeapSize configuration.MemorySize
	// TaskHeapSize is the JVM heap shared by the tasks of all slots.
	TaskHeapSize configuration.MemorySize
	// TaskOffHeapSize is the direct and native memory of the tasks.
	TaskOffHeapSize configuration.MemorySize
	// NetworkMemSize is the direct memory of the network buffers.
	NetworkMemSize configuration.MemorySize
	// ManagedMemorySize is the native memory the MemoryManager hands out.
	ManagedMemorySize configuration.MemorySize
	// JVMMetaspaceSize is the JVM's class metadata (-XX:MaxMetaspaceSize).
	JVMMetaspaceSize configuration.MemorySize
	// JVMOverheadSize is the JVM's other native memory: thread stacks,
	// code cache, garbage collector.
	JVMOverheadSize configuration.MemorySize

	// NumSlots is taskmanager.numberOfTaskSlots. Flink's spec has carried
	// it since fine-grained resource management; a slot's default share of
	// the memory above is that memory divided by NumSlots.
	NumSlots int
}

// TotalFlinkMemorySize is the six parts Flink accounts for, everything but
// JVM Metaspace and JVM Overhead (taskmanager.memory.flink.size).
func (s TaskExecutorProcessSpec) TotalFlinkMemorySize() configuration.MemorySize {
	return s.FrameworkHeapSize.
		Add(s.FrameworkOffHeapSize).
		Add(s.TaskHeapSize).
		Add(s.TaskOffHeapSize).
		Add(s.NetworkMemSize).
		Add(s.ManagedMemorySize)
}

// TotalProcessMemorySize is all of it: Total Flink Memory, JVM Metaspace and
// JVM Overhead (taskmanager.memory.process.size; the container's size).
func (s TaskExecutorProcessSpec) TotalProcessMemorySize() configuration.MemorySize {
	return s.TotalFlinkMemorySize().Add(s.JVMMetaspaceSize).Add(s.JVMOverheadSize)
}

// JVMHeapMemorySize is framework heap plus task heap, what Flink passes to
// the JVM as -Xmx and -Xms.
func (s TaskExecutorProcessSpec) JVMHeapMemorySize() configuration.MemorySize {
	return s.FrameworkHeapSize.Add(s.TaskHeapSize)
}

// JVMDirectMemorySize is framework off-heap plus task off-heap plus network,
// what Flink passes to the JVM as -XX:MaxDirectMemorySize. Managed memory
// is off-heap too, but native, so it is not counted here.
func (s TaskExecutorProcessSpec) JVMDirectMemorySize() configuration.MemorySize {
	return s.FrameworkOffHeapSize.Add(s.TaskOffHeapSize).Add(s.NetworkMemSize)
}

// String prints the spec as Flink's TaskExecutorProcessSpec#toString did in
// Flink 1.11, e.g. "TaskExecutorProcessSpec {cpuCores=1.0,
// frameworkHeapSize=128.000mb (134217728 bytes), ...}". NumSlots is not
// printed.
func (s TaskExecutorProcessSpec) String() string {
	return "TaskExecutorProcessSpec {" +
		"cpuCores=" + configuration.FormatJavaDouble(s.CPUCores) +
		", frameworkHeapSize=" + s.FrameworkHeapSize.ToHumanReadableString() +
		", frameworkOffHeapSize=" + s.FrameworkOffHeapSize.ToHumanReadableString() +
		", taskHeapSize=" + s.TaskHeapSize.ToHumanReadableString() +
		", taskOffHeapSize=" + s.TaskOffHeapSize.ToHumanReadableString() +
		", networkMemSize=" + s.NetworkMemSize.ToHumanReadableString() +
		", managedMemorySize=" + s.ManagedMemorySize.ToHumanReadableString() +
		", jvmMetaspaceSize=" + s.JVMMetaspaceSize.ToHumanReadableString() +
		", jvmOverheadSize=" + s.JVMOverheadSize.ToHumanReadableString() +
		"}"
}

// LogSummary returns the block of lines a TaskManager's startup prints,
// line for line as Flink prints it (BashJavaUtils#logTaskExecutorConfiguration,
// run by the start scripts before the TaskManager's JVM starts). For the
// distribution's default of taskmanager.memory.process.size: 1728m:
//
//	Final TaskExecutor Memory configuration:
//	  Total Process Memory:          1.688gb (1811939328 bytes)
//	    Total Flink Memory:          1.250gb (1342177280 bytes)
//	      Total JVM Heap Memory:     512.000mb (536870902 bytes)
//	        Framework:               128.000mb (134217728 bytes)
//	        Task:                    384.000mb (402653174 bytes)
//	      Total Off-heap Memory:     768.000mb (805306378 bytes)
//	        Managed:                 512.000mb (536870920 bytes)
//	        Total JVM Direct Memory: 256.000mb (268435458 bytes)
//	          Framework:             128.000mb (134217728 bytes)
//	          Task:                  0 bytes
//	          Network:               128.000mb (134217730 bytes)
//	    JVM Metaspace:               256.000mb (268435456 bytes)
//	    JVM Overhead:                192.000mb (201326592 bytes)
//
// Each line is what Flink passes to LOG.info; the logger adds its own
// prefix ("INFO  [] - " in the start scripts' output).
func LogSummary(spec TaskExecutorProcessSpec) []string {
	totalOffHeapMemory := spec.ManagedMemorySize.Add(spec.JVMDirectMemorySize())
	return []string{
		"Final TaskExecutor Memory configuration:",
		"  Total Process Memory:          " + spec.TotalProcessMemorySize().ToHumanReadableString(),
		"    Total Flink Memory:          " + spec.TotalFlinkMemorySize().ToHumanReadableString(),
		"      Total JVM Heap Memory:     " + spec.JVMHeapMemorySize().ToHumanReadableString(),
		"        Framework:               " + spec.FrameworkHeapSize.ToHumanReadableString(),
		"        Task:                    " + spec.TaskHeapSize.ToHumanReadableString(),
		"      Total Off-heap Memory:     " + totalOffHeapMemory.ToHumanReadableString(),
		"        Managed:                 " + spec.ManagedMemorySize.ToHumanReadableString(),
		"        Total JVM Direct Memory: " + spec.JVMDirectMemorySize().ToHumanReadableString(),
		"          Framework:             " + spec.FrameworkOffHeapSize.ToHumanReadableString(),
		"          Task:                  " + spec.TaskOffHeapSize.ToHumanReadableString(),
		"          Network:               " + spec.NetworkMemSize.ToHumanReadableString(),
		"    JVM Metaspace:               " + spec.JVMMetaspaceSize.ToHumanReadableString(),
		"    JVM Overhead:                " + spec.JVMOverheadSize.ToHumanReadableString(),
	}
}
