package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/state"
)

// MetadataMagic opens every _metadata file flinklab writes, as Flink's
// MAGIC_NUMBER 0x4960672d opens its binary ones.
const MetadataMagic = "flinklab-checkpoint-metadata"

// MetadataVersion is the version of the _metadata format written.
const MetadataVersion = 1

// CheckpointMetadata is what a checkpoint's _metadata file holds: its ID
// and the state of every operator, with the handles of the state (files
// beside the _metadata, and small state inline). It is all a restore needs
// (Flink's CheckpointMetadata).
//
// Differs from Flink: the file is JSON, not Flink's binary
// MetadataV3Serializer format, so you can read it with any editor; it also
// keeps the job, the type and the trigger time, which Flink does not. State
// files are named by their absolute paths (Flink writes paths relative to
// the _metadata of a savepoint, so a savepoint directory can be moved).
type CheckpointMetadata struct {
	Magic          string           `json:"magic"`
	Version        int              `json:"version"`
	JobID          api.JobID        `json:"jobId"`
	CheckpointID   int64            `json:"checkpointId"`
	CheckpointType CheckpointType   `json:"checkpointType"`
	Timestamp      int64            `json:"timestamp"`
	OperatorStates []*OperatorState `json:"operatorStates"`
}

// newCheckpointMetadata returns the metadata of a checkpoint, its
// operators in the order of their IDs, so that the file reads the same
// each time.
func newCheckpointMetadata(job api.JobID, id int64, typ CheckpointType, timestamp int64,
	states map[api.OperatorID]*OperatorState) *CheckpointMetadata {
	m := &CheckpointMetadata{Magic: MetadataMagic, Version: MetadataVersion, JobID: job, CheckpointID: id,
		CheckpointType: typ, Timestamp: timestamp}
	for _, s := range states {
		m.OperatorStates = append(m.OperatorStates, s)
	}
	slices.SortFunc(m.OperatorStates, func(a, b *OperatorState) int {
		return strings.Compare(a.OperatorID.String(), b.OperatorID.String())
	})
	return m
}

// StoreCheckpointMetadata encodes the metadata as the bytes of a _metadata
// file (Flink: Checkpoints#storeCheckpointMetadata).
func StoreCheckpointMetadata(m *CheckpointMetadata) ([]byte, error) {
	return json.MarshalIndent(m, "", "  ")
}

// LoadCheckpointMetadata reads the _metadata of a retained checkpoint or a
// savepoint (Flink: Checkpoints#loadCheckpointMetadata). path is the
// checkpoint's directory or its _metadata file, with or without "file:".
func LoadCheckpointMetadata(path string) (*CheckpointMetadata, error) {
	metadataFile, _, err := resolveCheckpointPointer(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(metadataFile)
	if err != nil {
		return nil, fmt.Errorf("Could not read the metadata file '%s': %w", metadataFile, err)
	}
	var m CheckpointMetadata
	if err := json.Unmarshal(data, &m); err != nil && !strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		return nil, unexpectedMagic(metadataFile)
	} else if err != nil {
		return nil, fmt.Errorf("The metadata file '%s' is corrupt: %w", metadataFile, err)
	}
	if m.Magic != MetadataMagic {
		return nil, unexpectedMagic(metadataFile)
	}
	if m.Version != MetadataVersion {
		return nil, fmt.Errorf("Unrecognized checkpoint version number: %d", m.Version)
	}
	return &m, nil
}

// unexpectedMagic is Flink's error for a file that is no _metadata, its
// first reason adapted: flinklab cannot read Flink's binary files.
func unexpectedMagic(metadataFile string) error {
	return fmt.Errorf("Unexpected magic number in '%s'. This can have multiple reasons: "+
		"(1) You are trying to load a savepoint written by Flink, whose binary format flinklab does not read. "+
		"(2) The file you were pointing to is not a savepoint at all. (3) The savepoint file has been corrupted.",
		metadataFile)
}

// resolveCheckpointPointer finds the _metadata file of a checkpoint given
// as its directory or the file itself (Flink:
// AbstractFsCheckpointStorageAccess#resolveCheckpointPointer), and returns
// it with the checkpoint's directory.
func resolveCheckpointPointer(pointer string) (metadataFile, checkpointDir string, err error) {
	if strings.TrimSpace(pointer) == "" {
		return "", "", errors.New("Checkpoint/savepoint path is empty.")
	}
	path := LocalPath(pointer)
	info, err := os.Stat(path)
	if err != nil {
		return "", "", fmt.Errorf("Cannot find checkpoint or savepoint file/directory '%s' on file system 'file'.", pointer)
	}
	if !info.IsDir() {
		return path, filepath.Dir(path), nil
	}
	metadataFile = filepath.Join(path, state.MetadataFileName)
	if _, err := os.Stat(metadataFile); err != nil {
		return "", "", fmt.Errorf("Cannot find meta data file '%s' in directory '%s'. Please try to load the "+
			"checkpoint/savepoint directly from the metadata file instead of the directory.", state.MetadataFileName, path)
	}
	return metadataFile, path, nil
}
