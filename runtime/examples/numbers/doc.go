// Package numbers is the smallest job that exercises the whole control
// plane: a source of numbers, a map that squares them, and a sink that
// collects the results.
//
//	Source (p) ──ALL_TO_ALL──► Square (p) ──POINTWISE──► Collect (p)
//
// All three vertices share the slot sharing group "default", so the job
// needs p slots, not 3p. The source splits the numbers 1…Count among its
// subtasks and sends each number to the Square subtask n mod p (a hash
// exchange); the squares go straight on to the Collect subtask with the
// same index. With Unbounded set, the source never ends, which is what a
// cancellation test needs.
//
// The invokables register themselves by class name when the package is
// imported, the way a Flink job's classes become loadable once its jar is
// on the class path.
//
// Differs from Flink: these invokables are hand-written tasks working on
// raw records; real jobs are written with the DataStream API, whose
// StreamTasks run operator chains.
package numbers
