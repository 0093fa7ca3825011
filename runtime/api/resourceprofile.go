package api

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"flinklab/runtime/configuration"
)

// ResourceProfile is Flink's ResourceProfile
// (org.apache.flink.runtime.clusterframework.types): what a slot offers or
// what a requirement needs, in the dimensions a TaskManager shares out
// among its slots: CPU cores and task heap, task off-heap, managed and
// network memory. Framework memory, JVM metaspace and JVM overhead are the
// TaskManager's own and no slot's. Extended resources (GPUs) are left out.
//
// The zero value is UnknownResourceProfile (Flink's UNKNOWN): "any slot
// will do". Jobs that do not configure resources (the common case, and the
// only one Flink's Dispatcher accepts unless every vertex is configured)
// ask for it. A profile with all dimensions zero is ZeroResourceProfile, a
// different value: use the constructors and the arithmetic below, or a
// literal with at least one dimension set, never ResourceProfile{} for
// "nothing".
//
// Two checks compare profiles, and Flink uses each in its own place:
//
//   - IsMatching is exact: a slot matches a requirement it equals, or an
//     unknown one. The JobMaster's slot pool matches offered slots to its
//     requirements this way.
//   - AllFieldsNoLessThan is "at least as large in every dimension". The
//     SlotManager's allocation strategy, and the TaskManager's budget for
//     dynamic slots, ask this of what is still free.
type ResourceProfile struct {
	CPUCores          float64
	TaskHeapMemory    configuration.MemorySize
	TaskOffHeapMemory configuration.MemorySize
	ManagedMemory     configuration.MemorySize
	NetworkMemory     configuration.MemorySize

	// zero tells ZeroResourceProfile from UnknownResourceProfile; it is
	// set only when every dimension is zero, so == compares profiles.
	zero bool
}

var (
	// UnknownResourceProfile is Flink's ResourceProfile.UNKNOWN: a
	// requirement whose amounts are not specified, which any slot fulfils.
	// It never describes what a TaskManager or slot offers.
	UnknownResourceProfile = ResourceProfile{}
	// AnyResourceProfile is Flink's ResourceProfile.ANY: infinite
	// resources, matching every requirement. Flink keeps it for tests.
	AnyResourceProfile = ResourceProfile{
		CPUCores:          math.MaxFloat64,
		TaskHeapMemory:    configuration.MaxMemorySize,
		TaskOffHeapMemory: configuration.MaxMemorySize,
		ManagedMemory:     configuration.MaxMemorySize,
		NetworkMemory:     configuration.MaxMemorySize,
	}
	// ZeroResourceProfile is Flink's ResourceProfile.ZERO: no resources.
	ZeroResourceProfile = ResourceProfile{zero: true}
)

// NewResourceProfile returns a profile of the given amounts (Flink's
// ResourceProfile.newBuilder()...build()). All zero gives
// ZeroResourceProfile, never UnknownResourceProfile.
func NewResourceProfile(cpuCores float64, taskHeap, taskOffHeap, managed, network configuration.MemorySize) ResourceProfile {
	return normalized(ResourceProfile{CPUCores: cpuCores, TaskHeapMemory: taskHeap,
		TaskOffHeapMemory: taskOffHeap, ManagedMemory: managed, NetworkMemory: network})
}

// ResourceProfileFromResources returns a profile of cpuCores and
// taskHeapMiB of task heap, nothing else (Flink's
// ResourceProfile.fromResources, used in tests).
func ResourceProfileFromResources(cpuCores float64, taskHeapMiB int64) ResourceProfile {
	return NewResourceProfile(cpuCores, configuration.OfMebiBytes(taskHeapMiB), 0, 0, 0)
}

// normalized sets zero exactly when every dimension is zero.
func normalized(p ResourceProfile) ResourceProfile {
	p.zero = p.CPUCores == 0 && p.TaskHeapMemory == 0 && p.TaskOffHeapMemory == 0 &&
		p.ManagedMemory == 0 && p.NetworkMemory == 0
	return p
}

// Equal reports whether p and other are the same profile, as == does. It
// is there for go-cmp, which otherwise refuses the unexported field.
func (p ResourceProfile) Equal(other ResourceProfile) bool { return p == other }

