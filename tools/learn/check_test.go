package main

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
	"flinklab/tools/learn/hole"
)

// deployingTest is a test for the tiny course (course_test.go) whose
// scenario logs steps m9–m11 of two tasks, as exercises/internal/scenario
// does, when Double is right, and two refused deployments (m9 ✗) when it
// is not. It runs before TestDouble, so that its failure is the first.
const deployingTest = `package x01

import (
	"encoding/json"
	"testing"

	"flinklab/runtime/calc"
)

func logStep(t *testing.T, step, from, to, message string, failed bool) {
	line, _ := json.Marshal(map[string]any{"step": step, "from": from, "to": to, "message": message, "jobId": "0123", "failed": failed})
	t.Log("learn-trace: " + string(line))
}

func TestADeployment(t *testing.T) {
	right := func() (ok bool) {
		defer func() { recover() }()
		return calc.Double(2) == 4
	}()
	for _, task := range []string{"Map (1/2)#0", "Map (2/2)#0"} {
		if !right {
			logStep(t, "m9", "JobMaster", "TaskExecutor", "submitTask rejected: "+task, true)
			continue
		}
		logStep(t, "m9", "JobMaster", "TaskExecutor", "Received task "+task+" (a_b_0_0), deploy into slot", false)
		logStep(t, "m10", "TaskExecutor", "BlobServer", "Fetched p-1 for task "+task+" (a_b_0_0) through the BlobCache.", false)
		logStep(t, "m11", "Task", "JobMaster", task+" (a_b_0_0) switched from INITIALIZING to RUNNING.", false)
	}
	if !right {
		t.Error("the tasks must be deployed")
	}
}
`

// newStepsCourse is the tiny course with deployingTest beside TestDouble,
// named in tests.about_steps, and its reference traces written as `learn
// solutions` writes them; x01 is started, with a wrong Double written.
func newStepsCourse(t *testing.T) (*course, *exercise.Exercise) {
	t.Helper()
	c, e := newTinyCourse(t)
	require.NoError(t, os.WriteFile(c.path("exercises/x01/deploy_test.go"), []byte(deployingTest), 0o644))
	e.Tests.AboutSteps = []string{"TestADeployment"}
	require.NoError(t, c.writeSolutions(nil, &bytes.Buffer{}))
	require.NoError(t, c.start(e, false, &bytes.Buffer{}))
	punched := c.mustRead(t, "runtime/calc/calc.go")
	wrong := strings.Replace(punched, `panic("TODO(x01): write Double (see exercises/x01/README.md)")`, "return n * 3", 1)
	require.NoError(t, c.writeFile("runtime/calc/calc.go", []byte(wrong)))
	return c, e
}

// A failing test named in tests.about_steps gets the table of its steps
// next to the reference's, taken from solutions/ID/traces.txt: the
// reference is not run again.
func TestCheckLaysTheStepsNextToTheStoredReference(t *testing.T) {
	c, e := newStepsCourse(t)
	assert.Contains(t, c.mustRead(t, referenceTracesFile(e)), "=== TestADeployment\nm9  JobMaster → TaskExecutor: Received task Map (1/2)#0")
	// What the table shows on the reference's side is the file's.
	stored := strings.ReplaceAll(c.mustRead(t, referenceTracesFile(e)), "Fetched p-1", "Filed")
	require.NoError(t, os.WriteFile(c.path(referenceTracesFile(e)), []byte(stored), 0o644))

	var out bytes.Buffer
	passed, err := c.check(t.Context(), e, &out)
	require.NoError(t, err)
	assert.False(t, passed)
	assert.Contains(t, out.String(), "TestADeployment fails:\n    deploy_test.go:")
	assert.Contains(t, out.String(), "The steps that happened, next to the reference's in the same test.")
	assert.Contains(t, out.String(), "│ m10 TaskExecutor → BlobServer: Filed for task")
	assert.Contains(t, out.String(), "First difference at row 1 — what happened: m9 JobMaster ✗ TaskExecutor; reference: m9 JobMaster → TaskExecutor.")
}

