package slotmanager

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

var (
	small   = api.ResourceProfileFromResources(1, 512)
	large   = api.ResourceProfileFromResources(2, 1024) // two smalls
	huge    = api.ResourceProfileFromResources(8, 4096)
	half    = api.ResourceProfileFromResources(0.5, 256) // half a small
	unknown = api.UnknownResourceProfile
)

func req(p api.ResourceProfile, n int) gateway.ResourceRequirement {
	return gateway.ResourceRequirement{ResourceProfile: p, NumberOfRequiredSlots: n}
}

// withSlots is a TaskManager started with n default slots of defaultSlot:
// its total is n of them, all available.
func withSlots(instance api.InstanceID, n int, defaultSlot api.ResourceProfile) RegisteredTaskManager {
	total := defaultSlot.Multiply(n)
	return RegisteredTaskManager{InstanceID: instance, DefaultSlotProfile: defaultSlot, Total: total, Available: total}
}

// using takes used out of what a TaskManager has available, as slots cut
// out of it earlier do.
func using(tm RegisteredTaskManager, used api.ResourceProfile) RegisteredTaskManager {
	tm.Available = tm.Available.Subtract(used)
	return tm
}

func TestDefaultResourceAllocationStrategy(t *testing.T) {
	jobA, jobB := api.NewJobID(), api.NewJobID()
	tm1, tm2 := api.NewInstanceID(), api.NewInstanceID()
	alloc := func(job api.JobID, instance api.InstanceID, p api.ResourceProfile) SlotAllocation {
		return SlotAllocation{JobID: job, InstanceID: instance, ResourceProfile: p}
	}
	twoByTwo := []RegisteredTaskManager{withSlots(tm1, 2, small), withSlots(tm2, 2, small)}

	tests := []struct {
		name            string
		missing         []JobRequirements
		taskManagers    []RegisteredTaskManager
		wantAllocations []SlotAllocation
		wantUnfulfilled []JobRequirements
	}{
		{
			name:            "exact fit",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(small, 2)}}},
			taskManagers:    []RegisteredTaskManager{withSlots(tm1, 2, small)},
			wantAllocations: []SlotAllocation{alloc(jobA, tm1, small), alloc(jobA, tm1, small)},
		},
		{
			name:         "fills the first TaskManager before the next",
			missing:      []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 3)}}},
			taskManagers: twoByTwo,
			wantAllocations: []SlotAllocation{
				alloc(jobA, tm1, small), alloc(jobA, tm1, small), alloc(jobA, tm2, small),
			},
		},
		{
			name:         "not enough resources: the number still missing is reported",
			missing:      []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 5)}}},
			taskManagers: twoByTwo,
			wantAllocations: []SlotAllocation{
				alloc(jobA, tm1, small), alloc(jobA, tm1, small), alloc(jobA, tm2, small), alloc(jobA, tm2, small),
			},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1)}}},
		},
		{
			name:            "no TaskManager at all",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1)}}},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1)}}},
		},
		{
			name:            "a requirement larger than every TaskManager's total",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(huge, 1)}}},
			taskManagers:    twoByTwo,
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(huge, 1)}}},
		},
		{
			name:            "a larger TaskManager serves a smaller requirement with the requirement's profile",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(small, 1)}}},
			taskManagers:    []RegisteredTaskManager{withSlots(tm1, 1, large)},
			wantAllocations: []SlotAllocation{alloc(jobA, tm1, small)},
		},
		{
			name: "fine-grained: slots of different sizes are cut out of one TaskManager",
			missing: []JobRequirements{{jobA, []gateway.ResourceRequirement{
				req(large, 1), req(small, 1), req(half, 2),
			}}},
			taskManagers: []RegisteredTaskManager{withSlots(tm1, 4, small), withSlots(tm2, 4, small)},
			wantAllocations: []SlotAllocation{
				alloc(jobA, tm1, large), alloc(jobA, tm1, small), alloc(jobA, tm1, half), alloc(jobA, tm1, half),
			},
		},
		{
			name:    "an unknown requirement gets each TaskManager's default slot profile",
			missing: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 3)}}},
			taskManagers: []RegisteredTaskManager{
				withSlots(tm1, 1, small), withSlots(tm2, 2, large),
			},
			wantAllocations: []SlotAllocation{
				alloc(jobA, tm1, small), alloc(jobA, tm2, large), alloc(jobA, tm2, large),
			},
		},
		{
			name:    "what is available counts, not the total",
			missing: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1), req(small, 1)}}},
			// tm-1 has room for a large slot in total, but one small slot is
			// cut out of it already.
			taskManagers:    []RegisteredTaskManager{using(withSlots(tm1, 2, small), small)},
			wantAllocations: []SlotAllocation{alloc(jobA, tm1, small)},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1)}}},
		},
		{
			name:         "a TaskManager with nothing left is skipped",
			missing:      []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1)}}},
			taskManagers: []RegisteredTaskManager{using(withSlots(tm1, 1, small), small), withSlots(tm2, 1, small)},
			wantAllocations: []SlotAllocation{
				alloc(jobA, tm2, small),
			},
		},
		{
			name: "specific profiles are served before unknown ones",
			// In declared order the unknown requirement would take a
			// default slot out of tm-1 and leave the large requirement
			// nowhere to go.
			missing:      []JobRequirements{{jobA, []gateway.ResourceRequirement{req(unknown, 1), req(large, 1)}}},
			taskManagers: []RegisteredTaskManager{withSlots(tm1, 2, small), withSlots(tm2, 1, small)},
			wantAllocations: []SlotAllocation{
				alloc(jobA, tm1, large), alloc(jobA, tm2, small),
			},
		},
		{
			name: "several jobs: first come, first served, nothing handed out twice",
			missing: []JobRequirements{
				{jobA, []gateway.ResourceRequirement{req(unknown, 2)}},
				{jobB, []gateway.ResourceRequirement{req(unknown, 3)}},
			},
			taskManagers: twoByTwo,
			wantAllocations: []SlotAllocation{
				alloc(jobA, tm1, small), alloc(jobA, tm1, small),
				alloc(jobB, tm2, small), alloc(jobB, tm2, small),
			},
			wantUnfulfilled: []JobRequirements{{jobB, []gateway.ResourceRequirement{req(unknown, 1)}}},
		},
		{
			name: "a later job can use resources an earlier job cannot",
			missing: []JobRequirements{
				{jobA, []gateway.ResourceRequirement{req(large, 1)}},
				{jobB, []gateway.ResourceRequirement{req(small, 1)}},
			},
			taskManagers:    []RegisteredTaskManager{withSlots(tm1, 1, small)},
			wantAllocations: []SlotAllocation{alloc(jobB, tm1, small)},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1)}}},
		},
		{
			name:            "a requirement left short does not stop the job's next one",
			missing:         []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1), req(unknown, 1)}}},
			taskManagers:    []RegisteredTaskManager{withSlots(tm1, 1, small)},
			wantAllocations: []SlotAllocation{alloc(jobA, tm1, small)},
			wantUnfulfilled: []JobRequirements{{jobA, []gateway.ResourceRequirement{req(large, 1)}}},
		},
		{
			name:         "nothing missing",
			taskManagers: twoByTwo,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultResourceAllocationStrategy{}.TryFulfillRequirements(tt.missing, tt.taskManagers)
			assert.Equal(t, tt.wantAllocations, got.Allocations, "allocations")
			assert.Equal(t, tt.wantUnfulfilled, got.Unfulfilled, "unfulfilled")
		})
	}
}

