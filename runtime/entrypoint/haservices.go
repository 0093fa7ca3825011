package entrypoint

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"flinklab/runtime/blob"

	"flinklab/runtime/highavailability"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/rpc"
)

// haType is high-availability.type as the JobManager's configuration
// lists it: NONE (the default) or ZOOKEEPER.
func haType(conf map[string]string) string {
	if t := strings.TrimSpace(conf[zookeeper.KeyHighAvailabilityType]); t != "" {
		return strings.ToUpper(t)
	}
	return "NONE"
}

// createHaServices makes the HA services high-availability.type asks for
// (Flink's HighAvailabilityServicesUtils#createHighAvailabilityServices):
//
//   - NONE: StandaloneHaServices. The leaders' addresses are fixed: the
//     ResourceManager and the Dispatcher serve under these names in this
//     process's RPC service, and every election is won at once.
//   - ZOOKEEPER: the ZooKeeper services (package zookeeper). The process
//     enters the election with its first contender and leads only while
//     its latch node is the lowest; the JobGraphs and the job results are
//     kept in high-availability.storageDir.
//
// close ends what the services hold (the ZooKeeper session).
func createHaServices(conf map[string]string, rpcService *rpc.TCPService, logger *slog.Logger) (highavailability.Services, func(), error) {
	switch haType(conf) {
	case "NONE":
		return highavailability.NewStandaloneHaServices(
			rpcService.Address(resourcemanager.EndpointName), rpcService.Address(dispatcherEndpointName)), func() {}, nil
	case "ZOOKEEPER":
		cfg, err := zookeeper.ConfigFromConfiguration(conf)
		if err != nil {
			return nil, nil, err
		}
		ha, err := zookeeper.NewHaServices(cfg, strings.TrimSpace(conf[zookeeper.KeyStorageDir]), logger)
		if err != nil {
			return nil, nil, err
		}
		return ha, ha.Close, nil
	}
	return nil, nil, fmt.Errorf("Could not create the high-availability services: unknown %s '%s' (want NONE or ZOOKEEPER; KUBERNETES is not supported here).",
		zookeeper.KeyHighAvailabilityType, conf[zookeeper.KeyHighAvailabilityType])
}

// createBlobStore is Flink's BlobUtils#createBlobStoreFromConfig: with
// ZooKeeper HA, the BlobServer copies every jar to
// <high-availability.storageDir>/<cluster-id>/blob, where the next leader's
// BlobServer finds the jars of the jobs it recovers. Without HA there is
// none (Flink's VoidBlobStore): a jar lives on the JobManager's disk only.
func createBlobStore(conf map[string]string) (blob.BlobStore, error) {
	if haType(conf) != "ZOOKEEPER" {
		return nil, nil
	}
	cfg, err := zookeeper.ConfigFromConfiguration(conf)
	if err != nil {
		return nil, err
	}
	storageDir := strings.TrimSpace(conf[zookeeper.KeyStorageDir])
	if storageDir == "" {
		return nil, fmt.Errorf("Configuration is missing the mandatory parameter: %s", zookeeper.KeyStorageDir)
	}
	return blob.NewFileSystemBlobStore(filepath.Join(storageDir, strings.Trim(cfg.ClusterID, "/"), "blob"))
}
