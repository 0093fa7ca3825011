package zookeeper

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
)

// Flink's keys of the ZooKeeper HA services (HighAvailabilityOptions).
const (
	KeyHighAvailabilityType  = "high-availability.type"
	KeyQuorum                = "high-availability.zookeeper.quorum"
	KeyRoot                  = "high-availability.zookeeper.path.root"
	KeyClusterID             = "high-availability.cluster-id"
	KeyStorageDir            = "high-availability.storageDir"
	KeySessionTimeout        = "high-availability.zookeeper.client.session-timeout"
	KeyConnectionTimeout     = "high-availability.zookeeper.client.connection-timeout"
	KeyTolerateSuspendedConn = "high-availability.zookeeper.client.tolerate-suspended-connections"
)

// Config is how a process reaches ZooKeeper and where its cluster's
// nodes are: under Root + ClusterID, "/flink/default" by default.
type Config struct {
	// Quorum is the ZooKeeper servers, "host:port,host:port".
	Quorum string
	// Root is high-availability.zookeeper.path.root, "/flink".
	Root string
	// ClusterID is high-availability.cluster-id, "/default": the clusters
	// sharing a ZooKeeper each have a namespace of their own.
	ClusterID string
	// SessionTimeout is how long ZooKeeper keeps the session of a process
	// it does not hear from (60 s); ConnectionTimeout how long a process
	// waits for its first connection (15 s).
	SessionTimeout    time.Duration
	ConnectionTimeout time.Duration
	// TolerateSuspendedConnections keeps the leadership through a
	// SUSPENDED connection: only a LOST session revokes it (false: a
	// SUSPENDED connection revokes at once).
	TolerateSuspendedConnections bool
}

// DefaultConfig returns Flink's defaults; Quorum has none.
func DefaultConfig() Config {
	return Config{
		Root:              "/flink",
		ClusterID:         "/default",
		SessionTimeout:    60 * time.Second,
		ConnectionTimeout: 15 * time.Second,
	}
}

// Namespace is the path all of the cluster's nodes are under:
// "/flink/default".
func (c Config) Namespace() string {
	return path.Join("/", c.Root, c.ClusterID)
}

// Servers returns the quorum as a list of host:port.
func (c Config) Servers() []string {
	var servers []string
	for s := range strings.SplitSeq(c.Quorum, ",") {
		if s = strings.TrimSpace(s); s != "" {
			servers = append(servers, s)
		}
	}
	return servers
}

// ConfigFromConfiguration reads the ZooKeeper keys of conf (the -D options
// of a process) over Flink's defaults. A missing quorum is Flink's error.
func ConfigFromConfiguration(conf map[string]string) (Config, error) {
	c := DefaultConfig()
	c.Quorum = strings.TrimSpace(conf[KeyQuorum])
	if len(c.Servers()) == 0 {
		return c, errors.New("No valid ZooKeeper quorum has been specified. You can specify the quorum via the configuration key '" + KeyQuorum + "'.")
	}
	if v, ok := conf[KeyRoot]; ok {
		c.Root = v
	}
	if v, ok := conf[KeyClusterID]; ok {
		c.ClusterID = v
	}
	var err error
	if c.SessionTimeout, err = millis(conf, KeySessionTimeout, c.SessionTimeout); err != nil {
		return c, err
	}
	if c.ConnectionTimeout, err = millis(conf, KeyConnectionTimeout, c.ConnectionTimeout); err != nil {
		return c, err
	}
	if v, ok := conf[KeyTolerateSuspendedConn]; ok {
		if c.TolerateSuspendedConnections, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			return c, fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyTolerateSuspendedConn)
		}
	}
	return c, nil
}

// millis reads a duration given as Flink's int options are, in ms ("2000"),
// or with a unit ("2 s", "2s").
func millis(conf map[string]string, key string, def time.Duration) (time.Duration, error) {
	v, ok := conf[key]
	if !ok {
		return def, nil
	}
	text := strings.TrimSpace(v)
	if n, err := strconv.Atoi(text); err == nil && n > 0 {
		return time.Duration(n) * time.Millisecond, nil
	}
	if d, err := time.ParseDuration(strings.ReplaceAll(text, " ", "")); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key)
}
