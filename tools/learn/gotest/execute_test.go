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