// IsUnknown reports whether the profile is UnknownResourceProfile.
func (p ResourceProfile) IsUnknown() bool { return p == UnknownResourceProfile }

// IsMatching reports whether a slot with profile p matches a requirement
// for profile required, as Flink's ResourceProfile#isMatching does: p is
// AnyResourceProfile, or equals required, or required is unknown. It is
// exact, not "at least": a larger slot does not match a smaller
// requirement. (Flink throws if p is unknown, which an offered profile
// never is; here an unknown p matches only an unknown requirement.)
func (p ResourceProfile) IsMatching(required ResourceProfile) bool {
	return p == AnyResourceProfile || p == required || required.IsUnknown()
}

// AllFieldsNoLessThan reports whether every dimension of p is at least
// that of other (Flink's ResourceProfile#allFieldsNoLessThan): p is
// AnyResourceProfile, or equals other, or other is unknown, or p is
// specific and no smaller anywhere. An unknown p is no less than nothing
// but itself.
func (p ResourceProfile) AllFieldsNoLessThan(other ResourceProfile) bool {
	switch {
	case p == AnyResourceProfile, p == other:
		return true
	case p.IsUnknown():
		return false
	case other.IsUnknown():
		return true
	}
	return compareCPU(p.CPUCores, other.CPUCores) >= 0 &&
		p.TaskHeapMemory >= other.TaskHeapMemory &&
		p.TaskOffHeapMemory >= other.TaskOffHeapMemory &&
		p.ManagedMemory >= other.ManagedMemory &&
		p.NetworkMemory >= other.NetworkMemory
}

// Merge returns p plus other, dimension by dimension (Flink's
// ResourceProfile#merge). Anything plus AnyResourceProfile is
// AnyResourceProfile; otherwise anything plus an unknown profile is
// unknown.
func (p ResourceProfile) Merge(other ResourceProfile) ResourceProfile {
	switch {
	case p == AnyResourceProfile || other == AnyResourceProfile:
		return AnyResourceProfile
	case p.IsUnknown() || other.IsUnknown():
		return UnknownResourceProfile
	}
	return normalized(ResourceProfile{
		CPUCores:          addCPU(p.CPUCores, other.CPUCores),
		TaskHeapMemory:    p.TaskHeapMemory.Add(other.TaskHeapMemory),
		TaskOffHeapMemory: p.TaskOffHeapMemory.Add(other.TaskOffHeapMemory),
		ManagedMemory:     p.ManagedMemory.Add(other.ManagedMemory),
		NetworkMemory:     p.NetworkMemory.Add(other.NetworkMemory),
	})
}

// Subtract returns p minus other, dimension by dimension (Flink's
// ResourceProfile#subtract): what is left of a TaskManager's total once a
// slot has taken its share. AnyResourceProfile on either side gives
// AnyResourceProfile, otherwise an unknown profile on either side gives
// UnknownResourceProfile. Taking more than p has is a broken invariant, as
// in Flink ("Try to subtract an unmatched resource profile from this
// one."): it panics.
func (p ResourceProfile) Subtract(other ResourceProfile) ResourceProfile {
	switch {
	case p == AnyResourceProfile || other == AnyResourceProfile:
		return AnyResourceProfile
	case p.IsUnknown() || other.IsUnknown():
		return UnknownResourceProfile
	}
	if !p.AllFieldsNoLessThan(other) {
		panic(fmt.Sprintf("api: %s - %s: Try to subtract an unmatched resource profile from this one.", p, other))
	}
	return normalized(ResourceProfile{
		CPUCores:          subtractCPU(p.CPUCores, other.CPUCores),
		TaskHeapMemory:    p.TaskHeapMemory.Subtract(other.TaskHeapMemory),
		TaskOffHeapMemory: p.TaskOffHeapMemory.Subtract(other.TaskOffHeapMemory),
		ManagedMemory:     p.ManagedMemory.Subtract(other.ManagedMemory),
		NetworkMemory:     p.NetworkMemory.Subtract(other.NetworkMemory),
	})
}