// A failure that is not about the steps shows no trace, though the test
// logged one.
func TestCheckShowsNoStepsForAFailureThatIsNotAboutThem(t *testing.T) {
	c, e := newStepsCourse(t)
	e.Tests.AboutSteps = nil
	var out bytes.Buffer
	passed, err := c.check(t.Context(), e, &out)
	require.NoError(t, err)
	assert.False(t, passed)
	assert.Contains(t, out.String(), "TestADeployment fails:")
	assert.NotContains(t, out.String(), "steps")
	assert.NotContains(t, out.String(), "│")
}

// verify proves the stored traces in sync with a run of the reference,
// step for step.
func TestVerifyCatchesReferenceTracesOutOfDate(t *testing.T) {
	c, e := newStepsCourse(t)
	var out bytes.Buffer
	require.NoError(t, c.verify(t.Context(), nil, &out), out.String())

	stored := c.mustRead(t, referenceTracesFile(e))
	lines := strings.Split(stored, "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "m10") })
	require.NoError(t, os.WriteFile(c.path(referenceTracesFile(e)), []byte(strings.Join(slices.Delete(lines, at, at+1), "\n")), 0o644))
	out.Reset()
	assert.Error(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "✗ x01: solutions/x01/traces.txt is out of date with a run of the reference (the steps of TestADeployment differ): run `go run ./tools/learn solutions x01`")

	require.NoError(t, os.Remove(c.path(referenceTracesFile(e))))
	out.Reset()
	assert.Error(t, c.verify(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "(it is missing)")
}

// The m03 tests run a real cluster, whose tasks interleave differently
// from run to run. The same wrong answer must give the same first
// difference every run: a body that skips the duplicate check accepts the
// second submission of a running job (m3 →) where the reference refuses it
// (m3 ✗); one that skips the globally-terminal check accepts a finished
// job again, after its three tasks have run. (The rows after it may
// differ: the failed assertion ends the test at once, and how far the
// cluster's goroutines got by then is up to the scheduler.)
func TestTheSameWrongAnswerGivesTheSameFirstDifferenceEveryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds exercises/m03 with two wrong answers and runs each five times")
	}
	c := testCourse(t)
	e, err := c.exercise("m03")
	require.NoError(t, err)
	complete, err := c.referenceOverlay()
	require.NoError(t, err)

	for _, tt := range []struct{ mutant, test string }{
		{"skip the duplicate check", "TestARunningJobSubmittedAgainIsADuplicate"},
		{"skip the globally-terminal check", "TestAFinishedJobSubmittedAgainIsRefusedAsGloballyTerminated"},
	} {
		t.Run(tt.mutant, func(t *testing.T) {
			i := slices.IndexFunc(e.Mutants, func(m exercise.Mutant) bool { return m.Name == tt.mutant })
			require.GreaterOrEqual(t, i, 0, "m03's mutants have %q", tt.mutant)
			m := e.Mutants[i]
			h := e.MutantHole(m)
			body, err := mutantBody(complete[h.File], h.Func, m)
			require.NoError(t, err)
			imports, err := hole.Imports(complete[h.File])
			require.NoError(t, err)
			wrong := maps.Clone(complete)
			wrong[h.File], err = hole.Replace(complete[h.File], map[string]string{h.Func: body}, imports)
			require.NoError(t, err)

			var first string
			for run := range 5 {
				r := c.testRun(e, wrong)
				r.Pattern, r.SkipVet = "^"+tt.test+"$", true
				result, err := gotest.Execute(t.Context(), r)
				require.NoError(t, err)
				failed := result.FirstFailure()
				require.NotNil(t, failed, "run %d: the wrong answer passes", run+1)
				var out bytes.Buffer
				require.NoError(t, c.compareTraces(e, failed, &out))
				_, difference, found := strings.Cut(out.String(), "First difference")
				require.True(t, found, "run %d: no difference:\n%s", run+1, out.String())
				if run == 0 {
					first = difference
					assert.Equal(t, " at row 2 — what happened: m3 Client → Dispatcher; reference: m3 Client ✗ Dispatcher.\n", first)
					continue
				}
				assert.Equal(t, first, difference, "run %d:\n%s", run+1, out.String())
			}
		})
	}
}
