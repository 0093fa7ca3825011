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

// RegisteredTaskManager is a registered TaskManager as the strategy sees
// it (Flink's TaskManagerInfo): what it has in total, what one default
// slot is, and what is still available, its total minus every slot cut
// out of it.
type RegisteredTaskManager struct {
	InstanceID         api.InstanceID
	DefaultSlotProfile api.ResourceProfile
	Total              api.ResourceProfile
	Available          api.ResourceProfile
}

// SlotAllocation is one decision of the strategy: cut a slot of this
// profile out of this TaskManager for this job. The profile is what the
// SlotManager puts into requestSlot; it is never unknown.
type SlotAllocation struct {
	JobID           api.JobID
	InstanceID      api.InstanceID
	ResourceProfile api.ResourceProfile
}

// ResourceAllocationResult is the strategy's answer (Flink's
// ResourceAllocationResult): the allocations to make now and what each job
// still lacks after them.
type ResourceAllocationResult struct {
	Allocations []SlotAllocation
	// Unfulfilled lists, in the order the jobs were given, the requirements
	// no TaskManager has the resources left to serve. A standalone
	// ResourceManager can only wait for more TaskManagers; an active one
	// would start them.
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

// ResourceAllocationStrategy decides which TaskManagers' resources serve
// which missing requirements (Flink's
// ResourceAllocationStrategy#tryFulfillRequirements). An implementation is
// a pure function of its arguments: no goroutines, no clock, no I/O, so it
// can be tested with a table and nothing else.
type ResourceAllocationStrategy interface {
	TryFulfillRequirements(missing []JobRequirements, taskManagers []RegisteredTaskManager) ResourceAllocationResult
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
//     order.
//  3. A requirement's effective profile on a TaskManager is its own
//     profile, or, for UnknownResourceProfile, that TaskManager's default
//     slot profile (Flink's SlotManagerUtils#getEffectiveResourceProfile).
//  4. Each requirement takes slots one by one from the first TaskManager
//     (in registration order) whose available resources are at least the
//     effective profile in every dimension
//     (api.ResourceProfile.AllFieldsNoLessThan, not the exact IsMatching),
//     as many as fit there, then moves on to the next TaskManager. Each
//     slot is cut out of the TaskManager's available resources, so that
//     no resource is handed out twice, to this job or to the next.
//
// A requirement left short is reported in ResourceAllocationResult.Unfulfilled
// with the number still missing. A standalone ResourceManager can only
// wait for more TaskManagers; an active one would plan new ones here
// (Flink: tryFulfillRequirementsForJobWithPendingResources).
//
// Differs from Flink: Flink's requirements of one job, and its registered
// TaskManagers, come out of hash maps in no particular order; we serve
// specific profiles first, which leaves the large free resources for the
// requirements that need them, and take the TaskManagers in registration
// order, which makes the result repeatable. Which TaskManager Flink fills
// first is arbitrary; that it fills one before the next is the same.
type DefaultResourceAllocationStrategy struct{}

var _ ResourceAllocationStrategy = DefaultResourceAllocationStrategy{}

// TryFulfillRequirements matches missing requirements to the TaskManagers'
// available resources by the rule documented on
// DefaultResourceAllocationStrategy.
//
// Step m7: the ResourceManager decides here which TaskExecutor cuts a slot
// of which profile for each job; the SlotManager then requests each
// slot from its TaskExecutor (requestSlot).
func (DefaultResourceAllocationStrategy) TryFulfillRequirements(missing []JobRequirements, taskManagers []RegisteredTaskManager) ResourceAllocationResult {
	available := make([]api.ResourceProfile, len(taskManagers))
	for i, tm := range taskManagers {
		available[i] = tm.Available
	}
	var result ResourceAllocationResult
	for _, job := range missing {
		var left []gateway.ResourceRequirement
		for _, req := range specificProfilesFirst(job.Requirements) {
			needed := req.NumberOfRequiredSlots
			for i, tm := range taskManagers {
				effective := EffectiveResourceProfile(req.ResourceProfile, tm.DefaultSlotProfile)
				for needed > 0 && available[i].AllFieldsNoLessThan(effective) {
					available[i] = available[i].Subtract(effective)
					needed--
					result.Allocations = append(result.Allocations, SlotAllocation{
						JobID:           job.JobID,
						InstanceID:      tm.InstanceID,
						ResourceProfile: effective,
					})
				}
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

// EffectiveResourceProfile is the profile a slot for required gets on a
// TaskManager whose default slot profile is defaultSlot (Flink's
// SlotManagerUtils#getEffectiveResourceProfile): required itself, or the
// default slot for an unknown requirement.
func EffectiveResourceProfile(required, defaultSlot api.ResourceProfile) api.ResourceProfile {
	if required.IsUnknown() {
		return defaultSlot
	}
	return required
}

// MissingRequirements subtracts the slots a job already holds from what it
// requires. acquired has one entry per slot the job holds (PENDING or
// ALLOCATED): the profile that slot was allocated for. Each held slot
// counts against a requirement of exactly its profile if there is one, and
// otherwise against the first requirement (specific profiles first) that it
// matches (api.ResourceProfile.IsMatching, exact, as Flink's
// DefaultRequirementMatcher: in practice, an unknown requirement, which a
// slot of the default profile serves). Requirements that are fully covered
// are left out; slots that cover nothing (the job holds more than it
// needs) are ignored.
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
