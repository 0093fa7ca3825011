package streaming

import (
	"errors"
	"fmt"
	"math"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
	"flinklab/runtime/jobgraph"
)

// SlotSharingGroup is a slot sharing group as a program describes it: a
// name and, if the program wants to say how large its slots must be, the
// resources each of its shared slots needs (Flink's fine-grained resource
// management). It mirrors Flink's
// org.apache.flink.api.common.operators.SlotSharingGroup, and is made the
// same way, with a builder:
//
//	counting, err := streaming.NewSlotSharingGroupBuilder("counting").
//		SetCPUCores(0.25).
//		SetTaskHeapMemoryMB(64).
//		SetManagedMemoryMB(32).
//		Build()
//	...
//	counts.SetSlotSharingGroup(counting)
//
// A group with resources has CPU cores and task heap memory; task off-heap
// and managed memory are 0 unless set. A group with a name only has no
// resources (Flink's ResourceSpec.UNKNOWN), like a group set with
// SlotSharingGroup(name): it takes the resources another operator or
// RegisterSlotSharingGroup gave its name, or else its slots are requested
// with api.UnknownResourceProfile, and any slot will do.
//
// SlotSharingGroups are values and compare with ==. The zero value has no
// name; setting it on an operator is a program error.
type SlotSharingGroup struct {
	name string
	// The resources: all zero when the group has none; otherwise cpuCores
	// and taskHeapMemory are positive and the others not negative (the
	// builder makes sure).
	cpuCores          float64
	taskHeapMemory    configuration.MemorySize
	taskOffHeapMemory configuration.MemorySize
	managedMemory     configuration.MemorySize
}

// Name returns the group's name.
func (g SlotSharingGroup) Name() string { return g.name }

// ResourceProfile returns what each of the group's shared slots needs:
// api.UnknownResourceProfile for a group without resources, else its CPU
// cores and task heap, task off-heap and managed memory, and no network
// memory. Flink computes it as ResourceProfile.fromResourceSpec(spec,
// MemorySize.ZERO) from the group's ResourceSpec.
func (g SlotSharingGroup) ResourceProfile() api.ResourceProfile {
	if !g.hasResources() {
		return api.UnknownResourceProfile
	}
	return api.NewResourceProfile(g.cpuCores, g.taskHeapMemory, g.taskOffHeapMemory, g.managedMemory, 0)
}

// hasResources reports whether the program gave the group resources.
func (g SlotSharingGroup) hasResources() bool { return g.cpuCores > 0 }

// errEmptySlotSharingGroupName is wrapped when a slot sharing group has no
// name (Flink's checkNotNull(name), as Go strings are never null).
var errEmptySlotSharingGroupName = errors.New("the slot sharing group name must not be empty")

// SlotSharingGroupBuilder makes a SlotSharingGroup. It mirrors Flink's
// SlotSharingGroup.Builder: each setter checks its argument as Flink's
// does, and Build checks that the resources are complete. Flink throws
// IllegalArgumentException at the first bad argument; here the builder
// keeps the first mistake and Build returns it, so that setters chain.
type SlotSharingGroupBuilder struct {
	name string
	// The resources set so far; nil: not set (Flink's null).
	cpuCores          *float64
	taskHeapMemory    *configuration.MemorySize
	taskOffHeapMemory *configuration.MemorySize
	managedMemory     *configuration.MemorySize
	// err is the first illegal argument.
	err error
}

// NewSlotSharingGroupBuilder starts a slot sharing group named name
// (Flink: SlotSharingGroup.newBuilder(name)).
func NewSlotSharingGroupBuilder(name string) *SlotSharingGroupBuilder {
	return &SlotSharingGroupBuilder{name: name}
}

// SetCPUCores sets the CPU cores each shared slot needs, which must be
// positive (Flink: setCpuCores).
func (b *SlotSharingGroupBuilder) SetCPUCores(cpuCores float64) *SlotSharingGroupBuilder {
	switch {
	case !(cpuCores > 0): // NaN too
		b.fail(errors.New("The cpu cores should be positive."))
	case math.IsInf(cpuCores, 1):
		b.fail(errors.New("The cpu cores should be finite."))
	default:
		b.cpuCores = &cpuCores
	}
	return b
}

// SetTaskHeapMemory sets the task heap memory each shared slot needs,
// which must be positive (Flink: setTaskHeapMemory).
func (b *SlotSharingGroupBuilder) SetTaskHeapMemory(taskHeapMemory configuration.MemorySize) *SlotSharingGroupBuilder {
	if taskHeapMemory <= 0 {
		b.fail(errors.New("The task heap memory should be positive."))
		return b
	}
	b.taskHeapMemory = &taskHeapMemory
	return b
}

