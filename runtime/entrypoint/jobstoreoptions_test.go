package entrypoint

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/dispatcher"
)

func TestJobStoreOptions(t *testing.T) {
	cfg, err := jobStoreOptions(nil)
	require.NoError(t, err)
	assert.Equal(t, dispatcher.JobStoreConfig{
		Type:           dispatcher.JobStoreFile,
		ExpirationTime: time.Hour,
		MaxCapacity:    2147483647,
		CacheSize:      52428800,
	}, cfg, "a session cluster's defaults are Flink's")

	cfg, err = jobStoreOptions(map[string]string{
		KeyJobStoreType:           "mEmOrY",
		KeyJobStoreExpirationTime: "60",
		KeyJobStoreMaxCapacity:    " 5 ",
		KeyJobStoreCacheSize:      "0",
	})
	require.NoError(t, err)
	assert.Equal(t, dispatcher.JobStoreConfig{
		Type:           dispatcher.JobStoreMemory,
		ExpirationTime: time.Minute,
		MaxCapacity:    5,
		CacheSize:      0,
	}, cfg)

	cfg, err = jobStoreOptions(map[string]string{KeyJobStoreType: "file"})
	require.NoError(t, err)
	assert.Equal(t, dispatcher.JobStoreFile, cfg.Type, "Flink parses enums in any case")
}

func TestJobStoreOptionsRefused(t *testing.T) {
	for conf, want := range map[[2]string]string{
		{KeyJobStoreType, "Disk"}:                     "Could not parse value 'Disk' for key 'jobstore.type'. Caused by: Could not parse value for enum class org.apache.flink.configuration.JobManagerOptions$JobStoreType. Expected one of: [[File, Memory]]",
		{KeyJobStoreExpirationTime, "1h"}:             "Could not parse value '1h' for key 'jobstore.expiration-time'.",
		{KeyJobStoreExpirationTime, "0"}:              "the expiration time must be larger than 0",
		{KeyJobStoreExpirationTime, "-5"}:             "the expiration time must be larger than 0",
		{KeyJobStoreMaxCapacity, "-1"}:                "the maximum capacity must not be negative",
		{KeyJobStoreMaxCapacity, "2147483648"}:        "Could not parse value '2147483648' for key 'jobstore.max-capacity'.",
		{KeyJobStoreMaxCapacity, "many"}:              "Could not parse value 'many' for key 'jobstore.max-capacity'.",
		{KeyJobStoreCacheSize, "50mb"}:                "Could not parse value '50mb' for key 'jobstore.cache-size'.",
		{KeyJobStoreCacheSize, "-1"}:                  "the cache size must not be negative",
		{KeyJobStoreExpirationTime, "99999999999999"}: "the expiration time is too long",
	} {
		_, err := jobStoreOptions(map[string]string{conf[0]: conf[1]})
		assert.ErrorContains(t, err, want, "%s=%s", conf[0], conf[1])
	}
}

// A JobManager with a wrong jobstore.* option does not start.
func TestASessionClusterRefusesAWrongJobStoreOption(t *testing.T) {
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir:    t.TempDir(),
		Configuration: map[string]string{KeyJobStoreMaxCapacity: "-1"},
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	err := jm.Start()
	assert.ErrorContains(t, err, "Could not parse value '-1' for key 'jobstore.max-capacity'.")
}