func TestTheStrategyDoesNotChangeItsArguments(t *testing.T) {
	tms := []RegisteredTaskManager{withSlots(api.NewInstanceID(), 2, small)}
	before := tms[0]
	reqs := []gateway.ResourceRequirement{req(unknown, 1), req(small, 1)}
	DefaultResourceAllocationStrategy{}.TryFulfillRequirements([]JobRequirements{{api.NewJobID(), reqs}}, tms)
	assert.Equal(t, before, tms[0], "the TaskManagers are the tracker's view; the strategy only decides")
	assert.Equal(t, []gateway.ResourceRequirement{req(unknown, 1), req(small, 1)}, reqs)
}

func TestUnfulfillableJobs(t *testing.T) {
	jobA, jobB := api.NewJobID(), api.NewJobID()
	r := ResourceAllocationResult{Unfulfilled: []JobRequirements{{JobID: jobA}, {JobID: jobB}}}
	assert.Equal(t, []api.JobID{jobA, jobB}, r.UnfulfillableJobs())
}

func TestEffectiveResourceProfile(t *testing.T) {
	assert.Equal(t, small, EffectiveResourceProfile(unknown, small), "an unknown requirement gets the default slot")
	assert.Equal(t, large, EffectiveResourceProfile(large, small), "a specific requirement keeps its own profile")
}

func TestCalculateDefaultNumSlots(t *testing.T) {
	tests := []struct {
		name               string
		total, defaultSlot api.ResourceProfile
		want               int
	}{
		{"four slots", small.Multiply(4), small, 4},
		{"a remainder makes no slot", small.Multiply(2).Merge(half), small, 2},
		{"the scarcest dimension decides", api.ResourceProfileFromResources(4, 1024), small, 2},
		{"an unknown default slot", small, unknown, 0},
		{"a zero default slot", small, api.ZeroResourceProfile, 0},
		{"thousands of slots, counted at once", small.Multiply(2000), small, 2000},
		{"a third of a core each", api.ResourceProfileFromResources(1, 384), api.ResourceProfileFromResources(1, 384).Divide(3), 3},
		{"unbounded, as Flink's ANY", api.AnyResourceProfile, small, math.MaxInt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, calculateDefaultNumSlots(tt.total, tt.defaultSlot))
		})
	}
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
			name:     "slots of the default profile count against an unknown requirement",
			required: []gateway.ResourceRequirement{req(unknown, 3)},
			acquired: []api.ResourceProfile{small, small},
			want:     []gateway.ResourceRequirement{req(unknown, 1)},
		},
		{
			name:     "fully covered",
			required: []gateway.ResourceRequirement{req(small, 1), req(unknown, 1)},
			acquired: []api.ResourceProfile{large, small},
		},
		{
			name:     "a held slot counts against a requirement of its profile before an unknown one",
			required: []gateway.ResourceRequirement{req(unknown, 1), req(small, 1)},
			acquired: []api.ResourceProfile{small},
			want:     []gateway.ResourceRequirement{req(unknown, 1)},
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
			acquired: []api.ResourceProfile{small, small, small},
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
// each against a cluster of 100 TaskManagers with 4 default slots each.
func BenchmarkDefaultResourceAllocationStrategy(b *testing.B) {
	var taskManagers []RegisteredTaskManager
	for range 100 {
		taskManagers = append(taskManagers, withSlots(api.NewInstanceID(), 4, small))
	}
	var missing []JobRequirements
	for range 50 {
		missing = append(missing, JobRequirements{JobID: api.NewJobID(), Requirements: []gateway.ResourceRequirement{req(unknown, 8)}})
	}
	var strategy DefaultResourceAllocationStrategy
	b.ReportAllocs()
	for b.Loop() {
		if got := strategy.TryFulfillRequirements(missing, taskManagers); len(got.Allocations) != 400 {
			b.Fatalf("got %d allocations, want 400", len(got.Allocations))
		}
	}
}
