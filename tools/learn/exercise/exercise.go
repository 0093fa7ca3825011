// Package exercise reads the metadata of the flinklab exercises, one
// exercises/ID/exercise.yaml each, and refuses an incomplete one: a
// writing exercise without holes, guidance, three hints or an expectation
// its holes must break; a reading or predict exercise without its answer
// file. What the fields mean is documented on Exercise and the types it
// holds.
package exercise

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Kinds of exercise.
const (
	Write   = "write"   // fill holes in runtime/ (m01 … m11)
	Read    = "read"    // write a call chain that the call graph confirms (r01, r02)
	Predict = "predict" // write the expected trace, then compare with a real run (r03)
)

// Exercise is one exercise's metadata, read from exercises/ID/exercise.yaml.
type Exercise struct {
	ID     string `yaml:"id"`     // "m03"; the folder's name
	Title  string `yaml:"title"`  // one line
	Kind   string `yaml:"kind"`   // Write (default), Read or Predict
	Step   string `yaml:"step"`   // the submission step it teaches: "m3"
	Lesson string `yaml:"lesson"` // the lesson section, relative to the repository root: "lessons/01-jobmanager-anatomy.md#m3"
	Flink  string `yaml:"flink"`  // the Flink class and method it mirrors: "org.apache.flink.runtime.dispatcher.Dispatcher#submitJob"

	// Holes are the function bodies `learn start` punches (Write only).
	Holes []Hole `yaml:"holes"`
	// Tests says which tests drive the exercise and what must fail.
	Tests Tests `yaml:"tests"`
	// Hints are revealed one at a time: a nudge, where to look (in our
	// code and in Flink's), nearly the answer. Exactly three.
	Hints []string `yaml:"hints"`
	// Mutants are plausible wrong bodies; `learn verify` proves that each
	// makes at least one test fail.
	Mutants []Mutant `yaml:"mutants"`

	// Reading is set for Read exercises.
	Reading *Reading `yaml:"reading"`
	// Prediction is set for Predict exercises.
	Prediction *Prediction `yaml:"prediction"`

	Dir string `yaml:"-"` // the exercise's folder, relative to the repository root: "exercises/m03"
}

// Hole is one function whose body `learn start` replaces with a panic.
type Hole struct {
	File string `yaml:"file"` // relative to the repository root, slash-separated: "runtime/dispatcher/dispatcher.go"
	Func string `yaml:"func"` // "Dispatcher.checkAndSubmitJob" for a method, "isPartialResourceConfigured" for a function
	TODO string `yaml:"todo"` // the guidance comment put into the punched body
}

// Tests names the exercise's tests and the expectations that prove the
// holes matter.
type Tests struct {
	// Run is the -run pattern; empty runs every test in the folder.
	Run string `yaml:"run"`
	// MustFail lists expectations that must fail with the holes punched,
	// each on its own assertion (the test binary must not crash).
	MustFail []Expectation `yaml:"must_fail"`
}

// Expectation is a test that must fail and, optionally, a piece of its
// failure message.
type Expectation struct {
	Test    string `yaml:"test"`    // full name, subtests included: "TestSubmit/duplicate_is_rejected"
	Message string `yaml:"message"` // a substring of the test's output when it fails; empty: any failure
}

// Mutant is a plausible wrong version of one hole: the reference body with
// edits applied, or a whole body. At least one test must fail with it.
type Mutant struct {
	Name  string `yaml:"name"`  // "skip the duplicate check"
	Func  string `yaml:"func"`  // the hole it changes; empty when the exercise has one hole
	Edits []Edit `yaml:"edits"` // applied to the reference body in order; each Replace must occur exactly once
	Body  string `yaml:"body"`  // a whole replacement body (the text between the braces), instead of Edits
}

// Edit replaces one exact piece of the reference body.
type Edit struct {
	Replace string `yaml:"replace"`
	With    string `yaml:"with"`
}

// Reading is a reading exercise: the learner writes the call chain from
// From to To, one short name per line, into Answer.
type Reading struct {
	From   string `yaml:"from"`   // where the chain must start
	To     string `yaml:"to"`     // where it must end
	Answer string `yaml:"answer"` // the answers file, relative to the exercise folder
}

// Prediction is a predict-then-run exercise: the learner writes the
// messages they expect, the tool runs the scenario test and compares.
type Prediction struct {
	Answer string `yaml:"answer"` // the answers file, relative to the exercise folder
	Test   string `yaml:"test"`   // the test that runs the scenario and logs its trace
}

