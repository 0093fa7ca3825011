package callgraph

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// moduleRoot is the module root, seen from this package's folder.
const moduleRoot = "../../.."

// The runtime is loaded once per test binary: every test shares it.
var runtimeGraph = sync.OnceValues(func() (*Graph, error) {
	abs, err := filepath.Abs(moduleRoot)
	if err != nil {
		return nil, err
	}
	return Load(abs, nil)
})

func loadRuntime(t *testing.T) *Graph {
	t.Helper()
	g, err := runtimeGraph()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return g
}

func TestLoadTiming(t *testing.T) {
	g := loadRuntime(t)
	t.Logf("Load: %s; %d functions, %d of them named steps", g.Timing, len(g.nodes), len(g.steps))
}

// Dispatcher.SubmitJob hands a closure to rpc.CallAsync; the Dispatcher's
// main thread runs it, and it calls submitJob. For a reader that is
// SubmitJob calling submitJob.
func TestMailboxHopPasses(t *testing.T) {
	g := loadRuntime(t)
	const from, to = "dispatcher.Dispatcher.SubmitJob", "dispatcher.Dispatcher.internalSubmitJob"
	chain := []string{from, "dispatcher.Dispatcher.submitJob", "dispatcher.Dispatcher.checkAndSubmitJob", to}
	r := g.Check(chain, from, to, nil)
	if !r.OK {
		t.Fatalf("Check(%q): %s", chain, r.Problem)
	}
	if got, want := r.Hops[0].Via, []string{"dispatcher.Dispatcher.SubmitJob$1"}; !slices.Equal(got, want) {
		t.Errorf("SubmitJob → submitJob via %q; want %q", got, want)
	}
	if len(r.Hops[1].Via) != 0 {
		t.Errorf("submitJob → checkAndSubmitJob via %q; want a plain call", r.Hops[1].Via)
	}
}

// JobMaster.Start passes its startJobExecution to the endpoint's Start
// (a bound method value, run first on the main thread): a call too.
func TestBoundMethodValueHopPasses(t *testing.T) {
	g := loadRuntime(t)
	chain := []string{"jobmaster.JobMaster.Start", "jobmaster.(*JobMaster).startJobExecution"}
	if r := g.Check(chain, chain[0], chain[1], nil); !r.OK {
		t.Fatalf("Check(%q): %s", chain, r.Problem)
	}
}

// The runner calls the JobMaster factory it was given, a function
// literal that the cluster wrote when it created the runner: calling a
// callback is a call of what the callback calls.
func TestCallbackHopPasses(t *testing.T) {
	g := loadRuntime(t)
	chain := []string{"jobmanager.JobMasterServiceLeadershipRunner.startJobMasterServiceProcess", "jobmaster.New"}
	r := g.Check(chain, chain[0], chain[1], nil)
	if !r.OK {
		t.Fatalf("Check(%q): %s", chain, r.Problem)
	}
	t.Logf("via %q", r.Hops[0].Via)
}

// A skipped function is counted, with its package, but not named: the
// learner goes back to the code to find it.
func TestASkippedFunctionIsCountedNotNamed(t *testing.T) {
	g := loadRuntime(t)
	const from, to = "dispatcher.Dispatcher.SubmitJob", "dispatcher.Dispatcher.internalSubmitJob"
	chain := []string{from, "dispatcher.Dispatcher.submitJob", to}
	r := g.Check(chain, from, to, nil)
	if r.OK {
		t.Fatalf("Check(%q) passed; want it to fail", chain)
	}
	want := "Line 3: dispatcher.Dispatcher.submitJob does not call dispatcher.Dispatcher.internalSubmitJob. " +
		"In the code, at least 1 more function comes between them (in package dispatcher): " +
		"read dispatcher.Dispatcher.submitJob and follow the call that leads on."
	if r.Problem != want {
		t.Errorf("problem = %q\nwant %q", r.Problem, want)
	}
	if !r.Hops[0].OK || r.Hops[1].OK {
		t.Errorf("hops = %+v; want the first to pass and the second to fail", r.Hops)
	}
}

// A mailbox runs every component's closures; a path through another
// function's closure is not a call of the function that sent a message.
func TestOtherFunctionsClosuresAreNotPlumbing(t *testing.T) {
	g := loadRuntime(t)
	// Both hand closures to rpc.CallAsync on the same Dispatcher.
	chain := []string{"dispatcher.Dispatcher.ListJobs", "dispatcher.Dispatcher.submitJob"}
	if r := g.Check(chain, chain[0], chain[1], nil); r.OK {
		t.Errorf("Check(%q) passed; want it to fail", chain)
	}
}

func TestUnknownNames(t *testing.T) {
	g := loadRuntime(t)
	const from, to = "rest.Server.handleJarRun", "jobmaster.JobMaster.startJobExecution"
	tests := []struct {
		written string
		want    []string
	}{
		// Flink's name: our JobMaster has no onStart, the TaskExecutor has.
		{"jobmaster.JobMaster.onStart", []string{
			"jobmaster.JobMaster.onStart is not a function or method of the runtime.",
			"taskexecutor.TaskExecutor.onStart",
		}},
		{"dispatcher.Dispatcher.submitjob", []string{"Did you mean dispatcher.Dispatcher.submitJob"}},
		{"dispatch.Dispatcher.SubmitJob", []string{"(there is no package dispatch)", "dispatcher.Dispatcher.SubmitJob"}},
		{"submitJob", []string{"has no package"}},
		{"rpc.CallAsync", []string{"rpc.CallAsync belongs to the RPC layer or the gateways", "leave it out"}},
		{"rpc.Endpoint.RunAsync", []string{"belongs to the RPC layer or the gateways"}},
		{"dispatcher.Dispatcher.SubmitJob$1", []string{"is a closure", "inside dispatcher.Dispatcher.SubmitJob"}},
	}
	for _, tt := range tests {
		r := g.Check([]string{from, tt.written, to}, from, to, nil)
		if r.OK {
			t.Errorf("Check with %s passed; want it to fail", tt.written)
			continue
		}
		for _, want := range tt.want {
			if !strings.Contains(r.Problem, "Line 2: ") || !strings.Contains(r.Problem, want) {
				t.Errorf("%s: problem = %q\nwant it to contain %q", tt.written, r.Problem, want)
			}
		}
	}
}

func TestLongerPackagePathsResolve(t *testing.T) {
	g := loadRuntime(t)
	for _, name := range []string{"dispatcher.Dispatcher.SubmitJob", "runtime/dispatcher.Dispatcher.SubmitJob", "flinklab/runtime/dispatcher.(*Dispatcher).SubmitJob"} {
		s, err := g.resolve(name)
		if err != nil || g.display(s) != "dispatcher.Dispatcher.SubmitJob" {
			t.Errorf("resolve(%s) = %v, %v; want dispatcher.Dispatcher.SubmitJob", name, s, err)
		}
	}
	// Generic methods are named without their type parameters.
	if _, err := g.resolve("taskexecutor.TaskSlotTable.AllocateSlot"); err != nil {
		t.Errorf("resolve(taskexecutor.TaskSlotTable.AllocateSlot): %v", err)
	}
}
