package entrypoint

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/dispatcher"
)

// The jobstore.* keys: where a session cluster's Dispatcher keeps the
// graphs of the jobs that ended, and how many for how long (Flink's
// JobManagerOptions.JOB_STORE_*). See package dispatcher for the stores.
const (
	// KeyJobStoreType is jobstore.type: File (the default) or Memory,
	// in any case.
	KeyJobStoreType = "jobstore.type"
	// KeyJobStoreExpirationTime is jobstore.expiration-time: after how
	// many seconds an ended job is forgotten (3600).
	KeyJobStoreExpirationTime = "jobstore.expiration-time"
	// KeyJobStoreMaxCapacity is jobstore.max-capacity: how many ended
	// jobs are kept (2147483647, Java's largest int: no bound).
	KeyJobStoreMaxCapacity = "jobstore.max-capacity"
	// KeyJobStoreCacheSize is jobstore.cache-size: how many bytes of
	// graphs the File store keeps in memory (52428800, 50 MiB).
	KeyJobStoreCacheSize = "jobstore.cache-size"
)

// jobStoreOptions reads the jobstore.* options on top of a session
// cluster's defaults (the File store) and checks them, as Flink's
// SessionClusterEntrypoint#createSerializableExecutionGraphStore reads
// them. The store's directory is the component's to choose.
//
// Differs from Flink: Flink accepts an expiration time of 0 or less, a
// negative capacity or cache size when it parses them, and fails only
// when it makes the store (a cleanup without a delay cannot be
// scheduled, a Guava cache cannot be negative); here they are refused
// with the other options, before anything starts.
func jobStoreOptions(conf map[string]string) (dispatcher.JobStoreConfig, error) {
	cfg := dispatcher.DefaultJobStoreConfig()
	if v, ok := conf[KeyJobStoreType]; ok {
		switch text := strings.TrimSpace(v); {
		case strings.EqualFold(text, string(dispatcher.JobStoreFile)):
			cfg.Type = dispatcher.JobStoreFile
		case strings.EqualFold(text, string(dispatcher.JobStoreMemory)):
			cfg.Type = dispatcher.JobStoreMemory
		default:
			return cfg, optionError(KeyJobStoreType, v, errors.New(
				"Could not parse value for enum class org.apache.flink.configuration.JobManagerOptions$JobStoreType. Expected one of: [[File, Memory]]"))
		}
	}
	if v, ok := conf[KeyJobStoreExpirationTime]; ok {
		seconds, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err == nil && seconds <= 0 {
			err = errors.New("the expiration time must be larger than 0")
		}
		if err == nil && seconds > int64(math.MaxInt64/time.Second) {
			err = errors.New("the expiration time is too long")
		}
		if err != nil {
			return cfg, optionError(KeyJobStoreExpirationTime, v, err)
		}
		cfg.ExpirationTime = time.Duration(seconds) * time.Second
	}
	if v, ok := conf[KeyJobStoreMaxCapacity]; ok {
		capacity, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32) // a Java int
		if err == nil && capacity < 0 {
			err = errors.New("the maximum capacity must not be negative")
		}
		if err != nil {
			return cfg, optionError(KeyJobStoreMaxCapacity, v, err)
		}
		cfg.MaxCapacity = int(capacity)
	}
	if v, ok := conf[KeyJobStoreCacheSize]; ok {
		bytes, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err == nil && bytes < 0 {
			err = errors.New("the cache size must not be negative")
		}
		if err != nil {
			return cfg, optionError(KeyJobStoreCacheSize, v, err)
		}
		cfg.CacheSize = bytes
	}
	return cfg, nil
}