// Load reads every exercises/*/exercise.yaml under root, in ID order
// (m01 … m11, then r01 …).
func Load(root string) ([]*Exercise, error) {
	paths, err := filepath.Glob(filepath.Join(root, "exercises", "*", "exercise.yaml"))
	if err != nil {
		return nil, err
	}
	var all []*Exercise
	for _, p := range paths {
		e, err := LoadFile(root, p)
		if err != nil {
			return nil, err
		}
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool { return order(all[i].ID) < order(all[j].ID) })
	return all, nil
}

// order sorts writing exercises before reading ones: m01 < m11 < r01.
func order(id string) string {
	if strings.HasPrefix(id, "m") {
		return "0" + id
	}
	return "1" + id
}

// LoadFile reads one exercise.yaml and checks it is complete.
func LoadFile(root, path string) (*Exercise, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var e Exercise
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	e.Dir = filepath.ToSlash(dir)
	if e.Kind == "" {
		e.Kind = Write
	}
	if err := e.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &e, nil
}

func (e *Exercise) validate() error {
	var errs []error
	if e.ID != filepath.Base(e.Dir) {
		errs = append(errs, fmt.Errorf("id %q is not the folder's name %q", e.ID, filepath.Base(e.Dir)))
	}
	if e.Title == "" {
		errs = append(errs, errors.New("no title"))
	}
	if !strings.HasPrefix(e.Lesson, "lessons/") {
		errs = append(errs, fmt.Errorf("lesson %q: name the lesson section, e.g. lessons/01-jobmanager-anatomy.md#m3", e.Lesson))
	}
	if len(e.Hints) != 3 {
		errs = append(errs, fmt.Errorf("%d hints; want three (nudge, where to look, nearly the answer)", len(e.Hints)))
	}
	switch e.Kind {
	case Write:
		if len(e.Holes) == 0 {
			errs = append(errs, errors.New("a writing exercise needs holes"))
		}
		for _, h := range e.Holes {
			if h.File == "" || h.Func == "" {
				errs = append(errs, fmt.Errorf("hole %+v: file and func are required", h))
			}
			if strings.TrimSpace(h.TODO) == "" {
				errs = append(errs, fmt.Errorf("hole %s: no TODO guidance", h.Func))
			}
		}
		names := map[string]string{} // file name → path
		for _, f := range e.Files() {
			if other, ok := names[path.Base(f)]; ok {
				errs = append(errs, fmt.Errorf("holes in %s and %s: the reference keeps one file per name, solutions/%s/%s", other, f, e.ID, path.Base(f)))
			}
			names[path.Base(f)] = f
		}
		if len(e.Tests.MustFail) == 0 {
			errs = append(errs, errors.New("tests.must_fail is empty: name the expectation a punched hole must break"))
		}
		for _, m := range e.Mutants {
			if m.Func == "" && len(e.Holes) > 1 {
				errs = append(errs, fmt.Errorf("mutant %q: func is required when there are several holes", m.Name))
			}
			if m.Func != "" && !slices.ContainsFunc(e.Holes, func(h Hole) bool { return h.Func == m.Func }) {
				errs = append(errs, fmt.Errorf("mutant %q: %s is not a hole", m.Name, m.Func))
			}
			if (len(m.Edits) == 0) == (m.Body == "") {
				errs = append(errs, fmt.Errorf("mutant %q: give edits or a body, not both", m.Name))
			}
		}
	case Read:
		if e.Reading == nil || e.Reading.From == "" || e.Reading.To == "" || e.Reading.Answer == "" {
			errs = append(errs, errors.New("a reading exercise needs reading.from, reading.to and reading.answer"))
		}
	case Predict:
		if e.Prediction == nil || e.Prediction.Answer == "" || e.Prediction.Test == "" {
			errs = append(errs, errors.New("a predict exercise needs prediction.answer and prediction.test"))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown kind %q", e.Kind))
	}
	return errors.Join(errs...)
}

// MutantHole returns the hole a mutant changes.
func (e *Exercise) MutantHole(m Mutant) Hole {
	for _, h := range e.Holes {
		if h.Func == m.Func {
			return h
		}
	}
	return e.Holes[0]
}

// Files returns the distinct files the exercise's holes are in.
func (e *Exercise) Files() []string {
	var files []string
	for _, h := range e.Holes {
		if !slices.Contains(files, h.File) {
			files = append(files, h.File)
		}
	}
	return files
}
