package clusterframework

import (
	"fmt"
	"math/big"
	"strconv"

	"flinklab/runtime/configuration"
)

// ResourceProfile is Flink's ResourceProfile
// (org.apache.flink.runtime.clusterframework.types) with the dimensions a
// TaskManager shares out among its slots: CPU cores and task heap, task
// off-heap, managed and network memory. Framework memory, JVM metaspace
// and JVM overhead are the TaskManager's own and no slot's.
//
// It is the TaskManager's account of its resources: the total a
// TaskExecutor registers with (TotalResourceProfile), the share of one
// slot (DefaultSlotResourceProfile), and what is free once slots are
// taken (Subtract). The REST endpoint reports it as Flink's
// ResourceProfileInfo.
//
// Slots are not matched with it: the SlotManager matches
// api.ResourceProfile, which keeps two of these dimensions, enough to
// teach matching, and which Flink's jobs that configure no resources
// leave UNKNOWN. Extended resources (GPUs) are left out.
type ResourceProfile struct {
	CPUCores          float64                  `json:"cpuCores"`
	TaskHeapMemory    configuration.MemorySize `json:"taskHeapMemory"`
	TaskOffHeapMemory configuration.MemorySize `json:"taskOffHeapMemory"`
	ManagedMemory     configuration.MemorySize `json:"managedMemory"`
	NetworkMemory     configuration.MemorySize `json:"networkMemory"`
}

// TotalResourceProfile returns everything a TaskManager with spec offers
// its slots: its CPU cores and its task heap, task off-heap, managed and
// network memory (Flink's
// TaskExecutorResourceUtils#generateTotalAvailableResourceProfile). A
// TaskExecutor registers at the ResourceManager with it.
func TotalResourceProfile(spec TaskExecutorProcessSpec) ResourceProfile {
	return ResourceProfile{
		CPUCores:          spec.CPUCores,
		TaskHeapMemory:    spec.TaskHeapSize,
		TaskOffHeapMemory: spec.TaskOffHeapSize,
		ManagedMemory:     spec.ManagedMemorySize,
		NetworkMemory:     spec.NetworkMemSize,
	}
}

// DefaultSlotResourceProfile returns one slot's share of a TaskManager's
// total: each dimension divided by the number of slots (Flink's
// SlotManagerUtils#generateDefaultSlotResourceProfile, which must agree
// with TaskExecutorResourceUtils#generateDefaultSlotResourceProfile on the
// TaskManager's side). The rounding is Flink's: memory is divided in whole
// bytes, rounded down (MemorySize#divide), so 402653174 bytes of task heap
// make two shares of 201326587; CPU cores are divided to 16 decimal
// places, rounded down (Resource#divide), so one core makes three shares
// of 0.3333333333333333.
//
// It panics if numSlots is not positive: a TaskManager has at least one
// slot.
func DefaultSlotResourceProfile(total ResourceProfile, numSlots int) ResourceProfile {
	if numSlots <= 0 {
		panic(fmt.Sprintf("clusterframework: a TaskManager has at least one slot, got %d", numSlots))
	}
	n := int64(numSlots)
	return ResourceProfile{
		CPUCores:          divideCPU(total.CPUCores, n),
		TaskHeapMemory:    total.TaskHeapMemory / configuration.MemorySize(n),
		TaskOffHeapMemory: total.TaskOffHeapMemory / configuration.MemorySize(n),
		ManagedMemory:     total.ManagedMemory / configuration.MemorySize(n),
		NetworkMemory:     total.NetworkMemory / configuration.MemorySize(n),
	}
}

// Subtract returns p minus other, dimension by dimension (Flink's
// ResourceProfile#subtract): what is left of a TaskManager's total once a
// slot has taken its share. Taking more than p has is a broken invariant,
// as in Flink ("Try to subtract an unmatched resource profile from this
// one."): it panics.
func (p ResourceProfile) Subtract(other ResourceProfile) ResourceProfile {
	return ResourceProfile{
		CPUCores:          subtractCPU(p.CPUCores, other.CPUCores),
		TaskHeapMemory:    p.TaskHeapMemory.Subtract(other.TaskHeapMemory),
		TaskOffHeapMemory: p.TaskOffHeapMemory.Subtract(other.TaskOffHeapMemory),
		ManagedMemory:     p.ManagedMemory.Subtract(other.ManagedMemory),
		NetworkMemory:     p.NetworkMemory.Subtract(other.NetworkMemory),
	}
}

// Flink holds CPU cores as a BigDecimal, made from a double by
// BigDecimal.valueOf: the double's shortest decimal form, the digits
// Double.toString prints. divideCPU and subtractCPU compute on those
// decimals exactly, as BigDecimal does, and return the double nearest the
// result, as BigDecimal#doubleValue does. (A share Flink keeps as a
// decimal of 16 places is held here as the double nearest it.)

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
		panic(fmt.Sprintf("clusterframework: %v - %v CPU cores: Try to subtract a larger resource from this one.", cores, other))
	}
	f, _ := difference.Float64()
	return f
}

// decimalOf is BigDecimal.valueOf(v): v's shortest decimal form, exactly.
func decimalOf(v float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'e', -1, 64))
	if !ok {
		panic(fmt.Sprintf("clusterframework: %v CPU cores is not a number", v))
	}
	return r
}
