package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/exercise"
)

// strategy is a runtime file with one function of each kind: marked in
// its doc comment, in its body, with another step's marker, with only a
// fault marker, and not at all. The "func" lines are 9, 14, 20, 25, 31
// and 36.
const strategy = `package slotmanager

// Strategy matches slots.
type Strategy struct{}

// InDoc matches requirements to slots.
//
// Step m7: the ResourceManager decides which slot serves which job.
func (Strategy) InDoc() int {
	return 1
}

// InBody matches requirements to slots.
func (Strategy) InBody() int {
	// Step m7: the ResourceManager decides which slot serves which job.
	return 2
}

// Step m6: the requirements arrive.
func (Strategy) OtherStep() int {
	// Step m11: a later step, which is not m1 either.
	return 3
}

func (Strategy) OnlyFault() int {
	// Step m7 (fault): for a starved job no free slot matches.
	return 4
}

// Unmarked matches requirements to slots.
func (Strategy) Unmarked() int {
	return 5
}

// Continued goes on with the step.
func (Strategy) Continued() int {
	// Step m7 (continued): the answer goes out.
	return 6
}
`

// stepTree writes strategy into a fresh repository and returns its root.
func stepTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, root, "runtime/slotmanager/strategy.go", strategy)
	return root
}

// writing is a writing exercise of the given step with holes in
// runtime/slotmanager/strategy.go, each with guidance that begins with the
// step, as the course's do.
func writing(id, step string, funcs ...string) *exercise.Exercise {
	e := &exercise.Exercise{ID: id, Kind: exercise.Write, Step: step, Dir: "exercises/" + id}
	for _, f := range funcs {
		e.Holes = append(e.Holes, exercise.Hole{
			File: "runtime/slotmanager/strategy.go",
			Func: f,
			TODO: "Step " + step + ": write it.\n\nMore guidance.",
		})
	}
	return e
}

