package entrypoint

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/rest"
)

// TestReadRESTOptions: the REST endpoint's -D options reach rest.Config,
// rest's defaults stand for the ones not given, and a wrong value is
// Flink's "Could not parse value" error.
func TestReadRESTOptions(t *testing.T) {
	var cfg rest.Config
	require.NoError(t, readRESTOptions(map[string]string{}, &cfg))
	assert.Equal(t, rest.Config{
		ReadTimeout: rest.DefaultReadTimeout, IdleTimeout: rest.DefaultIdleTimeout,
		MaxUploadSize: rest.DefaultMaxUploadSize, MaxConnections: rest.DefaultMaxConnections,
	}, cfg)

	cfg = rest.Config{}
	require.NoError(t, readRESTOptions(map[string]string{
		"web.access-control-allow-origin": "https://dashboard.example",
		"rest.server.read-timeout":        "10 s",
		"rest.server.idleness-timeout":    "90000",
		"rest.server.max-content-length":  "1048576",
		"rest.server.max-connections":     "16",
	}, &cfg))
	assert.Equal(t, rest.Config{
		AccessControlAllowOrigin: "https://dashboard.example",
		ReadTimeout:              10 * time.Second, IdleTimeout: 90 * time.Second,
		MaxUploadSize: 1 << 20, MaxConnections: 16,
	}, cfg)

	for key, value := range map[string]string{
		"rest.server.read-timeout":       "0",
		"rest.server.idleness-timeout":   "soon",
		"rest.server.max-content-length": "-1",
		"rest.server.max-connections":    "many",
	} {
		err := readRESTOptions(map[string]string{key: value}, &rest.Config{})
		assert.ErrorContains(t, err, "Could not parse value '"+value+"' for key '"+key+"'", key)
	}
}

// TestRESTOptionsAreReadOnceByStart: start reads the REST endpoint's -D
// options once, before anything starts, and keeps what it read; the
// endpoint runs with those values (GET /jobmanager/config lists them, and
// its answers carry the configured Access-Control-Allow-Origin), and
// clusterComponentConfig applies them without parsing the configuration
// again.
func TestRESTOptionsAreReadOnceByStart(t *testing.T) {
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress:        "127.0.0.1:0",
		RESTAddress:       "127.0.0.1:0",
		BlobServerAddress: "127.0.0.1:0",
		WorkingDir:        t.TempDir(),
		Logger:            slog.New(slog.DiscardHandler),
		Configuration: map[string]string{
			"web.access-control-allow-origin": "https://dashboard.example",
			"rest.server.read-timeout":        "10 s",
			"rest.server.max-connections":     "16",
		},
	})
	require.NoError(t, jm.Start())
	t.Cleanup(func() { assert.NoError(t, jm.Close()) })

	resp, err := http.Get("http://" + jm.RESTAddress() + "/jobmanager/config")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "https://dashboard.example", resp.Header.Get("Access-Control-Allow-Origin"))
	var entries []rest.ConfigurationInfoEntry
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&entries))
	options := map[string]string{}
	for _, e := range entries {
		options[e.Key] = e.Value
	}
	assert.Equal(t, "10s", options["rest.server.read-timeout"])
	assert.Equal(t, "16", options["rest.server.max-connections"])
	assert.Equal(t, "30s", options["rest.server.idleness-timeout"], "rest's default")

	// The components' configuration takes the values start read, not a
	// second reading of the configuration, which could fail unseen.
	jm.cfg.Configuration["rest.server.max-connections"] = "many"
	got := jm.clusterComponentConfig().REST
	assert.Equal(t, 16, got.MaxConnections)
	assert.Equal(t, 10*time.Second, got.ReadTimeout)
	assert.Equal(t, "https://dashboard.example", got.AccessControlAllowOrigin)
	assert.Equal(t, jm.cfg.RESTAddress, got.Address)
}
