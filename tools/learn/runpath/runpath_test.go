package runpath

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFunction(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Function
	}{
		{"flinklab/runtime/rest.(*Server).handleJarRun",
			Function{PkgPath: "flinklab/runtime/rest", Recv: "Server", Name: "handleJarRun"}},
		{"flinklab/runtime/rest.Server.value",
			Function{PkgPath: "flinklab/runtime/rest", Recv: "Server", Name: "value"}},
		{"flinklab/runtime/dispatcher.(*Dispatcher).SubmitJob.func1",
			Function{PkgPath: "flinklab/runtime/dispatcher", Recv: "Dispatcher", Name: "SubmitJob", Literal: true}},
		{"flinklab/runtime/taskexecutor.New.func2.1",
			Function{PkgPath: "flinklab/runtime/taskexecutor", Name: "New", Literal: true}},
		{"flinklab/runtime/rpc.CallAsync[...].func1",
			Function{PkgPath: "flinklab/runtime/rpc", Name: "CallAsync", Literal: true}},
		{"flinklab/runtime/registration.(*RetryingRegistration[...]).resolve",
			Function{PkgPath: "flinklab/runtime/registration", Recv: "RetryingRegistration", Name: "resolve"}},
		{"flinklab/runtime/jobmaster.(*JobMaster).startJobExecution-fm",
			Function{PkgPath: "flinklab/runtime/jobmaster", Recv: "JobMaster", Name: "startJobExecution", Wrapper: true}},
		{"flinklab/runtime/api.glob..func1",
			Function{PkgPath: "flinklab/runtime/api", Literal: true, Wrapper: true}},
		{"net/http.HandlerFunc.ServeHTTP",
			Function{PkgPath: "net/http", Recv: "HandlerFunc", Name: "ServeHTTP"}},
		{"runtime.goexit", Function{PkgPath: "runtime", Name: "goexit"}},
	} {
		got, ok := ParseFunction(tc.name)
		require.True(t, ok, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
	_, ok := ParseFunction("no-dot-at-all")
	assert.False(t, ok)
}

func TestPathsRoundTripThroughATestLog(t *testing.T) {
	p := Path{Frames: []string{"a/b.F", "a/b.G.func1", "a/c.(*T).M"}, Handovers: []int{2}}
	plain := "    r01_test.go:52: " + p.Line() + "\n"
	// go test -json escapes the line into a JSON string.
	jsonLine := `{"Action":"output","Test":"TestScenario","Output":"    r01_test.go:52: learn-runpath: {\"frames\":[\"a/b.F\",\"a/b.G.func1\",\"a/c.(*T).M\"],\"handovers\":[2]}\n"}` + "\n"
	for _, out := range []string{plain, jsonLine, "=== RUN TestScenario\n" + plain + "--- PASS\n"} {
		got, err := ParseTestOutput(strings.NewReader(out))
		require.NoError(t, err)
		assert.Equal(t, []Path{p}, got, out)
	}
}

func TestBetweenCutsEachPathToTheExercisesEnds(t *testing.T) {
	paths := []Path{
		{Frames: []string{"net/http.(*conn).serve", "x/rest.(*S).handle", "x/rpc.Call", "x/d.(*D).Submit.func1", "x/d.(*D).submit", "x/j.(*J).start", "x/j.(*J).after"},
			Handovers: []int{3}},
		// the same way again, from another request: dropped
		{Frames: []string{"net/http.(*conn).serve", "x/rest.(*S).handle", "x/rpc.Call", "x/d.(*D).Submit.func1", "x/d.(*D).submit", "x/j.(*J).start"},
			Handovers: []int{3}},
		// never reaches the end: left out
		{Frames: []string{"x/rest.(*S).handle", "x/rpc.Call"}},
		// the end before the start: left out
		{Frames: []string{"x/j.(*J).start", "x/rest.(*S).handle"}},
	}
	got := Between(paths, "rest.S.handle", "j.J.start")
	want := []Path{{Frames: []string{"x/rest.(*S).handle", "x/rpc.Call", "x/d.(*D).Submit.func1", "x/d.(*D).submit", "x/j.(*J).start"}, Handovers: []int{2}}}
	assert.Equal(t, want, got)
}
