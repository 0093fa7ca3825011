package entrypoint

import (
	"errors"
	"fmt"
	"log/slog"
	"net"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/gateway"
	"flinklab/runtime/network"
)

// What crosses between a JobManager process and a TaskManager process,
// and over what:
//
//	what                         from → to                                     carried by
//	RPC calls (every gateway)    any component → any other                     rpc.TCPService (jobmanager.rpc.port; a TaskManager's: a free port)
//	BLOBs: the job's jar (m10)   BlobServer (JobManager) → BlobCache (TM)      the BlobServer's listener and blob.TCPSource (blob.server.port, 6124)
//	records                      ResultPartition (TM a) → InputGate (TM b)     network.PartitionRequestServer and remote input channels
//	                                                                           (taskmanager.data.port: a free port)
//
// The functions below make the TaskManager's ends of the last two, and
// check that a task's inputs can be reached at all.

// DefaultBlobServerPort is blob.server.port in a standalone cluster.
//
// A TaskExecutor learns where the BlobServer is from its registration at
// the ResourceManager (the ClusterInformation of the registration's
// answer), as in Flink. Until then, and for good when
// TaskManagerConfig.BlobServerAddress is given, its BlobCache downloads
// from the JobManager's host and this port.
//
// Differs from Flink: Flink's default is 0, a free port; 6124 is the port
// of Flink's Docker and Kubernetes setups.
const DefaultBlobServerPort = "6124"

// newBlobSource returns where the BlobCache of a TaskManager process
// downloads jars: the BlobServer at blobServerAddress, over TCP (Flink's
// BlobClient), with the client's timeouts and TLS in cfg. An empty address
// is a BlobServer not known yet, which the TaskExecutor learns when it
// registers at the ResourceManager; the cache then connects to it with the
// same cfg, which it is given too (blob.CacheConfig.TCPSource).
func newBlobSource(blobServerAddress string, cfg blob.TCPSourceConfig) blob.Source {
	return blob.NewTCPSource(blobServerAddress, cfg)
}

// dataPlane is a TaskManager's data plane: the environment its tasks
// write partitions and read input gates in, and the server that hands
// its partitions to consumers in other processes.
type dataPlane struct {
	shuffle *network.ShuffleEnvironment
	server  *network.PartitionRequestServer
}

// newDataPlane starts a TaskManager's data plane, its
// PartitionRequestServer listening on host, on a free port (Flink's
// taskmanager.data.port, 0 by default). The TaskExecutor advertises the
// server's address; a gate reads a partition produced at that address
// in-process, and any other over TCP. BLOCKING partitions are written
// under tmpDir (Flink: a flink-netty-shuffle-… directory under
// io.tmp.dirs), which goes with the TaskManager's working directory.
//
// The server and the environment's connections to other processes take
// their limits and TLS from listeners.
func newDataPlane(host, tmpDir string, listeners listenerOptions, logger *slog.Logger) (*dataPlane, error) {
	partitions := network.NewResultPartitionManager()
	serverCfg := listeners.dataServer
	serverCfg.Address, serverCfg.Logger = net.JoinHostPort(host, "0"), logger
	server, err := network.NewPartitionRequestServer(partitions, serverCfg)
	if err != nil {
		return nil, err
	}
	shuffle, err := network.NewShuffleEnvironment(network.Config{PartitionManager: partitions, DataAddress: server.Address(), TmpDir: tmpDir,
		ConnectTimeout: listeners.dataClientConnectTimeout, ClientTLS: listeners.dataClientTLS})
	if err != nil {
		return nil, errors.Join(err, server.Close())
	}
	return &dataPlane{shuffle: shuffle, server: server}, nil
}

// address is the data address the TaskExecutor advertises.
func (d *dataPlane) address() string { return d.server.Address() }

// close closes the connections to other processes' servers, then this
// one: consumers still reading from it fail.
func (d *dataPlane) close() error {
	d.shuffle.Close()
	return d.server.Close()
}

// checkInputsReachable refuses, at step m9, a task of TaskManager self
// that reads a partition another TaskManager produces without knowing
// that TaskManager's data address: its input gate would take the
// partition for one of this process, and wait for it forever.
func checkInputsReachable(tdd gateway.TaskDeploymentDescriptor, self api.ResourceID) error {
	for _, gate := range tdd.InputGates {
		for _, sd := range gate.ShuffleDescriptors {
			if sd.ProducerLocation != self && sd.DataAddress == "" {
				return fmt.Errorf("Task %s (%d/%d) of job %s cannot read partition %s of TaskManager %s: %w",
					tdd.TaskInfo.TaskName, tdd.SubtaskIndex()+1, tdd.TaskInfo.NumberOfSubtasks, tdd.JobID,
					sd.ResultPartitionID, sd.ProducerLocation, gateway.ErrNoDataAddress)
			}
		}
	}
	return nil
}
