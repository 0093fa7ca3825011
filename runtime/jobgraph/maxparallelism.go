package jobgraph

// Bounds of the max parallelism, as in Flink's KeyGroupRangeAssignment.
const (
	// UpperBoundMaxParallelism is the largest max parallelism Flink allows
	// (2^15): keyed state is split into at most this many key groups.
	UpperBoundMaxParallelism = 1 << 15
	// DefaultLowerBoundMaxParallelism is the smallest max parallelism Flink
	// picks by itself (2^7), so that small jobs can still scale out later.
	DefaultLowerBoundMaxParallelism = 1 << 7
)

// DefaultMaxParallelism returns the max parallelism Flink chooses for an
// operator whose max parallelism is not set: one and a half times the
// parallelism, rounded up to a power of two, but at least 128 and at most
// 32768. It mirrors KeyGroupRangeAssignment.computeDefaultMaxParallelism.
//
//	parallelism     1:   1 +     0 =     1 → 2^0  = 1, raised to 128
//	parallelism   171: 171 +    85 =   256 → 2^8  = 256
//	parallelism   172: 172 +    86 =   258 → 2^9  = 512
//	parallelism 30000: 30000 + 15000 = 45000 → 2^16 = 65536, capped at 32768
func DefaultMaxParallelism(parallelism int) int {
	if parallelism >= UpperBoundMaxParallelism {
		return UpperBoundMaxParallelism // also keeps p + p/2 from overflowing
	}
	return min(max(roundUpToPowerOfTwo(parallelism+parallelism/2), DefaultLowerBoundMaxParallelism), UpperBoundMaxParallelism)
}

// roundUpToPowerOfTwo returns the smallest power of two that is at least x
// (1 for x ≤ 1).
func roundUpToPowerOfTwo(x int) int {
	power := 1
	for power < x {
		power <<= 1
	}
	return power
}
