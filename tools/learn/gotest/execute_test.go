package gotest

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vetFails is a module whose test passes but whose test file go vet
// refuses (a Printf verb that does not fit its argument).
var vetFails = map[string]string{
	"go.mod": "module vetfails\n\ngo 1.26\n",
	"vetfails_test.go": `package vetfails

import (
	"fmt"
	"testing"
)

func TestPasses(t *testing.T) {
	_ = fmt.Sprintf("%d", "not a number")
}
`,
}

func TestSkipVetLeavesOutGoVetAndStartedSaysTheTestsRun(t *testing.T) {
	root := t.TempDir()
	for name, content := range vetFails {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}

	run := Run{Root: root, Package: "."}
	vetted, err := Execute(t.Context(), run)
	require.NoError(t, err)
	assert.False(t, vetted.Passed, "go vet refuses the test file")
	assert.Contains(t, strings.Join(vetted.Output, "\n"), "Sprintf format %d has arg")

	var started atomic.Int32
	run.SkipVet, run.Started = true, func() { started.Add(1) }
	unvetted, err := Execute(t.Context(), run)
	require.NoError(t, err)
	assert.True(t, unvetted.Passed, strings.Join(unvetted.Output, "\n"))
	assert.Equal(t, int32(1), started.Load(), "Started is called once, when the build is done")
}

// go test -json may hand its output over in any pieces: the start event
// is found across two writes, and reported once.
func TestStartWatcherFindsTheStartEventInAnyPieces(t *testing.T) {
	stream := `{"Time":"2026-11-30T05:05:10Z","Action":"start","Package":"p"}` + "\n" +
		`{"Action":"run","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"start","Package":"q"}` + "\n"
	for cut := range len(stream) {
		calls := 0
		w := &startWatcher{started: func() { calls++ }}
		w.Write([]byte(stream[:cut]))
		w.Write([]byte(stream[cut:]))
		if calls != 1 || w.out.String() != stream {
			t.Fatalf("cut at %d: started called %d times, kept %q", cut, calls, w.out.String())
		}
	}
}

// envTests is a module whose test passes or fails by the environment and
// reads a file of its package's directory, as exercise tests do.
var envTests = map[string]string{
	"go.mod":       "module envtests\n\ngo 1.26\n",
	"sub/want.txt": "yes\n",
	"sub/env_test.go": `package sub

import (
	"os"
	"strings"
	"testing"
)

func TestFirst(t *testing.T) {
	want, err := os.ReadFile("want.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("ANSWER"); got != strings.TrimSpace(string(want)) {
		t.Errorf("ANSWER is %q", got)
	}
}

func TestSecond(t *testing.T) {}
`,
}

// A binary Compile built runs as go test would run it, once per
// environment, in the package's directory; a package that does not build
// is a Result, not an error.
func TestCompileOnceThenExecuteTheBinaryManyTimes(t *testing.T) {
	root := t.TempDir()
	for name, content := range envTests {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	run := Run{Root: root, Package: "./sub", SkipVet: true, FailFast: true}
	binary, failed, cleanup, err := Compile(t.Context(), run)
	require.NoError(t, err)
	require.Nil(t, failed)
	defer cleanup()

	run.Env = []string{"ANSWER=yes"}
	passed, err := ExecuteBinary(t.Context(), run, binary)
	require.NoError(t, err)
	assert.True(t, passed.Passed, strings.Join(passed.Output, "\n"))
	assert.Len(t, passed.Tests, 2)

	run.Env = []string{"ANSWER=no"}
	wrong, err := ExecuteBinary(t.Context(), run, binary)
	require.NoError(t, err)
	assert.False(t, wrong.Passed)
	require.NotNil(t, wrong.FirstFailure())
	assert.Equal(t, "TestFirst", wrong.FirstFailure().Name)
	assert.Contains(t, strings.Join(wrong.FirstFailure().Output, "\n"), `ANSWER is "no"`)
	assert.Nil(t, wrong.Test("TestSecond"), "-failfast: nothing runs after the first failure")

	run.Overlay = map[string][]byte{"sub/env_test.go": []byte("package sub\n\nfunc broken( {\n")}
	_, failed, cleanup, err = Compile(t.Context(), run)
	require.NoError(t, err)
	defer cleanup()
	require.NotNil(t, failed)
	assert.True(t, failed.BuildFailed)
}

// buildsACommand is a module whose test builds and runs a command of the
// module, as exercise h05's builds the flink command: it passes when the
// command prints what the test was told to want.
var buildsACommand = map[string]string{
	"go.mod":      "module buildsacommand\n\ngo 1.26\n",
	"cmd/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(word) }\n",
	"cmd/word.go": "package main\n\nvar word = \"tree\"\n",
	"cmd/word_test.go": `package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestTheCommandSays(t *testing.T) {
	out, err := exec.Command("go", "run", "buildsacommand/cmd").CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), os.Getenv("WANT"); got != want {
		t.Errorf("the command says %q, want %q", got, want)
	}
}
`,
}

// A go command the tests run builds with the run's stand-ins too, as go
// test does: the overlay is passed on in GOFLAGS.
func TestAGoCommandTheTestRunsBuildsWithTheOverlay(t *testing.T) {
	root := t.TempDir()
	for name, content := range buildsACommand {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	run := Run{Root: root, Package: "./cmd", SkipVet: true, Env: []string{"WANT=tree"}}
	onDisk, err := Execute(t.Context(), run)
	require.NoError(t, err)
	assert.True(t, onDisk.Passed, strings.Join(onDisk.Output, "\n"))

	run.Overlay = map[string][]byte{"cmd/word.go": []byte("package main\n\nvar word = \"overlay\"\n")}
	run.Env = []string{"WANT=overlay"}
	overlaid, err := Execute(t.Context(), run)
	require.NoError(t, err)
	assert.True(t, overlaid.Passed, strings.Join(overlaid.Output, "\n"))
	assert.Equal(t, []string{"WANT=overlay"}, run.Env, "the caller's Env is left as it was")
}
