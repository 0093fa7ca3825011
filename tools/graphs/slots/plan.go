package slots

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/resourcemanager/slotmanager"
	"flinklab/runtime/scheduler"
	"flinklab/runtime/taskexecutor/taskmanagerrunner"
)

// Cluster is the standalone cluster a job is planned for: TaskManagers
// TaskManagers, all started with Configuration.
type Cluster struct {
	// TaskManagers is how many TaskManagers have registered; at least 1.
	TaskManagers int
	// Configuration holds each TaskManager's options under Flink's keys,
	// as `-D key=value` gives them: taskmanager.numberOfTaskSlots (1 if
	// not set), taskmanager.memory.process.size (1728m if no memory is
	// configured), taskmanager.cpu.cores (the number of slots if not
	// set), and the other taskmanager.memory.* keys.
	Configuration map[string]string
}

// Describe describes a cluster of taskManagers TaskManagers with slots
// slots each, as the titles do: "1 TaskManager × 2 slots".
func Describe(taskManagers, slots int) string {
	return count(taskManagers, "TaskManager", "TaskManagers") + " × " + count(slots, "slot", "slots")
}

// count prints n things: "1 slot", "2 slots".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Plan is where a job's subtasks run on a Cluster, as PlanJob works it out
// (see the package doc).
type Plan struct {
	// JobName is the JobGraph's name.
	JobName string
	Cluster Cluster
	// NumberOfSlots is taskmanager.numberOfTaskSlots of every TaskManager.
	NumberOfSlots int
	// Total is what each TaskManager's slots share, and DefaultSlot one
	// slot's share: Total divided by NumberOfSlots.
	Total, DefaultSlot api.ResourceProfile
	// Groups names the job's slot sharing groups, in the order the
	// JobGraph first uses them; a vertex in no group is alone in a group
	// of its own, named "no group (<vertex name>)".
	Groups []string
	// SharedSlots are the shared slots the scheduler requests, in the
	// order it requests them.
	SharedSlots []*SharedSlot
	// Requirements is what the JobMaster declares to the ResourceManager:
	// one requirement per profile, in the order the profiles first occur
	// among SharedSlots.
	Requirements []gateway.ResourceRequirement
	// TaskManagers are tm-1, tm-2, … in registration order, with the
	// slots cut out of each.
	TaskManagers []*TaskManager
	// Waiting lists the requirements no TaskManager has the resources
	// for, with the shared slots that wait for them.
	Waiting []Waiting
}

// SharedSlot is one slot the scheduler requests: the subtasks that share
// it and the profile it asks for.
type SharedSlot struct {
	// Group is the slot sharing group, as Plan.Groups names it.
	Group string
	// Index numbers the group's shared slots from 0.
	Index    int
	Subtasks []Subtask
	// Profile is what the slot is requested with: the slot sharing
	// group's resources, or UNKNOWN for any slot.
	Profile api.ResourceProfile
}

// Name is the group and the shared slot's number in it: "default #1".
func (s *SharedSlot) Name() string { return fmt.Sprintf("%s #%d", s.Group, s.Index+1) }

// Subtask is one subtask, named by its JobVertex.
type Subtask struct {
	Vertex      string // the JobVertex's name, "Source: lines -> tokenize"
	Index       int    // from 0
	Parallelism int
}

// String is the subtask as Flink names it: "tokenize (1/2)".
func (s Subtask) String() string {
	return fmt.Sprintf("%s (%d/%d)", s.Vertex, s.Index+1, s.Parallelism)
}

// TaskManager is one TaskManager of the plan.
type TaskManager struct {
	Name string // tm-1, tm-2, …
	// Total and DefaultSlot are the Plan's; Free is what is left of Total
	// once every slot in Slots is cut out of it.
	Total, DefaultSlot, Free api.ResourceProfile
	Slots                    []*Slot
}

// RoomForDefaultSlots returns how many more slots of the default profile
// Free holds.
func (tm *TaskManager) RoomForDefaultSlots() int {
	if tm.DefaultSlot.IsUnknown() || tm.DefaultSlot == api.ZeroResourceProfile {
		return 0 // nothing to count in: a TaskManager always has a specific, non-zero one
	}
	n := 0
	for free := tm.Free; free.AllFieldsNoLessThan(tm.DefaultSlot); free = free.Subtract(tm.DefaultSlot) {
		n++
	}
	return n
}

// Slot is one slot the ResourceManager cuts out of a TaskManager.
type Slot struct {
	// Number counts the TaskManager's slots from 1, in the order they are
	// cut.
	Number int
	// Profile is the slot's size: the requirement's profile, or the
	// TaskManager's default slot for a requirement of UNKNOWN.
	Profile api.ResourceProfile
	// Shared is the shared slot the plan puts in it.
	Shared *SharedSlot
}

