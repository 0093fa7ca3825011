// Package configuration holds what the TaskManager's memory model needs of
// Flink's org.apache.flink.configuration: memory sizes, the options that
// configure a TaskManager's memory, and reading them from a configuration.
//
//	MemorySize                → MemorySize                    (bytes; parse, print, add, multiply)
//	ParseMemorySize           → MemorySize.parse              ("1728m", "4 gb", "1024")
//	ConfigOption[T]           → ConfigOption<T>               (key, default, deprecated keys)
//	TotalProcessMemory, ...   → TaskManagerOptions.TOTAL_PROCESS_MEMORY, ...
//	Configuration             → Configuration                 (keys and their text)
//	Configuration.Contains    → Configuration#contains        (is the option set, under any of its keys?)
//	Get                       → Configuration#get             (the value, or the default)
//	ErrIllegalConfiguration   → IllegalConfigurationException
//
// The memory model itself, which derives every part of a TaskManager's
// memory from these options, is package clusterframework.
//
// # Memory sizes
//
// A MemorySize is a number of bytes. Flink's configuration writes it as a
// whole number and a unit, in any case, with or without a space:
//
//	"1024"  "1024 b"  "1024 bytes"     bytes
//	"64k"   "64 kb"   "64 kibibytes"   × 1024
//	"128m"  "128 mb"  "128 mebibytes"  × 1024²
//	"4g"    "4 gb"    "4 gibibytes"    × 1024³
//	"1t"    "1 tb"    "1 tebibytes"    × 1024⁴
//
// Flink prints sizes in two ways, and so do we. String is Flink's toString,
// the largest unit that divides the size exactly ("128 mb", "0 bytes"), the
// form of configuration values. ToHumanReadableString is the form of every
// memory log line and error message: "1.688gb (1811939328 bytes)".
//
// # Why sizes are a few bytes off
//
// A default TaskManager's managed memory is 536870920 bytes, not 512m
// (536870912). The fractions of the memory model are Java floats: 0.4f is
// 0.4000000059604645 once Flink widens it to a double, and Flink's
// MemorySize#multiply multiplies by that decimal exactly (BigDecimal) and
// truncates. Floating-point options here keep the same float error
// (ConfigOption[float64] holds the float widened to a float64), and
// Multiply computes as BigDecimal does, so every size agrees with Flink's
// to the byte. Tests compare against the sizes real Flink TaskManagers log.
//
// # Options and their keys
//
// Each option is a ConfigOption named after Flink's constant. Its key is
// Key(); its default DefaultValue(). These are the options of the memory
// model, with Flink 1.17+'s defaults:
//
//	taskmanager.memory.process.size             TotalProcessMemory       none (the distribution's file sets 1728m)
//	taskmanager.memory.flink.size               TotalFlinkMemory         none
//	taskmanager.memory.framework.heap.size      FrameworkHeapMemory      128m
//	taskmanager.memory.framework.off-heap.size  FrameworkOffHeapMemory   128m
//	taskmanager.memory.task.heap.size           TaskHeapMemory           none (derived)
//	taskmanager.memory.task.off-heap.size       TaskOffHeapMemory        0
//	taskmanager.memory.managed.size             ManagedMemorySize        none (derived)
//	taskmanager.memory.managed.fraction         ManagedMemoryFraction    0.4
//	taskmanager.memory.network.min              NetworkMemoryMin         64m
//	taskmanager.memory.network.max              NetworkMemoryMax         MaxMemorySize ("infinite"; 1g before 1.17)
//	taskmanager.memory.network.fraction         NetworkMemoryFraction    0.1
//	taskmanager.memory.jvm-metaspace.size       JVMMetaspace             256m
//	taskmanager.memory.jvm-overhead.min         JVMOverheadMin           192m
//	taskmanager.memory.jvm-overhead.max         JVMOverheadMax           1g
//	taskmanager.memory.jvm-overhead.fraction    JVMOverheadFraction      0.1
//	taskmanager.cpu.cores                       CPUCores                 none (the slots)
//	taskmanager.numberOfTaskSlots               NumTaskSlots             1
//
// Some options have deprecated keys, read when the key itself is not set:
// taskmanager.memory.size for managed memory, and
// taskmanager.network.memory.{min,max,fraction} for network memory.
//
// "Configured" matters as much as the value. Contains reports whether the
// user set an option; an option that is not set still has its default for
// Get. The memory model branches on Contains: a configured task heap is
// used as it is, an unconfigured one is what is left over.
//
// # Errors
//
// Errors carry Flink's messages, word for word, so that a learner can search
// for them in Flink's source and in real logs. Error returns the message
// alone, as Java's getMessage does; the exception that caused it is
// reached with errors.Unwrap, errors.Is and errors.As.
//
//   - ErrIllegalConfiguration (IllegalConfigurationException): values that
//     are not valid together. NewIllegalConfigurationError makes one.
//   - A value that does not parse: "Could not parse value '<text>' for key
//     '<key>'.", Flink's IllegalArgumentException, wrapping the parse error
//     (ParseMemorySize's, or Java's "For input string: ..." for numbers).
//   - ErrArithmetic (ArithmeticException, "long overflow"): sizes whose sum
//     or product does not fit in 64 bits. MemorySize's Add and Multiply
//     panic with it, as Flink's throw; package clusterframework turns the
//     panic back into an error.
//
// # Differs from Flink
//
//   - Only the options of the TaskManager's memory model are here, and a
//     Configuration is a map of text: no YAML, no typed setters, no
//     listeners. Reading a deprecated key does not log Flink's warning
//     ("Config uses deprecated configuration key ...").
//   - Numbers parse with Go's strconv where Flink uses Java's parsers:
//     Java-only spellings such as "0.4f" are refused, and Go-only ones such
//     as "Inf" are accepted.
//   - Printing a double follows Java's Double.toString (FormatJavaDouble) as
//     of JDK 19, which prints the shortest digits that identify the value;
//     older JDKs sometimes print one more digit.
package configuration
