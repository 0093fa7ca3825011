package checkpoint

import (
	"slices"

	"flinklab/runtime/api"
)

// DefaultHistorySize is web.checkpoints.history: how many recent
// checkpoints the statistics show.
const DefaultHistorySize = 10

// CheckpointStatsStatus is where one checkpoint stands in the statistics
// (Flink's CheckpointStatsStatus).
type CheckpointStatsStatus string

const (
	StatusInProgress CheckpointStatsStatus = "IN_PROGRESS"
	StatusCompleted  CheckpointStatsStatus = "COMPLETED"
	StatusFailed     CheckpointStatsStatus = "FAILED"
)

// checkpointStats are one checkpoint's statistics, updated in place as it
// goes from pending to completed or failed (Flink's PendingCheckpointStats,
// CompletedCheckpointStats and FailedCheckpointStats in one).
type checkpointStats struct {
	id                 int64
	status             CheckpointStatsStatus
	props              CheckpointProperties
	triggerTimestamp   int64
	tasks              map[api.JobVertexID]*taskStats
	latestAckTimestamp int64 // -1 until the first acknowledgement
	stateSize          int64
	processedData      int64
	externalPath       string
	discarded          bool
	failureTimestamp   int64
	failureMessage     string
}

// taskStats are one JobVertex's share of a checkpoint's statistics.
type taskStats struct {
	numSubtasks, numAcknowledged int
	latestAckTimestamp           int64
	stateSize, processedData     int64
}

// reportSubtaskStats adds one subtask's acknowledgement. A nil
// checkpointStats records nothing.
func (s *checkpointStats) reportSubtaskStats(vertex api.JobVertexID, ackTimestamp, stateSize int64, metrics CheckpointMetrics) {
	if s == nil {
		return
	}
	t := s.tasks[vertex]
	if t == nil {
		return
	}
	t.numAcknowledged++
	t.latestAckTimestamp = max(t.latestAckTimestamp, ackTimestamp)
	t.stateSize += stateSize
	t.processedData += metrics.BytesProcessedDuringAlignment
	s.latestAckTimestamp = max(s.latestAckTimestamp, ackTimestamp)
	s.stateSize += stateSize
	s.processedData += metrics.BytesProcessedDuringAlignment
}

func (s *checkpointStats) numSubtasks() (n, acknowledged int) {
	for _, t := range s.tasks {
		n, acknowledged = n+t.numSubtasks, acknowledged+t.numAcknowledged
	}
	return n, acknowledged
}

// endToEndDuration is how long the checkpoint took, or has taken so far:
// to its last acknowledgement, or to its failure.
func (s *checkpointStats) endToEndDuration() int64 {
	if s.status == StatusFailed {
		return max(0, s.failureTimestamp-s.triggerTimestamp)
	}
	return max(0, s.latestAckTimestamp-s.triggerTimestamp)
}

// CheckpointStatsTracker keeps the statistics of a job's checkpoints for
// the REST API (Flink's CheckpointStatsTracker with its
// CheckpointStatsCounts, CheckpointStatsHistory and
// CompletedCheckpointStatsSummary).
type CheckpointStatsTracker struct {
	historySize int
	counts      CheckpointStatsCounts
	history     []*checkpointStats // newest first
	latest      struct{ completed, savepoint, failed *checkpointStats }
	restored    *RestoredCheckpointStatistics
	// completed checkpoints' samples, for the summary
	stateSizes, durations, processedData []int64
}

// NewCheckpointStatsTracker returns a tracker that shows the historySize
// most recent checkpoints.
func NewCheckpointStatsTracker(historySize int) *CheckpointStatsTracker {
	return &CheckpointStatsTracker{historySize: max(historySize, 1)}
}

// reportPendingCheckpoint starts the statistics of a triggered checkpoint,
// whose tasks are those of plan.TasksToWaitFor.
func (t *CheckpointStatsTracker) reportPendingCheckpoint(id, triggerTimestamp int64, props CheckpointProperties,
	plan CheckpointPlan) *checkpointStats {
	s := &checkpointStats{id: id, status: StatusInProgress, props: props, triggerTimestamp: triggerTimestamp,
		tasks: make(map[api.JobVertexID]*taskStats), latestAckTimestamp: -1}
	for _, task := range plan.TasksToWaitFor {
		ts := s.tasks[task.JobVertexID]
		if ts == nil {
			ts = &taskStats{latestAckTimestamp: -1}
			s.tasks[task.JobVertexID] = ts
		}
		ts.numSubtasks++
	}
	t.counts.Total++
	t.counts.InProgress++
	t.history = append([]*checkpointStats{s}, t.history...)
	if len(t.history) > t.historySize {
		t.history = t.history[:t.historySize]
	}
	return s
}

// reportCompletedCheckpoint records that the checkpoint completed and lies
// at externalPath.
func (t *CheckpointStatsTracker) reportCompletedCheckpoint(s *checkpointStats, externalPath string) {
	if s == nil || s.status != StatusInProgress {
		return
	}
	s.status, s.externalPath = StatusCompleted, externalPath
	t.counts.InProgress--
	t.counts.Completed++
	if s.props.IsSavepoint() {
		t.latest.savepoint = s
	} else {
		t.latest.completed = s
	}
	t.stateSizes = appendSample(t.stateSizes, s.stateSize)
	t.durations = appendSample(t.durations, s.endToEndDuration())
	t.processedData = appendSample(t.processedData, s.processedData)
}

// reportFailedCheckpoint records that the checkpoint failed at
// failureTimestamp (ms) with cause.
func (t *CheckpointStatsTracker) reportFailedCheckpoint(s *checkpointStats, failureTimestamp int64, cause error) {
	if s == nil || s.status != StatusInProgress {
		return
	}
	s.status, s.failureTimestamp, s.failureMessage = StatusFailed, failureTimestamp, cause.Error()
	t.counts.InProgress--
	t.counts.Failed++
	t.latest.failed = s
}

// reportFailedCheckpointsWithoutInProgress counts a checkpoint that failed
// before it was pending.
func (t *CheckpointStatsTracker) reportFailedCheckpointsWithoutInProgress() {
	t.counts.Total++
	t.counts.Failed++
}

// reportRestoredCheckpoint records that the job restored a checkpoint at
// restoreTimestamp (ms).
func (t *CheckpointStatsTracker) reportRestoredCheckpoint(c *CompletedCheckpoint, restoreTimestamp int64) {
	t.counts.Restored++
	t.restored = &RestoredCheckpointStatistics{ID: c.CheckpointID, RestoreTimestamp: restoreTimestamp,
		IsSavepoint: c.Properties.IsSavepoint(), ExternalPath: c.ExternalPointer}
}

// markDiscarded records that a completed checkpoint's state was deleted.
func (t *CheckpointStatsTracker) markDiscarded(checkpointID int64) {
	for _, s := range append(slices.Clone(t.history), t.latest.completed, t.latest.savepoint) {
		if s != nil && s.id == checkpointID && s.status == StatusCompleted {
			s.discarded = true
		}
	}
}

// maxSamples bounds the samples of the summary (Flink's histogram window).
const maxSamples = 10_000

func appendSample(samples []int64, v int64) []int64 {
	if len(samples) == maxSamples {
		samples = samples[1:]
	}
	return append(samples, v)
}
