package slotmanager

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

var (
	small   = api.ResourceProfileFromResources(1, 512)
	large   = api.ResourceProfileFromResources(2, 1024)
	unknown = api.UnknownResourceProfile
)

func req(p api.ResourceProfile, n int) gateway.ResourceRequirement {
	return gateway.ResourceRequirement{ResourceProfile: p, NumberOfRequiredSlots: n}
}

func slotID(tm string, n int) api.SlotID {
	return api.SlotID{ResourceID: api.ResourceID(tm), SlotNumber: n}
}

func TestDefaultResourceAllocationStrategy(t *testing.T) {
	jobA, jobB := api.NewJobID(), api.NewJobID()
	tm1, tm2 := api.NewInstanceID(), api.NewInstanceID()
	free := func(tm string, instance api.InstanceID, n int, p api.ResourceProfile) FreeSlot {
		return FreeSlot{SlotID: slotID(tm, n), InstanceID: instance, ResourceProfile: p}
	}
	alloc := func(job api.JobID, tm string, instance api.InstanceID, n int, p api.ResourceProfile) SlotAllocation {
		return SlotAllocation{JobID: job, SlotID: slotID(tm, n), InstanceID: instance, ResourceProfile: p}
	}
	twoTaskManagers := []FreeSlot{
		free("tm-1", tm1, 0, small), free("tm-1", tm1, 1, small),
		free("tm-2", tm2, 0, small), free("tm-2", tm2, 1, small),
	}

	tests := []struct {
		name            string
		missing         []JobRequirements
		free            []FreeSlot
		wantAllocations []SlotAllocation
		wantUnfulfilled []JobRequirements
	}{
		{
			name:    "exact fit",
			missing: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(small, 2)}}},
			free:    []FreeSlot{free("tm-1", tm1, 0, small), free("tm-1", tm1, 1, small)},
			wantAllocations: []SlotAllocation{
				alloc(jobA, "tm-1", tm1, 0, small), alloc(jobA, "tm-1", tm1, 1, small),
			},
		},
		{
			name:    "fills the first TaskManager before the next",
			missing: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 3)}}},
			free:    twoTaskManagers,
			wantAllocations: []SlotAllocation{
				alloc(jobA, "tm-1", tm1, 0, unknown), alloc(jobA, "tm-1", tm1, 1, unknown), alloc(jobA, "tm-2", tm2, 0, unknown),
			},
		},
		{
			name:            "not enough slots",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 5)}}},
			free:            twoTaskManagers,
			wantAllocations: []SlotAllocation{alloc(jobA, "tm-1", tm1, 0, unknown), alloc(jobA, "tm-1", tm1, 1, unknown), alloc(jobA, "tm-2", tm2, 0, unknown), alloc(jobA, "tm-2", tm2, 1, unknown)},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1)}}},
		},
		{
			name:            "no free slots at all",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1)}}},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1)}}},
		},
		{
			name:            "profiles that do not match",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1)}}},
			free:            []FreeSlot{free("tm-1", tm1, 0, small)},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1)}}},
		},
		{
			name:            "a larger slot serves a smaller requirement",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(small, 1)}}},
			free:            []FreeSlot{free("tm-1", tm1, 0, large)},
			wantAllocations: []SlotAllocation{alloc(jobA, "tm-1", tm1, 0, small)},
		},
		{
			name:            "unknown profile matches anything",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 2)}}},
			free:            []FreeSlot{free("tm-1", tm1, 0, large), free("tm-2", tm2, 0, small)},
			wantAllocations: []SlotAllocation{alloc(jobA, "tm-1", tm1, 0, unknown), alloc(jobA, "tm-2", tm2, 0, unknown)},
		},
		{
			name: "specific profiles are served before unknown ones",
			// In declared order the unknown requirement would take the
			// large slot and leave the large requirement unfulfilled.
			missing: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1), req(large, 1)}}},
			free:    []FreeSlot{free("tm-1", tm1, 0, large), free("tm-1", tm1, 1, small)},
			wantAllocations: []SlotAllocation{
				alloc(jobA, "tm-1", tm1, 0, large), alloc(jobA, "tm-1", tm1, 1, unknown),
			},
		},
		{
			name: "several jobs: first come, first served",
			missing: []JobRequirements{
				{jobA, []gateway.ResourceRequirement{req(unknown, 2)}},
				{jobB, []gateway.ResourceRequirement{req(unknown, 3)}},
			},
			free: twoTaskManagers,
			wantAllocations: []SlotAllocation{
				alloc(jobA, "tm-1", tm1, 0, unknown), alloc(jobA, "tm-1", tm1, 1, unknown),
				alloc(jobB, "tm-2", tm2, 0, unknown), alloc(jobB, "tm-2", tm2, 1, unknown),
			},
			wantUnfulfilled: []JobRequirements{{jobB, []gateway.ResourceRequirement{req(unknown, 1)}}},
		},
		{
			name: "a later job can use slots an earlier job cannot",
			missing: []JobRequirements{
				{jobA, []gateway.ResourceRequirement{req(large, 1)}},
				{jobB, []gateway.ResourceRequirement{req(small, 1)}},
			},
			free:            []FreeSlot{free("tm-1", tm1, 0, small)},
			wantAllocations: []SlotAllocation{alloc(jobB, "tm-1", tm1, 0, small)},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1)}}},
		},
		{
			name: "nothing missing",
			free: twoTaskManagers,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultResourceAllocationStrategy{}.TryFulfillRequirements(tt.missing, tt.free)
			assert.Equal(t, tt.wantAllocations, got.Allocations, "allocations")
			assert.Equal(t, tt.wantUnfulfilled, got.Unfulfilled, "unfulfilled")
		})
	}
}

