package entrypoint

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"

	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/jobmaster/slotpool"
	"flinklab/runtime/registration"
	"flinklab/runtime/resourcemanager"
)

// Flink's defaults for where a JobManager listens.
const (
	// DefaultRPCAddress is jobmanager.rpc.address:jobmanager.rpc.port: the
	// JobManager's RPC service, which TaskManagers connect to.
	DefaultRPCAddress = "localhost:6123"
	// DefaultRESTAddress is rest.address:rest.port: the REST endpoint,
	// which clients (flink run, the web UI, curl) talk to.
	DefaultRESTAddress = "localhost:8081"
	// DefaultTaskManagerRPCAddress is taskmanager.host:taskmanager.rpc.port:
	// a TaskManager's own RPC service, on a free port.
	DefaultTaskManagerRPCAddress = "localhost:0"
)

// dispatcherEndpointName is the name the Dispatcher serves under in the
// JobManager's RPC service (Flink: the dispatcher's endpoint id), the
// counterpart of resourcemanager.EndpointName.
const dispatcherEndpointName = "dispatcher_0"

// Config configures a JobManager process: a session cluster or an
// application cluster. Zero values take Flink's defaults.
type Config struct {
	// RPCAddress is the host:port the JobManager's RPC service listens on
	// (jobmanager.rpc.address and jobmanager.rpc.port), and what the
	// addresses of its endpoints name, so it must be reachable by the
	// TaskManagers. "" means DefaultRPCAddress; port 0 picks a free port
	// (then read it back with RPCAddress).
	RPCAddress string
	// RESTAddress is the host:port of the REST endpoint (rest.address and
	// rest.port). "" means DefaultRESTAddress; port 0 picks a free port.
	RESTAddress string
	// BlobServerAddress is the host:port the BlobServer listens on for the
	// TaskManagers' downloads (blob.server.port). "" means the host of
	// RPCAddress and DefaultBlobServerPort; port 0 picks a free port.
	BlobServerAddress string
	// WorkingDir holds the BlobServer's storage, the JobGraphStore and the
	// uploaded jars (Flink: blob.storage.directory, the job graph store of
	// the HA services, web.upload.dir). "" means a temporary directory
	// that Close removes.
	WorkingDir string
	// LogDir is env.log.dir: the REST endpoint lists and serves its files
	// (GET /jobmanager/logs). "" means none. The entrypoint does not write
	// there itself: the process's log (OpenProcessLog) does.
	LogDir string
	// Configuration holds Flink's configuration options as key → value,
	// as config.yaml or `-D key=value` set them. The JobManager reads
	// pekko.ask.timeout and cluster.registration.* (how its components
	// call others), heartbeat.* (the ResourceManager's and every
	// JobMaster's heartbeats), slotmanager.requirement-check.delay,
	// restart-strategy.* (how every job restarts), slot.request.timeout
	// (how long a job waits for its slots) and jobstore.* (where a
	// session cluster keeps the jobs that ended: jobstore.type,
	// jobstore.expiration-time, jobstore.max-capacity,
	// jobstore.cache-size), the limits of its listeners (pekko.tcp.*,
	// blob.fetch.*, blob.server.*, rest.server.*; see listeneroptions.go
	// and restoptions.go) and security.ssl.internal.* (mutual TLS on its
	// internal connections, package security); other keys are only
	// listed by GET /jobmanager/config. nil means Flink's defaults.
	Configuration map[string]string
	// Logger receives the log lines of every component; nil means
	// slog.Default().
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.RPCAddress == "" {
		c.RPCAddress = DefaultRPCAddress
	}
	if c.RESTAddress == "" {
		c.RESTAddress = DefaultRESTAddress
	}
	if c.BlobServerAddress == "" {
		if host, _, err := net.SplitHostPort(c.RPCAddress); err == nil {
			c.BlobServerAddress = net.JoinHostPort(host, DefaultBlobServerPort)
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// rpcURL is the address of the endpoint name in the RPC service at
// hostPort, as Flink's RpcServiceUtils.getRpcUrl writes it:
// pekko.tcp://flink@HOST:PORT/user/rpc/NAME. A TaskManager builds the
// ResourceManager's address this way from jobmanager.rpc.address and
// jobmanager.rpc.port; the JobManager gets the same string from its own
// TCPService (rpc.TCPService.Address).
func rpcURL(hostPort, name string) string {
	return "pekko.tcp://flink@" + hostPort + "/user/rpc/" + name
}

// resourceManagerURL and dispatcherURL are the fixed addresses of a
// standalone cluster's leaders (see highavailability.StandaloneHaServices).
func resourceManagerURL(jobManagerHostPort string) string {
	return rpcURL(jobManagerHostPort, resourcemanager.EndpointName)
}

func dispatcherURL(jobManagerHostPort string) string {
	return rpcURL(jobManagerHostPort, dispatcherEndpointName)
}

// The keys of Flink's configuration that the processes read from
// Config.Configuration and TaskManagerConfig.Configuration (what
// config.yaml or `-D key=value` sets in Flink). Every other key is kept
// and listed by GET /jobmanager/config, but changes nothing.
const (
	// KeyHeartbeatInterval is heartbeat.interval: how often the
	// ResourceManager and each JobMaster ask for a heartbeat (10 s).
	KeyHeartbeatInterval = "heartbeat.interval"
	// KeyHeartbeatTimeout is heartbeat.timeout: after how long without a
	// heartbeat a peer is declared lost (50 s).
	KeyHeartbeatTimeout = "heartbeat.timeout"
	// KeyHeartbeatRPCFailureThreshold is heartbeat.rpc-failure-threshold:
	// after how many heartbeat RPCs in a row that could not reach a peer
	// it is declared unreachable (2; -1 turns this off).
	KeyHeartbeatRPCFailureThreshold = "heartbeat.rpc-failure-threshold"
	// KeyRequirementCheckDelay is slotmanager.requirement-check.delay: how
	// long the SlotManager waits after a change of the jobs' resource
	// requirements before it matches slots to them (50 ms).
	KeyRequirementCheckDelay = "slotmanager.requirement-check.delay"
	// KeySlotRequestTimeout is slot.request.timeout: how long the slot
	// requests of a job's scheduling round may stay unfulfillable before
	// they fail with NoResourceAvailableException (5 min). It is also the
	// ResourceManager's start-up period, as in a Flink cluster that does
	// not set resourcemanager.standalone.start-up-time.
	KeySlotRequestTimeout = "slot.request.timeout"
	// KeyStandaloneStartUpTime is resourcemanager.standalone.start-up-time:
	// how long a standalone ResourceManager waits for TaskManagers before
	// it fails the requirements no registered TaskManager can serve. Unset
	// (or -1), it is slot.request.timeout.
	KeyStandaloneStartUpTime = "resourcemanager.standalone.start-up-time"
	// KeyAskTimeout is pekko.ask.timeout: how long a component waits for
	// the answer to an RPC it makes (10 s; Flink 1.17 and earlier called
	// it akka.ask.timeout).
	KeyAskTimeout = "pekko.ask.timeout"
	// KeyRegistrationInitialTimeout, KeyRegistrationMaxTimeout,
	// KeyRegistrationErrorDelay and KeyRegistrationRefusedDelay are the
	// cluster.registration.* options: how a JobMaster retries its
	// registration at the ResourceManager, and a TaskExecutor its
	// registrations at the ResourceManager and at its JobMasters (see
	// package registration; 100 ms, 30 s, 10 s, 30 s).
	KeyRegistrationInitialTimeout = "cluster.registration.initial-timeout"
	KeyRegistrationMaxTimeout     = "cluster.registration.max-timeout"
	KeyRegistrationErrorDelay     = "cluster.registration.error-delay"
	KeyRegistrationRefusedDelay   = "cluster.registration.refused-registration-delay"
)

// DefaultAskTimeout is Flink's default for pekko.ask.timeout.
const DefaultAskTimeout = 10 * time.Second

// The restart-strategy.* keys (restart-strategy.type,
// restart-strategy.fixed-delay.attempts, …) are read by
// failover.FromMap; see package failover for them and their defaults.

// heartbeatServices reads the heartbeat.* options, on top of Flink's
// defaults, and checks them (Flink: HeartbeatServices.fromConfiguration).
// Each process reads its own: the JobManager's components (the
// ResourceManager, every JobMaster) and each TaskExecutor watch each
// other with the options of their process, so a cluster's processes
// should all be given the same ones.
func heartbeatServices(conf map[string]string) (heartbeat.HeartbeatServices, error) {
	s := heartbeat.DefaultHeartbeatServices()
	var err error
	if s.Interval, err = durationOption(conf, KeyHeartbeatInterval, s.Interval); err != nil {
		return s, err
	}
	if s.Timeout, err = durationOption(conf, KeyHeartbeatTimeout, s.Timeout); err != nil {
		return s, err
	}
	if v, ok := conf[KeyHeartbeatRPCFailureThreshold]; ok {
		n, convErr := strconv.Atoi(strings.TrimSpace(v))
		if convErr != nil {
			return s, optionError(KeyHeartbeatRPCFailureThreshold, v, convErr)
		}
		s.RPCFailureThreshold = n
	}
	return s, s.Validate()
}

// askTimeout reads pekko.ask.timeout, the RPC timeout of every component
// of the process (Flink: RpcUtils.getDefaultTimeout). It must be
// positive.
func askTimeout(conf map[string]string) (time.Duration, error) {
	return positiveDurationOption(conf, KeyAskTimeout, DefaultAskTimeout)
}

// slotRequestTimeout reads slot.request.timeout (Flink:
// JobManagerOptions.SLOT_REQUEST_TIMEOUT). It must be positive.
//
// Differs from Flink: Flink does not check it; a timeout of 0 there fails
// every scheduling round that does not get its slots at once.
func slotRequestTimeout(conf map[string]string) (time.Duration, error) {
	return positiveDurationOption(conf, KeySlotRequestTimeout, slotpool.DefaultSlotRequestTimeout)
}

// standaloneStartUpPeriod is Flink's
// ConfigurationUtils#getStandaloneClusterStartupPeriodTime:
// resourcemanager.standalone.start-up-time if it is set and not -1,
// otherwise slot.request.timeout.
func standaloneStartUpPeriod(conf map[string]string, slotRequestTimeout time.Duration) (time.Duration, error) {
	if v, ok := conf[KeyStandaloneStartUpTime]; !ok || v == "-1" {
		return slotRequestTimeout, nil
	}
	return positiveDurationOption(conf, KeyStandaloneStartUpTime, slotRequestTimeout)
}

// registrationConfig reads the cluster.registration.* options, on top of
// Flink's defaults (Flink: RetryingRegistrationConfiguration.fromConfiguration).
// Each must be positive.
func registrationConfig(conf map[string]string) (registration.Config, error) {
	cfg := registration.DefaultConfig()
	for _, option := range []struct {
		key   string
		value *time.Duration
	}{
		{KeyRegistrationInitialTimeout, &cfg.InitialTimeout},
		{KeyRegistrationMaxTimeout, &cfg.MaxTimeout},
		{KeyRegistrationErrorDelay, &cfg.ErrorDelay},
		{KeyRegistrationRefusedDelay, &cfg.RefusedDelay},
	} {
		var err error
		if *option.value, err = positiveDurationOption(conf, option.key, *option.value); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// restartStrategy reads the restart-strategy.* options and checks them
// the way every JobMaster will when it builds the job's strategy, so that
// a JobManager with a wrong option does not start rather than fail each
// job. Without restart-strategy.type a job is not restarted (Flink's
// default for a job without checkpointing).
func restartStrategy(conf map[string]string) (failover.Config, error) {
	cfg, err := failover.FromMap(conf)
	if err != nil {
		return cfg, err
	}
	if _, err := failover.NewRestartBackoffTimeStrategy(cfg, false, rand.Float64); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// durationOption reads a duration option: a number of milliseconds, as
// Flink reads heartbeat.interval and heartbeat.timeout ("200"), or a
// number with a unit Go knows ("200 ms", "1s", "1.5s"). Absent, it is
// def.
//
// Differs from Flink: Flink's duration syntax also has "min", "day" and
// the long unit names ("2 minutes"); use "2m" here.
func durationOption(conf map[string]string, key string, def time.Duration) (time.Duration, error) {
	v, ok := conf[key]
	if !ok {
		return def, nil
	}
	text := strings.ReplaceAll(strings.TrimSpace(v), " ", "")
	if ms, err := strconv.ParseInt(text, 10, 64); err == nil {
		if ms < 0 {
			return 0, optionError(key, v, errors.New("a duration must not be negative"))
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(text)
	if err == nil && d < 0 {
		err = errors.New("a duration must not be negative")
	}
	if err != nil {
		return 0, optionError(key, v, err)
	}
	return d, nil
}

// positiveDurationOption is durationOption for an option that must be
// larger than zero.
func positiveDurationOption(conf map[string]string, key string, def time.Duration) (time.Duration, error) {
	d, err := durationOption(conf, key, def)
	if err == nil && d == 0 {
		err = optionError(key, conf[key], errors.New("the duration must be larger than 0"))
	}
	return d, err
}

// optionError is Flink's message for a value that does not parse.
func optionError(key, value string, cause error) error {
	return fmt.Errorf("Could not parse value '%s' for key '%s'. Caused by: %w", value, key, cause)
}
