package taskmanagerrunner

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"flinklab/runtime/clusterframework"
	"flinklab/runtime/gateway"
)

// hardwareDescription describes the machine the TaskManager runs on, as
// Flink's HardwareDescription#extractFromSystem does: the CPU cores the
// process can use, the machine's physical memory (-1 where it cannot be
// told), the JVM's maximum heap, and the managed memory.
//
// Differs from Flink: a Go process has no JVM heap limit; freeMemory is
// the JVM heap Flink would give the TaskManager (-Xmx, the spec's
// framework and task heap), not anything measured.
func hardwareDescription(spec clusterframework.TaskExecutorProcessSpec) gateway.HardwareDescription {
	return gateway.HardwareDescription{
		CPUCores:       runtime.NumCPU(),
		PhysicalMemory: physicalMemory(),
		FreeMemory:     spec.JVMHeapMemorySize().Bytes(),
		ManagedMemory:  spec.ManagedMemorySize.Bytes(),
	}
}

// physicalMemory is Flink's Hardware#getSizeOfPhysicalMemory: on Linux,
// MemTotal of /proc/meminfo; -1 elsewhere, or if it cannot be read.
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return -1
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		// "MemTotal:       16318480 kB"
		fields := strings.Fields(scanner.Text())
		if len(fields) == 3 && fields[0] == "MemTotal:" && fields[2] == "kB" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return -1
			}
			return kb * 1024
		}
	}
	return -1
}
