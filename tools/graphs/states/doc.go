// Package states knows the AdaptiveScheduler's state machine
// (runtime/scheduler/adaptive): every state with the JobStatus a job shows
// in it, and every transition between them with what causes it. Package
// dot draws it, with the path a real job took highlighted:
//
//	go run ./tools/graphs -adaptive    # adaptive-states.svg
//
// # Where the path comes from
//
// The AdaptiveScheduler logs each move at DEBUG, as Flink's does:
//
//	Transition from state WaitingForResources to CreatingExecutionGraph.
//
// Recorder is a slog.Handler that keeps just those lines. Given as the
// Logger of a MiniCluster, it sees what a Flink user sees with the
// JobManager's log at DEBUG, and reads the path from there: no access to
// the JobMaster or its scheduler is needed. The runtime keeps the same
// moves for its tests (AdaptiveScheduler.Transitions), in the same type,
// adaptive.Transition, which Recorder returns.
//
// # The table
//
// AdaptiveScheduler is written down here, not read from the runtime,
// which keeps its states unexported, as Flink keeps them package-private.
// A test reads the runtime's source and fails when a transition its code
// can make is missing from the table, or the table has one the code
// cannot make; another checks each state's JobStatus against the list in
// the runtime package's documentation.
package states
