package highavailability

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"flinklab/runtime/api"
)

// Flink's keys of the JobResultStore (JobResultStoreOptions).
const (
	KeyJobResultStorePath           = "job-result-store.storage-path"
	KeyJobResultStoreDeleteOnCommit = "job-result-store.delete-on-commit"
)

// DefaultJobResultStorePath is where a FileSystemJobResultStore keeps its
// files when job-result-store.storage-path is not set:
// <high-availability.storageDir>/job-result-store/<cluster-id>.
func DefaultJobResultStorePath(storageDir, clusterID string) string {
	return filepath.Join(storageDir, "job-result-store", strings.Trim(clusterID, "/"))
}

// FileSystemJobResultStore keeps each globally terminated job's result as
// a JSON file in one directory (Flink's FileSystemJobResultStore), so that
// it survives the JobManager:
//
//	<jobid>_DIRTY.json   written when the job reached its globally terminal
//	                     state, before anything of it is cleaned up
//	<jobid>.json         the cleanup is done (job-result-store.delete-on-commit
//	                     false; with true, Flink's default, the file is deleted)
//
// Each file holds {"result": <JobResult>, "version": 1}. A Dispatcher that
// gains leadership reads the dirty results (DirtyResults): those jobs are
// not run again, only their cleanup is finished.
type FileSystemJobResultStore struct {
	dir            string
	deleteOnCommit bool
}

var _ JobResultStore = (*FileSystemJobResultStore)(nil)

// jobResultFile is the content of a result's file.
type jobResultFile struct {
	Result  api.JobResult `json:"result"`
	Version int           `json:"version"`
}

// NewFileSystemJobResultStore returns a store in dir, creating it.
func NewFileSystemJobResultStore(dir string, deleteOnCommit bool) (*FileSystemJobResultStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the job result store %s: %w", dir, err)
	}
	return &FileSystemJobResultStore{dir: dir, deleteOnCommit: deleteOnCommit}, nil
}

func (s *FileSystemJobResultStore) dirtyPath(jobID api.JobID) string {
	return filepath.Join(s.dir, jobID.String()+"_DIRTY.json")
}

func (s *FileSystemJobResultStore) cleanPath(jobID api.JobID) string {
	return filepath.Join(s.dir, jobID.String()+".json")
}

// CreateDirtyResult writes the job's dirty result. It never overwrites: a
// job that has a result already, dirty or clean, is an error. The file
// appears whole or not at all (written aside, then linked into place).
func (s *FileSystemJobResultStore) CreateDirtyResult(result api.JobResult) error {
	if s.HasJobResultEntry(result.JobID) {
		return fmt.Errorf("job result store already has an entry for job %s", result.JobID)
	}
	data, err := json.Marshal(jobResultFile{Result: result, Version: 1})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, ".result-*.tmp")
	if err != nil {
		return fmt.Errorf("write the dirty result of job %s: %w", result.JobID, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write the dirty result of job %s: %w", result.JobID, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the dirty result of job %s: %w", result.JobID, err)
	}
	if err := os.Link(tmp.Name(), s.dirtyPath(result.JobID)); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("job result store already has an entry for job %s", result.JobID)
		}
		return fmt.Errorf("write the dirty result of job %s: %w", result.JobID, err)
	}
	return nil
}

// MarkResultAsClean marks the job's cleanup as done: its dirty file is
// deleted, or renamed <jobid>.json when results are kept.
func (s *FileSystemJobResultStore) MarkResultAsClean(jobID api.JobID) error {
	dirty := s.dirtyPath(jobID)
	if _, err := os.Stat(dirty); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(s.cleanPath(jobID)); err == nil {
			return nil // clean already
		}
		return fmt.Errorf("Could not mark job %s as clean as it is not present in the job result store.", jobID)
	}
	if s.deleteOnCommit {
		return os.Remove(dirty)
	}
	return os.Rename(dirty, s.cleanPath(jobID))
}

// HasJobResultEntry reports whether the job has a result, dirty or clean.
// With delete-on-commit, a clean result leaves nothing behind: Flink's
// store then no longer knows the job either.
func (s *FileSystemJobResultStore) HasJobResultEntry(jobID api.JobID) bool {
	_, ok := s.JobResult(jobID)
	return ok
}

// JobResult reads the job's result, dirty or clean.
func (s *FileSystemJobResultStore) JobResult(jobID api.JobID) (api.JobResult, bool) {
	for _, p := range []string{s.dirtyPath(jobID), s.cleanPath(jobID)} {
		if r, err := readJobResult(p); err == nil {
			return r, true
		}
	}
	return api.JobResult{}, false
}

// DirtyResults returns the results whose cleanup is pending, by JobID.
func (s *FileSystemJobResultStore) DirtyResults() ([]api.JobResult, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("Could not retrieve JobResults of globally-terminated jobs from JobResultStore: %w", err)
	}
	var results []api.JobResult
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "_DIRTY.json") {
			continue
		}
		r, err := readJobResult(filepath.Join(s.dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("Could not retrieve JobResults of globally-terminated jobs from JobResultStore: %w", err)
		}
		results = append(results, r)
	}
	slices.SortFunc(results, func(a, b api.JobResult) int { return strings.Compare(a.JobID.String(), b.JobID.String()) })
	return results, nil
}

func readJobResult(path string) (api.JobResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return api.JobResult{}, err
	}
	var f jobResultFile
	if err := json.Unmarshal(data, &f); err != nil {
		return api.JobResult{}, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if f.Version != 1 {
		return api.JobResult{}, fmt.Errorf("%s: unknown version %d", filepath.Base(path), f.Version)
	}
	return f.Result, nil
}
