package taskexecutor

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"flinklab/runtime/api"
)

// partitionTracker remembers, per job, the BLOCKING partitions the
// TaskExecutor's tasks produce, and releases them when asked. It mirrors
// Flink's TaskExecutorPartitionTrackerImpl, without cluster partitions.
//
// A pipelined partition needs no tracking: it releases itself once its
// consumers have read it. A blocking one outlives its producer, files and
// all, because it may be read any number of times; only the JobMaster
// knows when no consumer needs it any more. So the TaskExecutor:
//
//	submitTask                     starts tracking the task's blocking partitions
//	the task ends, not FINISHED    stops tracking them (the task released them itself)
//	ReleasePartitions              stops tracking and releases the given ones
//	the job's JobManager connection
//	is closed, or the TaskExecutor
//	stops                          stops tracking and releases all of the job's
//
// A job whose partitions are tracked stays in the TaskExecutor's job table
// (and its JobManager connection open) after its last slot is freed, so
// that its partitions can still be read and released (Flink's
// closeJobManagerConnectionIfNoAllocatedResources).
//
// It is a plain data structure, used on the TaskExecutor's main thread
// only.
type partitionTracker struct {
	logger *slog.Logger
	// releasePartitionsLocally releases partitions in the data plane: the
	// ShuffleEnvironment's ReleasePartitionsLocally.
	releasePartitionsLocally func(ids ...api.ResultPartitionID)
	partitionsPerJob         map[api.JobID]map[api.ResultPartitionID]struct{}
}

func newPartitionTracker(releasePartitionsLocally func(ids ...api.ResultPartitionID), logger *slog.Logger) *partitionTracker {
	return &partitionTracker{
		logger:                   logger,
		releasePartitionsLocally: releasePartitionsLocally,
		partitionsPerJob:         make(map[api.JobID]map[api.ResultPartitionID]struct{}),
	}
}

// startTrackingPartition remembers a blocking partition a task of the job
// produces.
func (t *partitionTracker) startTrackingPartition(jobID api.JobID, id api.ResultPartitionID) {
	partitions := t.partitionsPerJob[jobID]
	if partitions == nil {
		partitions = make(map[api.ResultPartitionID]struct{})
		t.partitionsPerJob[jobID] = partitions
	}
	partitions[id] = struct{}{}
}

// stopTrackingPartitions forgets partitions without releasing them: their
// producer did not finish, and released them itself. It returns those of
// ids that were tracked.
func (t *partitionTracker) stopTrackingPartitions(jobID api.JobID, ids []api.ResultPartitionID) []api.ResultPartitionID {
	partitions := t.partitionsPerJob[jobID]
	var stopped []api.ResultPartitionID
	for _, id := range ids {
		if _, ok := partitions[id]; ok {
			delete(partitions, id)
			stopped = append(stopped, id)
		}
	}
	if len(partitions) == 0 {
		delete(t.partitionsPerJob, jobID)
	}
	return stopped
}

// stopTrackingAndReleaseJobPartitions releases those of ids that the
// job's tasks produced here and forgets them; others are ignored. Flink:
// TaskExecutorPartitionTrackerImpl.stopTrackingAndReleaseJobPartitions.
func (t *partitionTracker) stopTrackingAndReleaseJobPartitions(jobID api.JobID, ids []api.ResultPartitionID) {
	t.logger.Debug(fmt.Sprintf("Releasing Job Partitions %s", partitionList(ids)))
	released := t.stopTrackingPartitions(jobID, ids)
	if len(released) > 0 {
		t.releasePartitionsLocally(released...)
	}
}

// stopTrackingAndReleaseJobPartitionsFor releases every partition of the
// job and forgets them. Flink:
// TaskExecutorPartitionTrackerImpl.stopTrackingAndReleaseJobPartitionsFor.
func (t *partitionTracker) stopTrackingAndReleaseJobPartitionsFor(jobID api.JobID) {
	released := t.partitionsFor(jobID)
	delete(t.partitionsPerJob, jobID)
	if len(released) == 0 {
		return
	}
	t.logger.Debug(fmt.Sprintf("Releasing Job Partitions %s for job %s", partitionList(released), jobID))
	t.releasePartitionsLocally(released...)
}

// stopTrackingAndReleaseAllPartitions releases the partitions of every
// job: the TaskExecutor is stopping.
func (t *partitionTracker) stopTrackingAndReleaseAllPartitions() {
	byText := func(a, b api.JobID) int { return strings.Compare(a.String(), b.String()) }
	for _, jobID := range slices.SortedFunc(maps.Keys(t.partitionsPerJob), byText) {
		t.stopTrackingAndReleaseJobPartitionsFor(jobID)
	}
}

// isTrackingPartitionsFor reports whether a partition of the job is
// tracked. Flink: AbstractPartitionTracker.isTrackingPartitionsFor.
func (t *partitionTracker) isTrackingPartitionsFor(jobID api.JobID) bool {
	return len(t.partitionsPerJob[jobID]) > 0
}

// partitionsFor returns the job's tracked partitions, in the order of
// their IDs' text, so that logs and tests see them the same way each time.
func (t *partitionTracker) partitionsFor(jobID api.JobID) []api.ResultPartitionID {
	ids := slices.Collect(maps.Keys(t.partitionsPerJob[jobID]))
	slices.SortFunc(ids, func(a, b api.ResultPartitionID) int { return strings.Compare(a.String(), b.String()) })
	return ids
}

// partitionList prints partition IDs as Flink logs a collection:
// "[a, b]".
func partitionList(ids []api.ResultPartitionID) string {
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = id.String()
	}
	return "[" + strings.Join(texts, ", ") + "]"
}
