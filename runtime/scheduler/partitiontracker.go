package scheduler

import (
	"cmp"
	"slices"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
)

// partitionTracker knows the BLOCKING partitions that finished producers
// hold on their TaskExecutors (Flink's JobMasterPartitionTracker), and
// asks the TaskExecutors to release them when nobody will read them any
// more.
//
// A partition it tracks can be read again, so a consumer that restarts
// needs no new producer; one it does not (never finished, released, or
// lost with its TaskExecutor) must be produced again. That is the region
// failover's ResultPartitionAvailabilityChecker.
type partitionTracker struct {
	graph   *executiongraph.ExecutionGraph
	tracked map[api.IntermediateResultPartitionID]trackedPartition
	// release asks a TaskExecutor to release partitions (its gateway's
	// ReleasePartitions); the scheduler does not wait for the answer.
	release func(api.ResourceID, []api.ResultPartitionID)
}

// trackedPartition is where a partition lives: the TaskExecutor, and the
// partition's ID there (which names the attempt that wrote it).
type trackedPartition struct {
	taskManager api.ResourceID
	id          api.ResultPartitionID
}

func newPartitionTracker(graph *executiongraph.ExecutionGraph, release func(api.ResourceID, []api.ResultPartitionID)) *partitionTracker {
	return &partitionTracker{graph: graph, tracked: make(map[api.IntermediateResultPartitionID]trackedPartition), release: release}
}

// startTrackingPartitionsOf tracks the BLOCKING partitions of an execution
// that finished (Flink: startTrackingPartition, for the partitions the
// scheduler releases, not their consumption).
func (t *partitionTracker) startTrackingPartitionsOf(e *executiongraph.Execution) {
	slot, ok := e.AssignedSlot()
	if !ok {
		return
	}
	for _, p := range e.Vertex().ProducedPartitions() {
		if p.IsConsumable() {
			t.tracked[p.ID()] = trackedPartition{taskManager: slot.TaskManagerLocation.ResourceID, id: resultPartitionID(p)}
		}
	}
}

// stopTrackingAndReleasePartitions releases the given partitions on their
// TaskExecutors and forgets them (Flink:
// stopTrackingAndReleasePartitions): a consumer group has been read by
// all its consumers, a producer restarts and will write them anew, or the
// job is over. Partitions it does not track are skipped.
func (t *partitionTracker) stopTrackingAndReleasePartitions(ids []api.IntermediateResultPartitionID) {
	byTaskManager := make(map[api.ResourceID][]api.ResultPartitionID)
	var order []api.ResourceID
	for _, id := range ids {
		p, ok := t.tracked[id]
		if !ok {
			continue
		}
		delete(t.tracked, id)
		if _, seen := byTaskManager[p.taskManager]; !seen {
			order = append(order, p.taskManager)
		}
		byTaskManager[p.taskManager] = append(byTaskManager[p.taskManager], p.id)
	}
	for _, taskManager := range order {
		t.release(taskManager, byTaskManager[taskManager])
	}
}

// stopTrackingAndReleaseAllPartitions releases every partition, because
// the job has reached a terminal state.
func (t *partitionTracker) stopTrackingAndReleaseAllPartitions() {
	ids := make([]api.IntermediateResultPartitionID, 0, len(t.tracked))
	for id := range t.tracked {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b api.IntermediateResultPartitionID) int {
		return cmp.Or(strings.Compare(a.IntermediateDataSetID.String(), b.IntermediateDataSetID.String()),
			cmp.Compare(a.PartitionNum, b.PartitionNum))
	})
	t.stopTrackingAndReleasePartitions(ids)
}

// stopTrackingPartitionsFor forgets the partitions of a TaskExecutor that
// is gone (Flink: stopTrackingPartitionsFor); there is nobody to ask to
// release them.
func (t *partitionTracker) stopTrackingPartitionsFor(taskManager api.ResourceID) {
	for id, p := range t.tracked {
		if p.taskManager == taskManager {
			delete(t.tracked, id)
		}
	}
}

// isAvailable reports whether a partition can be read again.
func (t *partitionTracker) isAvailable(id api.IntermediateResultPartitionID) bool {
	_, ok := t.tracked[id]
	return ok
}

// partitionIDsOf lists the partitions a subtask produces.
func partitionIDsOf(ev *executiongraph.ExecutionVertex) []api.IntermediateResultPartitionID {
	var ids []api.IntermediateResultPartitionID
	for _, p := range ev.ProducedPartitions() {
		ids = append(ids, p.ID())
	}
	return ids
}
