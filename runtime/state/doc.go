// Package state is where a checkpoint's state lives: the key groups that
// split a job's keyed state, the handles that name the bytes of one
// subtask's snapshot, and the directories those bytes are written to. It
// mirrors the parts of Flink's org.apache.flink.runtime.state that the
// JobManager and the tasks share:
//
//	KeyGroupRange, ComputeKeyGroupRangeForOperatorIndex → KeyGroupRange, KeyGroupRangeAssignment
//	StreamStateHandle (file or inline)                   → FileStateHandle, ByteStreamStateHandle
//	KeyGroupsStateHandle                                 → KeyGroupsStateHandle (with its KeyGroupRangeOffsets)
//	OperatorStateHandle, StateMetaInfo                   → OperatorStreamStateHandle, OperatorStateHandle.StateMetaInfo
//	CheckpointStorageAccess, CheckpointStorageLocation   → FsCheckpointStorageAccess / JobManagerCheckpointStorage,
//	                                                       FsCheckpointStorageLocation
//
// # Key groups
//
// A keyed stream's keys fall into max-parallelism key groups (128 by
// default), fixed for the life of the job; each subtask owns a contiguous
// range of them. A keyed snapshot writes its key groups one after the
// other and remembers where each starts (KeyGroupsStateHandle.Offsets), so
// that after a rescale the JobMaster can hand each new subtask exactly the
// key groups it now owns, cut out of the old handles (Intersection),
// without reading a byte of state.
//
// # Where the bytes go
//
// With state.checkpoints.dir set (Flink's FileSystemCheckpointStorage),
// every job has a directory laid out as Flink lays it out:
//
//	<state.checkpoints.dir>/<job id>/
//	    shared/        state several checkpoints share (incremental checkpoints; empty here)
//	    taskowned/     state the tasks own, not the JobManager (empty here)
//	    chk-<n>/       checkpoint n:
//	        _metadata  what the JobManager keeps of it: every operator's handles (written last)
//	        <random>   one file per snapshot larger than the inline threshold (20 KiB)
//
// A smaller snapshot travels inline, inside the task's acknowledgement,
// and is kept in _metadata. Without a directory the JobManager keeps
// every checkpoint in memory (Flink's JobManagerCheckpointStorage): all
// state travels inline, at most 5 MiB of it per handle, and the checkpoint
// has no external pointer ("<checkpoint-not-externally-addressable>").
//
// Files are written under a temporary name and renamed, so a crash never
// leaves half a state file or half a _metadata behind a name.
//
// Differs from Flink: a file path is a local path (Flink's are file
// system URIs: file:, hdfs:, s3:), and the tasks write to the same
// directory the JobManager reads, which on one machine they share.
// Flink's memory threshold and JobManager state limit are options
// (state.storage.fs.memory-threshold, and the storage's max state size);
// here they are the defaults, DefaultMemoryThreshold and
// DefaultMaxStateSize.
package state