// Waiting is a requirement, or what is left of one, that no TaskManager
// has the resources for. The job waits: until a TaskManager with room
// registers, or, once the ResourceManager's start-up period is over,
// until its slot requests fail with NoResourceAvailableException.
type Waiting struct {
	// Profile is the requirement's profile.
	Profile api.ResourceProfile
	// FitsSomewhere says whether an empty TaskManager could hold a slot
	// of it: if so, the other slots took the room; if not, no TaskManager
	// of this size ever can.
	FitsSomewhere bool
	// Shared are the shared slots that wait, NumberOfRequiredSlots of them.
	Shared []*SharedSlot
}

// Reason says why the slots wait, in the words the diagram and the text
// use: "no TaskManager can fit ResourceProfile{…}", or "no TaskManager has
// room left for ResourceProfile{…}"; for UNKNOWN, which takes a slot of
// the default profile, ", a default slot" follows.
func (w Waiting) Reason() string {
	what := w.Profile.String()
	if w.Profile.IsUnknown() {
		what += ", a default slot"
	}
	if w.FitsSomewhere {
		return "no TaskManager has room left for " + what
	}
	return "no TaskManager can fit " + what
}

// misspeltSlotsKey is a key people write for taskmanager.numberOfTaskSlots;
// the TaskManager would silently ignore it and have one slot.
const misspeltSlotsKey = "taskmanager.numberOfSlots"

// PlanJob works out where the subtasks of jobGraph run on cluster, step by
// step as the package doc describes. It fails if the JobGraph is invalid,
// the cluster has no TaskManager, or their configuration cannot work
// (Flink's IllegalConfigurationException, from
// taskmanagerrunner.ProcessSpec).
func PlanJob(jobGraph *jobgraph.JobGraph, cluster Cluster) (*Plan, error) {
	if cluster.TaskManagers < 1 {
		return nil, fmt.Errorf("a cluster has at least one TaskManager, got %d", cluster.TaskManagers)
	}
	if _, ok := cluster.Configuration[misspeltSlotsKey]; ok {
		return nil, fmt.Errorf("unknown key %s: Flink's is %s", misspeltSlotsKey, configuration.NumTaskSlots.Key())
	}
	cluster.Configuration = maps.Clone(cluster.Configuration)

	// 1. Each TaskManager's total and default slot, as it computes them
	// before it starts.
	spec, err := taskmanagerrunner.ProcessSpec(cluster.Configuration)
	if err != nil {
		return nil, err
	}
	total := clusterframework.TotalResourceProfile(spec)
	defaultSlot := clusterframework.DefaultSlotResourceProfile(total, spec.NumSlots)

	// 2. Step m4: the shared slots the scheduler requests.
	graph, err := executiongraph.BuildGraph(jobGraph)
	if err != nil {
		return nil, err
	}
	plan := &Plan{
		JobName: jobGraph.Name, Cluster: cluster, NumberOfSlots: spec.NumSlots,
		Total: total, DefaultSlot: defaultSlot,
	}
	groupName := plan.nameGroups(jobGraph)
	for _, s := range scheduler.SharedSlots(jobGraph, graph) {
		shared := &SharedSlot{Group: groupName(s.SlotSharingGroup), Index: s.Index, Profile: s.ResourceProfile}
		for _, id := range s.Vertices {
			v := jobGraph.Vertex(id.JobVertexID)
			shared.Subtasks = append(shared.Subtasks, Subtask{Vertex: v.Name, Index: id.SubtaskIndex, Parallelism: v.Parallelism})
		}
		plan.SharedSlots = append(plan.SharedSlots, shared)
	}

	// 3. Step m6: one requirement per profile.
	profiles := make([]api.ResourceProfile, len(plan.SharedSlots))
	for i, shared := range plan.SharedSlots {
		profiles[i] = shared.Profile
	}
	plan.Requirements = slotpool.RequirementsOf(profiles)

	// 4. Step m7: the ResourceManager's decisions.
	registered := make([]slotmanager.RegisteredTaskManager, cluster.TaskManagers)
	byInstance := make(map[api.InstanceID]*TaskManager, cluster.TaskManagers)
	for i := range registered {
		registered[i] = slotmanager.RegisteredTaskManager{
			InstanceID: api.NewInstanceID(), DefaultSlotProfile: defaultSlot, Total: total, Available: total,
		}
		tm := &TaskManager{Name: "tm-" + strconv.Itoa(i+1), Total: total, DefaultSlot: defaultSlot, Free: total}
		plan.TaskManagers = append(plan.TaskManagers, tm)
		byInstance[registered[i].InstanceID] = tm
	}
	result := slotmanager.DefaultResourceAllocationStrategy{}.TryFulfillRequirements(
		[]slotmanager.JobRequirements{{JobID: jobGraph.JobID, Requirements: plan.Requirements}}, registered)
	type cut struct {
		tm   *TaskManager
		slot *Slot
	}
	var cuts []cut // in the order the strategy decided them
	for _, a := range result.Allocations {
		tm := byInstance[a.InstanceID]
		slot := &Slot{Number: len(tm.Slots) + 1, Profile: a.ResourceProfile}
		tm.Slots = append(tm.Slots, slot)
		tm.Free = tm.Free.Subtract(a.ResourceProfile)
		cuts = append(cuts, cut{tm, slot})
	}

	// 5. Step m8, as planned: each shared slot into the first slot cut for
	// its profile, specific profiles first as the strategy served them.
	var unplaced []*SharedSlot
	for _, shared := range specificProfilesFirst(plan.SharedSlots) {
		placed := false
		for _, c := range cuts {
			if c.slot.Shared == nil && c.slot.Profile == slotmanager.EffectiveResourceProfile(shared.Profile, c.tm.DefaultSlot) {
				c.slot.Shared, placed = shared, true
				break
			}
		}
		if !placed {
			unplaced = append(unplaced, shared)
		}
	}
	plan.Waiting, err = waitingOf(result.Unfulfilled, unplaced, registered)
	if err != nil {
		return nil, err
	}
	return plan, nil
}

