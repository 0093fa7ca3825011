package jobgraph

import "fmt"

// DistributionPattern says how the subtasks of a consumer connect to the
// partitions of the data set they read. It mirrors Flink's
// org.apache.flink.runtime.jobgraph.DistributionPattern.
//
//	Pointwise (4 producers, 2 consumers)     AllToAll (4 producers, 2 consumers)
//
//	  p0 ─┐                                    p0 ─┬─► c0
//	  p1 ─┴─► c0                               p1 ─┤
//	  p2 ─┐                                    p2 ─┤
//	  p3 ─┴─► c1                               p3 ─┴─► c1   (every pi feeds every cj)
//
// A pointwise edge connects each consumer to a small, contiguous range of
// producers (FORWARD and RESCALE shipping use it); an all-to-all edge
// connects every consumer to every producer (HASH, REBALANCE, BROADCAST).
type DistributionPattern int

// The distribution patterns.
const (
	// Pointwise connects each consumer subtask to one or a few producer
	// subtasks, chosen by index ranges.
	Pointwise DistributionPattern = iota
	// AllToAll connects every consumer subtask to every producer subtask.
	AllToAll
)

var distributionPatternNames = [...]string{
	Pointwise: "POINTWISE",
	AllToAll:  "ALL_TO_ALL",
}

// String returns Flink's name of the pattern: "POINTWISE" or "ALL_TO_ALL".
func (p DistributionPattern) String() string {
	if !p.isKnown() {
		return fmt.Sprintf("DistributionPattern(%d)", int(p))
	}
	return distributionPatternNames[p]
}

func (p DistributionPattern) isKnown() bool {
	return p >= 0 && int(p) < len(distributionPatternNames)
}

// MarshalText encodes the pattern by its Flink name (also in JSON).
func (p DistributionPattern) MarshalText() ([]byte, error) {
	if !p.isKnown() {
		return nil, fmt.Errorf("unknown DistributionPattern %d", int(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText decodes a pattern from its Flink name.
func (p *DistributionPattern) UnmarshalText(b []byte) error {
	for i, name := range distributionPatternNames {
		if name == string(b) {
			*p = DistributionPattern(i)
			return nil
		}
	}
	return fmt.Errorf("unknown DistributionPattern %q: want POINTWISE or ALL_TO_ALL", b)
}
