package component

import (
	"context"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/rest"
	"flinklab/runtime/rpc"
)

// leaderResourceManager is the ResourceManager as the REST endpoint of a
// highly available JobManager sees it: the one that leads now, in this
// process or in another (Flink's resourceManagerRetriever of the
// WebMonitorEndpoint). A standby's own ResourceManager does not lead and
// knows no TaskManagers; /taskmanagers and /overview must answer as the
// leader's do.
type leaderResourceManager struct {
	*gateway.LeaderGatewayRetriever[gateway.ResourceManagerGateway]
}

var _ rest.ResourceManagerGateway = (*leaderResourceManager)(nil)

func newLeaderResourceManager(rpcService rpc.Service, retrieval highavailability.LeaderRetrievalService) (*leaderResourceManager, error) {
	retriever, err := gateway.NewLeaderGatewayRetriever(retrieval,
		func(ctx context.Context, address string, _ api.LeaderSessionID) (gateway.ResourceManagerGateway, error) {
			return rpc.Connect[gateway.ResourceManagerGateway](ctx, rpcService, address)
		})
	if err != nil {
		return nil, err
	}
	return &leaderResourceManager{retriever}, nil
}

func (r *leaderResourceManager) RequestResourceOverview(ctx context.Context) (gateway.ResourceOverview, error) {
	rm, err := r.Gateway(ctx)
	if err != nil {
		return gateway.ResourceOverview{}, err
	}
	return rm.RequestResourceOverview(ctx)
}

func (r *leaderResourceManager) RequestTaskManagerInfo(ctx context.Context) ([]gateway.TaskManagerInfo, error) {
	rm, err := r.Gateway(ctx)
	if err != nil {
		return nil, err
	}
	return rm.RequestTaskManagerInfo(ctx)
}
