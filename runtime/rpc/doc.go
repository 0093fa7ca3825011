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
// # Lifecycle
//
// An Endpoint is created, started and stopped, once each. Start launches
// the main thread; its onStart (Flink's onStart) goes to the head of the
// mailbox, so it runs before any message that was sent before Start. Stop
// puts onStop and the end of the main thread behind the messages already
// waiting; everything sent later is dropped. Start and Stop may race, and
// either may be called again: the first Stop decides, and an endpoint
// stopped before it was started simply never runs. Close is Stop followed
// by waiting for Terminated.
//
// Messages enter the mailbox three ways:
//
//   - CallAsync, used by gateway methods: a caller on any goroutine runs a
//     function on the main thread and waits for its result. The caller's ctx
//     deadline is the RPC timeout (Flink's @RpcTimeout).
//   - RunAsync: fire and forget (Flink's runAsync).
//   - ScheduleRunAsync: run later, after a delay (Flink's scheduleRunAsync);
//     every timeout in the runtime is built on it. Its cancel function,
//     called on the main thread, is final: a timer that has already fired
//     leaves its function in the mailbox, and that function checks that it
//     was not cancelled before it runs.
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
// Asks do not wait for each other, so two of them may reach the peer in
// either order. When the order matters (a task's state changes, a
// JobMaster's requirement declarations), AskInOrder sends them on a lane:
// one goroutine per busy lane runs the calls in a loop, each after the
// previous one was answered, and the answers come back to the main thread
// in the same order.
//
// # Who sent this message? Causal traces
//
// A handler's stack begins at the mailbox loop: it does not show who sent
// the message. RecordCauses turns on causal traces, the async stack
// traces of debuggers, for the whole process: each hand-over this package
// makes (a message into a mailbox, an Ask's call on its goroutine, work
// started with Go) remembers the stack that made it, joined to the cause
// of that stack in turn. The course's reading exercises use them to know
// the way a run really took across mailboxes (causes.go). Off, they cost
// one atomic load per hand-over.
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
// endpoints in one process (the MiniCluster). Addresses look like Flink's
// Pekko paths, e.g. "pekko://flink/user/rpc/resourcemanager_0".
//
// # Between processes: TCPService
//
// TCPService (tcp.go) implements the same Service over TCP, with remote
// Pekko addresses such as
// "pekko.tcp://flink@127.0.0.1:6123/user/rpc/resourcemanager_0". The
// gateway interfaces do not change; what a caller holds for a remote
// endpoint is a stub (stub.go, and package gateway/remote for the
// gateways' stubs) that sends each call as a request frame and waits for
// the response:
//
//	caller ── stub.RegisterTaskExecutor(ctx, …) ── Invoker ── clientConn ══ TCP ══ serverConn ── ResourceManager.RegisterTaskExecutor(ctx, …)
//	                                                 one connection per peer,      one goroutine per call,
//	                                                 calls matched by request ID   ctx deadline = the caller's
//
// The parts, each in a file of its own:
//
//   - tcpframe.go: the wire format, length-prefixed JSON frames, and the
//     frame size limit;
//   - tcpclient.go: the calling side, with Flink's errors for a call that
//     timed out (ErrTimeout) or could not be delivered
//     (ErrRecipientUnreachable);
//   - tcpserver.go: the serving side, which finds the method a request
//     names by reflection, and closes a connection that breaks the
//     protocol;
//   - wireerror.go: errors on the wire, so that errors.Is and errors.As
//     still work at the caller for the registered errors
//     (RegisterError, RegisterErrorType). Package gateway registers every
//     error that may cross processes, this package's among them.
//
// # Limits
//
// A TCPService listens on a port any process on the network may reach, so
// what a peer sends is bounded (TCPConfig; package entrypoint reads the
// options):
//
//	limit            key                        default  what it bounds
//	connect timeout  pekko.tcp.timeout          20 s     dialling a peer, TLS handshake included (Flink's)
//	read timeout     pekko.tcp.read-timeout     20 s     a frame: the first from the accept, each later one from its first byte (ours)
//	idle timeout     pekko.tcp.idle-timeout     5 min    an incoming connection that brings no frame while none of its calls runs (ours)
//	connections      pekko.tcp.max-connections  1000     incoming connections served at once (ours)
//	frame size       DefaultMaxFrameSize        64 MiB   one frame, either way (Flink's pekko.framesize is 10 MiB)
//
// A frame's body is read as it arrives, into a buffer that grows with
// the bytes that came and ends at exactly the frame's size: a peer that
// announces 64 MiB and sends a few bytes costs those bytes, and the read
// timeout closes it.
//
// The idle timeout is the server's, but the client closes first. A
// connection between a JobManager and a TaskManager carries heartbeats
// both ways every heartbeat.interval (10 s), and a call that runs long
// (RequestJobResult) keeps its connection from being idle; but a
// connection can fall silent while both ends live, say a TaskManager's
// connection to a JobMaster whose job ended, and be used again later. Had
// the server closed it, a call sent just as it did would be lost on the
// way and fail with ErrRecipientUnreachable, which nothing retries. So,
// as an HTTP client does, the calling side closes an outgoing connection
// itself once it has been idle (no call in flight, nothing received) for
// half its IdleTimeout, and the next call dials a new one. With the same
// pekko.tcp.idle-timeout on both sides, as in a cluster that shares one
// configuration, the server's idle close only ever meets connections
// their client has forgotten (a process that died without closing them).
//
// Over the bound, a new connection is not refused: the service stops
// accepting, and it waits in the operating system's listen backlog until
// a connection closes. Each TaskManager holds one connection to the
// JobManager's RPC service, so pekko.tcp.max-connections bounds the size
// of the cluster too: the 1001st TaskManager with the default waits in
// the backlog until another connection closes: its calls time out (with
// TLS, its handshake fails at pekko.tcp.timeout) and it keeps retrying
// its registration.
// Raise the option for a larger cluster; the service warns, once a
// minute at most, while it is at the bound.
//
// Each limit logs a line when it closes a connection ("Closing connection
// from …: it was idle for 5m0s (pekko.tcp.idle-timeout)."). Anyone who
// reaches the port can make such lines, a port scan by the thousand, so
// the service writes at most one of each kind a minute, and the next one
// says how many it left out ("suppressed"; package internal/connlimit).
//
// With ServerTLS and ClientTLS set (Flink's security.ssl.internal.*, made
// by package security) every connection is mutual TLS: a peer without a
// certificate of the cluster, or one that speaks plaintext, fails the
// handshake, which runs under the read timeout, and is closed before it
// can send a request.
//
// Differs from Flink: Pekko closes neither idle connections nor stalled
// frames, and bounds no connections; the read timeout, the idle timeout
// (and the client's idle close before it) and the bound are ours
// (packages internal/conndeadline and internal/connlimit).
//
// Fencing tokens are ordinary arguments, so they cross the wire with the
// call; the receiving FencedEndpoint refuses a stale one, and the caller
// gets ErrFencingTokenMismatch as it would in one process.
//
// Differs from Flink: there is no actor system. An in-process "RPC" is a
// closure put into the receiver's mailbox, and the gateway a caller holds is
// the component itself, whose exported methods do that. Between processes
// there is no Pekko remoting either: one TCP connection per peer carries
// JSON frames, and the stubs are written by hand where Flink makes dynamic
// proxies.
package rpc
