package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
	"flinklab/tools/learn/hole"
)

// verifyExercise proves a writing exercise honest:
//
//	(a) with its holes punched, its tests fail, on the expectations its
//	    metadata names, and the test binary does not crash; and with
//	    each hole punched alone, a test fails too (so none can be left a
//	    hole when the exercise passes);
//	(b) with each mutant (solutions/ID/mutants.yaml: the reference with
//	    a learner's mistake in it), at least one of its tests fails;
//	(c) with the reference, all its tests pass;
//	(d) its reference files and reference traces match the runtime;
//	(e) it has guidance in every hole and three hints (checked on load).
//
// The reference is checked first, (d) and (c): holes and mutants prove
// something only against a reference that is right itself. Its files
// come before any test runs, as comparing them costs nothing.
//
// complete is the complete runtime (referenceOverlay). Every run goes
// through go test -overlay: the tree is never touched, and what the
// learner has punched or written in it does not count.
//
// A build costs more than most runs, so the tests are built twice: once
// with every hole punched, as the learner gets them, and once with every
// variant of the holes compiled in beside the reference (variantsBuild),
// whose binary runs the reference, each hole punched alone and each mutant
// in turn.
func (c *course) verifyExercise(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) (string, error) {
	// (e) was checked when the exercise was loaded (exercise.Load).
	inSync, err := c.verifyReferenceFiles(e) // (d)
	if err != nil {
		return "", err
	}
	variants, err := c.buildVariants(ctx, e, complete)
	if err != nil {
		return "", err
	}
	defer variants.cleanup()
	ref, err := c.verifyReferencePasses(ctx, variants) // (c)
	if err != nil {
		return "", err
	}
	if err := c.verifyReferenceTraces(e, ref); err != nil { // (d) solutions/ID/traces.txt is this run's (tracesync.go)
		return "", err
	}
	if err := c.verifyHolesFail(ctx, e, complete); err != nil { // (a)
		return "", err
	}
	if err := c.verifyEachHoleFails(ctx, variants); err != nil { // (a)
		return "", err
	}
	if err := c.verifyMutantsCaught(ctx, variants); err != nil { // (b)
		return "", err
	}
	return fmt.Sprintf("%s, %d mutants caught, reference passes, %s", holesSummary(e), len(e.Mutants), inSync), nil
}

// variantsBuild is an exercise's tests built once with every variant of
// its holes compiled in beside the reference (hole.Dispatch): with
// envVariant unset the binary runs the reference; set to punchedKey(i), it
// runs hole i punched and the others as the reference; set to
// mutantKey(i), mutant i. When that build fails (a mutant that does not
// compile), binary is empty and each run builds its own variant, so that
// the error names the variant.
type variantsBuild struct {
	e        *exercise.Exercise
	complete map[string][]byte
	run      gotest.Run
	binary   string
	cleanup  func()
}

// envVariant names the variant a variantsBuild runs.
const envVariant = "FLINKLAB_VARIANT"

func punchedKey(hole int) string  { return "punched" + strconv.Itoa(hole) }
func mutantKey(mutant int) string { return strconv.Itoa(mutant) }

// buildVariants compiles e's tests with every variant of its holes in.
func (c *course) buildVariants(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) (*variantsBuild, error) {
	b := &variantsBuild{e: e, complete: complete, cleanup: func() {}}
	files, err := batchedVariants(e, complete)
	if err != nil {
		return nil, err
	}
	b.run = c.testRun(e, files)
	binary, failed, cleanup, err := gotest.Compile(ctx, b.run)
	if err != nil {
		return nil, err
	}
	if failed == nil {
		b.binary, b.cleanup = binary, cleanup
	} else {
		cleanup()
	}
	return b, nil
}

