// Package registration connects one component to another and keeps trying
// until it works. It mirrors Flink's
// org.apache.flink.runtime.registration.RetryingRegistration, together with
// the RegisteredRpcConnection that starts it. Three registrations use it:
//
//	JobMaster    ─RegisterJobMaster─►    ResourceManager   (step m5, package jobmaster)
//	TaskExecutor ─RegisterTaskExecutor─► ResourceManager   (package taskexecutor)
//	TaskExecutor ─RegisterTaskManager─►  JobMaster         (the TaskExecutor's job leader service)
//
// # Resolve, then register
//
// A RetryingRegistration first resolves the target's address to its gateway
// (Resolve, usually rpc.Connect), then sends registration attempts to that
// gateway (Invoke) until one succeeds, the target rejects it, or the owner
// cancels it:
//
//	Start ─► resolve ──fails──► "Could not resolve <target> address <addr>, retrying in <ErrorDelay> ms: <cause>"
//	            │                pause ErrorDelay, resolve again
//	            ▼
//	         "Resolved <target> address, beginning registration"
//	         attempt 1 ─timed out─► attempt 2 ─timed out─► attempt 3 ...   (timeout doubles)
//	            │
//	            ├─ Failure ─► pause RefusedDelay ─► attempt 1 (InitialTimeout)
//	            ├─ error   ─► pause ErrorDelay   ─► attempt 1 (InitialTimeout)
//	            ├─ Success ─► OnSuccess(gateway, answer)
//	            └─ Rejection ► OnRejection(err)
//
// # The retry rules
//
// Config holds the cluster.registration.* options; zero fields take Flink's
// defaults (DefaultConfig):
//
//   - Each attempt waits for its answer for a timeout, starting at
//     InitialTimeout (100 ms). An attempt that times out is retried at once
//     with double the timeout, up to MaxTimeout (30 s).
//   - A Failure answer (gateway.ErrRegistrationFailure: the target cannot
//     accept the registration now) waits RefusedDelay (30 s) and starts over
//     from InitialTimeout.
//   - Any other error (the target is unreachable, say) waits ErrorDelay
//     (10 s) and starts over. So does an address that cannot be resolved.
//   - A Rejection (gateway.ErrRegistrationRejected) ends the registration
//     for good.
//
// These rules are the pure function NextAttempt; Classify tells from an
// attempt's error which of them applies. RetryingRegistration only runs
// them. Attempts are numbered as Flink's logs number them, restarting at 1
// after every pause:
//
//	DEBUG Registration at ResourceManager attempt 1 (timeout=100ms)
//	DEBUG Registration at ResourceManager (<addr>) attempt 1 timed out after 100 ms
//	DEBUG Registration at ResourceManager attempt 2 (timeout=200ms)
//	INFO  Registration failure at ResourceManager occurred.
//	INFO  Pausing and re-attempting registration in 30000 ms
//	DEBUG Registration at ResourceManager attempt 1 (timeout=100ms)
//	ERROR Registration at ResourceManager failed due to an error
//	INFO  Pausing and re-attempting registration in 10000 ms
//
// # Who may call what
//
// A RetryingRegistration lives on its owner's main thread: Start and Cancel
// are called there, and OnSuccess and OnRejection run there. Resolve and
// Invoke run on goroutines of rpc.Ask, with a ctx that ends after
// ResolveTimeout or the attempt's timeout, and must not touch the owner's
// fields; their answers come back as mailbox messages, so the owner never
// blocks while it waits for the target. After Cancel, answers still in
// flight are ignored and a pending pause never ends.
//
// # Differs from Flink
//
//   - Flink completes a future with a RetryingRegistrationResult; here the
//     result arrives as OnSuccess or OnRejection on the main thread.
//   - The JobMaster retries forever, as in Flink. The TaskExecutor's overall
//     deadline (taskmanager.registration.timeout, 5 min) is not there yet.
//   - "Could not resolve ..." is always logged at INFO with the cause's
//     message; Flink logs it at DEBUG with the stack trace when DEBUG is on.
package registration
