package checkpoint

import (
	"encoding/json"
	"fmt"
)

// checkpointStatisticsJSON is CheckpointStatistics as Flink's REST API
// writes it (CheckpointStatistics#generateCheckpointStatistics):
// "className" names the subclass, "completed", "failed" or
// "in_progress"; a completed checkpoint has external_path and discarded,
// a failed one failure_timestamp and failure_message, and the others
// leave them out; savepointFormat is null for a checkpoint; tasks is {}
// where there are none.
type checkpointStatisticsJSON struct {
	ClassName               string                              `json:"className"`
	ID                      int64                               `json:"id"`
	Status                  CheckpointStatsStatus               `json:"status"`
	IsSavepoint             bool                                `json:"is_savepoint"`
	SavepointFormat         *string                             `json:"savepointFormat"`
	TriggerTimestamp        int64                               `json:"trigger_timestamp"`
	LatestAckTimestamp      int64                               `json:"latest_ack_timestamp"`
	CheckpointedSize        int64                               `json:"checkpointed_size"`
	StateSize               int64                               `json:"state_size"`
	EndToEndDuration        int64                               `json:"end_to_end_duration"`
	AlignmentBuffered       int64                               `json:"alignment_buffered"`
	ProcessedData           int64                               `json:"processed_data"`
	PersistedData           int64                               `json:"persisted_data"`
	NumSubtasks             int                                 `json:"num_subtasks"`
	NumAcknowledgedSubtasks int                                 `json:"num_acknowledged_subtasks"`
	CheckpointType          string                              `json:"checkpoint_type"`
	Tasks                   map[string]TaskCheckpointStatistics `json:"tasks"`

	ExternalPath     *string `json:"external_path,omitempty"`
	Discarded        *bool   `json:"discarded,omitempty"`
	FailureTimestamp *int64  `json:"failure_timestamp,omitempty"`
	FailureMessage   *string `json:"failure_message,omitempty"`
}

// classNames are Flink's names of the subclass of each status.
var classNames = map[CheckpointStatsStatus]string{
	StatusInProgress: "in_progress",
	StatusCompleted:  "completed",
	StatusFailed:     "failed",
}

// savepointFormatCanonical is the savepointFormat of every savepoint:
// flinklab writes one format, and Flink's default is CANONICAL.
const savepointFormatCanonical = "CANONICAL"

// MarshalJSON writes the statistics in Flink's REST shape.
func (s CheckpointStatistics) MarshalJSON() ([]byte, error) {
	w := checkpointStatisticsJSON{
		ClassName: classNames[s.Status], ID: s.ID, Status: s.Status, IsSavepoint: s.IsSavepoint,
		TriggerTimestamp: s.TriggerTimestamp, LatestAckTimestamp: s.LatestAckTimestamp,
		CheckpointedSize: s.CheckpointedSize, StateSize: s.StateSize, EndToEndDuration: s.EndToEndDuration,
		AlignmentBuffered: s.AlignmentBuffered, ProcessedData: s.ProcessedData, PersistedData: s.PersistedData,
		NumSubtasks: s.NumSubtasks, NumAcknowledgedSubtasks: s.NumAcknowledgedSubtasks,
		CheckpointType: s.CheckpointType, Tasks: s.Tasks,
	}
	if w.Tasks == nil {
		w.Tasks = map[string]TaskCheckpointStatistics{}
	}
	if s.IsSavepoint {
		format := savepointFormatCanonical
		w.SavepointFormat = &format
	}
	switch s.Status {
	case StatusCompleted:
		w.ExternalPath, w.Discarded = &s.ExternalPath, &s.Discarded
	case StatusFailed:
		w.FailureTimestamp, w.FailureMessage = &s.FailureTimestamp, &s.FailureMessage
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the statistics from Flink's REST shape, as a
// client of the REST API and the other end of an RPC do.
func (s *CheckpointStatistics) UnmarshalJSON(data []byte) error {
	var w checkpointStatisticsJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if want := classNames[w.Status]; w.ClassName != want {
		return fmt.Errorf("checkpoint statistics of status %s with className %q, want %q", w.Status, w.ClassName, want)
	}
	*s = CheckpointStatistics{
		ID: w.ID, Status: w.Status, IsSavepoint: w.IsSavepoint,
		TriggerTimestamp: w.TriggerTimestamp, LatestAckTimestamp: w.LatestAckTimestamp,
		CheckpointedSize: w.CheckpointedSize, StateSize: w.StateSize, EndToEndDuration: w.EndToEndDuration,
		AlignmentBuffered: w.AlignmentBuffered, ProcessedData: w.ProcessedData, PersistedData: w.PersistedData,
		NumSubtasks: w.NumSubtasks, NumAcknowledgedSubtasks: w.NumAcknowledgedSubtasks,
		CheckpointType: w.CheckpointType, Tasks: w.Tasks,
	}
	if w.ExternalPath != nil {
		s.ExternalPath = *w.ExternalPath
	}
	if w.Discarded != nil {
		s.Discarded = *w.Discarded
	}
	if w.FailureTimestamp != nil {
		s.FailureTimestamp = *w.FailureTimestamp
	}
	if w.FailureMessage != nil {
		s.FailureMessage = *w.FailureMessage
	}
	return nil
}
