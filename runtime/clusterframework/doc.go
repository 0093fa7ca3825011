// Package clusterframework computes a TaskManager's memory and CPU from its
// configuration, exactly as Flink does before it starts a TaskManager. It
// mirrors Flink's org.apache.flink.runtime.clusterframework
// (TaskExecutorProcessUtils, TaskExecutorProcessSpec) and the classes of
// org.apache.flink.runtime.util.config.memory that do the arithmetic:
//
//	ProcessSpecFromConfig          → TaskExecutorProcessUtils#processSpecFromConfig
//	CPUCoresWithFallback           → TaskExecutorProcessUtils#getCpuCoresWithFallback
//	TaskExecutorProcessSpec        → TaskExecutorProcessSpec            (the result)
//	LogSummary                     → BashJavaUtils#logTaskExecutorConfiguration
//	GenerateJVMParametersStr       → ProcessMemoryUtils#generateJvmParametersStr
//	GenerateDynamicConfigsStr      → TaskExecutorProcessUtils#generateDynamicConfigsStr
//	TaskExecutorMemoryConfiguration → TaskExecutorMemoryConfiguration   (what REST reports)
//	ResourceProfile                → ResourceProfile                    (clusterframework.types)
//	TotalResourceProfile           → TaskExecutorResourceUtils#generateTotalAvailableResourceProfile
//	DefaultSlotResourceProfile     → SlotManagerUtils#generateDefaultSlotResourceProfile
//	processmemoryutils.go          → ProcessMemoryUtils, RangeFraction, JvmMetaspaceAndOverhead
//	taskexecutorflinkmemoryutils.go → TaskExecutorFlinkMemoryUtils, TaskExecutorFlinkMemory
//
// The options themselves, and MemorySize, are package configuration's.
//
// # The memory of a TaskManager
//
// A TaskManager is a JVM process. Flink divides its memory into eight
// parts and accounts for each:
//
//	Total Process Memory  (taskmanager.memory.process.size: the container)
//	├── Total Flink Memory  (taskmanager.memory.flink.size)
//	│   ├── JVM Heap                                   -Xmx, -Xms
//	│   │   ├── Framework Heap       framework.heap.size       128m
//	│   │   └── Task Heap            task.heap.size            the rest
//	│   └── Off-Heap
//	│       ├── Managed              managed.size | fraction   0.4 of Total Flink
//	│       └── JVM Direct                             -XX:MaxDirectMemorySize
//	│           ├── Framework Off-Heap  framework.off-heap.size 128m
//	│           ├── Task Off-Heap       task.off-heap.size      0
//	│           └── Network             network.min/max/fraction 0.1 of Total Flink, ≥ 64m
//	├── JVM Metaspace                jvm-metaspace.size        256m      -XX:MaxMetaspaceSize
//	└── JVM Overhead                 jvm-overhead.min/max/fraction  0.1 of Total Process, in [192m, 1g]
//
// (Keys without a prefix are taskmanager.memory.*.) Framework memory is the
// TaskManager's own; task heap, task off-heap, network and managed memory
// are shared out among the slots. Managed memory is native memory that
// Flink's MemoryManager hands to sorting, hash tables, RocksDB and Python;
// network memory holds the buffers of the data exchanges.
//
// # Three ways to configure it
//
// Configure one of these (Flink checks them in this order):
//
//  1. taskmanager.memory.task.heap.size and taskmanager.memory.managed.size:
//     the parts add up to Total Flink Memory; network memory is chosen to
//     be its fraction of the total it makes.
//  2. taskmanager.memory.flink.size: it is split into its parts.
//  3. taskmanager.memory.process.size: JVM Metaspace and JVM Overhead come
//     off it first, and the rest is split as in 2. The distribution's
//     configuration file sets 1728m, and containers use this way.
//
// Configuring more than one is allowed; they must then agree, or the
// configuration is illegal.
//
// # A worked example: the default 1728m
//
//	JVM Overhead   0.1 × 1728m = 172.8m, under its 192m minimum  →  192m
//	JVM Metaspace                                                    256m
//	Total Flink    1728m − 192m − 256m                          =  1280m
//	Managed        0.4 × 1280m                                  ≈   512m
//	Network        0.1 × 1280m, within [64m, ∞)                 ≈   128m
//	Framework      heap 128m, off-heap 128m; task off-heap 0
//	Task Heap      1280m − 128m − 128m − 0 − 512m − 128m        ≈   384m
//
// "≈" because the fractions are Java floats: 0.4f is 0.4000000059604645 as
// a double, so managed memory is 536870920 bytes (8 more than 512m), network
// 134217730 (2 more than 128m) and task heap, the rest, 402653174 (10 fewer
// than 384m). Flink logs exactly these numbers, and so does LogSummary:
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
// # Errors
//
// A configuration that cannot work is Flink's IllegalConfigurationException
// (ErrIllegalConfiguration), with Flink's message after Flink's prefix
// "TaskManager memory configuration failed: ". A common one in practice is
// a process too small for the fixed parts: with 700m, Total Flink Memory is
// 252m, and framework heap, framework off-heap, managed and the 64m network
// minimum do not fit:
//
//	TaskManager memory configuration failed: Sum of configured Framework Heap Memory (128.000mb (134217728 bytes)), Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Off-Heap Memory (0 bytes), Managed Memory (100.800mb (105696462 bytes)) and Network Memory (64.000mb (67108864 bytes)) exceed configured Total Flink Memory (252.000mb (264241152 bytes)).
//
// The tests list one case for each of Flink's messages.
//
// # CPU cores and slots
//
// A standalone TaskManager has taskmanager.cpu.cores cores if configured,
// otherwise one per slot (taskmanager.numberOfTaskSlots, default 1). YARN
// and Kubernetes pass their container's cores as CPUCoresWithFallback's
// fallback.
//
// # What the start script makes of it
//
// Flink's bin/taskmanager.sh computes the spec before it starts the
// TaskManager's JVM (BashJavaUtils), logs it (LogSummary), starts the JVM
// with its flags (GenerateJVMParametersStr) and passes every size to the
// TaskManager as a dynamic property, in bytes (GenerateDynamicConfigsStr),
// so that the TaskManager derives nothing again:
//
//	-Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456
//	-D taskmanager.memory.network.min=134217730b -D taskmanager.cpu.cores=1.0 … -D taskmanager.memory.jvm-overhead.max=201326592b
//
// -Xmx is the JVM heap (framework + task heap), -XX:MaxDirectMemorySize
// the JVM direct memory (framework off-heap + task off-heap + network).
// The TaskManager's log shows all three under " Preconfiguration: "
// (package entrypoint).
//
// # What the TaskManager reports
//
// A TaskExecutor registers at the ResourceManager with the size of each
// part of its memory (TaskExecutorMemoryConfiguration) and the total its
// slots share (TotalResourceProfile: CPU cores and task heap, task
// off-heap, managed and network memory). A slot takes an equal share
// (DefaultSlotResourceProfile), rounded down as Flink rounds it: whole
// bytes of memory, 16 decimal places of CPU cores. GET
// /taskmanagers/{taskmanagerid} reports all of it.
//
// The profile itself is api.ResourceProfile, Flink's ResourceProfile,
// which every component shares: the TaskManager carves its slots out of
// the total with it, the SlotManager and the slot pool match slots by it,
// and the REST endpoint reports it.
//
// # Who calls it
//
// Everything here is pure: no goroutines, no clock, no I/O, no logging.
// Any goroutine may call it. A TaskManager's startup computes its spec once
// (taskmanagerrunner.ProcessSpec) and logs what the start script would
// have printed; a ResourceManager divides a TaskManager's resources among
// its slots; a ResourceManager could compute the spec of the TaskManagers
// it would start.
//
// # Differs from Flink
//
// A Go process has no JVM, so nothing here is enforced: the numbers are
// computed and reported, to the byte as Flink computes them, but no heap is
// capped at JVMHeapMemorySize, no direct memory at JVMDirectMemorySize, and
// no metaspace or overhead is reserved. The Go runtime manages one heap.
// GenerateJVMParametersStr and GenerateDynamicConfigsStr print the flags
// and properties Flink would pass; nobody passes them. The sizes are used
// where Flink uses them for bookkeeping: the resources a TaskManager
// registers with, a slot's default share of them, and what REST reports.
//
// CPU cores are a BigDecimal in Flink's ResourceProfile and a float64 here:
// DefaultSlotResourceProfile and Subtract compute on the decimals Flink
// would hold, exactly, and keep the double nearest the result.
//
// Also left out:
//
//   - Flink's INFO lines about the derivation ("The derived from fraction
//     jvm overhead memory (172.800mb (181193935 bytes)) is less than its min
//     value 192.000mb (201326592 bytes), min value will be used instead", and
//     the ones about fractions that do not match derived sizes): the
//     functions are pure and do not log.
//   - Legacy options: taskmanager.heap.size (FLINK_TM_HEAP), which Flink
//     maps to taskmanager.memory.flink.size, and
//     taskmanager.network.numberOfBuffers, which Flink still uses for
//     network memory when no taskmanager.memory.network.* option is set. The
//     deprecated keys of the current options (taskmanager.memory.size,
//     taskmanager.network.memory.*) are read.
//   - External resources (GPUs) of Flink's spec and ResourceProfile
//     (GenerateDynamicConfigsStr always says external-resources=none), and
//     TaskExecutorProcessSpec's builder and
//     processSpecFromWorkerResourceSpec.
//   - The JobManager's memory model (JobManagerProcessUtils), which shares
//     ProcessMemoryUtils with this one.
package clusterframework
