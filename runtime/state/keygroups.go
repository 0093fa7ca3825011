package state

import "fmt"

// KeyGroupRange is the inclusive range of key groups one subtask owns
// (Flink's org.apache.flink.runtime.state.KeyGroupRange). The empty range
// has EndKeyGroup < StartKeyGroup.
type KeyGroupRange struct {
	StartKeyGroup int `json:"startKeyGroup"`
	EndKeyGroup   int `json:"endKeyGroup"`
}

// EmptyKeyGroupRange holds no key group (Flink: KeyGroupRange.EMPTY_KEY_GROUP_RANGE).
var EmptyKeyGroupRange = KeyGroupRange{StartKeyGroup: 0, EndKeyGroup: -1}

// Contains reports whether keyGroup lies in the range.
func (r KeyGroupRange) Contains(keyGroup int) bool {
	return keyGroup >= r.StartKeyGroup && keyGroup <= r.EndKeyGroup
}

// NumberOfKeyGroups returns how many key groups the range holds.
func (r KeyGroupRange) NumberOfKeyGroups() int { return max(r.EndKeyGroup-r.StartKeyGroup+1, 0) }

// Intersection returns the key groups both ranges hold, possibly none
// (Flink: KeyGroupRange#getIntersection).
func (r KeyGroupRange) Intersection(other KeyGroupRange) KeyGroupRange {
	start, end := max(r.StartKeyGroup, other.StartKeyGroup), min(r.EndKeyGroup, other.EndKeyGroup)
	if start > end {
		return EmptyKeyGroupRange
	}
	return KeyGroupRange{StartKeyGroup: start, EndKeyGroup: end}
}

// String prints the range as Flink does: "KeyGroupRange{startKeyGroup=0, endKeyGroup=31}".
func (r KeyGroupRange) String() string {
	return fmt.Sprintf("KeyGroupRange{startKeyGroup=%d, endKeyGroup=%d}", r.StartKeyGroup, r.EndKeyGroup)
}

// ComputeKeyGroupRangeForOperatorIndex returns the key groups subtask
// operatorIndex of parallelism owns: exactly those keyGroup for which
// keyGroup*parallelism/maxParallelism == operatorIndex. It mirrors
// KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex; a task
// uses it to size its keyed state backend, the JobMaster to hand each
// subtask its key groups on restore (StateAssignmentOperation).
func ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, operatorIndex int) KeyGroupRange {
	start := (operatorIndex*maxParallelism + parallelism - 1) / parallelism
	end := ((operatorIndex+1)*maxParallelism - 1) / parallelism
	return KeyGroupRange{StartKeyGroup: start, EndKeyGroup: end}
}