// execute runs the variant named key ("" for the reference), stopping at
// the first failing test when failFast is set. Without a binary it builds
// the variant on its own; a variant that does not compile comes back as a
// result with BuildFailed.
func (c *course) execute(ctx context.Context, b *variantsBuild, key string, failFast bool) (*gotest.Result, error) {
	run := b.run
	run.FailFast = failFast
	if b.binary != "" {
		if key != "" {
			run.Env = []string{envVariant + "=" + key}
		}
		return gotest.ExecuteBinary(ctx, run, b.binary)
	}
	files, err := variantFiles(b.e, b.complete, key)
	if err != nil {
		return nil, err
	}
	run = c.testRun(b.e, files)
	run.FailFast = failFast
	return gotest.Execute(ctx, run)
}

// verifyReferenceFiles is check (d) for the reference files: they are what
// `learn solutions` would write now. That can only be told from an
// untouched tree: while the learner's version is in it, the files are
// left out, and the phrase it returns for the summary says so.
func (c *course) verifyReferenceFiles(e *exercise.Exercise) (inSync string, err error) {
	differs, err := c.differsFromReference(e)
	if err != nil {
		return "", err
	}
	if differs {
		return "solution not compared (your version of " + e.ID + " is in the tree)", nil
	}
	for _, file := range e.Files() {
		want, err := c.referenceSource(e, file)
		if err != nil {
			return "", err
		}
		got, err := c.read(referenceFile(e, file))
		if err != nil || !bytes.Equal(got, want) {
			return "", fmt.Errorf("%s is out of date with %s: run `go run ./tools/learn solutions`", referenceFile(e, file), file)
		}
	}
	return "solution in sync", nil
}

// verifyReferencePasses is check (c): with the reference in its holes,
// every test of the exercise passes. It returns the run, whose traces
// (d) compares with the reference traces.
func (c *course) verifyReferencePasses(ctx context.Context, variants *variantsBuild) (*gotest.Result, error) {
	ref, err := c.execute(ctx, variants, "", false)
	if err != nil {
		return nil, err
	}
	if !ref.Passed {
		return nil, fmt.Errorf("the reference fails its own tests:\n%s", describeFailure(ref))
	}
	return ref, nil
}

// verifyHolesFail is check (a): with every hole punched, the tests
// compile and fail without crashing the test binary, each named
// expectation on its own assertion.
func (c *course) verifyHolesFail(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) error {
	punched := maps.Clone(complete)
	for _, file := range e.Files() {
		var err error
		if punched[file], err = punch(e, file, complete[file]); err != nil {
			return err
		}
	}
	holed, err := c.runTests(ctx, e, punched)
	if err != nil {
		return err
	}
	if holed.BuildFailed {
		return fmt.Errorf("with the holes punched the tests do not compile:\n%s", strings.Join(holed.Output, "\n"))
	}
	if holed.Crashed {
		return fmt.Errorf("with the holes punched the test binary crashes instead of failing on an expectation:\n%s", describeFailure(holed))
	}
	if holed.Passed {
		return errors.New("with the holes punched, every test passes")
	}
	for _, want := range e.Tests.MustFail {
		t := holed.Test(want.Test)
		switch {
		case t == nil:
			return fmt.Errorf("with the holes punched, %s did not run", want.Test)
		case !t.Failed():
			return fmt.Errorf("with the holes punched, %s passes", want.Test)
		case want.Message != "" && !strings.Contains(strings.Join(t.Output, "\n"), want.Message):
			return fmt.Errorf("with the holes punched, %s fails, but not on %q:\n%s", want.Test, want.Message, strings.Join(t.Output, "\n"))
		}
	}
	return nil
}

// verifyEachHoleFails is check (a) again: each hole punched alone makes a
// test fail, so none can be left a hole when the exercise passes. An
// exercise with one hole has had it punched alone by verifyHolesFail.
func (c *course) verifyEachHoleFails(ctx context.Context, variants *variantsBuild) error {
	e := variants.e
	if len(e.Holes) < 2 {
		return nil
	}
	for i, h := range e.Holes {
		result, err := c.execute(ctx, variants, punchedKey(i), true)
		if err != nil {
			return err
		}
		if result.BuildFailed {
			return fmt.Errorf("with only %s punched the tests do not compile:\n%s", h.Func, strings.Join(result.Output, "\n"))
		}
		if result.Passed {
			return fmt.Errorf("with only %s punched, every test passes: the tests do not need it", h.Func)
		}
	}
	return nil
}

