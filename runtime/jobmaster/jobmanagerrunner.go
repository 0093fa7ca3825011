package jobmaster

import (
	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
)

// CreateJobManagerRunner creates the JobManagerRunner of one job (Flink's
// JobMasterServiceLeadershipRunnerFactory#createJobManagerRunner): a
// JobMasterServiceLeadershipRunner that, when it is granted leadership
// over the job, creates the job's JobMaster with cfg and deps. The job's
// leader election and the JobResultStore come from deps.HA, and the
// runner logs, traces and injects faults where its JobMaster does.
//
// It is the Dispatcher's JobManagerRunnerFactory in a JobManager process
// (ClusterEntrypoint) and in the MiniCluster alike, so a JobMaster is
// created the same way in both; each of them only decides cfg: its RPC
// timeout (pekko.ask.timeout), how it retries its registration at the
// ResourceManager, its heartbeats and its restart strategy. In Flink,
// too, the MiniCluster and the ClusterEntrypoint reach this factory
// through the same DefaultDispatcherResourceManagerComponentFactory.
//
// Differs from Flink: the factory lives in org.apache.flink.runtime.dispatcher
// there. Here it sits next to the JobMaster it creates, so that the
// MiniCluster need not import the JobManager process's entrypoint.
func CreateJobManagerRunner(g *jobgraph.JobGraph, cfg Config, deps Deps) (jobmanager.JobManagerRunner, error) {
	return jobmanager.NewJobMasterServiceLeadershipRunner(jobmanager.RunnerConfig{
		JobGraph:       g,
		LeaderElection: deps.HA.JobManagerLeaderElection(g.JobID),
		JobResultStore: deps.HA.JobResultStore(),
		JobMasterFactory: func(id api.JobMasterID, onComplete func(*gateway.ArchivedExecutionGraph)) (jobmanager.JobMasterService, error) {
			return New(cfg, deps, g, id, onComplete)
		},
		Logger: cfg.Logger,
		Trace:  deps.Trace,
		Faults: deps.Faults,
	})
}