// SetTaskHeapMemoryMB is SetTaskHeapMemory in mebibytes (Flink:
// setTaskHeapMemoryMB).
func (b *SlotSharingGroupBuilder) SetTaskHeapMemoryMB(taskHeapMemoryMB int) *SlotSharingGroupBuilder {
	if taskHeapMemoryMB <= 0 {
		b.fail(errors.New("The task heap memory should be positive."))
		return b
	}
	return b.SetTaskHeapMemory(b.mebiBytes("task heap memory", taskHeapMemoryMB))
}

// SetTaskOffHeapMemory sets the task off-heap memory each shared slot
// needs, which must not be negative (Flink: setTaskOffHeapMemory).
func (b *SlotSharingGroupBuilder) SetTaskOffHeapMemory(taskOffHeapMemory configuration.MemorySize) *SlotSharingGroupBuilder {
	if taskOffHeapMemory < 0 {
		b.fail(errors.New("The task off-heap memory should not be negative."))
		return b
	}
	b.taskOffHeapMemory = &taskOffHeapMemory
	return b
}

// SetTaskOffHeapMemoryMB is SetTaskOffHeapMemory in mebibytes (Flink:
// setTaskOffHeapMemoryMB).
func (b *SlotSharingGroupBuilder) SetTaskOffHeapMemoryMB(taskOffHeapMemoryMB int) *SlotSharingGroupBuilder {
	if taskOffHeapMemoryMB < 0 {
		b.fail(errors.New("The task off-heap memory should not be negative."))
		return b
	}
	return b.SetTaskOffHeapMemory(b.mebiBytes("task off-heap memory", taskOffHeapMemoryMB))
}

// SetManagedMemory sets the managed memory each shared slot needs, which
// must not be negative (Flink: setManagedMemory).
func (b *SlotSharingGroupBuilder) SetManagedMemory(managedMemory configuration.MemorySize) *SlotSharingGroupBuilder {
	if managedMemory < 0 {
		b.fail(errors.New("The managed memory should not be negative."))
		return b
	}
	b.managedMemory = &managedMemory
	return b
}

// SetManagedMemoryMB is SetManagedMemory in mebibytes (Flink:
// setManagedMemoryMB).
func (b *SlotSharingGroupBuilder) SetManagedMemoryMB(managedMemoryMB int) *SlotSharingGroupBuilder {
	if managedMemoryMB < 0 {
		b.fail(errors.New("The managed memory should not be negative."))
		return b
	}
	return b.SetManagedMemory(b.mebiBytes("managed memory", managedMemoryMB))
}

// Build returns the group, or the first mistake made building it. As
// Flink's build does, it accepts a name alone (a group without resources),
// or CPU cores and task heap memory together (task off-heap and managed
// memory default to 0), and nothing in between.
func (b *SlotSharingGroupBuilder) Build() (SlotSharingGroup, error) {
	if b.err != nil {
		return SlotSharingGroup{}, b.err
	}
	if b.name == "" {
		return SlotSharingGroup{}, errEmptySlotSharingGroupName
	}
	group := SlotSharingGroup{name: b.name}
	switch {
	case b.cpuCores != nil && b.taskHeapMemory != nil:
		group.cpuCores = *b.cpuCores
		group.taskHeapMemory = *b.taskHeapMemory
		if b.taskOffHeapMemory != nil {
			group.taskOffHeapMemory = *b.taskOffHeapMemory
		}
		if b.managedMemory != nil {
			group.managedMemory = *b.managedMemory
		}
	case b.cpuCores != nil || b.taskHeapMemory != nil || b.taskOffHeapMemory != nil || b.managedMemory != nil:
		return SlotSharingGroup{}, errors.New("The cpu cores and task heap memory are required when specifying the resource of a slot sharing group. You need to explicitly configure them with positive value.")
	}
	return group, nil
}

// mebiBytes converts a setter's mebibytes, failing when they do not fit a
// MemorySize (Flink's setters take an int, which always fits).
func (b *SlotSharingGroupBuilder) mebiBytes(what string, mebiBytes int) configuration.MemorySize {
	if int64(mebiBytes) > configuration.MaxMemorySize.MebiBytes() {
		b.fail(fmt.Errorf("The %s of %d MB does not fit in a MemorySize.", what, mebiBytes))
		return 0
	}
	return configuration.OfMebiBytes(int64(mebiBytes))
}

