package entrypoint

import (
	"strings"

	"flinklab/runtime/rest"
)

// The REST endpoint's options. Two are Flink's; the other three are
// flinklab's own, named in Flink's style: Flink's server has no read or
// idle timeout and no bound on its connections.
const (
	// KeyRESTMaxContentLength is Flink's rest.server.max-content-length:
	// the largest request body, in bytes (104857600).
	KeyRESTMaxContentLength = "rest.server.max-content-length"
	// KeyAccessControlAllowOrigin is Flink's
	// web.access-control-allow-origin ("*").
	KeyAccessControlAllowOrigin = "web.access-control-allow-origin"
	// KeyRESTReadTimeout is flinklab's rest.server.read-timeout: the
	// longest wait for the next bytes of a request body (30 s).
	KeyRESTReadTimeout = "rest.server.read-timeout"
	// KeyRESTIdlenessTimeout is flinklab's rest.server.idleness-timeout:
	// how long a keep-alive connection may wait for its next request
	// (30 s). Flink's rest.idleness-timeout is the client's.
	KeyRESTIdlenessTimeout = "rest.server.idleness-timeout"
	// KeyRESTMaxConnections is flinklab's rest.server.max-connections: the
	// connections served at once (128).
	KeyRESTMaxConnections = "rest.server.max-connections"
)

// readRESTOptions reads the REST endpoint's options of conf into cfg, on
// top of rest's defaults, and refuses a wrong one with Flink's "Could not
// parse value" error. start reads them once, before anything starts, into
// ClusterEntrypoint.restOptions; clusterComponentConfig applies them.
func readRESTOptions(conf map[string]string, cfg *rest.Config) error {
	var err error
	if v, ok := conf[KeyAccessControlAllowOrigin]; ok {
		cfg.AccessControlAllowOrigin = strings.TrimSpace(v)
	}
	if cfg.ReadTimeout, err = positiveDurationOption(conf, KeyRESTReadTimeout, rest.DefaultReadTimeout); err != nil {
		return err
	}
	if cfg.IdleTimeout, err = positiveDurationOption(conf, KeyRESTIdlenessTimeout, rest.DefaultIdleTimeout); err != nil {
		return err
	}
	maxContentLength, err := positiveIntOption(conf, KeyRESTMaxContentLength, rest.DefaultMaxUploadSize)
	if err != nil {
		return err
	}
	cfg.MaxUploadSize = int64(maxContentLength)
	cfg.MaxConnections, err = positiveIntOption(conf, KeyRESTMaxConnections, rest.DefaultMaxConnections)
	return err // positiveIntOption: listeneroptions.go
}
