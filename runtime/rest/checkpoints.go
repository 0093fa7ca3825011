package rest

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway"
)

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/checkpoints — Flink's CheckpointingStatisticsHandler
// ---------------------------------------------------------------------------

// handleCheckpointingStatistics answers how the job's checkpoints went:
// the counts, a summary of the completed ones, the latest of each kind
// and the recent history, newest first (Flink 1.20 asks the Dispatcher's
// requestCheckpointStats, which answers a running job from its JobMaster
// and an ended one from the job store). A job that is not checkpointed is
// Flink's 404 "Checkpointing has not been enabled."; an unknown job the
// 404 "Job <id> not found" of AbstractCheckpointStatsHandler.
func (s *Server) handleCheckpointingStatistics(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	stats, err := s.requestCheckpointStats(r, jobID)
	if err != nil {
		return nil, err
	}
	if stats == nil {
		return nil, notFound(gateway.ErrCheckpointingDisabled.Error())
	}
	return checkpointingStatisticsOf(stats), nil
}

// requestCheckpointStats asks the Dispatcher for the job's checkpoint
// statistics, nil for a job that is not checkpointed.
func (s *Server) requestCheckpointStats(r *http.Request, jobID api.JobID) (*checkpoint.CheckpointStatsSnapshot, error) {
	stats, err := s.deps.Dispatcher.RequestCheckpointStats(r.Context(), jobID)
	if errors.Is(err, gateway.ErrJobNotFound) {
		return nil, s.jobNotFound(jobID, err)
	}
	if err != nil {
		return nil, fmt.Errorf("request the checkpoint statistics of job %s: %w", jobID, err)
	}
	return stats, nil
}

// checkpointingStatisticsOf answers the statistics as Flink's
// CheckpointingStatisticsHandler does: the latest checkpoints and the
// history without their tasks, which only the details show.
func checkpointingStatisticsOf(stats *checkpoint.CheckpointStatsSnapshot) checkpoint.CheckpointStatsSnapshot {
	overview := *stats
	overview.Latest.Completed = withoutTasks(stats.Latest.Completed)
	overview.Latest.Savepoint = withoutTasks(stats.Latest.Savepoint)
	overview.Latest.Failed = withoutTasks(stats.Latest.Failed)
	overview.History = make([]checkpoint.CheckpointStatistics, 0, len(stats.History))
	for i := range stats.History {
		overview.History = append(overview.History, *withoutTasks(&stats.History[i]))
	}
	return overview
}

// withoutTasks returns a copy of s without its tasks; nil for none.
func withoutTasks(s *checkpoint.CheckpointStatistics) *checkpoint.CheckpointStatistics {
	if s == nil {
		return nil
	}
	c := *s
	c.Tasks = nil
	return &c
}

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/checkpoints/details/{checkpointid} — Flink's
// CheckpointStatisticDetailsHandler
// ---------------------------------------------------------------------------

// handleCheckpointStatisticDetails answers one checkpoint's statistics,
// with its tasks, if it is one of the recent ones the statistics keep (in
// the history, or the latest of its kind). Flink's answers otherwise: a
// malformed ID is a 400, a job that is not checkpointed a 404
// "Checkpointing was not enabled for job <id>.", a checkpoint the
// statistics no longer have a 404 "Could not find checkpointing
// statistics for checkpoint <id>.".
func (s *Server) handleCheckpointStatisticDetails(_ http.ResponseWriter, r *http.Request) (any, error) {
	jobID, err := jobIDParam(r)
	if err != nil {
		return nil, err
	}
	raw := r.PathValue("checkpointid")
	checkpointID, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return nil, badRequest(
			fmt.Sprintf("Bad request, could not parse parameters: Cannot resolve path parameter (checkpointid) from value %q.", raw),
			err.Error())
	}
	stats, err := s.requestCheckpointStats(r, jobID)
	if err != nil {
		return nil, err
	}
	if stats == nil {
		return nil, notFound(fmt.Sprintf("Checkpointing was not enabled for job %s.", jobID))
	}
	candidates := []*checkpoint.CheckpointStatistics{stats.Latest.Completed, stats.Latest.Savepoint, stats.Latest.Failed}
	for i := range stats.History {
		candidates = append(candidates, &stats.History[i])
	}
	for _, c := range candidates {
		if c != nil && c.ID == checkpointID {
			return c, nil
		}
	}
	return nil, notFound(fmt.Sprintf("Could not find checkpointing statistics for checkpoint %d.", checkpointID))
}

// ---------------------------------------------------------------------------
// GET /jobs/{jobid}/checkpoints/config — Flink's CheckpointConfigHandler
// ---------------------------------------------------------------------------

// The state backend and checkpoint storages of flinklab, by Flink's class
// names: state lives in memory on the TaskManagers, and its snapshots go
// to the JobManager's memory or to state.checkpoints.dir.
const (
	stateBackendHashMap               = "HashMapStateBackend"
	checkpointStorageJobManager       = "JobManagerCheckpointStorage"
	checkpointStorageFileSystem       = "FileSystemCheckpointStorage"
	checkpointingModeExactlyOnceLower = "exactly_once"
)

// handleCheckpointConfig answers how the job is checkpointed, from its
// ExecutionGraph (Flink's CheckpointConfigHandler), running or ended. A
// job that is not checkpointed is Flink's 404 "Checkpointing is not
// enabled for this job (<id>).".
func (s *Server) handleCheckpointConfig(_ http.ResponseWriter, r *http.Request) (any, error) {
	g, err := s.requestJob(r)
	if err != nil {
		return nil, err
	}
	cfg := g.CheckpointCoordinatorConfiguration
	if cfg == nil {
		return nil, notFound(fmt.Sprintf("Checkpointing is not enabled for this job (%s).", g.JobID))
	}
	return checkpointConfigInfoOf(*cfg), nil
}

// checkpointConfigInfoOf writes the configuration as Flink's
// CheckpointConfigHandler does: times in ms, the mode in lower case,
// externalization from the retention (enabled unless
// NO_EXTERNALIZED_CHECKPOINTS, deleted on cancellation unless
// RETAIN_ON_CANCELLATION).
func checkpointConfigInfoOf(cfg checkpoint.CheckpointCoordinatorConfiguration) CheckpointConfigInfo {
	storage := checkpointStorageJobManager
	if cfg.CheckpointsDir != "" {
		storage = checkpointStorageFileSystem
	}
	mode := strings.ToLower(string(cfg.Mode))
	if mode == "" {
		mode = checkpointingModeExactlyOnceLower
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = checkpoint.DefaultCheckpointCoordinatorConfiguration().Timeout
	}
	retention := cfg.Retention
	if retention == "" {
		retention = checkpoint.NoExternalizedCheckpoints
	}
	return CheckpointConfigInfo{
		Mode:          mode,
		Interval:      cfg.Interval.Milliseconds(),
		Timeout:       timeout.Milliseconds(),
		MinPause:      cfg.MinPause.Milliseconds(),
		MaxConcurrent: int64(max(cfg.MaxConcurrent, 1)),
		Externalization: ExternalizedCheckpointInfo{
			Enabled:              retention != checkpoint.NoExternalizedCheckpoints,
			DeleteOnCancellation: retention != checkpoint.RetainOnCancellation,
		},
		StateBackend:                stateBackendHashMap,
		CheckpointStorage:           storage,
		UnalignedCheckpoints:        false,
		TolerableFailedCheckpoints:  cfg.TolerableFailures,
		AlignedCheckpointTimeout:    0,
		CheckpointsAfterTasksFinish: false,
		StateChangelogEnabled:       false,
	}
}
