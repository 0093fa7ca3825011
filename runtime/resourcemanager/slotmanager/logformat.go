package slotmanager

import (
	"strings"

	"flinklab/runtime/gateway"
)

// The SlotManager's log lines print profiles and requirements the way
// Flink's toString methods do, so that a line here reads like the line a
// learner will meet in a real JobManager log:
//
//	Received resource requirements from job 47ed...: [ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=1}]

// formatResourceRequirements prints a list of requirements like a Java
// collection: "[a, b]".
func formatResourceRequirements(reqs []gateway.ResourceRequirement) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = r.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
