package checkpoint

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/configuration"
)

// The checkpointing options, with Flink's keys (ExecutionCheckpointingOptions
// and CheckpointingOptions of Flink 1.20). The comment gives the default.
const (
	KeyInterval              = "execution.checkpointing.interval"                          // none: checkpointing is disabled
	KeyMode                  = "execution.checkpointing.mode"                              // EXACTLY_ONCE
	KeyTimeout               = "execution.checkpointing.timeout"                           // 10 min
	KeyMinPause              = "execution.checkpointing.min-pause"                         // 0
	KeyMaxConcurrent         = "execution.checkpointing.max-concurrent-checkpoints"        // 1
	KeyTolerableFailures     = "execution.checkpointing.tolerable-failed-checkpoints"      // 0
	KeyExternalizedRetention = "execution.checkpointing.externalized-checkpoint-retention" // NO_EXTERNALIZED_CHECKPOINTS
	KeyCheckpointsDir        = "execution.checkpointing.dir"                               // none: JobManagerCheckpointStorage
	KeyNumRetained           = "execution.checkpointing.num-retained"                      // 1
	KeySavepointDir          = "execution.checkpointing.savepoint-dir"                     // none
)

// deprecatedKeys are the older names Flink 1.20 still reads when the new
// key is not set (FLIP-406 moved them under execution.checkpointing;
// ConfigOption#withDeprecatedKeys): every guide before 1.20 uses them.
var deprecatedKeys = map[string][]string{
	KeyCheckpointsDir: {"state.checkpoints.dir", "state.backend.fs.checkpointdir"},
	KeyNumRetained:    {"state.checkpoints.num-retained"},
	KeySavepointDir:   {"state.savepoints.dir", "savepoints.state.backend.fs.dir"},
}

// The values of execution.checkpointing.externalized-checkpoint-retention
// (Flink's ExternalizedCheckpointRetention): which retained checkpoints
// outlive their job. Whatever the value, a FINISHED job's checkpoints are
// deleted, and savepoints are never deleted.
const (
	// DeleteOnCancellation keeps the checkpoints of a job that FAILED and
	// deletes them when it is CANCELED.
	DeleteOnCancellation = "DELETE_ON_CANCELLATION"
	// RetainOnCancellation keeps the checkpoints of a job that FAILED, was
	// CANCELED or SUSPENDED: resume from one with "flink run -s <chk-dir>".
	RetainOnCancellation = "RETAIN_ON_CANCELLATION"
	// NoExternalizedCheckpoints deletes the checkpoints when the job ends,
	// however it ends.
	NoExternalizedCheckpoints = "NO_EXTERNALIZED_CHECKPOINTS"
)

// MinimalCheckpointTime is the shortest checkpoint interval and timeout
// Flink accepts (CheckpointConfig.MINIMAL_CHECKPOINT_TIME).
const MinimalCheckpointTime = 10 * time.Millisecond

// DefaultNumRetained is execution.checkpointing.num-retained's default.
const DefaultNumRetained = 1

// CheckpointCoordinatorConfiguration is what the CheckpointCoordinator
// is told by the options above (Flink's CheckpointCoordinatorConfiguration,
// plus the directories and num-retained, which Flink passes elsewhere).
type CheckpointCoordinatorConfiguration struct {
	// Interval is the time between two periodic checkpoints; 0 or less
	// disables checkpointing (Flink: Long.MAX_VALUE).
	Interval time.Duration
	// Timeout is how long a checkpoint may take before it is aborted as
	// expired.
	Timeout time.Duration
	// MinPause is the least time between the end of one checkpoint and the
	// start of the next periodic one.
	MinPause time.Duration
	// MaxConcurrent is how many checkpoints may be pending at once.
	MaxConcurrent int
	// TolerableFailures is how many checkpoints may fail in a row before
	// the job fails.
	TolerableFailures int
	Mode              CheckpointingMode
	// Retention is one of DeleteOnCancellation, RetainOnCancellation and
	// NoExternalizedCheckpoints.
	Retention string
	// CheckpointsDir is state.checkpoints.dir; empty keeps checkpoints in
	// the JobManager's memory (JobManagerCheckpointStorage).
	CheckpointsDir string
	// SavepointDir is state.savepoints.dir, where savepoints go when their
	// request names no directory.
	SavepointDir string
	// NumRetained is how many completed checkpoints are kept.
	NumRetained int
}

// DefaultCheckpointCoordinatorConfiguration returns Flink's defaults:
// checkpointing disabled, EXACTLY_ONCE, a 10 minute timeout, no pause, one
// checkpoint at a time, no failure tolerated, one checkpoint retained and
// none retained after the job ends.
func DefaultCheckpointCoordinatorConfiguration() CheckpointCoordinatorConfiguration {
	return CheckpointCoordinatorConfiguration{
		Timeout:       10 * time.Minute,
		MaxConcurrent: 1,
		Mode:          ExactlyOnce,
		Retention:     NoExternalizedCheckpoints,
		NumRetained:   DefaultNumRetained,
	}
}

// IsCheckpointingEnabled reports whether periodic checkpoints are
// configured (Flink: isCheckpointingEnabled, an interval other than
// Long.MAX_VALUE).
func (c CheckpointCoordinatorConfiguration) IsCheckpointingEnabled() bool { return c.Interval > 0 }

