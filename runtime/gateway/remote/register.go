package remote

import (
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/rpc"
)

func init() {
	rpc.RegisterStub(func(inv *rpc.Invoker) gateway.DispatcherGateway { return dispatcherStub{inv} })
	rpc.RegisterStub(func(inv *rpc.Invoker) gateway.JobMasterGateway { return jobMasterStub{inv} })
	rpc.RegisterStub(func(inv *rpc.Invoker) gateway.JobMasterHeartbeatGateway { return jobMasterStub{inv} })
	rpc.RegisterStub(func(inv *rpc.Invoker) gateway.ResourceManagerGateway { return resourceManagerStub{inv} })
	rpc.RegisterStub(func(inv *rpc.Invoker) gateway.TaskExecutorGateway { return taskExecutorStub{inv} })

	rpc.RegisterCodec(jobgraph.Encode, jobgraph.Decode)
}
