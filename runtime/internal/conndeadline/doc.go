// Package conndeadline keeps the read deadline of one connection a server
// accepted, for the servers that read frames from a peer: the RPC
// service (package rpc) and the PartitionRequestServer (package network).
// The BlobServer reads one request per connection and needs none of this.
//
// A connection is in one of two phases, and its read deadline follows:
//
//	phase            deadline
//	accepted         read timeout from the accept (TLS handshake and first frame)
//	in a frame       read timeout from the frame's first byte
//	between frames   idle timeout, or none while work is in flight
//
// In a frame: once the first byte of a frame has arrived, the whole frame
// must arrive within the read timeout. A peer that sends half a frame and
// stops is closed then, instead of holding the connection (and what was
// read of the frame) for ever. A freshly accepted connection counts as
// being in its first frame from the moment it was accepted: a client
// dials because it has something to send, so its TLS handshake and first
// frame come at once.
//
// Between frames: a connection that sends nothing for the idle timeout is
// closed, unless work is in flight on it (BeginWork): an RPC call still
// running, whose caller waits for the answer on this connection, or a
// subpartition a consumer reads through it, which may stay silent for as
// long as its producer has no data. Such a connection has no read
// deadline at all; when the last work ends, the idle timeout counts from
// then. (A peer that dies meanwhile is found by TCP keep-alive, which Go
// turns on for every accepted connection.)
//
// The read loop of the connection calls FrameStarted and AwaitFrame; any
// goroutine may call BeginWork and EndWork. A read that passes the
// deadline fails with an error wrapping os.ErrDeadlineExceeded; the read
// loop knows from where it was which timeout that was, and logs it
// (connlimit.Log, which writes such lines at most once a minute each).
//
// Differs from Flink: Flink's Pekko and Netty servers close neither idle
// connections nor half-sent frames (Netty's IdleStateHandler is not in
// Flink's pipelines); TCP keep-alive and the peers' own heartbeats are
// all there is. These deadlines are ours.
package conndeadline