// holesSummary says what checks (a) proved, for verify's summary line.
func holesSummary(e *exercise.Exercise) string {
	holes := fmt.Sprintf("holes fail %d named expectations", len(e.Tests.MustFail))
	if len(e.Holes) > 1 {
		holes += fmt.Sprintf(" (and each of the %d alone fails a test)", len(e.Holes))
	}
	return holes
}

// verifyMutantsCaught is check (b): every mutant compiles and makes at
// least one test fail. A mutant that survives is a defect of the
// exercise's tests, not of the mutant.
func (c *course) verifyMutantsCaught(ctx context.Context, variants *variantsBuild) error {
	for i, m := range variants.e.Mutants {
		result, err := c.execute(ctx, variants, mutantKey(i), true)
		if err != nil {
			return err
		}
		if result.BuildFailed {
			return fmt.Errorf("mutant %q does not compile:\n%s", m.Name, strings.Join(result.Output, "\n"))
		}
		if result.Passed {
			return fmt.Errorf("mutant %q survives: every test passes with it", m.Name)
		}
	}
	return nil
}

// batchedVariants returns the complete runtime with every variant of e's
// holes compiled in beside the reference, each hole's body picking its
// variant by envVariant (see variantsBuild).
func batchedVariants(e *exercise.Exercise, complete map[string][]byte) (map[string][]byte, error) {
	files := maps.Clone(complete)
	for i, h := range e.Holes {
		variants := map[string]string{}
		if len(e.Holes) > 1 {
			variants[punchedKey(i)] = hole.PunchedBody(e.ID, h.Func, h.TODO)
		}
		for j, m := range e.Mutants {
			if e.MutantHole(m) != h {
				continue
			}
			body, err := mutantBody(complete[h.File], h.Func, m)
			if err != nil {
				return nil, fmt.Errorf("mutant %q (%s): %w", m.Name, exercise.MutantsFile(e.ID), err)
			}
			variants[mutantKey(j)] = body
		}
		if len(variants) == 0 {
			continue
		}
		imports, err := hole.Imports(complete[h.File])
		if err != nil {
			return nil, err
		}
		if files[h.File], err = hole.Dispatch(files[h.File], h.Func, variants, envVariant, imports); err != nil {
			return nil, fmt.Errorf("%s: %w", h.Func, err)
		}
	}
	return files, nil
}

// variantFiles returns the complete runtime with the one variant named
// key in its hole: the build of a single variant, when the batched build
// fails.
func variantFiles(e *exercise.Exercise, complete map[string][]byte, key string) (map[string][]byte, error) {
	files := maps.Clone(complete)
	if key == "" {
		return files, nil
	}
	for i, h := range e.Holes {
		if key == punchedKey(i) {
			var err error
			files[h.File], err = hole.Punch(complete[h.File], e.ID, map[string]string{h.Func: h.TODO})
			return files, err
		}
	}
	for i, m := range e.Mutants {
		if key != mutantKey(i) {
			continue
		}
		h := e.MutantHole(m)
		body, err := mutantBody(complete[h.File], h.Func, m)
		if err != nil {
			return nil, fmt.Errorf("mutant %q (%s): %w", m.Name, exercise.MutantsFile(e.ID), err)
		}
		imports, err := hole.Imports(complete[h.File])
		if err != nil {
			return nil, err
		}
		if files[h.File], err = hole.Replace(complete[h.File], map[string]string{h.Func: body}, imports); err != nil {
			return nil, fmt.Errorf("mutant %q: %w", m.Name, err)
		}
		return files, nil
	}
	return nil, fmt.Errorf("%s has no variant %q", e.ID, key)
}

