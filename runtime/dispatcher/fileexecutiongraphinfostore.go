package dispatcher

import (
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// FileExecutionGraphInfoStore writes the graph of each ended job to a
// file of its own, and keeps in memory only (Flink's
// FileExecutionGraphInfoStore):
//
//   - the JobDetails of every stored job, for the jobs overview (Flink's
//     jobDetailsCache). This cache decides what the store holds: it
//     expires a job jobstore.expiration-time after it was stored, and
//     evicts the oldest job when jobstore.max-capacity are stored. A job
//     that leaves it leaves the store: its file is deleted.
//   - the graphs read or written last, up to jobstore.cache-size bytes,
//     each weighed by the size of its file (Flink's
//     executionGraphInfoCache). A graph that leaves this cache stays on
//     disk, and Get reads it back.
//
// So the memory that ended jobs take is bounded by the cache size, and
// the disk by the capacity and the expiration time, however large the
// jobs. The files are in a directory of the store's own,
// executionGraphStore-*, which Close removes.
//
// Differs from Flink: the graphs are written as JSON (Flink uses Java
// serialization), which the RPC of a remote RequestJob uses too.
type FileExecutionGraphInfoStore struct {
	storageDir string
	log        *slog.Logger

	jobDetailsCache         *expiringCache[gateway.JobDetails]
	executionGraphInfoCache *graphCache
	closed                  bool
}

// NewFileExecutionGraphInfoStore makes the store's directory in rootDir.
// expirationTime must be larger than 0; maximumCapacity and
// maximumCacheSizeBytes must not be negative.
func NewFileExecutionGraphInfoStore(rootDir string, expirationTime time.Duration, maximumCapacity int, maximumCacheSizeBytes int64, logger *slog.Logger) (*FileExecutionGraphInfoStore, error) {
	switch {
	case expirationTime <= 0:
		return nil, fmt.Errorf("FileExecutionGraphInfoStore: the expiration time must be larger than 0, not %s", expirationTime)
	case maximumCapacity < 0:
		return nil, fmt.Errorf("FileExecutionGraphInfoStore: the maximum capacity must not be negative, not %d", maximumCapacity)
	case maximumCacheSizeBytes < 0:
		return nil, fmt.Errorf("FileExecutionGraphInfoStore: the maximum cache size must not be negative, not %d", maximumCacheSizeBytes)
	}
	if logger == nil {
		logger = slog.Default()
	}
	storageDir, err := os.MkdirTemp(rootDir, "executionGraphStore-")
	if err != nil {
		return nil, fmt.Errorf("Could not create executionGraphStorage directory in %s: %w", rootDir, err)
	}
	s := &FileExecutionGraphInfoStore{
		storageDir:              storageDir,
		log:                     logger.With("logger", "FileExecutionGraphInfoStore"),
		executionGraphInfoCache: newGraphCache(maximumCacheSizeBytes),
	}
	s.jobDetailsCache = newExpiringCache(expirationTime, maximumCapacity, func(jobID api.JobID, _ gateway.JobDetails) {
		s.deleteExecutionGraphFile(jobID)
	})
	s.log.Info(fmt.Sprintf("Initializing FileExecutionGraphInfoStore: Storage directory %s, expiration time %d, maximum cache size %d bytes.",
		storageDir, expirationTime.Milliseconds(), maximumCacheSizeBytes))
	return s, nil
}

// StorageDir is the directory the store writes its files to.
func (s *FileExecutionGraphInfoStore) StorageDir() string { return s.storageDir }

// Size is how many jobs the store holds.
func (s *FileExecutionGraphInfoStore) Size() int { return s.jobDetailsCache.len() }

// Get returns the graph of a stored job: from the memory cache, or else
// read back from its file, which puts it in the cache again. A file that
// is gone or cannot be read makes the job not found.
func (s *FileExecutionGraphInfoStore) Get(jobID api.JobID) (*gateway.ArchivedExecutionGraph, error) {
	if _, stored := s.jobDetailsCache.get(jobID); !stored {
		return nil, jobNotFound(jobID)
	}
	if g, ok := s.executionGraphInfoCache.get(jobID); ok {
		return g, nil
	}
	g, size, err := s.loadExecutionGraph(jobID)
	if err != nil {
		// As Flink's get: the job is not found, and the log says why.
		// The cause names the file, which no REST answer may show.
		//
		// Differs from Flink: logged at WARN (Flink: DEBUG), for a
		// learner to find why a stored job is "not found".
		s.log.Warn(fmt.Sprintf("Could not load archived execution graph information for job id %s.", jobID), "cause", err.Error())
		return nil, jobNotFound(jobID)
	}
	s.executionGraphInfoCache.put(jobID, g, size)
	return g, nil
}

// Put writes the graph of a job that reached a terminal state to its
// file, then keeps its JobDetails and the graph in memory. Storing one
// job more may evict the oldest, and delete its file.
func (s *FileExecutionGraphInfoStore) Put(g *gateway.ArchivedExecutionGraph) error {
	if !g.State.IsTerminalState() {
		return fmt.Errorf("The job %s(%s) is not in a terminal state. Instead it is in state %s.", g.JobName, g.JobID, g.State)
	}
	if s.closed {
		return fmt.Errorf("FileExecutionGraphInfoStore is closed: cannot store job %s", g.JobID)
	}
	size, err := s.storeExecutionGraph(g)
	if err != nil {
		return err
	}
	s.executionGraphInfoCache.put(g.JobID, g, size)
	s.jobDetailsCache.put(g.JobID, gateway.JobDetailsOf(g))
	return nil
}

// AvailableJobDetails summarizes every stored job, oldest first, from
// memory.
func (s *FileExecutionGraphInfoStore) AvailableJobDetails() []gateway.JobDetails {
	return s.jobDetailsCache.values()
}

// CleanUp forgets the jobs that have expired and deletes their files.
func (s *FileExecutionGraphInfoStore) CleanUp() { s.jobDetailsCache.cleanUp() }

// Close forgets every job and removes the store's directory.
func (s *FileExecutionGraphInfoStore) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.jobDetailsCache.removeAll()
	return os.RemoveAll(s.storageDir)
}

