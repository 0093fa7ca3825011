// Package api holds the small vocabulary every other package shares: the
// identifiers that travel between components (JobID, ResourceID,
// AllocationID, ExecutionAttemptID, ...), the two lifecycles that a learner
// meets in every log line (JobStatus and ExecutionState), and the
// ResourceProfile that slots are made of and matched by.
//
// It mirrors several small corners of Flink that every component imports:
//
//	org.apache.flink.api.common.JobID, JobStatus
//	org.apache.flink.runtime.execution.ExecutionState
//	org.apache.flink.runtime.clusterframework.types.{ResourceID, AllocationID, SlotID, ResourceProfile}
//	org.apache.flink.runtime.executiongraph.ExecutionAttemptID
//	org.apache.flink.runtime.jobgraph.{JobVertexID, IntermediateDataSetID, IntermediateResultPartitionID}
//
// The package imports nothing else of ours but configuration (for
// MemorySize, the amounts of a ResourceProfile), which imports nothing of
// ours, so any package may depend on it.
//
// # Identifiers
//
// Most Flink identifiers are an AbstractID: 16 random bytes printed as 32
// lower-case hex characters (fd72014d4c864993a2e5a9287b4a9c5d). JobID,
// JobVertexID, AllocationID and friends are distinct Go types around the same
// representation, so a JobID cannot be passed where an AllocationID is
// expected. Every identifier prints as Flink prints it with every fmt verb,
// %#v included (GoString), and is kept as its 32 characters, so that a
// failed test's diff shows it that way too.
// ExecutionAttemptID is composite, as in Flink 1.16 and later: it names the
// ExecutionGraph, the vertex, the subtask and the attempt number, and prints
// them joined by underscores.
//
// # Lifecycles
//
// JobStatus and ExecutionState carry Flink's exact names (note CANCELLING
// for jobs but CANCELING for tasks). Every legal move is listed in one table
// per lifecycle; CheckJobTransition and CheckExecutionTransition are the one
// place an illegal move is rejected. The state machines in executiongraph and
// taskmanager call them on every transition.
//
// The tables hold the moves Flink's code makes (Flink 1.18–1.20), not only
// those its diagrams draw: a very fast task finishes from DEPLOYING, a task
// is CANCELED from RUNNING without CANCELING, a FAILING job can be
// cancelled. ExecutionState's doc lists each place where Flink's Javadoc
// diagram and its code differ; JobStatus's doc says which method of
// DefaultExecutionGraph makes each move.
package api
