package zookeeper

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
)

// completedCheckpointFilePrefix begins the name of every completed
// checkpoint's file in the HA storage directory (Flink:
// ZooKeeperUtils.HA_STORAGE_COMPLETED_CHECKPOINT).
const completedCheckpointFilePrefix = "completedCheckpoint"

// checkpointIDToName is the name of a checkpoint's node, its ID with 19
// digits, so that the names sort as the IDs do: checkpoint 7 is
// "0000000000000000007" (Flink's ZooKeeperCheckpointStoreUtil, which
// writes "/%019d").
func checkpointIDToName(checkpointID int64) string { return fmt.Sprintf("%019d", checkpointID) }

// nameToCheckpointID reads a checkpoint's ID from its node's name; -1 (and
// Flink's WARN, by the caller) when the name is none.
func nameToCheckpointID(name string) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimPrefix(name, "/"), 10, 64)
	if err != nil {
		return -1, false
	}
	return id, true
}

// storedCompletedCheckpoint is what a completedCheckpoint<random> file
// holds: the checkpoint's _metadata (the same JSON the checkpoint's
// directory holds, with its operators' state handles, inline state
// included) and what a CompletedCheckpoint knows beyond it. Flink writes
// the Java-serialized CompletedCheckpoint there; this is its JSON form.
type storedCompletedCheckpoint struct {
	checkpoint.CheckpointMetadata
	CompletionTimestamp int64                           `json:"completionTimestamp"`
	Properties          checkpoint.CheckpointProperties `json:"properties"`
	ExternalPointer     string                          `json:"externalPointer"`
}

// encodeCompletedCheckpoint serializes c for its file in the HA storage
// directory, its operators in the order of their IDs.
func encodeCompletedCheckpoint(c *checkpoint.CompletedCheckpoint) ([]byte, error) {
	stored := storedCompletedCheckpoint{
		CheckpointMetadata: checkpoint.CheckpointMetadata{
			Magic: checkpoint.MetadataMagic, Version: checkpoint.MetadataVersion,
			JobID: c.JobID, CheckpointID: c.CheckpointID, CheckpointType: c.Type, Timestamp: c.Timestamp,
		},
		CompletionTimestamp: c.CompletionTimestamp,
		Properties:          c.Properties,
		ExternalPointer:     c.ExternalPointer,
	}
	for _, s := range c.OperatorStates {
		stored.OperatorStates = append(stored.OperatorStates, s)
	}
	slices.SortFunc(stored.OperatorStates, func(a, b *checkpoint.OperatorState) int {
		return strings.Compare(a.OperatorID.String(), b.OperatorID.String())
	})
	return json.MarshalIndent(stored, "", "  ")
}

// decodeCompletedCheckpoint reads what encodeCompletedCheckpoint wrote.
func decodeCompletedCheckpoint(data []byte) (*checkpoint.CompletedCheckpoint, error) {
	var stored storedCompletedCheckpoint
	if err := json.Unmarshal(data, &stored); err != nil {
		return nil, err
	}
	if stored.Magic != checkpoint.MetadataMagic {
		return nil, fmt.Errorf("unexpected magic number %q", stored.Magic)
	}
	if stored.Version != checkpoint.MetadataVersion {
		return nil, fmt.Errorf("Unrecognized checkpoint version number: %d", stored.Version)
	}
	c := &checkpoint.CompletedCheckpoint{
		JobID:               stored.JobID,
		CheckpointID:        stored.CheckpointID,
		Timestamp:           stored.Timestamp,
		CompletionTimestamp: stored.CompletionTimestamp,
		Type:                stored.CheckpointType,
		Properties:          stored.Properties,
		OperatorStates:      make(map[api.OperatorID]*checkpoint.OperatorState, len(stored.OperatorStates)),
		ExternalPointer:     stored.ExternalPointer,
	}
	for _, s := range stored.OperatorStates {
		c.OperatorStates[s.OperatorID] = s
		c.StateSize += s.StateSize()
	}
	return c, nil
}
