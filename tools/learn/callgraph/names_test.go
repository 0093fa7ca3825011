package callgraph

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	data := []byte(`# r01: from the REST handler to the JobMaster's start

rest.Server.handleJarRun
  rest.Server.submitWithJars   # shared with POST /jobs
- dispatcher.Dispatcher.SubmitJob
→ dispatcher.Dispatcher.submitJob
-> dispatcher.Dispatcher.checkAndSubmitJob
3. dispatcher.Dispatcher.internalSubmitJob
	# a comment line, indented
`)
	want := []string{
		"rest.Server.handleJarRun",
		"rest.Server.submitWithJars",
		"dispatcher.Dispatcher.SubmitJob",
		"dispatcher.Dispatcher.submitJob",
		"dispatcher.Dispatcher.checkAndSubmitJob",
		"dispatcher.Dispatcher.internalSubmitJob",
	}
	if got := ParseAnswer(data); !slices.Equal(got, want) {
		t.Errorf("ParseAnswer = %q\nwant %q", got, want)
	}
	if got := ParseAnswer([]byte("# only comments\n\n")); len(got) != 0 {
		t.Errorf("ParseAnswer(comments) = %q; want nothing", got)
	}
}

func TestParseName(t *testing.T) {
	tests := []struct {
		in      string
		want    Name
		wantErr string
	}{
		{in: "dispatcher.Dispatcher.submitJob", want: Name{Pkg: "dispatcher", Recv: "Dispatcher", Func: "submitJob"}},
		{in: "dispatcher.New", want: Name{Pkg: "dispatcher", Func: "New"}},
		{in: "dispatcher.(*Dispatcher).submitJob", want: Name{Pkg: "dispatcher", Recv: "Dispatcher", Func: "submitJob"}},
		{in: "dispatcher.*Dispatcher.submitJob", want: Name{Pkg: "dispatcher", Recv: "Dispatcher", Func: "submitJob"}},
		{in: "taskexecutor.TaskSlotTable[T].AllocateSlot", want: Name{Pkg: "taskexecutor", Recv: "TaskSlotTable", Func: "AllocateSlot"}},
		{in: "rpc.CallAsync[T]", want: Name{Pkg: "rpc", Func: "CallAsync"}},
		{in: "jobmaster.JobMaster.Start()", want: Name{Pkg: "jobmaster", Recv: "JobMaster", Func: "Start"}},
		{in: "jobmaster/slotpool.SlotPool.OfferSlots", want: Name{Pkg: "jobmaster/slotpool", Recv: "SlotPool", Func: "OfferSlots"}},
		{in: "runtime/jobmaster.New", want: Name{Pkg: "runtime/jobmaster", Func: "New"}},
		{in: "submitJob", wantErr: "has no package"},
		{in: "a.b.c.d", wantErr: "too many parts"},
		{in: "dispatcher..submitJob", wantErr: "is not a name"},
		{in: "Dispatcher submitJob", wantErr: "is not a name"},
	}
	for _, tt := range tests {
		got, err := ParseName(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseName(%q) error = %v; want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestPkgMatches(t *testing.T) {
	const path = "flinklab/runtime/jobmaster/slotpool"
	tests := []struct {
		written string
		want    bool
	}{
		{"slotpool", true},
		{"jobmaster/slotpool", true},
		{"runtime/jobmaster/slotpool", true},
		{path, true},
		{"pool", false},
		{"ster/slotpool", false},
		{"jobmaster", false},
	}
	for _, tt := range tests {
		if got := pkgMatches(tt.written, path, "slotpool"); got != tt.want {
			t.Errorf("pkgMatches(%q, %q) = %v; want %v", tt.written, path, got, tt.want)
		}
	}
}

// When two packages share a name, the short name is ambiguous and each
// is shown with the end of its path.
func TestSharedPackageName(t *testing.T) {
	g := newTestGraph(t, []testNode{
		{label: "x.Start", kind: kindStep},
	})
	g.packages = map[string]string{"m/a/store": "store", "m/b/store": "store", "m/c/other": "other"}
	for _, k := range []stepKey{{pkgPath: "m/a/store", name: "Put"}, {pkgPath: "m/b/store", name: "Put"}, {pkgPath: "m/c/other", name: "Put"}} {
		g.byKey[k] = int32(len(g.steps))
		g.steps = append(g.steps, step{key: k})
	}
	_, err := g.resolve("store.Put")
	if err == nil || !strings.Contains(err.Error(), "a/store.Put, b/store.Put") {
		t.Errorf("resolve(store.Put) = %v; want an ambiguity naming a/store.Put and b/store.Put", err)
	}
	s, err := g.resolve("b/store.Put")
	if err != nil || g.display(s) != "b/store.Put" {
		t.Errorf("resolve(b/store.Put) = %v, %v; want b/store.Put", s, err)
	}
	if s, err := g.resolve("other.Put"); err != nil || g.display(s) != "other.Put" {
		t.Errorf("resolve(other.Put) = %v, %v; want other.Put", s, err)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"submitjob", "submitjob", 0},
		{"submitjob", "submitjobs", 1},
		{"onstart", "start", 2},
		{"kitten", "sitting", 3},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
