// Package callgraph checks the answers to reading exercises: call chains
// that a learner traces through the runtime by reading its code.
//
// A reading exercise (exercises/r01, r02, …) names where a path starts
// and where it ends, for example the REST handler of POST /jars/{jarid}/run
// and the function that starts a JobMaster. The learner writes the
// functions in between into an answers file, one per line:
//
//	# r01
//	rest.Server.handleJarRun
//	rest.Server.submitWithJars
//	dispatcher.Dispatcher.SubmitJob
//	…
//	jobmaster.JobMaster.startJobExecution
//
// and this package says whether each line calls the next one.
//
// # Writing names
//
// A name is pkg.Func for a function and pkg.Type.Method for a method
// (ParseName). pkg is the Go package name. The '*' of a pointer receiver
// is left out, and so are a generic type's parameters:
// taskexecutor.TaskSlotTable.AllocateSlot. Go's own spellings are
// forgiven: dispatcher.(*Dispatcher).submitJob, a trailing "()". Should
// two packages share a name, pkg may be the end of the import path
// instead, "a/store.Put" next to "b/store.Put"; a name that fits both
// is refused with the two spellings to choose from. In the answers file,
// blank lines and everything after a '#' are ignored (ParseAnswer).
//
// # The call graph
//
// Load reads the runtime (flinklab/runtime/...) the fast way:
// packages.Load with typed syntax for the runtime and
// export data for everything it imports, SSA with generics instantiated
// (ssautil.Packages, ssa.InstantiateGenerics), and a VTA call graph
// (vta.CallGraph over ssautil.AllFunctions). VTA follows which concrete
// values flow into each interface and function value, so a call through
// a gateway interface (s.deps.Dispatcher.SubmitJob) leads to the methods
// that can really be behind it (dispatcher.Dispatcher.SubmitJob), and not
// to every type that happens to have a method of that name.
//
// With a warm build cache Load takes about 0.6 s on a quiet two-core
// machine, half of it in go list, which first recompiles the export data
// of whatever changed; a Check takes well under a millisecond. The
// standard library has no bodies in this graph (it comes from export
// data), so paths never wander through it.
//
// # What counts as a call
//
// A reader of this runtime does not think in SSA call sites, and two
// rules bridge the gap.
//
// Handing work to a mailbox is a call. Each component runs its handlers
// on one goroutine, its main thread (package rpc). A gateway method such
// as Dispatcher.SubmitJob does not call Dispatcher.submitJob: it wraps
// the call in a function literal and hands it to rpc.CallAsync, and the
// mailbox runs it later. In the call graph, only the mailbox loop calls
// that literal. So Load adds an edge from every function to each closure
// it creates (the MakeClosure instructions in its SSA, closures inside
// closures included, and bound method values like jm.startJobExecution),
// and to each function it takes as a value. SubmitJob → SubmitJob$1 →
// submitJob then reads as SubmitJob → submitJob.
//
// Plumbing needs no naming. A hop A → B passes if the graph has a path
// from A to B on which every function in between is plumbing:
//
//   - a function of the transport packages, runtime/rpc and
//     runtime/gateway/... (the mailbox, Ask, the gateway stubs);
//   - a function the compiler wrote: wrappers of promoted methods,
//     thunks, instantiation wrappers of generic functions;
//   - a closure that A itself creates, or one that A's own code calls
//     through a function value: a callback A was given, such as the
//     JobMaster factory a JobManagerRunner calls.
//
// The last condition matters. The mailbox loop calls every closure ever
// posted to it, so the graph has a path from rpc.CallAsync to the
// closures of all other gateway methods too. A closure written in some
// other function C and reached through such plumbing is C's message: the
// path has skipped C, and does not count. Only a call from A's own code
// makes a foreign closure part of A's hop.
//
// Any other function on the way is a step the learner skipped.
//
// # The way the run took
//
// The graph is static and context-insensitive: it holds every call the
// code can make, in any run. A chain through it can be a way the program
// never goes: through a clean-up branch, through another kind of leader
// election, through the success callback of one retrying registration
// taken for another's (the instances of a generic function are one name
// here, and a function that calls a callback it was given leads to every
// callback anyone gives it). So a chain is checked against a run too.
//
// Each reading exercise has a scenario, a test that runs what the
// exercise describes with the runtime's causal traces on
// (rpc.RecordCauses) and logs the ways the run took from the exercise's
// first function to its last (package runpath). NewRun reads them: each
// frame is a step, a function literal written in a step, or something
// that needs no naming (the RPC layer and the gateways, wrappers, the
// standard library). Check then asks that the run took the chain, in a
// row: each name takes a stretch of one recorded way, from a frame of the
// function to the last of its own literals before it comes again (what a
// literal it handed to a registration or a mailbox calls, it calls, for a
// reader); from there the next name must be the next step of the way.
//
// # Checking an answer
//
// Check(chain, from, to, run) reports the first thing that is wrong, in
// this order: a name that is not a function of the runtime (with the
// spellings it may have meant: the same name on another type or in
// another package, or one or two typing mistakes away), a chain that does
// not start at from, a hop that is not
// a call, a hop the run did not take, a chain that stops before to.
// Result.Hops lists every hop up to the first wrong one with the RPC
// plumbing it passes through (Hop.Via), which `learn check` shows to
// explain how a message crosses a mailbox.
//
// The words never name a function the learner has not written, but for
// from and to and for the spellings of a name the learner got wrong: a
// learner who only follows them must not reach the answer without
// reading the code. A skipped stretch is counted, with
// its packages ("3 more functions come between them (in packages
// slotmanager and taskexecutor)"), and a call that exists but was not
// made is called that, with where to look. FollowTheWords plays a reader
// who does only what the words say; `learn verify` proves it stuck.
//
// VerifyReference proves that a reference chain is a fair answer: it
// passes; removing any one name between the first and the last makes it
// fail, so every name is a step a learner must find; and it fails when
// reversed. VerifyOnlyTakenWays proves that it is the only one: every
// simple way between the two ends in the graph, up to a few names longer
// than the reference, fails, but for the reference spelled with the
// details an exercise allows (Detail: helpers on the way that a right
// answer may name or leave out).
//
// # Limits
//
// A function literal belongs to the nearest frame of the function it is
// written in before it; a literal made by an earlier call of the same
// function, and called only after a later call, is read as the later
// call's. Functions of the standard library are not in the graph, so a
// callback that the standard library calls (a sync.Once's function, an
// http.HandlerFunc) is reached in the code only by the closure rule: from
// the function that creates it. A run shows only the hand-overs the rpc
// package makes (mailboxes, Ask, rpc.Go): work started with a bare go
// statement begins a way of its own.
package callgraph