// fail keeps the builder's first mistake.
func (b *SlotSharingGroupBuilder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// RegisterSlotSharingGroup gives the slot sharing group of slotSharingGroup's
// name its resources, for every operator in that group, even those that set
// the group by name only (Flink:
// StreamExecutionEnvironment#registerSlotSharingGroup). A group without
// resources changes nothing; registering a name again replaces its
// resources. An operator that sets other resources for the name makes the
// program fail ("The slot sharing group … has been configured with two
// different resource spec.").
func (env *StreamExecutionEnvironment) RegisterSlotSharingGroup(slotSharingGroup SlotSharingGroup) *StreamExecutionEnvironment {
	if slotSharingGroup.name == "" {
		env.fail(fmt.Errorf("RegisterSlotSharingGroup: %w", errEmptySlotSharingGroupName))
		return env
	}
	if !slotSharingGroup.hasResources() {
		return env
	}
	if env.slotSharingGroups == nil {
		env.slotSharingGroups = make(map[string]SlotSharingGroup)
	}
	env.slotSharingGroups[slotSharingGroup.name] = slotSharingGroup
	return env
}

// SlotSharingGroupResource returns the resources the program gave the slot
// sharing group name, as the profile its slots are requested with, and
// false when it gave none (Flink: StreamGraph#getSlotSharingGroupResource).
func (g *StreamGraph) SlotSharingGroupResource(name string) (api.ResourceProfile, bool) {
	group, ok := g.slotSharingGroups[name]
	if !ok {
		return api.UnknownResourceProfile, false
	}
	return group.ResourceProfile(), true
}

// setSlotSharingAndCoLocation is step 4 of CreateJobGraph. It mirrors
// StreamingJobGraphGenerator#setSlotSharingAndCoLocation, and runs when
// every JobVertex has the slot sharing group of its chain's head:
//
//  1. setSlotSharing: each slot sharing group a vertex is in gets the
//     resources the program gave it, in the JobGraph's
//     SlotSharingGroupResources; a group without stays UNKNOWN.
//  2. setCoLocation: vertices whose head operator has a co-location key
//     are co-located under that key, and all must be in one slot sharing
//     group.
func (gen *jobGraphGenerator) setSlotSharingAndCoLocation(jobGraph *jobgraph.JobGraph) error {
	gen.setSlotSharing(jobGraph)
	return gen.setCoLocation()
}

// setSlotSharing copies the resources of the groups the vertices use into
// the JobGraph. Flink sets them on each group's SlotSharingGroup object,
// as ResourceProfile.fromResourceSpec(spec, MemorySize.ZERO); groups
// nobody uses are dropped, since no vertex holds their object.
func (gen *jobGraphGenerator) setSlotSharing(jobGraph *jobgraph.JobGraph) {
	for _, name := range jobGraph.SlotSharingGroups() {
		profile, ok := gen.streamGraph.SlotSharingGroupResource(name)
		if !ok {
			continue
		}
		if jobGraph.SlotSharingGroupResources == nil {
			jobGraph.SlotSharingGroupResources = make(map[string]api.ResourceProfile)
		}
		jobGraph.SlotSharingGroupResources[name] = profile
	}
}

// setCoLocation mirrors StreamingJobGraphGenerator#setCoLocation: it goes
// through the chains in the order they were made, and puts each vertex
// whose head has a co-location key in the co-location group of that key.
// Flink makes a CoLocationGroupImpl per key; here the vertex carries the
// key, and the first vertex of a key fixes the slot sharing group all the
// others must be in. The first check never fails here, as every StreamNode
// has a slot sharing group; it is Flink's all the same.
func (gen *jobGraphGenerator) setCoLocation() error {
	type firstOfKey struct {
		head             *StreamNode
		slotSharingGroup string
	}
	firstOf := make(map[string]firstOfKey)
	for _, chain := range gen.chains {
		key, vertex := chain.head.CoLocationGroup, chain.vertex
		if key == "" {
			continue
		}
		if vertex.SlotSharingGroup == "" {
			return fmt.Errorf("%v in co-location group %q: Cannot use a co-location constraint without a slot sharing group", chain.head, key)
		}
		first, seen := firstOf[key]
		if !seen {
			firstOf[key] = firstOfKey{head: chain.head, slotSharingGroup: vertex.SlotSharingGroup}
		} else if first.slotSharingGroup != vertex.SlotSharingGroup {
			return fmt.Errorf("co-location group %q: Cannot co-locate operators from different slot sharing groups: %v is in %q, %v in %q",
				key, first.head, first.slotSharingGroup, chain.head, vertex.SlotSharingGroup)
		}
		vertex.CoLocationGroup = key
	}
	return nil
}