func TestCheckStepMarkers(t *testing.T) {
	const unmarkedM7 = "no `// Step m7:` marker in its doc comment or body; add one where step m7 happens, saying what happens there in Flink's terms"
	tests := []struct {
		name string
		e    *exercise.Exercise
		want []MarkerProblem // nil: the hole is marked
	}{
		{"marker in the doc comment", writing("m07", "m7", "Strategy.InDoc"), nil},
		{"marker in the body", writing("m07", "m7", "Strategy.InBody"), nil},
		{"marker with a note after the step", writing("m07", "m7", "Strategy.Continued"), nil},
		{"no marker is refused", writing("m07", "m7", "Strategy.Unmarked"), []MarkerProblem{{
			Exercise: "m07", File: "runtime/slotmanager/strategy.go", Line: 31, Func: "Strategy.Unmarked",
			Message: unmarkedM7,
		}}},
		{"another step's marker does not count", writing("m07", "m7", "Strategy.OtherStep"), []MarkerProblem{{
			Exercise: "m07", File: "runtime/slotmanager/strategy.go", Line: 20, Func: "Strategy.OtherStep",
			Message: "no `// Step m7:` marker in its doc comment or body (it marks m6, m11: another step, or the step's fault); " +
				"add one where step m7 happens, saying what happens there in Flink's terms",
		}}},
		{"m11 is not m1", writing("m01", "m1", "Strategy.OtherStep"), []MarkerProblem{{
			Exercise: "m01", File: "runtime/slotmanager/strategy.go", Line: 20, Func: "Strategy.OtherStep",
			Message: "no `// Step m1:` marker in its doc comment or body (it marks m6, m11: another step, or the step's fault); " +
				"add one where step m1 happens, saying what happens there in Flink's terms",
		}}},
		{"a fault marker does not count", writing("m07", "m7", "Strategy.OnlyFault"), []MarkerProblem{{
			Exercise: "m07", File: "runtime/slotmanager/strategy.go", Line: 25, Func: "Strategy.OnlyFault",
			Message: "no `// Step m7:` marker in its doc comment or body (it marks m7 (fault): another step, or the step's fault); " +
				"add one where step m7 happens, saying what happens there in Flink's terms",
		}}},
		{"each hole is checked", writing("m07", "m7", "Strategy.InDoc", "Strategy.Unmarked", "Strategy.InBody"), []MarkerProblem{{
			Exercise: "m07", File: "runtime/slotmanager/strategy.go", Line: 31, Func: "Strategy.Unmarked",
			Message: unmarkedM7,
		}}},
		{"a range takes a marker of any of its steps", writing("x01", "m5-m7", "Strategy.InDoc"), nil},
		{"a range refuses a marker outside it", writing("x01", "m7-m9", "Strategy.OtherStep"), []MarkerProblem{{
			Exercise: "x01", File: "runtime/slotmanager/strategy.go", Line: 20, Func: "Strategy.OtherStep",
			Message: "no `// Step mN:` marker of a step in m7-m9 in its doc comment or body (it marks m6, m11: another step, or the step's fault); " +
				"add one where one of the steps m7-m9 happens, saying what happens there in Flink's terms",
		}}},
		{"an exercise without a step has nothing to check", writing("x01", "", "Strategy.Unmarked"), nil},
		{"a step that is not one", writing("x01", "seven", "Strategy.InDoc"), []MarkerProblem{{
			Exercise: "x01", File: "runtime/slotmanager/strategy.go", Func: "Strategy.InDoc",
			Message: `step "seven" is neither a step such as m7 nor a range such as m2-m4`,
		}}},
		{"a function that is not there", writing("m07", "m7", "Strategy.Gone"), []MarkerProblem{{
			Exercise: "m07", File: "runtime/slotmanager/strategy.go", Func: "Strategy.Gone",
			Message: "no function Strategy.Gone in the file",
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckStepMarkers(stepTree(t), []*exercise.Exercise{tt.e})
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A marker in the body is lost when `learn start` punches the hole: the
// guidance put in its place must show the step instead.
func TestCheckStepMarkersReadsTheGuidance(t *testing.T) {
	e := writing("m07", "m7", "Strategy.InBody")
	e.Holes[0].TODO = "Decide which free slots serve which missing requirements.\n\nStep m6 happened before."

	got, err := CheckStepMarkers(stepTree(t), []*exercise.Exercise{e})

	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, `its todo in exercises/m07/exercise.yaml has no line "Step m7: …": the punched hole would not show its step`, got[0].Message)
}

// Holes are checked in each of their files, and a file that is not there
// is a problem, not a failure to read the tree.
func TestCheckStepMarkersInSeveralFiles(t *testing.T) {
	root := stepTree(t)
	writeFile(t, root, "runtime/slotpool/pool.go", "package slotpool\n\n// Offer takes slots.\nfunc Offer() {}\n")
	e := writing("m08", "m8")
	e.Holes = []exercise.Hole{
		{File: "runtime/slotpool/pool.go", Func: "Offer", TODO: "Step m8: take the slots."},
		{File: "runtime/jobmaster/jobmaster.go", Func: "JobMaster.offerSlots", TODO: "Step m8: answer the offer."},
	}

	got, err := CheckStepMarkers(root, []*exercise.Exercise{e})

	require.NoError(t, err)
	require.Len(t, got, 2, "problems:\n%v", got)
	assert.Equal(t, "runtime/slotpool/pool.go:4: exercise m08, hole Offer: no `// Step m8:` marker in its doc comment or body; "+
		"add one where step m8 happens, saying what happens there in Flink's terms", got[0].String())
	assert.Equal(t, "runtime/jobmaster/jobmaster.go does not exist", got[1].Message)
}

// Reading and predict exercises name a range of steps and have no holes.
func TestCheckStepMarkersSkipsExercisesWithoutHoles(t *testing.T) {
	e := &exercise.Exercise{ID: "r01", Kind: exercise.Read, Step: "m2-m4", Dir: "exercises/r01"}

	got, err := CheckStepMarkers(stepTree(t), []*exercise.Exercise{e})

	require.NoError(t, err)
	assert.Empty(t, got)
}
