// Package tracediff compares two traces of a job submission, step by step,
// and shows them side by side with the first difference marked. It is what
// `go run ./tools/learn check` uses to lay the steps that did happen in an
// exercise's scenario next to the reference trace of the same scenario, and
// what the predict exercise (r03) uses to lay the learner's prediction next
// to a real run.
//
// # Where traces come from
//
// Every step m1…m11 of a submission emits an event in the runtime (package
// runtime/trace). The exercises' scenario tests write their cluster's
// events to the test log, one line each: TracePrefix, then the event as
// JSON (exercises/internal/scenario). ParseTestOutput reads them back from
// the output of `go test -v` or `go test -json`:
//
//	r03_test.go:42: learn-trace: {"step":"m3","from":"REST","to":"Dispatcher","message":"submitJob 'r03': …",…}
//
// A prediction is written by hand, one message per line, and
// ParsePrediction reads it:
//
//	m3 REST → Dispatcher: the job is checked and persisted
//
// Both give a []Event.
//
// # Comparing
//
// Two events are the same (Same) when they are the same step between the
// same two components, and both happened or both failed. Messages, job IDs
// and times are left out: they differ from run to run, and the order of
// the steps is what a learner has to get right. FirstDifference finds the
// first row where two traces part.
//
// A run's raw order is not the order to compare: tasks that run side by
// side interleave differently from one run to the next, and the same
// wrong answer would part from the reference at another row each time.
// Canonical puts a trace in an order that depends only on what the
// program guarantees (the steps of one task attempt in order, one step's
// events between the same two parties in order, which steps happen and
// how often), so that `learn check` says the same thing for the same
// answer, every run. WriteTraces and ReadTraces keep the reference's
// canonical traces in a file (solutions/ID/traces.txt), so that check
// need not run the reference again.
//
// A prediction (r03) is compared counted: Count folds a trace into its
// distinct messages, each with how often it happened, in the order they
// first happened; FirstCountDifference and DescribeCountDifference find
// and explain the first row where a prediction and a run part, and
// RenderCounts lays them side by side, hiding what happened after it.
//
// # Showing
//
// Render lays two traces side by side as plain text, numbered rows with
// the first difference marked ✗, and a sentence under the table:
//
//	     you predicted                        │ what happened
//	   1 m1  Client → REST                    │ m1  Client → REST: POST /jars/uploa…
//	   …
//	✗  5 m6  JobMaster → ResourceManager      │ m5  JobMaster → ResourceManager: re…  ← first difference
//	   …
//
//	First difference at row 5 — you predicted: m6 JobMaster → ResourceManager; what happened: m5 JobMaster → ResourceManager.
//
// Options name the columns (TitleHappened and TitleReference for `learn
// check`, TitlePredicted and TitleHappened for the predict exercise), set
// the width, cut long traces in the middle around the first difference,
// and turn on colour.
//
// # Keeping the predict exercise honest
//
// VerifyPrediction is what `learn verify` runs for a predict exercise: the
// reference prediction must match the trace of a real run of the
// scenario, and must stop matching when any two neighbouring messages are
// swapped, when any count is one off, and when it is the clean table of
// the submission sequence (CleanSubmission), which anyone can copy.
//
// # Why it imports nothing of the runtime
//
// The learner's copy of the runtime may have holes that panic, or may not
// build at all while an exercise is half done; the tool that explains what
// went wrong must still work. So this package decodes the few fields it
// needs from the trace's JSON itself, and knows TracePrefix by value.
package tracediff
