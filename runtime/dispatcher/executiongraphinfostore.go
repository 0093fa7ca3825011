package dispatcher

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// ExecutionGraphInfoStore keeps the final ArchivedExecutionGraph of the
// jobs that ended while this Dispatcher ran, so that it can still answer
// questions about them (Flink's ExecutionGraphInfoStore). It forgets a job
// when the job expires or when the store is full; the Dispatcher then
// knows the job no more, and answers as for any unknown job.
//
// A store belongs to the Dispatcher's main thread: it is called from
// there only, and has no goroutines or locks of its own.
type ExecutionGraphInfoStore interface {
	// Size is how many jobs the store holds.
	Size() int
	// Get returns the graph of a stored job. For a job it does not hold
	// (never stored, expired or evicted) the error wraps
	// gateway.ErrJobNotFound; any other error says why a stored graph
	// could not be read.
	Get(jobID api.JobID) (*gateway.ArchivedExecutionGraph, error)
	// Put stores the graph of a job that reached a terminal state.
	Put(g *gateway.ArchivedExecutionGraph) error
	// AvailableJobDetails summarizes every stored job, oldest first,
	// without reading any graph back (Flink's getAvailableJobDetails).
	AvailableJobDetails() []gateway.JobDetails
	// CleanUp forgets the jobs that have expired. The Dispatcher calls
	// it every jobstore.expiration-time (Flink schedules the caches'
	// cleanUp); every other method forgets them too.
	CleanUp()
	// Close forgets every job and removes what the store wrote. Closing
	// twice does nothing.
	Close() error
}

var (
	_ ExecutionGraphInfoStore = (*MemoryExecutionGraphInfoStore)(nil)
	_ ExecutionGraphInfoStore = (*FileExecutionGraphInfoStore)(nil)
)

// JobStoreType is jobstore.type: which ExecutionGraphInfoStore a session
// cluster's Dispatcher uses (Flink's JobManagerOptions.JobStoreType).
type JobStoreType string

const (
	// JobStoreFile keeps each graph in a file and only the latest ones in
	// memory: the FileExecutionGraphInfoStore, a session cluster's default.
	JobStoreFile JobStoreType = "File"
	// JobStoreMemory keeps every graph in memory: the
	// MemoryExecutionGraphInfoStore.
	JobStoreMemory JobStoreType = "Memory"
)

// Flink's defaults for the jobstore.* options of a session cluster
// (JobManagerOptions.JOB_STORE_*).
const (
	// DefaultJobStoreExpirationTime is jobstore.expiration-time: a job is
	// forgotten one hour after it ended.
	DefaultJobStoreExpirationTime = time.Hour
	// DefaultJobStoreMaxCapacity is jobstore.max-capacity: as many jobs
	// as fit in a Java int, that is no bound.
	DefaultJobStoreMaxCapacity = math.MaxInt32
	// DefaultJobStoreCacheSize is jobstore.cache-size: the File store
	// keeps up to 50 MiB of graphs in memory, counted by the size of
	// their files.
	DefaultJobStoreCacheSize int64 = 50 << 20
)

// JobStoreConfig says which ExecutionGraphInfoStore a Dispatcher makes
// and how far it may grow. The zero value is what Flink's MiniCluster
// uses (new MemoryExecutionGraphInfoStore()): every job in memory, kept
// forever. DefaultJobStoreConfig is a session cluster's.
type JobStoreConfig struct {
	// Type is jobstore.type; "" means JobStoreMemory.
	Type JobStoreType
	// ExpirationTime is jobstore.expiration-time: how long after it ended
	// a job is forgotten. The File store needs it larger than 0; for the
	// Memory store 0 means never.
	ExpirationTime time.Duration
	// MaxCapacity is jobstore.max-capacity: how many jobs are kept; when
	// one more ends, the one that ended first is forgotten. For the
	// Memory store 0 means no bound, as in Flink; the File store then
	// keeps none.
	MaxCapacity int
	// CacheSize is jobstore.cache-size, of the File store only: how many
	// bytes of graphs it keeps in memory, each weighed by the size of its
	// file. The others are read back from their files when asked for.
	CacheSize int64
	// Dir is where the File store makes the directory of its files
	// (Flink: the first of io.tmp.dirs); "" means os.TempDir().
	Dir string
}

// DefaultJobStoreConfig is what a session cluster's Dispatcher uses
// without jobstore.* options: the File store with Flink's defaults.
func DefaultJobStoreConfig() JobStoreConfig {
	return JobStoreConfig{
		Type:           JobStoreFile,
		ExpirationTime: DefaultJobStoreExpirationTime,
		MaxCapacity:    DefaultJobStoreMaxCapacity,
		CacheSize:      DefaultJobStoreCacheSize,
	}
}

// NewExecutionGraphInfoStore makes the store cfg describes (Flink's
// SessionClusterEntrypoint#createSerializableExecutionGraphStore).
func NewExecutionGraphInfoStore(cfg JobStoreConfig, logger *slog.Logger) (ExecutionGraphInfoStore, error) {
	switch {
	case cfg.Type == "" || strings.EqualFold(string(cfg.Type), string(JobStoreMemory)):
		return NewMemoryExecutionGraphInfoStore(cfg.ExpirationTime, cfg.MaxCapacity), nil
	case strings.EqualFold(string(cfg.Type), string(JobStoreFile)):
		dir := cfg.Dir
		if dir == "" {
			dir = os.TempDir()
		}
		return NewFileExecutionGraphInfoStore(dir, cfg.ExpirationTime, cfg.MaxCapacity, cfg.CacheSize, logger)
	}
	return nil, fmt.Errorf("Unsupported job store type %s", cfg.Type)
}
