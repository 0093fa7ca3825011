// Package remote holds the client stubs of the runtime's gateways: what a
// component holds when the component it talks to lives in another process.
//
// Each stub is a small struct around an rpc.Invoker whose methods send the
// call over TCP, one line each:
//
//	func (s taskExecutorStub) CancelTask(ctx context.Context, attemptID api.ExecutionAttemptID) error {
//		return s.inv.Call(ctx, "CancelTask", attemptID)
//	}
//
// The package registers them with rpc.RegisterStub in its init function,
// so rpc.Connect[gateway.TaskExecutorGateway] on an rpc.TCPService gives a
// stub for a remote address, and the TCPService that serves a TaskExecutor
// lets peers call exactly the TaskExecutorGateway's methods on it. A
// process that talks RPC over TCP imports this package for that effect:
//
//	import _ "flinklab/runtime/gateway/remote"
//
// It also registers the codec of the one gateway argument that
// encoding/json cannot carry by itself: the JobGraph, written with
// jobgraph.Encode and read with jobgraph.Decode, as POST /jobs and the
// JobGraphStore write it.
//
// Nothing here decides anything: the remote side runs the very method a
// stub names, on the real component, with the caller's ctx deadline.
//
// Differs from Flink: Flink's RpcService.connect makes these at run time,
// as java.lang.reflect.Proxy objects whose PekkoInvocationHandler turns a
// call into a RemoteRpcInvocation. Go cannot make an implementation of an
// interface at run time, so they are written out; a compile-time check per
// stub keeps them in step with the gateways.
package remote
