package slotmanager

import (
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// JobRequirements is what one job needs (or, in a ResourceAllocationResult,
// still lacks).
type JobRequirements struct {
	JobID        api.JobID
	Requirements []gateway.ResourceRequirement
}

// FreeSlot is a slot the strategy may hand out.
type FreeSlot struct {
	SlotID          api.SlotID
	InstanceID      api.InstanceID
	ResourceProfile api.ResourceProfile
}

// SlotAllocation is one decision of the strategy: this slot goes to this
// job, for a requirement of this profile. The profile is what the
// SlotManager puts into requestSlot.
type SlotAllocation struct {
	JobID           api.JobID
	SlotID          api.SlotID
	InstanceID      api.InstanceID
	ResourceProfile api.ResourceProfile
}

// ResourceAllocationResult is the strategy's answer (Flink's
// ResourceAllocationResult): the allocations to make now and what each job
// still lacks after them.
type ResourceAllocationResult struct {
	Allocations []SlotAllocation
	// Unfulfilled lists, in the order the jobs were given, the requirements
	// no free slot could serve. A standalone ResourceManager can only wait
	// for more TaskManagers; an active one would start them.
	Unfulfilled []JobRequirements
}

// UnfulfillableJobs returns the IDs of the jobs in Unfulfilled.
func (r ResourceAllocationResult) UnfulfillableJobs() []api.JobID {
	ids := make([]api.JobID, len(r.Unfulfilled))
	for i, job := range r.Unfulfilled {
		ids[i] = job.JobID
	}
	return ids
}

// ResourceAllocationStrategy decides which free slots serve which missing
// requirements (Flink's ResourceAllocationStrategy#tryFulfillRequirements).
// An implementation is a pure function of its arguments: no goroutines, no
// clock, no I/O, so it can be tested with a table and nothing else.
type ResourceAllocationStrategy interface {
	TryFulfillRequirements(missing []JobRequirements, freeSlots []FreeSlot) ResourceAllocationResult
}

// DefaultResourceAllocationStrategy is a greedy, deterministic matcher
// (Flink's DefaultResourceAllocationStrategy with its default
// cluster.evenly-spread-out-slots=false, which fills one TaskManager before
// it touches the next). The rule, in full:
//
//  1. Jobs are served in the order given (the SlotManager gives them in the
//     order they first declared requirements).
//  2. Within a job, requirements with a specific profile come before
//     requirements for UnknownResourceProfile; otherwise they keep their
//     order. An unknown requirement fits any slot, so serving it last
//     leaves the large slots for the requirements that need them.
//  3. Each requirement takes, one by one, the first free slot that can
//     serve it, at least as large in every dimension
//     (api.ResourceProfile.AllFieldsNoLessThan; an unknown requirement is
//     served by any slot), with free slots ordered by TaskManager
//     registration and then by slot number.
//
// Flink's strategy asks AllFieldsNoLessThan of what a TaskManager has left
// and measures an unknown requirement as the default slot profile; our
// free slots are static slots of that default profile, which comes to the
// same answer. It does not use the exact ResourceProfile.IsMatching.
//
// A requirement that runs out of matching slots is reported in
// ResourceAllocationResult.Unfulfilled with the number still missing.
type DefaultResourceAllocationStrategy struct{}

var _ ResourceAllocationStrategy = DefaultResourceAllocationStrategy{}

// TryFulfillRequirements matches missing requirements to free slots by the
// rule documented on DefaultResourceAllocationStrategy.
//
// Step m7: the ResourceManager decides here which TaskExecutor's slot
// each job gets; the SlotManager then requests each allocated slot from
// its TaskExecutor (requestSlot).
func (DefaultResourceAllocationStrategy) TryFulfillRequirements(missing []JobRequirements, freeSlots []FreeSlot) ResourceAllocationResult {
	taken := make([]bool, len(freeSlots))
	var result ResourceAllocationResult
	for _, job := range missing {
		var left []gateway.ResourceRequirement
		for _, req := range specificProfilesFirst(job.Requirements) {
			needed := req.NumberOfRequiredSlots
			for i, slot := range freeSlots {
				if needed == 0 {
					break
				}
				if taken[i] || !slot.ResourceProfile.AllFieldsNoLessThan(req.ResourceProfile) {
					continue
				}
				taken[i] = true
				needed--
				result.Allocations = append(result.Allocations, SlotAllocation{
					JobID:           job.JobID,
					SlotID:          slot.SlotID,
					InstanceID:      slot.InstanceID,
					ResourceProfile: req.ResourceProfile,
				})
			}
			if needed > 0 {
				left = append(left, gateway.ResourceRequirement{ResourceProfile: req.ResourceProfile, NumberOfRequiredSlots: needed})
			}
		}
		if len(left) > 0 {
			result.Unfulfilled = append(result.Unfulfilled, JobRequirements{JobID: job.JobID, Requirements: left})
		}
	}
	return result
}

// MissingRequirements subtracts the slots a job already holds from what it
// requires. acquired has one entry per slot the job holds (PENDING or
// ALLOCATED): the profile that slot was allocated for. Each held slot
// counts against a requirement of exactly its profile if there is one, and
// otherwise against the first requirement (specific profiles first) that it
// matches (api.ResourceProfile.IsMatching, exact, as Flink's
// DefaultRequirementMatcher: in practice, an unknown requirement). Requirements that are fully covered are left out; slots that
// cover nothing (the job holds more than it needs) are ignored.
//
// Like the strategy, it is pure: Flink does this bookkeeping in
// JobScopedResourceTracker.
func MissingRequirements(required []gateway.ResourceRequirement, acquired []api.ResourceProfile) []gateway.ResourceRequirement {
	left := specificProfilesFirst(required) // a copy: safe to count down
	for _, held := range acquired {
		i := slices.IndexFunc(left, func(r gateway.ResourceRequirement) bool {
			return r.NumberOfRequiredSlots > 0 && r.ResourceProfile == held
		})
		if i < 0 {
			i = slices.IndexFunc(left, func(r gateway.ResourceRequirement) bool {
				return r.NumberOfRequiredSlots > 0 && held.IsMatching(r.ResourceProfile)
			})
		}
		if i >= 0 {
			left[i].NumberOfRequiredSlots--
		}
	}
	return slices.DeleteFunc(left, func(r gateway.ResourceRequirement) bool { return r.NumberOfRequiredSlots <= 0 })
}

// specificProfilesFirst returns a copy of reqs with the requirements for
// UnknownResourceProfile moved to the end, keeping the order otherwise.
func specificProfilesFirst(reqs []gateway.ResourceRequirement) []gateway.ResourceRequirement {
	out := slices.Clone(reqs)
	slices.SortStableFunc(out, func(a, b gateway.ResourceRequirement) int {
		switch {
		case a.ResourceProfile.IsUnknown() == b.ResourceProfile.IsUnknown():
			return 0
		case b.ResourceProfile.IsUnknown():
			return -1
		default:
			return 1
		}
	})
	return out
}
