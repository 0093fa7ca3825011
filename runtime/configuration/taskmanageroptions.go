package configuration

// The TaskManager options of Flink's TaskManagerOptions that the memory
// model reads (Flink 1.17 and later), with Flink's keys, defaults and
// deprecated keys. Each variable is named after Flink's constant:
// TaskManagerOptions.TOTAL_PROCESS_MEMORY is TotalProcessMemory.
var (
	// TotalProcessMemory is taskmanager.memory.process.size, no default:
	// everything the TaskManager process uses, Total Flink Memory plus JVM
	// Metaspace plus JVM Overhead. On containers, the container's memory.
	// The distribution's default configuration file sets it to 1728m.
	TotalProcessMemory = memoryOption("taskmanager.memory.process.size")

	// TotalFlinkMemory is taskmanager.memory.flink.size, no default:
	// everything but JVM Metaspace and JVM Overhead.
	TotalFlinkMemory = memoryOption("taskmanager.memory.flink.size")

	// FrameworkHeapMemory is taskmanager.memory.framework.heap.size, 128m:
	// JVM heap for the TaskManager itself, not given to slots.
	FrameworkHeapMemory = memoryOption("taskmanager.memory.framework.heap.size").
				withDefault(MustParseMemorySize("128m"))

	// FrameworkOffHeapMemory is taskmanager.memory.framework.off-heap.size,
	// 128m: direct and native memory for the TaskManager itself.
	FrameworkOffHeapMemory = memoryOption("taskmanager.memory.framework.off-heap.size").
				withDefault(MustParseMemorySize("128m"))

	// TaskHeapMemory is taskmanager.memory.task.heap.size, no default: JVM
	// heap for the tasks. Derived as what is left when not configured.
	TaskHeapMemory = memoryOption("taskmanager.memory.task.heap.size")

	// TaskOffHeapMemory is taskmanager.memory.task.off-heap.size, 0: direct
	// and native memory for the tasks.
	TaskOffHeapMemory = memoryOption("taskmanager.memory.task.off-heap.size").
				withDefault(0)

	// ManagedMemorySize is taskmanager.memory.managed.size, no default
	// (deprecated key taskmanager.memory.size): native memory that the
	// MemoryManager hands to sorting, hash tables, RocksDB and Python.
	// Derived from ManagedMemoryFraction when not configured.
	ManagedMemorySize = memoryOption("taskmanager.memory.managed.size").
				withDeprecatedKeys("taskmanager.memory.size")

	// ManagedMemoryFraction is taskmanager.memory.managed.fraction, 0.4: the
	// share of Total Flink Memory that is managed memory.
	ManagedMemoryFraction = floatOption("taskmanager.memory.managed.fraction").
				withDefault(float64(float32(0.4)))

	// NetworkMemoryMin is taskmanager.memory.network.min, 64m (deprecated
	// key taskmanager.network.memory.min).
	NetworkMemoryMin = memoryOption("taskmanager.memory.network.min").
				withDefault(MustParseMemorySize("64m")).
				withDeprecatedKeys("taskmanager.network.memory.min")

	// NetworkMemoryMax is taskmanager.memory.network.max, MaxMemorySize
	// ("infinite" in Flink's documentation; 1g before Flink 1.17),
	// deprecated key taskmanager.network.memory.max.
	NetworkMemoryMax = memoryOption("taskmanager.memory.network.max").
				withDefault(MaxMemorySize).
				withDeprecatedKeys("taskmanager.network.memory.max")

	// NetworkMemoryFraction is taskmanager.memory.network.fraction, 0.1
	// (deprecated key taskmanager.network.memory.fraction): the share of
	// Total Flink Memory for network buffers, capped to [min, max].
	NetworkMemoryFraction = floatOption("taskmanager.memory.network.fraction").
				withDefault(float64(float32(0.1))).
				withDeprecatedKeys("taskmanager.network.memory.fraction")

	// JVMMetaspace is taskmanager.memory.jvm-metaspace.size, 256m.
	JVMMetaspace = memoryOption("taskmanager.memory.jvm-metaspace.size").
			withDefault(MustParseMemorySize("256m"))

	// JVMOverheadMin is taskmanager.memory.jvm-overhead.min, 192m.
	JVMOverheadMin = memoryOption("taskmanager.memory.jvm-overhead.min").
			withDefault(MustParseMemorySize("192m"))

	// JVMOverheadMax is taskmanager.memory.jvm-overhead.max, 1g.
	JVMOverheadMax = memoryOption("taskmanager.memory.jvm-overhead.max").
			withDefault(MustParseMemorySize("1g"))

	// JVMOverheadFraction is taskmanager.memory.jvm-overhead.fraction, 0.1:
	// the share of Total Process Memory kept for thread stacks, code cache
	// and other native memory of the JVM, capped to [min, max].
	JVMOverheadFraction = floatOption("taskmanager.memory.jvm-overhead.fraction").
				withDefault(float64(float32(0.1)))

	// CPUCores is taskmanager.cpu.cores, no default: the CPU cores of the
	// TaskManager. A standalone TaskManager without it counts one core per
	// slot (NumTaskSlots).
	CPUCores = doubleOption("taskmanager.cpu.cores")

	// NumTaskSlots is taskmanager.numberOfTaskSlots, 1.
	NumTaskSlots = intOption("taskmanager.numberOfTaskSlots").withDefault(1)
)