// Multiply returns p times multiplier (Flink's ResourceProfile#multiply):
// AnyResourceProfile and an unknown profile stay what they are, and times
// zero is ZeroResourceProfile. A negative multiplier panics ("multiplier
// must be >= 0").
func (p ResourceProfile) Multiply(multiplier int) ResourceProfile {
	if multiplier < 0 {
		panic("api: multiplier must be >= 0")
	}
	switch {
	case p == AnyResourceProfile:
		return AnyResourceProfile
	case p.IsUnknown():
		return UnknownResourceProfile
	case multiplier == 0:
		return ZeroResourceProfile
	}
	m := float64(multiplier)
	return normalized(ResourceProfile{
		CPUCores:          multiplyCPU(p.CPUCores, int64(multiplier)),
		TaskHeapMemory:    p.TaskHeapMemory.Multiply(m),
		TaskOffHeapMemory: p.TaskOffHeapMemory.Multiply(m),
		ManagedMemory:     p.ManagedMemory.Multiply(m),
		NetworkMemory:     p.NetworkMemory.Multiply(m),
	})
}

// Divide returns p divided by n, each dimension rounded down, as Flink's
// Resource#divide and MemorySize#divide round: memory in whole bytes
// (402653174 bytes make two shares of 201326587), CPU cores to 16 decimal
// places (one core makes three shares of 0.3333333333333333). It panics if
// p is not specific or n is not positive.
func (p ResourceProfile) Divide(n int) ResourceProfile {
	if n <= 0 || p.IsUnknown() || p == AnyResourceProfile {
		panic(fmt.Sprintf("api: cannot divide %s by %d", p, n))
	}
	by := configuration.MemorySize(n)
	return normalized(ResourceProfile{
		CPUCores:          divideCPU(p.CPUCores, int64(n)),
		TaskHeapMemory:    p.TaskHeapMemory / by,
		TaskOffHeapMemory: p.TaskOffHeapMemory / by,
		ManagedMemory:     p.ManagedMemory / by,
		NetworkMemory:     p.NetworkMemory / by,
	})
}

// The largest amounts String prints (Flink's MAX_CPU_CORE_NUMBER_TO_LOG and
// MAX_MEMORY_SIZE_TO_LOG); larger ones are left out of the line.
const (
	maxCPUCoresToLog   = 16384
	maxMemorySizeToLog = configuration.MemorySize(1) << 50 // 1 PiB
)

