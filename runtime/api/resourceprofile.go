package api

import (
	"fmt"
	"strconv"
)

// ResourceProfile describes what a slot offers or what a requirement needs.
// Flink's profile has more dimensions (task heap, task off-heap, network and
// managed memory, extended resources); two are enough to teach matching.
// A TaskManager's full account of its resources, which the REST endpoint
// reports, is clusterframework.ResourceProfile.
//
// The zero value is UnknownResourceProfile: "any slot will do". Jobs that do
// not configure resources (the common case, and the only one Flink's
// Dispatcher accepts unless every vertex is configured) ask for it.
type ResourceProfile struct {
	CPUCores    float64 `json:"cpuCores"`
	TaskHeapMiB int     `json:"taskHeapMemory"`
}

// UnknownResourceProfile is Flink's ResourceProfile.UNKNOWN: a requirement
// that any slot fulfils.
var UnknownResourceProfile = ResourceProfile{}

// IsUnknown reports whether the profile is UnknownResourceProfile.
func (p ResourceProfile) IsUnknown() bool { return p == UnknownResourceProfile }

// IsMatching reports whether a slot with profile p can serve a requirement
// for profile required: an unknown requirement matches any slot, otherwise
// every dimension of the slot must be at least as large.
func (p ResourceProfile) IsMatching(required ResourceProfile) bool {
	if required.IsUnknown() {
		return true
	}
	return p.CPUCores >= required.CPUCores && p.TaskHeapMiB >= required.TaskHeapMiB
}

// String prints the profile as Flink's ResourceProfile#toString does, so
// log lines read like a real JobManager's.
func (p ResourceProfile) String() string {
	if p.IsUnknown() {
		return "ResourceProfile{UNKNOWN}"
	}
	return fmt.Sprintf("ResourceProfile{cpuCores=%s, taskHeapMemory=%s}",
		strconv.FormatFloat(p.CPUCores, 'f', -1, 64), memorySize(int64(p.TaskHeapMiB)<<20))
}

// GoString is String, for %#v and testify's messages.
func (p ResourceProfile) GoString() string { return p.String() }

// memorySize prints bytes as Flink's MemorySize#toString does, e.g.
// "384.000mb (402653184 bytes)".
func memorySize(bytes int64) string {
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
