// Package registration connects one component to another and keeps trying
// until it works: the JobMaster registering at the ResourceManager (step
// m5) and the TaskExecutor registering at the ResourceManager both use it.
//
// It mirrors Flink's org.apache.flink.runtime.registration.RetryingRegistration
// and its retry rules, configured by the cluster.registration.* options:
//
//   - Each attempt waits for its answer for a timeout, starting at
//     InitialTimeout (100 ms). An attempt that times out is retried at once
//     with double the timeout, up to MaxTimeout (30 s).
//   - A Failure answer (the target cannot accept the registration now)
//     waits RefusedDelay (30 s) and starts over from InitialTimeout.
//   - Any other error (the target is unreachable, say) waits ErrorDelay
//     (10 s) and starts over.
//   - A Rejection ends the registration for good.
//
// The JobMaster retries forever, as in Flink; the TaskExecutor's overall
// deadline (taskmanager.registration.timeout) sits on top of this.
//
// A Registration runs its attempts on its owner's main thread: attempts are
// sent with rpc.Ask and their answers come back as mailbox messages, so the
// owner never blocks while it waits for the target.
package registration