// String prints the profile as Flink's ResourceProfile#toString does, so
// log lines read like a real JobManager's:
//
//	ResourceProfile{UNKNOWN}
//	ResourceProfile{ANY}
//	ResourceProfile{cpuCores=1, taskHeapMemory=384.000mb (402653174 bytes), taskOffHeapMemory=0 bytes, managedMemory=512.000mb (536870920 bytes), networkMemory=128.000mb (134217730 bytes)}
//
// CPU cores print as Flink 1.20 prints its BigDecimal, without trailing
// zeros and never in exponent form: 1, 0.5, 0.25, 0 (real 1.20
// JobManager logs read "cpuCores=1", "cpuCores=0.4", "cpuCores=0").
func (p ResourceProfile) String() string {
	switch {
	case p.IsUnknown():
		return "ResourceProfile{UNKNOWN}"
	case p == AnyResourceProfile:
		return "ResourceProfile{ANY}"
	}
	s := ""
	if p.CPUCores <= maxCPUCoresToLog {
		s = "cpuCores=" + strconv.FormatFloat(p.CPUCores, 'f', -1, 64)
	}
	for _, field := range []struct {
		name string
		size configuration.MemorySize
	}{
		{"taskHeapMemory", p.TaskHeapMemory},
		{"taskOffHeapMemory", p.TaskOffHeapMemory},
		{"managedMemory", p.ManagedMemory},
		{"networkMemory", p.NetworkMemory},
	} {
		if field.size > maxMemorySizeToLog {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += field.name + "=" + field.size.ToHumanReadableString()
	}
	return "ResourceProfile{" + s + "}"
}

// GoString is String, for %#v and testify's messages.
func (p ResourceProfile) GoString() string { return p.String() }

// resourceProfileJSON is the profile on the wire. An unknown profile is
// {}: no amounts at all; a specific one carries every amount, in bytes for
// memory, so that ZeroResourceProfile survives the trip as itself.
type resourceProfileJSON struct {
	CPUCores          *float64                  `json:"cpuCores,omitempty"`
	TaskHeapMemory    *configuration.MemorySize `json:"taskHeapMemory,omitempty"`
	TaskOffHeapMemory *configuration.MemorySize `json:"taskOffHeapMemory,omitempty"`
	ManagedMemory     *configuration.MemorySize `json:"managedMemory,omitempty"`
	NetworkMemory     *configuration.MemorySize `json:"networkMemory,omitempty"`
}

// MarshalJSON writes {} for UnknownResourceProfile and every amount
// otherwise.
func (p ResourceProfile) MarshalJSON() ([]byte, error) {
	if p.IsUnknown() {
		return json.Marshal(resourceProfileJSON{})
	}
	return json.Marshal(resourceProfileJSON{
		CPUCores:          &p.CPUCores,
		TaskHeapMemory:    &p.TaskHeapMemory,
		TaskOffHeapMemory: &p.TaskOffHeapMemory,
		ManagedMemory:     &p.ManagedMemory,
		NetworkMemory:     &p.NetworkMemory,
	})
}

// UnmarshalJSON reads what MarshalJSON writes: no amounts is
// UnknownResourceProfile, any amount a specific profile (missing amounts
// are zero).
func (p *ResourceProfile) UnmarshalJSON(data []byte) error {
	var w resourceProfileJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.CPUCores == nil && w.TaskHeapMemory == nil && w.TaskOffHeapMemory == nil &&
		w.ManagedMemory == nil && w.NetworkMemory == nil {
		*p = UnknownResourceProfile
		return nil
	}
	deref := func(m *configuration.MemorySize) configuration.MemorySize {
		if m == nil {
			return 0
		}
		return *m
	}
	cpu := 0.0
	if w.CPUCores != nil {
		cpu = *w.CPUCores
	}
	*p = NewResourceProfile(cpu, deref(w.TaskHeapMemory), deref(w.TaskOffHeapMemory),
		deref(w.ManagedMemory), deref(w.NetworkMemory))
	return nil
}

// Flink holds CPU cores as a BigDecimal, made from a double by
// BigDecimal.valueOf: the double's shortest decimal form, the digits
// Double.toString prints. The helpers below compute on those decimals
// exactly, as BigDecimal does, and return the double nearest the result,
// as BigDecimal#doubleValue does. (A share Flink keeps as a decimal of 16
// places is held here as the double nearest it.)

// divideCPU is Flink's Resource#divide(int): the quotient to 16 decimal
// places, rounded down.
func divideCPU(cores float64, n int64) float64 {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(16), nil)
	scaled := new(big.Rat).Mul(decimalOf(cores), new(big.Rat).SetInt(scale))
	scaled.Quo(scaled, new(big.Rat).SetInt64(n))
	truncated := new(big.Int).Quo(scaled.Num(), scaled.Denom()) // cores ≥ 0: toward zero is down
	f, _ := new(big.Rat).SetFrac(truncated, scale).Float64()
	return f
}

// subtractCPU is Flink's Resource#subtract.
func subtractCPU(cores, other float64) float64 {
	difference := new(big.Rat).Sub(decimalOf(cores), decimalOf(other))
	if difference.Sign() < 0 {
		panic(fmt.Sprintf("api: %v - %v CPU cores: Try to subtract a larger resource from this one.", cores, other))
	}
	f, _ := difference.Float64()
	return f
}

// addCPU is Flink's Resource#merge.
func addCPU(cores, other float64) float64 {
	f, _ := new(big.Rat).Add(decimalOf(cores), decimalOf(other)).Float64()
	return f
}

// multiplyCPU is Flink's Resource#multiply(int).
func multiplyCPU(cores float64, n int64) float64 {
	f, _ := new(big.Rat).Mul(decimalOf(cores), new(big.Rat).SetInt64(n)).Float64()
	return f
}

// compareCPU compares two amounts of CPU cores as their decimals. The
// shortest decimal of a double lies within the interval of reals that
// round to it, and those intervals do not overlap, so the decimals are in
// the order of the doubles: comparing the doubles is comparing the
// decimals, without making them.
func compareCPU(a, b float64) int { return cmp.Compare(a, b) }

// decimalOf is BigDecimal.valueOf(v): v's shortest decimal form, exactly.
func decimalOf(v float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'e', -1, 64))
	if !ok {
		panic(fmt.Sprintf("api: %v CPU cores is not a number", v))
	}
	return r
}
