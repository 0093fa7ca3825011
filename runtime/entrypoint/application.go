package entrypoint

import (
	"context"
	"errors"
	"fmt"
	"os"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/dispatcher"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/trace"
)

// Application is the program an application cluster runs: a job jar, the
// arguments of its program and the job's default parallelism (0: the
// program's own). Flink's standalone-job.sh takes the same: the job's
// entry class, found in the jars on the class path, and its arguments.
type Application struct {
	JarFile     string
	Args        []string
	Parallelism int
}

// NewStandaloneApplicationClusterEntryPoint returns an application cluster
// that is not started (Flink's StandaloneApplicationClusterEntryPoint,
// what standalone-job.sh starts).
//
// Once the cluster serves, Start runs the application inside the
// JobManager, as Flink's ApplicationDispatcherBootstrap does: it plans
// the program (StreamGraph → JobGraph), stores the jar on the BlobServer
// and submits the job to the Dispatcher, with no client in between. When
// the job reaches a globally terminal state, Done closes, the status is
// the job's ApplicationStatus, and the process is meant to shut down and
// exit with ExitCode. Until then the REST endpoint serves as in a
// session, except that it takes no other job (Flink's MiniDispatcher,
// which runs only the jobs it was started with).
//
// Differs from Flink: the JobID is random; Flink's application mode may
// fix it (ZERO_JOB_ID, or one derived from the cluster ID under HA) so
// that a restarted JobManager recovers the same job.
func NewStandaloneApplicationClusterEntryPoint(cfg Config, app Application) *ClusterEntrypoint {
	return newClusterEntrypoint("StandaloneApplicationClusterEntryPoint", cfg, &app)
}

// runApplication submits the application's job and watches it until it
// ends.
func (e *ClusterEntrypoint) runApplication() error {
	g, err := e.applicationJobGraph()
	if err != nil {
		return fmt.Errorf("the application could not be planned: %w", err)
	}
	d := e.clusterComponent.Dispatcher()
	ctx := trace.WithCaller(context.Background(), "Application")
	if err := d.SubmitJob(ctx, g); err != nil {
		return err
	}
	e.log.Info(fmt.Sprintf("Job '%s' (%s) of the application is submitted.", g.Name, g.JobID))

	watchCtx, stop := context.WithCancel(context.Background())
	e.stopWatching = stop
	e.watcher.Go(func() {
		result, err := d.RequestJobResult(watchCtx, g.JobID)
		if err != nil {
			return // the cluster is being closed
		}
		diagnostics := "null"
		if result.FailureCause != "" {
			diagnostics = result.FailureCause
		}
		e.setOutcome(result.ApplicationStatus, diagnostics)
		e.log.Info(fmt.Sprintf("Job %s of the application reached terminal state %s: the application cluster shuts down.",
			g.JobID, result.JobStatus))
		close(e.shutDown)
	})
	return nil
}

// applicationJobGraph plans the application's program and stores its jar
// on the BlobServer, under the job's ID (what a client's upload does in
// a session cluster: step m1, here within the JobManager).
func (e *ClusterEntrypoint) applicationJobGraph() (*jobgraph.JobGraph, error) {
	jar, err := os.ReadFile(e.app.JarFile)
	if err != nil {
		return nil, err
	}
	program, err := client.ReadPackagedProgram(jar)
	if err != nil {
		return nil, err
	}
	parallelism := e.app.Parallelism
	if parallelism <= 0 {
		parallelism = client.ParallelismDefault
	}
	g, err := client.StreamingProgramRunner{}.JobGraph(program, "", e.app.Args, parallelism)
	if err != nil {
		return nil, err
	}
	key, err := e.blobServer.PutPermanentBytes(g.JobID, jar)
	if err != nil {
		return nil, err
	}
	g.UserJarBlobKeys = append(g.UserJarBlobKeys, key)
	return g, nil
}

// applicationDispatcher is the Dispatcher as the REST endpoint of an
// application cluster sees it: everything but SubmitJob, which it
// refuses. The application's own job reaches the Dispatcher directly.
type applicationDispatcher struct {
	gateway.DispatcherGateway
}

// ErrApplicationMode is the cause of a submission an application cluster
// refuses.
var ErrApplicationMode = errors.New("this is an application cluster: it runs the job of its application only, and shuts down when that job ends; submit other jobs to a session cluster")

func (d applicationDispatcher) SubmitJob(_ context.Context, g *jobgraph.JobGraph) error {
	var jobID api.JobID
	if g != nil {
		jobID = g.JobID
	}
	return &dispatcher.JobSubmissionError{JobID: jobID, Message: "Submission is not allowed.", Cause: ErrApplicationMode}
}
