package resourcemanager

import (
	"errors"

	"flinklab/runtime/rpc"
)

// Errors the ResourceManager's gateway methods wrap, each with Flink's
// message (Flink throws a ResourceManagerException with that message).
var (
	// ErrUnknownJobManager: the job has no registered JobMaster.
	ErrUnknownJobManager = errors.New("unknown job manager")
	// ErrJobLeaderIDMismatch: the caller is not the job's registered
	// JobMaster (a stale leader, or a new one that has not registered yet).
	ErrJobLeaderIDMismatch = errors.New("job leader id mismatch")
	// ErrUnknownTaskManager: the TaskExecutor registration named in the call
	// is not the current one.
	ErrUnknownTaskManager = errors.New("unknown task manager")
)

func init() {
	rpc.RegisterError("resourcemanager.ErrUnknownJobManager", ErrUnknownJobManager)
	rpc.RegisterError("resourcemanager.ErrJobLeaderIDMismatch", ErrJobLeaderIDMismatch)
	rpc.RegisterError("resourcemanager.ErrUnknownTaskManager", ErrUnknownTaskManager)
}
