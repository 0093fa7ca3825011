package slotmanager

import (
	"fmt"
	"strconv"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// The SlotManager's log lines print profiles and requirements the way
// Flink's toString methods do, so that a line here reads like the line a
// learner will meet in a real JobManager log:
//
//	Received resource requirements from job 47ed...: [ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=1}]

// formatResourceProfile prints a profile like Flink's ResourceProfile#toString.
func formatResourceProfile(p api.ResourceProfile) string {
	if p.IsUnknown() {
		return "ResourceProfile{UNKNOWN}"
	}
	return fmt.Sprintf("ResourceProfile{cpuCores=%s, taskHeapMemory=%s}",
		strconv.FormatFloat(p.CPUCores, 'f', -1, 64), formatMemorySize(int64(p.TaskHeapMiB)<<20))
}

// formatMemorySize prints bytes like Flink's MemorySize#toString, e.g.
// "384.000mb (402653184 bytes)".
func formatMemorySize(bytes int64) string {
	const mib, gib = 1 << 20, 1 << 30
	switch {
	case bytes >= gib:
		return fmt.Sprintf("%.3fgb (%d bytes)", float64(bytes)/gib, bytes)
	case bytes >= mib:
		return fmt.Sprintf("%.3fmb (%d bytes)", float64(bytes)/mib, bytes)
	default:
		return fmt.Sprintf("%d bytes", bytes)
	}
}

// formatResourceRequirement prints a requirement like Flink's
// ResourceRequirement#toString.
func formatResourceRequirement(r gateway.ResourceRequirement) string {
	return fmt.Sprintf("ResourceRequirement{resourceProfile=%s, numberOfRequiredSlots=%d}",
		formatResourceProfile(r.ResourceProfile), r.NumberOfRequiredSlots)
}

// formatResourceRequirements prints a list of requirements like a Java
// collection: "[a, b]".
func formatResourceRequirements(reqs []gateway.ResourceRequirement) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = formatResourceRequirement(r)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
