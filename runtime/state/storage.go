package state

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"flinklab/runtime/api"
)

// The names of a checkpoint directory's parts, as Flink's
// AbstractFsCheckpointStorageAccess has them:
//
//	<state.checkpoints.dir>/<job id>/
//	    shared/        state several checkpoints share (incremental checkpoints)
//	    taskowned/     state the tasks own, not the JobManager
//	    chk-<n>/       checkpoint n: its _metadata and the state files of its tasks
//	        _metadata
const (
	CheckpointDirPrefix         = "chk-"
	CheckpointSharedStateDir    = "shared"
	CheckpointTaskOwnedStateDir = "taskowned"
	MetadataFileName            = "_metadata"
)

// NonExternalPointer is the location of a checkpoint the JobManager keeps
// in memory (Flink's NonPersistentMetadataCheckpointStorageLocation
// EXTERNAL_POINTER).
const NonExternalPointer = "<checkpoint-not-externally-addressable>"

// DefaultMemoryThreshold is execution.checkpointing.data-inline-threshold
// (state.storage.fs.memory-threshold before Flink 1.20): state of at most
// this many bytes travels inline in the acknowledgement and ends up in
// _metadata instead of a file of its own (Flink: 20 kb; its
// FsCheckpointStateOutputStream keeps pos <= threshold inline).
const DefaultMemoryThreshold = 20 * 1024

// DefaultMaxStateSize is the most a JobManagerCheckpointStorage accepts
// of one state handle (Flink: 5 MiB, MemoryStateBackend's default).
const DefaultMaxStateSize = 5 * 1024 * 1024

// CheckpointStorageAccess is where one job's checkpoints go (Flink's
// CheckpointStorageAccess): the directory of state.checkpoints.dir
// (FsCheckpointStorageAccess), or, when no directory is configured, the
// JobManager's memory (MemoryBackendCheckpointStorageAccess of
// JobManagerCheckpointStorage).
type CheckpointStorageAccess struct {
	// CheckpointsDirectory is <state.checkpoints.dir>/<job id>; empty
	// keeps the checkpoints in memory.
	CheckpointsDirectory string
}

// NewCheckpointStorageAccess returns the storage of jobID's checkpoints
// under baseDir, or in memory when baseDir is empty. It creates the job's
// directory with its shared/ and taskowned/ parts, as Flink's
// initializeBaseLocationsForCheckpoint does.
func NewCheckpointStorageAccess(baseDir string, jobID api.JobID) (CheckpointStorageAccess, error) {
	if baseDir == "" {
		return CheckpointStorageAccess{}, nil
	}
	dir := filepath.Join(baseDir, jobID.String())
	for _, sub := range []string{CheckpointSharedStateDir, CheckpointTaskOwnedStateDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return CheckpointStorageAccess{}, fmt.Errorf("Failed to create checkpoint storage at checkpoint coordinator side: %w", err)
		}
	}
	return CheckpointStorageAccess{CheckpointsDirectory: dir}, nil
}

// SupportsHighlyAvailableStorage reports whether checkpoints outlive the
// JobManager: they do only in files.
func (s CheckpointStorageAccess) SupportsHighlyAvailableStorage() bool {
	return s.CheckpointsDirectory != ""
}

// InitializeLocationForCheckpoint creates the directory of checkpoint id,
// chk-<id>, and returns its location; in memory, the location is the
// JobManager's (Flink: initializeLocationForCheckpoint).
func (s CheckpointStorageAccess) InitializeLocationForCheckpoint(id int64) (CheckpointStorageLocation, error) {
	if s.CheckpointsDirectory == "" {
		return CheckpointStorageLocation{}, nil
	}
	dir := filepath.Join(s.CheckpointsDirectory, CheckpointDirPrefix+strconv.FormatInt(id, 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return CheckpointStorageLocation{}, fmt.Errorf("cannot create the directory of checkpoint %d: %w", id, err)
	}
	return CheckpointStorageLocation{Directory: dir}, nil
}

// CheckpointStorageLocation is where one checkpoint's state and metadata
// go (Flink's CheckpointStorageLocation): a chk-<n> directory, or, with
// no Directory, the JobManager's memory. The JobMaster hands its Directory
// to the tasks inside the CheckpointOptions (Flink: the
// CheckpointStorageLocationReference), and each task writes its state
// there.
type CheckpointStorageLocation struct {
	Directory string `json:"directory,omitempty"`
}

// WriteState stores the bytes of one snapshot and returns their handle: a
// new file in the checkpoint's directory, or the bytes themselves when
// they are no more than DefaultMemoryThreshold or there is no directory
// (Flink's FsCheckpointStateOutputStream and MemCheckpointStreamFactory).
// The file is complete or absent: it is written under a temporary name
// and renamed.
func (l CheckpointStorageLocation) WriteState(data []byte) (StreamStateHandle, error) {
	size := int64(len(data))
	if l.Directory == "" {
		if size > DefaultMaxStateSize {
			return StreamStateHandle{}, fmt.Errorf("Size of the state is larger than the maximum permitted memory-backed state. "+
				"Size=%d , maxSize=%d. Consider using a different checkpoint storage, like the FileSystemCheckpointStorage.",
				size, DefaultMaxStateSize)
		}
		return StreamStateHandle{Data: data, StateSize: size}, nil
	}
	if size <= DefaultMemoryThreshold {
		return StreamStateHandle{Data: data, StateSize: size}, nil
	}
	path := filepath.Join(l.Directory, randomName())
	if err := writeFileAtomically(path, data); err != nil {
		return StreamStateHandle{}, fmt.Errorf("Could not flush to file and close the file system output stream to %s in order to obtain the stream state handle: %w", path, err)
	}
	return StreamStateHandle{FilePath: path, StateSize: size}, nil
}

// WriteMetadata writes the checkpoint's _metadata and returns the
// checkpoint's external pointer: its directory, or NonExternalPointer in
// memory.
func (l CheckpointStorageLocation) WriteMetadata(data []byte) (string, error) {
	if l.Directory == "" {
		return NonExternalPointer, nil
	}
	if err := writeFileAtomically(filepath.Join(l.Directory, MetadataFileName), data); err != nil {
		return "", err
	}
	return l.Directory, nil
}

// DisposeOnFailure removes what a checkpoint that did not complete left
// in its directory.
func (l CheckpointStorageLocation) DisposeOnFailure() error {
	if l.Directory == "" {
		return nil
	}
	return os.RemoveAll(l.Directory)
}

// writeFileAtomically writes data to path through a temporary file in the
// same directory, so that path never holds a part of data.
func writeFileAtomically(path string, data []byte) error {
	tmp := path + ".inprogress." + randomName()
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// randomName returns a random file name, as Flink names state files (a UUID).
func randomName() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