func TestUnfulfillableJobs(t *testing.T) {
	jobA, jobB := api.NewJobID(), api.NewJobID()
	r := ResourceAllocationResult{Unfulfilled: []JobRequirements{{JobID: jobA}, {JobID: jobB}}}
	assert.Equal(t, []api.JobID{jobA, jobB}, r.UnfulfillableJobs())
}

func TestMissingRequirements(t *testing.T) {
	tests := []struct {
		name     string
		required []gateway.ResourceRequirement
		acquired []api.ResourceProfile
		want     []gateway.ResourceRequirement
	}{
		{
			name:     "nothing held",
			required: []gateway.ResourceRequirement{req(unknown, 3)},
			want:     []gateway.ResourceRequirement{req(unknown, 3)},
		},
		{
			name:     "held slots count against their profile",
			required: []gateway.ResourceRequirement{req(unknown, 3)},
			acquired: []api.ResourceProfile{unknown, unknown},
			want:     []gateway.ResourceRequirement{req(unknown, 1)},
		},
		{
			name:     "fully covered",
			required: []gateway.ResourceRequirement{req(small, 1), req(unknown, 1)},
			acquired: []api.ResourceProfile{unknown, small},
		},
		{
			name:     "a held slot counts against a requirement it matches exactly, or an unknown one",
			required: []gateway.ResourceRequirement{req(unknown, 1), req(small, 1)},
			acquired: []api.ResourceProfile{large},
			// large does not match small (IsMatching is exact, as in
			// Flink's DefaultRequirementMatcher), so it counts against the
			// unknown requirement and small is left.
			want: []gateway.ResourceRequirement{req(small, 1)},
		},
		{
			name:     "more held than required",
			required: []gateway.ResourceRequirement{req(unknown, 1)},
			acquired: []api.ResourceProfile{unknown, unknown, unknown},
		},
		{
			name:     "a held slot that matches nothing is ignored",
			required: []gateway.ResourceRequirement{req(large, 1)},
			acquired: []api.ResourceProfile{small},
			want:     []gateway.ResourceRequirement{req(large, 1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MissingRequirements(tt.required, tt.acquired)
			if len(tt.want) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// BenchmarkDefaultResourceAllocationStrategy matches 50 jobs of 8 slots
// each against a cluster of 100 TaskManagers with 4 slots each.
func BenchmarkDefaultResourceAllocationStrategy(b *testing.B) {
	var free []FreeSlot
	for tm := range 100 {
		instance := api.NewInstanceID()
		for n := range 4 {
			free = append(free, FreeSlot{SlotID: slotID(fmt.Sprintf("tm-%d", tm), n), InstanceID: instance, ResourceProfile: small})
		}
	}
	var missing []JobRequirements
	for range 50 {
		missing = append(missing, JobRequirements{JobID: api.NewJobID(), Requirements: []gateway.ResourceRequirement{req(unknown, 8)}})
	}
	var strategy DefaultResourceAllocationStrategy
	b.ReportAllocs()
	for b.Loop() {
		if got := strategy.TryFulfillRequirements(missing, free); len(got.Allocations) != 400 {
			b.Fatalf("got %d allocations, want 400", len(got.Allocations))
		}
	}
}
