package entrypoint

import (
	"fmt"
	"log/slog"
	"net"

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

// checkHostPort rejects an address that is not host:port.
func checkHostPort(option, address string) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil || host == "" || port == "" {
		return fmt.Errorf("%s: %q is not an address of the form HOST:PORT", option, address)
	}
	return nil
}
