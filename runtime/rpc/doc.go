// Package rpc is flinklab's RPC layer: the main-thread model that every
// component of the JobManager and TaskManager is built on.
//
// It mirrors Flink's org.apache.flink.runtime.rpc: RpcEndpoint,
// FencedRpcEndpoint, RpcService and the gateways they expose.
//
// # One goroutine owns each component
//
// The Dispatcher, the ResourceManager, each JobMaster and each TaskExecutor
// embed an Endpoint. An Endpoint runs one goroutine, its main thread, that
// takes messages from a mailbox one at a time. Only the main thread reads or
// writes the component's fields, so components need no locks and a learner can
// read each handler as a plain sequential function.
//
// Messages enter the mailbox three ways:
//
//   - CallAsync, used by gateway methods: a caller on any goroutine runs a
//     function on the main thread and waits for its result. The caller's ctx
//     deadline is the RPC timeout (Flink's @RpcTimeout).
//   - RunAsync: fire and forget (Flink's runAsync).
//   - ScheduleRunAsync: run later, after a delay (Flink's scheduleRunAsync);
//     every timeout in the runtime is built on it.
//
// # A handler never blocks on another endpoint
//
// A handler that needs an answer from another component must not wait for
// it on its main thread: two components waiting on each other would
// deadlock, and a slow peer would freeze every other message. Ask fires the
// call on a fresh goroutine and delivers the answer back to the main thread
// as a new mailbox message. It is Go's spelling of Flink's
//
//	gateway.registerJobMaster(...).thenAcceptAsync(this::handle, getMainThreadExecutor())
//
// # Fencing
//
// Leaders stamp their messages with a fencing token: the leader session ID
// of the JobMaster (api.JobMasterID), the ResourceManager
// (api.ResourceManagerID) or the Dispatcher. A FencedEndpoint accepts a
// fenced call only when the token it carries is its current one, so a
// component that has lost leadership cannot be talked to (and cannot talk
// through a stale gateway) any more. Our gateways take the token as an
// explicit argument, checked before anything else.
//
// # Services and addresses
//
// A Service finds an endpoint by its address. LocalService connects
// endpoints in one process (the MiniCluster); a TCP service joins
// processes. Addresses look like Flink's Pekko paths, e.g.
// "pekko://flink/user/rpc/resourcemanager_0".
//
// Differs from Flink: there is no actor system. An in-process "RPC" is a
// closure put into the receiver's mailbox, and the gateway a caller holds is
// the component itself, whose exported methods do that.
package rpc
