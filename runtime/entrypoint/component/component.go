package component

import (
	"context"
	"errors"

	"flinklab/runtime/dispatcher"
	"flinklab/runtime/jobmanager"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/rest"
)

// DispatcherResourceManagerComponent is the JobManager's three services,
// running: the ResourceManager, the Dispatcher and the REST endpoint
// (Flink's DispatcherResourceManagerComponent). Create returns it started;
// Close stops it.
//
// Its methods are called from the goroutine that owns the cluster (the
// MiniCluster's or the ClusterEntrypoint's), one at a time.
type DispatcherResourceManagerComponent struct {
	resourceManager *resourcemanager.ResourceManager
	jobGraphStore   jobmanager.JobGraphStore
	dispatcher      *dispatcher.Dispatcher
	// dispatcherRunner, with HA services that elect, runs a Dispatcher
	// while the process leads (dispatcher stays nil then).
	dispatcherRunner *dispatcher.Runner
	// leaderGateway is what the REST endpoint sees of the Dispatcher
	// with an election: the leader's, wherever it runs.
	leaderGateway         *dispatcher.LeaderGateway
	leaderResourceManager *leaderResourceManager
	restServer            *rest.Server // nil without Config.REST
}

// Dispatcher returns the component's Dispatcher: with an election, the
// one that runs now, nil while the process does not lead.
func (c *DispatcherResourceManagerComponent) Dispatcher() *dispatcher.Dispatcher {
	if c.dispatcherRunner != nil {
		return c.dispatcherRunner.Leader()
	}
	return c.dispatcher
}

// ResourceManager returns the component's ResourceManager.
func (c *DispatcherResourceManagerComponent) ResourceManager() *resourcemanager.ResourceManager {
	return c.resourceManager
}

// JobGraphStore returns where the Dispatcher persists submitted jobs.
func (c *DispatcherResourceManagerComponent) JobGraphStore() jobmanager.JobGraphStore {
	return c.jobGraphStore
}

// RESTAddress returns the host:port the REST endpoint listens on, or ""
// when the component has none.
func (c *DispatcherResourceManagerComponent) RESTAddress() string {
	if c.restServer == nil {
		return ""
	}
	return c.restServer.Address()
}

// CloseDispatcher stops the first half of the component: the REST
// endpoint, then the Dispatcher, which suspends the jobs still running
// (their JobMasters give their slots back to the ResourceManager). The
// MiniCluster calls it before it closes its TaskExecutors, so that they
// leave while the ResourceManager is still there to hear it; Close calls
// it too. Calling it again does nothing.
func (c *DispatcherResourceManagerComponent) CloseDispatcher() error {
	var errs []error
	if c.restServer != nil {
		errs = append(errs, c.restServer.Close(context.Background()))
		c.restServer = nil
	}
	if c.leaderGateway != nil {
		errs = append(errs, c.leaderGateway.Close(), c.leaderResourceManager.Close())
		c.leaderGateway, c.leaderResourceManager = nil, nil
	}
	if c.dispatcher != nil {
		errs = append(errs, c.dispatcher.Close())
		c.dispatcher = nil
	}
	if c.dispatcherRunner != nil {
		errs = append(errs, c.dispatcherRunner.Close())
		c.dispatcherRunner = nil
	}
	return errors.Join(errs...)
}

// Close stops the component in the reverse order of Create: the REST
// endpoint and the Dispatcher (CloseDispatcher), then the ResourceManager.
// It returns once their goroutines have ended. Closing twice does nothing.
//
// Differs from Flink: Flink's component closes the Dispatcher and the
// ResourceManager at the same time; one after the other keeps the log of
// a shutdown in the same order every time.
func (c *DispatcherResourceManagerComponent) Close() error {
	err := c.CloseDispatcher()
	if c.resourceManager != nil {
		c.resourceManager.Close()
		c.resourceManager = nil
	}
	return err
}
