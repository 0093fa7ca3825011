package streaming

import (
	"math"
	"math/bits"

	"flinklab/runtime/state"
)

// This file mirrors Flink's org.apache.flink.runtime.state.KeyGroupRangeAssignment
// and the one function of org.apache.flink.util.MathUtils it relies on.
//
// A keyed stream is split twice on its way to a subtask:
//
//	key ──HashCode──► keyHash ──MurmurHash, % maxParallelism──► key group ──× parallelism / maxParallelism──► subtask
//	"hello"           99162322                                   35                                          1 (of 4)
//
// The key group is fixed for the life of the job: it depends only on the
// key and the max parallelism. Which subtask owns a key group depends on
// the parallelism, and every subtask owns one contiguous range of key
// groups. That is what lets Flink rescale a job: the state of a key group
// moves as a whole to the subtask that owns it after the change.

// MurmurHash hashes an int the way Flink's MathUtils.murmurHash does: the
// Murmur3 32-bit mixing of one 4-byte block, the finalizer, and a last step
// that makes the result non-negative (Integer.MIN_VALUE becomes 0, other
// negative values are negated). Flink uses it for partitioning "across
// machines", on top of the key's own hashCode, so that poor hashCodes
// (consecutive integers, say) still spread over all key groups.
//
// The arithmetic is on uint32, where Go's multiplication wraps exactly like
// Java's int multiplication; >>> (Java's unsigned shift) is >> on uint32.
func MurmurHash(code int32) int32 {
	c := uint32(code)

	// Mix the single 4-byte block into a seed of 0.
	c *= 0xcc9e2d51
	c = bits.RotateLeft32(c, 15)
	c *= 0x1b873593
	c = bits.RotateLeft32(c, 13)
	c = c*5 + 0xe6546b64

	// Finalize: the length in bytes (4), then the avalanche steps.
	c ^= 4
	c ^= c >> 16
	c *= 0x85ebca6b
	c ^= c >> 13
	c *= 0xc2b2ae35
	c ^= c >> 16

	switch v := int32(c); {
	case v >= 0:
		return v
	case v != math.MinInt32:
		return -v
	default:
		return 0
	}
}

// AssignToKeyGroup returns the key group a key belongs to:
// ComputeKeyGroupForKeyHash(HashCode(key), maxParallelism). It mirrors
// KeyGroupRangeAssignment.assignToKeyGroup. A nil key panics, as Flink
// rejects it ("Assigned key must not be null!").
func AssignToKeyGroup(key any, maxParallelism int) int {
	if key == nil {
		panic("streaming: Assigned key must not be null!")
	}
	return ComputeKeyGroupForKeyHash(HashCode(key), maxParallelism)
}

// ComputeKeyGroupForKeyHash returns the key group of a key with the given
// hash: MurmurHash(keyHash) % maxParallelism. It mirrors
// KeyGroupRangeAssignment.computeKeyGroupForKeyHash.
func ComputeKeyGroupForKeyHash(keyHash int32, maxParallelism int) int {
	return int(MurmurHash(keyHash)) % maxParallelism
}

// ComputeOperatorIndexForKeyGroup returns the subtask (operator index) that
// owns a key group: keyGroup * parallelism / maxParallelism, in integer
// arithmetic. It mirrors KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup.
//
// With maxParallelism 128 and parallelism 4, key groups 0–31 go to subtask
// 0, 32–63 to subtask 1, 64–95 to subtask 2 and 96–127 to subtask 3.
func ComputeOperatorIndexForKeyGroup(maxParallelism, parallelism, keyGroup int) int {
	return keyGroup * parallelism / maxParallelism
}

// AssignKeyToParallelOperator returns the subtask a key is sent to: its key
// group, then the subtask owning that key group. It mirrors
// KeyGroupRangeAssignment.assignKeyToParallelOperator, which
// KeyGroupStreamPartitioner calls for every record.
func AssignKeyToParallelOperator(key any, maxParallelism, parallelism int) int {
	return ComputeOperatorIndexForKeyGroup(maxParallelism, parallelism, AssignToKeyGroup(key, maxParallelism))
}

// KeyGroupRange is the inclusive range of key groups one subtask owns.
// It lives in package state, beside the snapshots that carry it.
type KeyGroupRange = state.KeyGroupRange

// ComputeKeyGroupRangeForOperatorIndex returns the key groups subtask
// operatorIndex owns: exactly those for which ComputeOperatorIndexForKeyGroup
// returns operatorIndex (see state.ComputeKeyGroupRangeForOperatorIndex).
//
// With maxParallelism 128 and parallelism 4, subtask 1 owns key groups 32–63.
func ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, operatorIndex int) KeyGroupRange {
	return state.ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, operatorIndex)
}
