package jobgraph

import (
	"maps"
	"slices"

	"flinklab/runtime/api"
)

// SlotSharingGroupResourceProfile returns the resources of the slot sharing
// group named name: the profile each of the group's shared slots is
// requested with (Flink: SlotSharingGroup#getResourceProfile). A group the
// program gave no resources, and the empty name (a vertex alone in a group
// of its own), have api.UnknownResourceProfile: any slot will do.
func (g *JobGraph) SlotSharingGroupResourceProfile(name string) api.ResourceProfile {
	if name == "" {
		return api.UnknownResourceProfile
	}
	return g.SlotSharingGroupResources[name] // the zero value is UNKNOWN
}

// validateSlotSharing checks the co-location groups as Flink's
// StreamingJobGraphGenerator#setCoLocation does when it makes them, and the
// resources of the slot sharing groups as Flink's SlotSharingGroup.Builder
// does when a program sets them:
//
//   - a vertex in a co-location group is in a slot sharing group ("Cannot
//     use a co-location constraint without a slot sharing group"), since
//     subtask i of every vertex of the co-location group must share one slot;
//   - all vertices of a co-location group are in the same slot sharing group
//     ("Cannot co-locate operators from different slot sharing groups");
//   - resources belong to a group some vertex is in;
//   - resources are UNKNOWN, or have positive CPU cores and task heap memory
//     and no negative amount.
//
// In Flink the first two throw IllegalStateException in the client; here a
// decoded graph may break them too, so the Dispatcher checks them again.
func (g *JobGraph) validateSlotSharing() error {
	firstOf := make(map[string]*JobVertex) // co-location group → its first vertex
	for _, v := range g.vertices {
		if v.CoLocationGroup == "" {
			continue
		}
		if v.SlotSharingGroup == "" {
			return invalid("vertex %s in co-location group %q: Cannot use a co-location constraint without a slot sharing group", v, v.CoLocationGroup)
		}
		first, seen := firstOf[v.CoLocationGroup]
		if !seen {
			firstOf[v.CoLocationGroup] = v
			continue
		}
		if first.SlotSharingGroup != v.SlotSharingGroup {
			return invalid("co-location group %q: Cannot co-locate operators from different slot sharing groups: vertex %s is in %q, vertex %s in %q",
				v.CoLocationGroup, first, first.SlotSharingGroup, v, v.SlotSharingGroup)
		}
	}

	used := make(map[string]bool)
	for _, name := range g.SlotSharingGroups() {
		used[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(g.SlotSharingGroupResources)) {
		profile := g.SlotSharingGroupResources[name]
		if !used[name] {
			return invalid("slot sharing group %q has resources %v, but no vertex is in it", name, profile)
		}
		if problem := resourceProblem(profile); problem != "" {
			return invalid("slot sharing group %q has resources %v: %s", name, profile, problem)
		}
	}
	return nil
}

// resourceProblem says what is wrong with the resources of a slot sharing
// group, in the words of Flink's SlotSharingGroup.Builder, or returns "".
// UNKNOWN is fine: the program gave none.
func resourceProblem(p api.ResourceProfile) string {
	switch {
	case p.IsUnknown():
		return ""
	case !(p.CPUCores > 0):
		return "The cpu cores should be positive."
	case p.TaskHeapMemory <= 0:
		return "The task heap memory should be positive."
	case p.TaskOffHeapMemory < 0:
		return "The task off-heap memory should not be negative."
	case p.ManagedMemory < 0:
		return "The managed memory should not be negative."
	case p.NetworkMemory < 0:
		return "The network memory should not be negative."
	}
	return ""
}