// nameGroups fills plan.Groups and returns how to name the group of a
// scheduler.SharedSlot: by its name, or, for a vertex in no group (which
// the scheduler names after its random JobVertexID), "no group (<vertex
// name>)".
func (plan *Plan) nameGroups(jobGraph *jobgraph.JobGraph) func(string) string {
	names := make(map[string]string)
	for _, group := range jobGraph.SlotSharingGroups() {
		names[group] = group
		plan.Groups = append(plan.Groups, group)
	}
	for _, v := range jobGraph.Vertices() {
		if v.SlotSharingGroup == "" {
			name := "no group (" + v.Name + ")"
			names["vertex-"+v.ID.String()] = name
			plan.Groups = append(plan.Groups, name)
		}
	}
	return func(group string) string {
		if name, ok := names[group]; ok {
			return name
		}
		return group
	}
}

// specificProfilesFirst returns shared with the shared slots of
// UNKNOWN moved to the end, keeping the order otherwise.
func specificProfilesFirst(shared []*SharedSlot) []*SharedSlot {
	var specific, unknown []*SharedSlot
	for _, s := range shared {
		if s.Profile.IsUnknown() {
			unknown = append(unknown, s)
		} else {
			specific = append(specific, s)
		}
	}
	return append(specific, unknown...)
}

// errPlanDisagrees is a broken invariant: the strategy's unfulfilled
// requirements are not the shared slots left without a slot.
var errPlanDisagrees = errors.New("slots: the shared slots without a slot do not match the unfulfilled requirements")

// waitingOf pairs the strategy's unfulfilled requirements with the shared
// slots that found no slot, and says whether an empty TaskManager could
// fit each.
func waitingOf(unfulfilled []slotmanager.JobRequirements, unplaced []*SharedSlot, taskManagers []slotmanager.RegisteredTaskManager) ([]Waiting, error) {
	var waiting []Waiting
	for _, job := range unfulfilled {
		for _, req := range job.Requirements {
			w := Waiting{Profile: req.ResourceProfile}
			for _, tm := range taskManagers {
				if tm.Total.AllFieldsNoLessThan(slotmanager.EffectiveResourceProfile(req.ResourceProfile, tm.DefaultSlotProfile)) {
					w.FitsSomewhere = true
				}
			}
			for _, s := range unplaced {
				if s.Profile == req.ResourceProfile {
					w.Shared = append(w.Shared, s)
				}
			}
			if len(w.Shared) != req.NumberOfRequiredSlots {
				return nil, fmt.Errorf("%w: %d waiting for %v", errPlanDisagrees, len(w.Shared), req)
			}
			waiting = append(waiting, w)
		}
	}
	n := 0
	for _, w := range waiting {
		n += len(w.Shared)
	}
	if n != len(unplaced) {
		return nil, fmt.Errorf("%w: %d without a slot, %d waiting", errPlanDisagrees, len(unplaced), n)
	}
	return waiting, nil
}

// Short is a profile in a few words for a diagram's box: its CPU cores,
// task heap and managed memory, "cpu 1, heap 192.000mb, managed
// 256.000mb"; "any slot (UNKNOWN)" for UNKNOWN. The full profile is its
// String.
func Short(p api.ResourceProfile) string {
	if p.IsUnknown() {
		return "any slot (UNKNOWN)"
	}
	return fmt.Sprintf("cpu %s, heap %s, managed %s",
		strconv.FormatFloat(p.CPUCores, 'f', -1, 64), shortSize(p.TaskHeapMemory), shortSize(p.ManagedMemory))
}

// shortSize is a size as Flink's logs print it, without the exact bytes:
// "192.000mb", "0 bytes".
func shortSize(m configuration.MemorySize) string {
	s := m.ToHumanReadableString()
	if i := strings.Index(s, " ("); i >= 0 {
		return s[:i]
	}
	return s
}
