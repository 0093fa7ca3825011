// Package connlimit holds what the three servers the processes of a
// cluster open to each other share about the connections they accept:
// the RPC service (package rpc), the BlobServer (package blob) and the
// PartitionRequestServer (package network). Anyone on the network can
// open a connection to them, so each bounds what connections may cost:
//
//   - Slots bounds the connections served at once. The accept loop takes a
//     slot before it accepts the next connection, and a connection gives
//     its slot back once it is served. At the bound the accept loop waits,
//     and new connections wait in the operating system's listen backlog,
//     where they cost the process nothing, until one closes.
//   - Slots.Accept accepts the next connection, and when the listener
//     fails for a reason that passes (the process out of file
//     descriptors), tries again after a pause that grows from 5 ms to
//     1 s, as net/http's Server does: a server that ran short of
//     descriptors for a moment serves again once some are free.
//   - Handshake runs the TLS handshake of a connection under the read
//     deadline the server set when it accepted it (package
//     internal/conndeadline for the RPC service and the
//     PartitionRequestServer), so a peer that never completes it cannot
//     hold its slot.
//   - Log writes the lines a server logs about single connections (a
//     failed TLS handshake, no request, an idle connection closed) and
//     the line that all slots are taken, at most one of each kind a
//     minute. A port scan opens thousands of connections; without the
//     limit each would cost a log line, and the lines the disk.
//
// A server's accept loop:
//
//	for {
//		if !slots.Acquire() {
//			return // Close was called
//		}
//		conn, err := slots.Accept(listener, "The RPC service at …")
//		...
//		go func() {
//			defer slots.Release()
//			serve(conn) // Handshake first, then the requests
//		}()
//	}
//
// Differs from Flink: Flink's BlobServer bounds its connections
// (blob.fetch.num-concurrent) the same way, and logs each failed
// connection; its Pekko and Netty servers bound none. The rate limit of
// the log lines is ours.
package connlimit