// FromMap reads the options above from a Flink configuration given as key
// → value, on top of DefaultCheckpointCoordinatorConfiguration. Durations
// use Flink's syntax ("30 s", "1 min", "500 ms"; a bare number is
// milliseconds); enum values ignore case, as Flink's do.
//
// The first bad value gives an error that wraps
// configuration.ErrIllegalConfiguration, with Flink's message: "Could not
// parse value '…' for key '…'." for a value that does not parse (its cause
// says why), or the message of the CheckpointConfig setter that refuses it
// ("Checkpoint interval must be larger than or equal to 10 ms"). Flink
// throws an IllegalArgumentException for both.
func FromMap(conf map[string]string) (CheckpointCoordinatorConfiguration, error) {
	cfg := DefaultCheckpointCoordinatorConfiguration()
	r := optionReader{conf: conf}
	r.duration(KeyInterval, &cfg.Interval)
	r.enum(KeyMode, "org.apache.flink.core.execution.CheckpointingMode",
		[]string{string(ExactlyOnce), string(AtLeastOnce)}, (*string)(&cfg.Mode))
	r.duration(KeyTimeout, &cfg.Timeout)
	r.duration(KeyMinPause, &cfg.MinPause)
	r.int(KeyMaxConcurrent, &cfg.MaxConcurrent)
	r.int(KeyTolerableFailures, &cfg.TolerableFailures)
	r.enum(KeyExternalizedRetention, "org.apache.flink.configuration.ExternalizedCheckpointRetention",
		[]string{DeleteOnCancellation, RetainOnCancellation, NoExternalizedCheckpoints}, &cfg.Retention)
	r.path(KeyCheckpointsDir, &cfg.CheckpointsDir)
	r.path(KeySavepointDir, &cfg.SavepointDir)
	r.int(KeyNumRetained, &cfg.NumRetained)
	if r.err != nil {
		return CheckpointCoordinatorConfiguration{}, r.err
	}

	// Flink's CheckpointConfig setters check what they are given.
	_, intervalSet := conf[KeyInterval]
	switch {
	case intervalSet && cfg.Interval < MinimalCheckpointTime:
		return CheckpointCoordinatorConfiguration{}, illegal(fmt.Sprintf(
			"Checkpoint interval must be larger than or equal to %d ms", MinimalCheckpointTime.Milliseconds()))
	case cfg.Timeout < MinimalCheckpointTime:
		return CheckpointCoordinatorConfiguration{}, illegal(fmt.Sprintf(
			"Checkpoint timeout must be larger than or equal to %d ms", MinimalCheckpointTime.Milliseconds()))
	case cfg.MaxConcurrent < 1:
		return CheckpointCoordinatorConfiguration{}, illegal("The maximum number of concurrent attempts must be at least one.")
	case cfg.TolerableFailures < 0:
		return CheckpointCoordinatorConfiguration{}, illegal("The tolerable failure checkpoint number must be non-negative.")
	}
	return cfg, nil
}

func illegal(message string) error { return configuration.NewIllegalConfigurationError(message, nil) }

// optionReader reads typed options from a map and keeps the first error.
type optionReader struct {
	conf map[string]string
	err  error
}

// lookup returns the value of key, or of the first of its deprecated
// keys that is set, and the key it found.
func (r *optionReader) lookup(key string) (value, found string, ok bool) {
	for _, k := range append([]string{key}, deprecatedKeys[key]...) {
		if v, ok := r.conf[k]; ok {
			return v, k, true
		}
	}
	return "", "", false
}

// read converts the key's value, if it is set and no earlier option failed.
func (r *optionReader) read(key string, convert func(string) error) {
	v, key, ok := r.lookup(key)
	if !ok || r.err != nil {
		return
	}
	if err := convert(strings.TrimSpace(v)); err != nil {
		r.err = configuration.NewIllegalConfigurationError(
			fmt.Sprintf("Could not parse value '%s' for key '%s'.", v, key), err)
	}
}

func (r *optionReader) duration(key string, dst *time.Duration) {
	r.read(key, func(s string) (err error) {
		*dst, err = configuration.ParseDuration(s)
		return err
	})
}

// int reads a Java int: 32 bits.
func (r *optionReader) int(key string, dst *int) {
	r.read(key, func(s string) error {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return fmt.Errorf("For input string: \"%s\"", s)
		}
		*dst = int(n)
		return nil
	})
}

// path reads a directory: a local path, or a file: URI
// ("file:///tmp/checkpoints"), the only file system flinklab has.
func (r *optionReader) path(key string, dst *string) {
	v, _, ok := r.lookup(key)
	if !ok || r.err != nil {
		return
	}
	scheme, _, found := strings.Cut(strings.TrimSpace(v), "://")
	if found && scheme != "file" {
		r.err = configuration.NewIllegalConfigurationError(fmt.Sprintf("Could not find a file system implementation for "+
			"scheme '%s'. The scheme is not directly supported by Flink and no Hadoop file system to support this "+
			"scheme could be loaded.", scheme), nil)
		return
	}
	*dst = LocalPath(v)
}

// LocalPath returns the local path of a directory given as a path or a
// file: URI: "file:///tmp/x" and "file:/tmp/x" are "/tmp/x".
func LocalPath(dir string) string {
	dir = strings.TrimSpace(dir)
	if rest, ok := strings.CutPrefix(dir, "file://"); ok {
		return rest
	}
	return strings.TrimPrefix(dir, "file:")
}

// enum reads one of values, ignoring case (Flink: ConfigurationUtils#convertToEnum).
func (r *optionReader) enum(key, class string, values []string, dst *string) {
	r.read(key, func(s string) error {
		for _, v := range values {
			if strings.EqualFold(s, v) {
				*dst = v
				return nil
			}
		}
		return fmt.Errorf("Could not parse value for enum class %s. Expected one of: [[%s]]", class, strings.Join(values, ", "))
	})
}