// mutantBody applies a mutant to the reference body of a hole.
func mutantBody(src []byte, name string, m exercise.Mutant) (string, error) {
	if m.Body != "" {
		return "\n" + m.Body, nil
	}
	fn, err := hole.Find(src, name)
	if err != nil {
		return "", err
	}
	body, err := applyEdits(fn.Body, m.Edits)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return body, nil
}

// testTimeout is how long an exercise's tests may run. They take well
// under a second; a body that blocks forever (a learner's, or a mutant)
// is reported after this, not after gotest's default of two minutes.
const testTimeout = 30 * time.Second

// runTests runs an exercise's tests with files (relative paths) standing
// in for the tree's.
func (c *course) runTests(ctx context.Context, e *exercise.Exercise, files map[string][]byte) (*gotest.Result, error) {
	return gotest.Execute(ctx, c.testRun(e, files))
}

// testRun is the go test invocation of an exercise's tests.
//
// It leaves go vet out (-vet=off): vet looks at the exercise's own test
// files, which no hole, mutant or learner changes, and `make test` vets
// every package with the reference in its holes (go vet ./...) before it
// runs verify. Vetting again for each of the hundred-odd variants verify
// builds would cost a third of each build.
func (c *course) testRun(e *exercise.Exercise, files map[string][]byte) gotest.Run {
	return gotest.Run{
		Root:    c.root,
		Package: "./" + e.Dir,
		Pattern: e.Tests.Run,
		Overlay: files,
		Timeout: testTimeout,
		SkipVet: true,
	}
}

// verify proves every exercise (or the ones named) honest, a few at a
// time, and reports each as soon as it and those before it are done.
func (c *course) verify(ctx context.Context, ids []string, out io.Writer) error {
	todo := c.exercises
	if len(ids) > 0 {
		todo = nil
		for _, id := range ids {
			e, err := c.exercise(id)
			if err != nil {
				return err
			}
			todo = append(todo, e)
		}
	}
	complete, err := c.referenceOverlay()
	if err != nil {
		return err
	}
	if slices.ContainsFunc(todo, func(e *exercise.Exercise) bool { return e.Kind == exercise.Diagnose }) {
		cleanup, err := c.buildDrills(ctx) // every drill runs the same producer: build it once
		if err != nil {
			return err
		}
		defer cleanup()
	}
	type outcome struct {
		summary string
		err     error
	}
	outcomes := make([]outcome, len(todo))
	done := make([]chan struct{}, len(todo))
	var wg sync.WaitGroup
	limit := make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))
	for i, e := range todo {
		done[i] = make(chan struct{})
		wg.Go(func() {
			defer close(done[i])
			limit <- struct{}{}
			defer func() { <-limit }()
			s, err := c.verifyOne(ctx, e, complete)
			outcomes[i] = outcome{s, err}
		})
	}
	defer wg.Wait()
	failed := 0
	for i, e := range todo {
		<-done[i]
		if err := ctx.Err(); err != nil {
			return err // interrupted: the outcomes say nothing about the exercises
		}
		if o := outcomes[i]; o.err != nil {
			fmt.Fprintf(out, "✗ %s: %v\n", e.ID, o.err)
			failed++
		} else {
			fmt.Fprintf(out, "✓ %s: %s\n", e.ID, o.summary)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d exercises are not honest", failed, len(todo))
	}
	return nil
}

func (c *course) verifyOne(ctx context.Context, e *exercise.Exercise, complete map[string][]byte) (string, error) {
	switch e.Kind {
	case exercise.Write:
		return c.verifyExercise(ctx, e, complete)
	case exercise.Read:
		return c.verifyReading(ctx, e)
	case exercise.Predict:
		if e.Prediction.ByTest() {
			return c.verifyPredictionByTest(ctx, e, complete)
		}
		return c.verifyPrediction(ctx, e, complete)
	case exercise.Diagnose:
		return c.verifyDrill(ctx, e)
	}
	return "", fmt.Errorf("unknown kind %q", e.Kind)
}