// executionGraphFile is where a job's graph is: a file named for the job.
func (s *FileExecutionGraphInfoStore) executionGraphFile(jobID api.JobID) string {
	return filepath.Join(s.storageDir, jobID.String())
}

// storeExecutionGraph writes a graph to its file and returns the file's
// size.
func (s *FileExecutionGraphInfoStore) storeExecutionGraph(g *gateway.ArchivedExecutionGraph) (int64, error) {
	data, err := json.Marshal(g)
	if err != nil {
		return 0, fmt.Errorf("could not serialize the archived execution graph of job %s: %w", g.JobID, err)
	}
	if err := writeFileAtomically(s.executionGraphFile(g.JobID), data); err != nil {
		return 0, fmt.Errorf("could not write the archived execution graph of job %s: %w", g.JobID, err)
	}
	return int64(len(data)), nil
}

// writeFileAtomically writes data to a temporary file next to path and
// renames it into place: a write that fails (a full disk) leaves the old
// file, if any, as it was and no partial file behind.
//
// Differs from Flink: Flink writes the file in place.
func writeFileAtomically(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	return nil
}

// loadExecutionGraph reads a graph back from its file, and returns the
// file's size with it.
func (s *FileExecutionGraphInfoStore) loadExecutionGraph(jobID api.JobID) (*gateway.ArchivedExecutionGraph, int64, error) {
	file := s.executionGraphFile(jobID)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("Could not find file for archived execution graph %s. This indicates that the file either has been deleted or never written.", jobID)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("could not read the archived execution graph of job %s: %w", jobID, err)
	}
	var g gateway.ArchivedExecutionGraph
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, 0, fmt.Errorf("the file %s of the archived execution graph of job %s is corrupt: %w", file, jobID, err)
	}
	if g.JobID != jobID {
		return nil, 0, fmt.Errorf("the file %s of the archived execution graph of job %s is corrupt: it holds job %s", file, jobID, g.JobID)
	}
	return &g, int64(len(data)), nil
}

// deleteExecutionGraphFile is the removal listener of the JobDetails
// cache: a job that leaves it leaves the store, its graph the memory
// cache and its file the disk.
func (s *FileExecutionGraphInfoStore) deleteExecutionGraphFile(jobID api.JobID) {
	s.executionGraphInfoCache.remove(jobID)
	if err := os.Remove(s.executionGraphFile(jobID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Debug(fmt.Sprintf("Could not delete file %s.", s.executionGraphFile(jobID)), "cause", err.Error())
	}
}

// graphCache is the FileExecutionGraphInfoStore's memory cache of graphs
// (Flink's executionGraphInfoCache, a Guava cache built with
// maximumWeight(jobstore.cache-size) and a weigher that counts each graph
// by the size of its file). While the graphs weigh more than
// maximumWeight, the one used least recently goes; a graph heavier than
// maximumWeight on its own is not kept at all.
type graphCache struct {
	maximumWeight int64
	weight        int64
	entries       map[api.JobID]*list.Element
	recency       *list.List // of *cachedGraph, the one used last first
}

type cachedGraph struct {
	jobID  api.JobID
	graph  *gateway.ArchivedExecutionGraph
	weight int64
}

func newGraphCache(maximumWeight int64) *graphCache {
	return &graphCache{maximumWeight: maximumWeight, entries: make(map[api.JobID]*list.Element), recency: list.New()}
}

// get returns a cached graph and marks it used.
func (c *graphCache) get(jobID api.JobID) (*gateway.ArchivedExecutionGraph, bool) {
	e, ok := c.entries[jobID]
	if !ok {
		return nil, false
	}
	c.recency.MoveToFront(e)
	return e.Value.(*cachedGraph).graph, true
}

// put caches a graph as the one used last, then evicts the ones used
// least recently until the cache weighs no more than maximumWeight.
func (c *graphCache) put(jobID api.JobID, g *gateway.ArchivedExecutionGraph, weight int64) {
	c.remove(jobID)
	c.entries[jobID] = c.recency.PushFront(&cachedGraph{jobID: jobID, graph: g, weight: weight})
	c.weight += weight
	for c.weight > c.maximumWeight {
		c.remove(c.recency.Back().Value.(*cachedGraph).jobID)
	}
}

func (c *graphCache) remove(jobID api.JobID) {
	e, ok := c.entries[jobID]
	if !ok {
		return
	}
	c.weight -= c.recency.Remove(e).(*cachedGraph).weight
	delete(c.entries, jobID)
}

func (c *graphCache) len() int { return c.recency.Len() }
