package api

import "fmt"

// ResourceProfile describes what a slot offers or what a requirement needs.
// Flink's profile has more dimensions (task heap, task off-heap, network and
// managed memory, extended resources); two are enough to teach matching.
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

func (p ResourceProfile) String() string {
	if p.IsUnknown() {
		return "ResourceProfile{UNKNOWN}"
	}
	return fmt.Sprintf("ResourceProfile{cpuCores=%g, taskHeapMemory=%d mb}", p.CPUCores, p.TaskHeapMiB)
}
