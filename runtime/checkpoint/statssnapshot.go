package checkpoint

import (
	"math"
	"slices"
)

// CheckpointStatsSnapshot is the body of GET /jobs/:jobid/checkpoints,
// with Flink's field names (CheckpointingStatistics).
type CheckpointStatsSnapshot struct {
	Counts  CheckpointStatsCounts  `json:"counts"`
	Summary CheckpointStatsSummary `json:"summary"`
	Latest  LatestCheckpoints      `json:"latest"`
	// History are the most recent checkpoints, newest first, at most
	// web.checkpoints.history (10) of them.
	History []CheckpointStatistics `json:"history"`
}

// CheckpointStatsCounts count the job's checkpoints (Flink's
// CheckpointingStatistics.Counts). Total counts every triggered checkpoint,
// and those that failed before they were triggered.
type CheckpointStatsCounts struct {
	Restored   int64 `json:"restored"`
	Total      int64 `json:"total"`
	InProgress int   `json:"in_progress"`
	Completed  int64 `json:"completed"`
	Failed     int64 `json:"failed"`
}

// CheckpointStatsSummary summarizes the completed checkpoints (Flink's
// CheckpointingStatistics.Summary). flinklab takes full snapshots and no
// unaligned checkpoints: checkpointed_size is state_size, alignment_buffered
// and persisted_data are 0.
type CheckpointStatsSummary struct {
	CheckpointedSize  StatsSummaryDto `json:"checkpointed_size"`
	StateSize         StatsSummaryDto `json:"state_size"`
	EndToEndDuration  StatsSummaryDto `json:"end_to_end_duration"`
	AlignmentBuffered StatsSummaryDto `json:"alignment_buffered"`
	ProcessedData     StatsSummaryDto `json:"processed_data"`
	PersistedData     StatsSummaryDto `json:"persisted_data"`
}

