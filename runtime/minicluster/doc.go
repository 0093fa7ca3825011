// Package minicluster runs a whole Flink cluster in one process: one
// JobManager side (Dispatcher, ResourceManager, BlobServer) and N
// TaskExecutors with M slots each, connected by the in-process RPC service.
// It is the embedded default of flinklab: `make run` and the tests use it.
//
// It mirrors Flink's MiniCluster (org.apache.flink.runtime.minicluster),
// which Flink's own tests and IDE runs use. As in Flink, nothing in it is
// a mock: the components are the same ones a distributed cluster runs, the
// JobGraphStore and the BLOBs are real files in a working directory, and
// data between tasks goes through real result partitions.
//
// # Starting and stopping
//
//	cluster, err := minicluster.New(minicluster.Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2})
//	if err := cluster.Start(); err != nil { ... }
//	defer cluster.Close()
//
//	jobID, err := cluster.SubmitJob(ctx, jobGraph)   // step m3 and what follows
//	result, err := cluster.RequestJobResult(ctx, jobID)
//
// Start brings the services up in Flink's order: the BlobServer, the
// ResourceManager (with its SlotManager), the Dispatcher, then the
// TaskExecutors, which register at the ResourceManager on their own. Close
// stops them in reverse order; it returns once every goroutine the cluster
// started has ended.
//
// The trace of every job (steps m3…m11) is kept in Trace().
package minicluster
