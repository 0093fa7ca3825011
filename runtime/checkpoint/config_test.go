package checkpoint

import (
	"errors"
	"testing"
	"time"

	"flinklab/runtime/configuration"
)

func TestFromMapDefaults(t *testing.T) {
	got, err := FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := CheckpointCoordinatorConfiguration{Timeout: 10 * time.Minute, MaxConcurrent: 1, Mode: ExactlyOnce,
		Retention: NoExternalizedCheckpoints, NumRetained: 1}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got.IsCheckpointingEnabled() {
		t.Error("checkpointing enabled without an interval")
	}
}

func TestFromMapReadsFlinksKeys(t *testing.T) {
	got, err := FromMap(map[string]string{
		KeyInterval:              "30 s",
		KeyMode:                  "at_least_once",
		KeyTimeout:               "2 min",
		KeyMinPause:              "500",
		KeyMaxConcurrent:         " 2 ",
		KeyTolerableFailures:     "3",
		KeyExternalizedRetention: "retain_on_cancellation",
		KeyCheckpointsDir:        "/tmp/checkpoints",
		KeySavepointDir:          "/tmp/savepoints",
		KeyNumRetained:           "5",
		"unrelated.key":          "whatever",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := CheckpointCoordinatorConfiguration{Interval: 30 * time.Second, Timeout: 2 * time.Minute,
		MinPause: 500 * time.Millisecond, MaxConcurrent: 2, TolerableFailures: 3, Mode: AtLeastOnce,
		Retention: RetainOnCancellation, CheckpointsDir: "/tmp/checkpoints", SavepointDir: "/tmp/savepoints", NumRetained: 5}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if !got.IsCheckpointingEnabled() {
		t.Error("checkpointing disabled with an interval")
	}
}

func TestFromMapRefusesBadValues(t *testing.T) {
	tests := []struct {
		key, value, want string
	}{
		{KeyInterval, "soon", "Could not parse value 'soon' for key 'execution.checkpointing.interval'."},
		{KeyInterval, "5 ms", "Checkpoint interval must be larger than or equal to 10 ms"},
		{KeyInterval, "0", "Checkpoint interval must be larger than or equal to 10 ms"},
		{KeyTimeout, "1 ms", "Checkpoint timeout must be larger than or equal to 10 ms"},
		{KeyMode, "twice", "Could not parse value 'twice' for key 'execution.checkpointing.mode'."},
		{KeyMaxConcurrent, "0", "The maximum number of concurrent attempts must be at least one."},
		{KeyMaxConcurrent, "many", "Could not parse value 'many' for key 'execution.checkpointing.max-concurrent-checkpoints'."},
		{KeyTolerableFailures, "-1", "The tolerable failure checkpoint number must be non-negative."},
		{KeyExternalizedRetention, "KEEP", "Could not parse value 'KEEP' for key 'execution.checkpointing.externalized-checkpoint-retention'."},
		{KeyNumRetained, "2.5", "Could not parse value '2.5' for key 'execution.checkpointing.num-retained'."},
		{"state.checkpoints.num-retained", "2.5", "Could not parse value '2.5' for key 'state.checkpoints.num-retained'."},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			_, err := FromMap(map[string]string{tt.key: tt.value})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if !errors.Is(err, configuration.ErrIllegalConfiguration) {
				t.Errorf("%v does not wrap ErrIllegalConfiguration", err)
			}
		})
	}
	_, err := FromMap(map[string]string{KeyMode: "twice"})
	want := "Could not parse value for enum class org.apache.flink.core.execution.CheckpointingMode. " +
		"Expected one of: [[EXACTLY_ONCE, AT_LEAST_ONCE]]"
	if causes := err.(interface{ Unwrap() []error }).Unwrap(); len(causes) != 2 || causes[1].Error() != want {
		t.Errorf("got causes %v, want %q", causes, want)
	}
}

func TestFromMapReadsDirectoriesAsLocalPaths(t *testing.T) {
	got, err := FromMap(map[string]string{KeyCheckpointsDir: "file:///tmp/checkpoints", KeySavepointDir: "file:/tmp/savepoints"})
	if err != nil || got.CheckpointsDir != "/tmp/checkpoints" || got.SavepointDir != "/tmp/savepoints" {
		t.Errorf("got %q, %q, %v", got.CheckpointsDir, got.SavepointDir, err)
	}
	_, err = FromMap(map[string]string{KeyCheckpointsDir: "s3://bucket/checkpoints"})
	if err == nil || !errors.Is(err, configuration.ErrIllegalConfiguration) {
		t.Errorf("got %v for an s3 directory", err)
	}
}

// Flink 1.20 still reads the keys older guides use (state.checkpoints.dir,
// state.savepoints.dir, state.checkpoints.num-retained), unless the new
// execution.checkpointing.* key is set too.
func TestFromMapReadsTheDeprecatedKeysUnlessTheNewOnesAreSet(t *testing.T) {
	old := map[string]string{"state.checkpoints.dir": "/tmp/old-checkpoints", "state.savepoints.dir": "/tmp/old-savepoints",
		"state.checkpoints.num-retained": "3"}
	got, err := FromMap(old)
	if err != nil || got.CheckpointsDir != "/tmp/old-checkpoints" || got.SavepointDir != "/tmp/old-savepoints" || got.NumRetained != 3 {
		t.Errorf("from the deprecated keys got %+v, %v", got, err)
	}
	old[KeyCheckpointsDir], old[KeySavepointDir], old[KeyNumRetained] = "/tmp/checkpoints", "/tmp/savepoints", "4"
	got, err = FromMap(old)
	if err != nil || got.CheckpointsDir != "/tmp/checkpoints" || got.SavepointDir != "/tmp/savepoints" || got.NumRetained != 4 {
		t.Errorf("with both keys got %+v, %v; the new key wins", got, err)
	}
}