// StatsSummaryDto is the minimum, maximum, average and percentiles of a
// quantity (Flink's StatsSummaryDto; percentiles estimated as Apache
// Commons Math's default does).
type StatsSummaryDto struct {
	Min  int64   `json:"min"`
	Max  int64   `json:"max"`
	Avg  int64   `json:"avg"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// LatestCheckpoints are the newest checkpoint of each kind (Flink's
// CheckpointingStatistics.LatestCheckpoints); nil when there is none.
type LatestCheckpoints struct {
	Completed *CheckpointStatistics         `json:"completed"`
	Savepoint *CheckpointStatistics         `json:"savepoint"`
	Failed    *CheckpointStatistics         `json:"failed"`
	Restored  *RestoredCheckpointStatistics `json:"restored"`
}

// RestoredCheckpointStatistics say which checkpoint the job last restored
// (Flink's CheckpointingStatistics.RestoredCheckpointStatistics).
type RestoredCheckpointStatistics struct {
	ID               int64  `json:"id"`
	RestoreTimestamp int64  `json:"restore_timestamp"`
	IsSavepoint      bool   `json:"is_savepoint"`
	ExternalPath     string `json:"external_path,omitempty"`
}

// CheckpointStatistics are one checkpoint's statistics (Flink's
// CheckpointStatistics and its three subclasses: in progress, completed,
// failed). Timestamps are ms since the epoch, durations ms, sizes bytes;
// latest_ack_timestamp is -1 before the first acknowledgement. On the
// wire, to the REST API and between processes alike, they have Flink's
// REST shape (MarshalJSON, in statsjson.go).
type CheckpointStatistics struct {
	ID                      int64
	Status                  CheckpointStatsStatus
	IsSavepoint             bool
	TriggerTimestamp        int64
	LatestAckTimestamp      int64
	CheckpointedSize        int64
	StateSize               int64
	EndToEndDuration        int64
	AlignmentBuffered       int64
	ProcessedData           int64
	PersistedData           int64
	NumSubtasks             int
	NumAcknowledgedSubtasks int
	CheckpointType          string
	// Tasks are the statistics of each JobVertex, by JobVertexID; the
	// overview (GET /jobs/:jobid/checkpoints) leaves them out, the details
	// show them.
	Tasks map[string]TaskCheckpointStatistics
	// Completed checkpoints only.
	ExternalPath string
	Discarded    bool
	// Failed checkpoints only.
	FailureTimestamp int64
	FailureMessage   string
}

// TaskCheckpointStatistics are one JobVertex's share of a checkpoint
// (Flink's TaskCheckpointStatistics), keyed by JobVertexID.
type TaskCheckpointStatistics struct {
	ID                      int64                 `json:"id"`
	Status                  CheckpointStatsStatus `json:"status"`
	LatestAckTimestamp      int64                 `json:"latest_ack_timestamp"`
	CheckpointedSize        int64                 `json:"checkpointed_size"`
	StateSize               int64                 `json:"state_size"`
	EndToEndDuration        int64                 `json:"end_to_end_duration"`
	AlignmentBuffered       int64                 `json:"alignment_buffered"`
	ProcessedData           int64                 `json:"processed_data"`
	PersistedData           int64                 `json:"persisted_data"`
	NumSubtasks             int                   `json:"num_subtasks"`
	NumAcknowledgedSubtasks int                   `json:"num_acknowledged_subtasks"`
}

// Snapshot returns the statistics as the REST API shows them.
func (t *CheckpointStatsTracker) Snapshot() CheckpointStatsSnapshot {
	snap := CheckpointStatsSnapshot{
		Counts: t.counts,
		Summary: CheckpointStatsSummary{
			CheckpointedSize: summarize(t.stateSizes),
			StateSize:        summarize(t.stateSizes),
			EndToEndDuration: summarize(t.durations),
			ProcessedData:    summarize(t.processedData),
		},
		Latest: LatestCheckpoints{
			Completed: statisticsOf(t.latest.completed),
			Savepoint: statisticsOf(t.latest.savepoint),
			Failed:    statisticsOf(t.latest.failed),
			Restored:  t.restored,
		},
		History: make([]CheckpointStatistics, 0, len(t.history)),
	}
	for _, s := range t.history {
		snap.History = append(snap.History, *statisticsOf(s))
	}
	return snap
}

func statisticsOf(s *checkpointStats) *CheckpointStatistics {
	if s == nil {
		return nil
	}
	numSubtasks, numAcknowledged := s.numSubtasks()
	stats := &CheckpointStatistics{
		ID: s.id, Status: s.status, IsSavepoint: s.props.IsSavepoint(),
		TriggerTimestamp: s.triggerTimestamp, LatestAckTimestamp: s.latestAckTimestamp,
		CheckpointedSize: s.stateSize, StateSize: s.stateSize, EndToEndDuration: s.endToEndDuration(),
		ProcessedData: s.processedData, NumSubtasks: numSubtasks, NumAcknowledgedSubtasks: numAcknowledged,
		CheckpointType: restAPICheckpointType(s.props), Tasks: make(map[string]TaskCheckpointStatistics, len(s.tasks)),
		ExternalPath: s.externalPath, Discarded: s.discarded,
		FailureTimestamp: s.failureTimestamp, FailureMessage: s.failureMessage,
	}
	for vertex, ts := range s.tasks {
		duration := max(0, ts.latestAckTimestamp-s.triggerTimestamp)
		stats.Tasks[vertex.String()] = TaskCheckpointStatistics{
			ID: s.id, Status: s.status, LatestAckTimestamp: ts.latestAckTimestamp,
			CheckpointedSize: ts.stateSize, StateSize: ts.stateSize, EndToEndDuration: duration,
			ProcessedData: ts.processedData, NumSubtasks: ts.numSubtasks, NumAcknowledgedSubtasks: ts.numAcknowledged,
		}
	}
	return stats
}

// restAPICheckpointType is Flink's RestAPICheckpointType of the snapshot.
func restAPICheckpointType(props CheckpointProperties) string {
	switch {
	case props.IsSynchronous():
		return "SYNC_SAVEPOINT"
	case props.IsSavepoint():
		return "SAVEPOINT"
	default:
		return "CHECKPOINT"
	}
}

// summarize returns the minimum, maximum, average and percentiles of
// samples; all 0 without samples.
func summarize(samples []int64) StatsSummaryDto {
	if len(samples) == 0 {
		return StatsSummaryDto{}
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	var sum int64
	for _, v := range sorted {
		sum += v
	}
	return StatsSummaryDto{
		Min: sorted[0], Max: sorted[len(sorted)-1], Avg: sum / int64(len(sorted)),
		P50: percentile(sorted, 50), P90: percentile(sorted, 90), P95: percentile(sorted, 95),
		P99: percentile(sorted, 99), P999: percentile(sorted, 99.9),
	}
}

// percentile estimates the p-th percentile of sorted samples as Apache
// Commons Math's Percentile does by default (which Flink's histograms use).
func percentile(sorted []int64, p float64) float64 {
	n := float64(len(sorted))
	pos := p * (n + 1) / 100
	switch {
	case pos < 1:
		return float64(sorted[0])
	case pos >= n:
		return float64(sorted[len(sorted)-1])
	}
	lower := float64(sorted[int(math.Floor(pos))-1])
	upper := float64(sorted[int(math.Floor(pos))])
	return lower + (pos-math.Floor(pos))*(upper-lower)
}
