// Package exercise reads the metadata of the flinklab exercises, one
// exercises/ID/exercise.yaml each, with the mutants of a writing exercise
// from solutions/ID/mutants.yaml, and refuses an incomplete one: a
// writing exercise without holes, guidance, three hints, an expectation
// its holes must break or mutants; a reading or predict exercise without
// its answer file. What the fields mean is documented on Exercise and the
// types it holds.
//
// The mutants are wrong answers, and the exercise's folder is what the
// learner reads while working, so they are kept beside the reference, in
// the solution's folder; an exercise.yaml that lists mutants is refused.
package exercise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	Write    = "write"    // fill holes in runtime/ (m01 … m11)
	Read     = "read"     // write a call chain that the call graph confirms (r01, r02)
	Predict  = "predict"  // write the expected trace, then compare with a real run (r03)
	Diagnose = "diagnose" // read a broken run's logs, name the step, the component and the proving line (d01 …)
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
	// makes at least one test fail. They are read from MutantsFile (a
	// list of Mutant), not from exercise.yaml.
	Mutants []Mutant `yaml:"-"`

	// Reading is set for Read exercises.
	Reading *Reading `yaml:"reading"`
	// Prediction is set for Predict exercises.
	Prediction *Prediction `yaml:"prediction"`
	// Diagnosis is set for Diagnose exercises, and Drill read from
	// DrillFile: the run is an answer, so it is kept beside the others.
	Diagnosis *Diagnosis `yaml:"diagnosis"`
	Drill     *Drill     `yaml:"-"`

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
	// AboutSteps names the tests whose failures are about the steps
	// m1…m11 their scenario takes: which steps happen, in which order,
	// which break. When one of them fails, `learn check` lays the steps
	// that happened next to the reference's (solutions/ID/traces.txt);
	// for any other failing test it shows no trace. A name covers its
	// subtests.
	AboutSteps []string `yaml:"about_steps"`
}

// Expectation is a test that must fail and, optionally, a piece of its
// failure message.
type Expectation struct {
	Test    string `yaml:"test"`    // full name, subtests included: "TestSubmit/duplicate_is_rejected"
	Message string `yaml:"message"` // a substring of the test's output when it fails; empty: any failure
}

// Mutant is a plausible wrong version of one hole, a mistake someone
// learning the step would make: the reference body with edits applied, or
// a whole body. At least one test must fail with it.
type Mutant struct {
	Name  string `yaml:"name"`  // the mistake, in words: "checks the leader id after marking the slot active"
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
	// Scenario is the test, in the exercise folder, that runs what the
	// exercise describes and logs the ways the run took from From to To
	// (scenario.RecordRunPaths): a chain is right only if the run took it.
	Scenario string `yaml:"scenario"`
}

// Prediction is a predict-then-run exercise: the learner writes what they
// expect, the tool runs the test and compares. What is predicted is the
// trace of a run (PredictTrace, r03: the messages and how often each
// comes), the graphs of programs (PredictGraphs, g05 and c05: the test
// reads the answers and compares them with the graphs it builds, or the
// restarts it runs), the logs of a run (PredictLogs, h05: the test runs
// a cluster of real processes and compares the answers with where each
// line is in their logs), or what a run did (PredictRun, k05: the test
// runs the scenario and compares the answers with what became of it).
type Prediction struct {
	Answer string `yaml:"answer"` // the answers file, relative to the exercise folder
	Test   string `yaml:"test"`   // the test that runs the scenario and logs its trace, or compares the answers
	Of     string `yaml:"of"`     // PredictTrace (the default), PredictGraphs, PredictLogs or PredictRun
}

// What a predict exercise predicts.
const (
	PredictTrace  = "trace"
	PredictGraphs = "graphs"
	PredictLogs   = "logs"
	PredictRun    = "run"
)

// ByTest reports whether the exercise's own test compares the answers
// (graphs, logs and runs), rather than learn (a trace).
func (p *Prediction) ByTest() bool {
	return p.Of == PredictGraphs || p.Of == PredictLogs || p.Of == PredictRun
}

// WrongFile is where the wrong answers of a prediction its test compares
// are kept, relative to the repository root: "solutions/g05/wrong.yaml",
// a list of Wrong.
func WrongFile(id string) string { return "solutions/" + id + "/wrong.yaml" }

// Wrong is an answer people really write to a prediction its test
// compares: the reference with edits. The exercise's test must refuse it,
// and, if Message is set, say so in words that contain Message: the
// mistake it names, so that a test that fails for another reason (a
// scenario that broke) does not pass for a refusal.
type Wrong struct {
	Name    string `yaml:"name"`
	Edits   []Edit `yaml:"edits"`
	Message string `yaml:"message"`
}

// LoadWrong reads the wrong answers of exercise id under root.
func LoadWrong(root, id string) ([]Wrong, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(WrongFile(id))))
	if err != nil {
		return nil, err
	}
	var wrong []Wrong
	if err := decodeStrict(data, &wrong); err != nil {
		return nil, fmt.Errorf("%s: %w", WrongFile(id), err)
	}
	return wrong, nil
}

// Diagnosis is a log-detective drill: the learner reads the logs of a
// broken run and writes into Answer the step that broke, the component to
// open and the line that proves it.
// A drill Of DiagnoseFailover shows the logs of a cluster of processes
// after a failover, and the learner writes what ended the old leader's
// leadership, which JobManager it was, and the line that proves it.
type Diagnosis struct {
	Answer string `yaml:"answer"` // the answers file, relative to the exercise folder
	Of     string `yaml:"of"`     // DiagnoseSteps (the default) or DiagnoseFailover
}

// What a drill asks.
const (
	DiagnoseSteps    = "steps"    // the step m1–m11 (k1–k7 of a checkpoint) that broke first, the component, the line
	DiagnoseFailover = "failover" // what ended a leadership, whose, the line
)

// Failover reports whether the drill asks about a failover.
func (d *Diagnosis) Failover() bool { return d.Of == DiagnoseFailover }

// Drill is a drill's run, read from DrillFile: Spec is handed as it is to
// the producer (exercises/internal/drill.Spec), and its fault is the
// drill's answer. A failover drill's Spec names an incident instead
// (spec.failover: "leader-killed", "leader-paused"), and Key says what
// its logs must show of it.
type Drill struct {
	Spec map[string]any `yaml:"spec"`
	Key  *FailoverKey   `yaml:"key"`
}

// FailoverKey is the answer of a failover drill.
type FailoverKey struct {
	Cause   string `yaml:"cause"`   // what ended the leadership, as package hatrace names it: "leader-killed"
	Process string `yaml:"process"` // the JobManager it happened to, as its log file names it: "standalonesession-0"
}

// Failover returns a failover drill's incident: spec.failover.
func (d *Drill) Failover() string {
	f, _ := d.Spec["failover"].(string)
	return f
}

// Fault returns the drill's fault as fault.Parse reads it: "m7", "m10:jar-corrupted".
func (d *Drill) Fault() string {
	f, _ := d.Spec["fault"].(string)
	return f
}

// Scheduler returns the drill's jobmanager.scheduler: "" (the
// DefaultScheduler) or "adaptive".
func (d *Drill) Scheduler() string {
	s, _ := d.Spec["scheduler"].(string)
	return s
}

// Checkpointed reports whether the drill's job is checkpointed: its spec
// sets checkpointing options.
func (d *Drill) Checkpointed() bool {
	options, _ := d.Spec["checkpointing"].(map[string]any)
	return len(options) > 0
}

// checkDrill refuses a drill's run that does not say its answer: a drill
// of the steps needs spec.fault and no key; a failover drill needs
// spec.failover, no fault, and key.cause and key.process.
func (e *Exercise) checkDrill() []error {
	file := DrillFile(e.ID)
	if e.Diagnosis == nil || !e.Diagnosis.Failover() {
		var errs []error
		if e.Drill == nil || e.Drill.Fault() == "" {
			errs = append(errs, fmt.Errorf("%s: spec.fault is required: the step (and kind) the drill's run breaks", file))
		}
		if e.Drill != nil && e.Drill.Key != nil {
			errs = append(errs, fmt.Errorf("%s: key is a failover drill's (diagnosis.of: %s); spec.fault is this drill's answer", file, DiagnoseFailover))
		}
		return errs
	}
	if e.Drill == nil {
		return []error{fmt.Errorf("%s: spec.failover and key are required: the incident the drill's run makes, and what its logs show", file)}
	}
	var errs []error
	if e.Drill.Failover() == "" {
		errs = append(errs, fmt.Errorf("%s: spec.failover is required: the incident the drill's run makes (leader-killed, leader-paused)", file))
	}
	if e.Drill.Fault() != "" {
		errs = append(errs, fmt.Errorf("%s: spec.fault %q: a failover drill breaks a leader, not a step", file, e.Drill.Fault()))
	}
	if e.Drill.Key == nil || e.Drill.Key.Cause == "" || e.Drill.Key.Process == "" {
		errs = append(errs, fmt.Errorf("%s: key.cause and key.process are required: what ended the leadership, and whose", file))
	}
	return errs
}

// DrillFile is where the run of drill id is kept, relative to the
// repository root: "solutions/d07/drill.yaml".
func DrillFile(id string) string { return "solutions/" + id + "/drill.yaml" }

// Load reads every exercises/*/exercise.yaml under root, in course order:
// lesson by lesson, and within a lesson in ID order (m01 … m11, then
// r01 …, then the drills).
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
	sort.SliceStable(all, func(i, j int) bool {
		if a, b := all[i].LessonFile(), all[j].LessonFile(); a != b {
			return a < b
		}
		return order(all[i].ID) < order(all[j].ID)
	})
	return all, nil
}

// order sorts writing exercises first, then reading ones, then drills:
// m01 < m11 < r01 < d01.
func order(id string) string {
	switch {
	case strings.HasPrefix(id, "m"):
		return "0" + id
	case strings.HasPrefix(id, "d"):
		return "2" + id
	}
	return "1" + id
}

// MutantsFile is where the mutants of exercise id are kept, relative to
// the repository root: "solutions/m03/mutants.yaml".
func MutantsFile(id string) string { return "solutions/" + id + "/mutants.yaml" }

// LoadFile reads one exercise.yaml (and, for a writing exercise, its
// MutantsFile) and checks it is complete.
func LoadFile(root, path string) (*Exercise, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := refuseMutants(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var e Exercise
	if err := decodeStrict(data, &e); err != nil {
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
	if e.Kind == Write && e.ID != "" {
		mutants := filepath.Join(root, filepath.FromSlash(MutantsFile(e.ID)))
		data, err := os.ReadFile(mutants)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%s: %s is missing: a writing exercise needs mutants, the mistakes its tests must catch", path, MutantsFile(e.ID))
		case err != nil:
			return nil, err
		}
		if err := decodeStrict(data, &e.Mutants); err != nil {
			return nil, fmt.Errorf("%s: %w", mutants, err)
		}
	}
	if e.Kind == Diagnose && e.ID != "" {
		drill := filepath.Join(root, filepath.FromSlash(DrillFile(e.ID)))
		data, err := os.ReadFile(drill)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%s: %s is missing: a drill needs its run, the fault its logs hide", path, DrillFile(e.ID))
		case err != nil:
			return nil, err
		}
		e.Drill = &Drill{}
		if err := decodeStrict(data, e.Drill); err != nil {
			return nil, fmt.Errorf("%s: %w", drill, err)
		}
	}
	if err := e.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &e, nil
}

// decodeStrict decodes YAML into v, refusing a field v does not have.
func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// refuseMutants refuses an exercise.yaml that still lists mutants: they
// are answers, and belong beside the reference.
func refuseMutants(data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil // decodeStrict reports it, with the line
	}
	fields := doc.Content[0].Content // key, value, key, value, …
	id := "ID"
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i].Value == "id" && fields[i+1].Value != "" {
			id = fields[i+1].Value
		}
	}
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i].Value == "mutants" {
			return fmt.Errorf("line %d: mutants are answers and are not kept in the exercise's folder: move them to %s, as a list of name, func, edits or body",
				fields[i].Line, MutantsFile(id))
		}
	}
	return nil
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
			if h.File != "" && path.Ext(h.File) != ".go" {
				errs = append(errs, fmt.Errorf("hole %s: %s is not a Go file", h.Func, h.File))
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
		if len(e.Mutants) == 0 {
			errs = append(errs, fmt.Errorf("%s lists no mutants: name the mistakes the tests must catch", MutantsFile(e.ID)))
		}
		seen := map[string]bool{}
		for _, m := range e.Mutants {
			if strings.TrimSpace(m.Name) == "" {
				errs = append(errs, fmt.Errorf("%s: a mutant without a name: say the mistake it makes", MutantsFile(e.ID)))
			}
			if seen[m.Name] {
				errs = append(errs, fmt.Errorf("two mutants are called %q", m.Name))
			}
			seen[m.Name] = true
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
		if e.Reading == nil || e.Reading.From == "" || e.Reading.To == "" || e.Reading.Answer == "" || e.Reading.Scenario == "" {
			errs = append(errs, errors.New("a reading exercise needs reading.from, reading.to, reading.answer and reading.scenario"))
		}
	case Predict:
		if e.Prediction == nil || e.Prediction.Answer == "" || e.Prediction.Test == "" {
			errs = append(errs, errors.New("a predict exercise needs prediction.answer and prediction.test"))
		}
		if e.Prediction != nil && !slices.Contains([]string{"", PredictTrace, PredictGraphs, PredictLogs, PredictRun}, e.Prediction.Of) {
			errs = append(errs, fmt.Errorf("prediction.of %q: want %q, %q, %q or %q", e.Prediction.Of, PredictTrace, PredictGraphs, PredictLogs, PredictRun))
		}
	case Diagnose:
		if e.Diagnosis == nil || e.Diagnosis.Answer == "" {
			errs = append(errs, errors.New("a drill needs diagnosis.answer"))
		}
		if e.Diagnosis != nil && !slices.Contains([]string{"", DiagnoseSteps, DiagnoseFailover}, e.Diagnosis.Of) {
			errs = append(errs, fmt.Errorf("diagnosis.of %q: want %q or %q", e.Diagnosis.Of, DiagnoseSteps, DiagnoseFailover))
		}
		if e.Step != "" {
			errs = append(errs, errors.New("a drill names no step: the step is its answer, kept in "+DrillFile(e.ID)))
		}
		errs = append(errs, e.checkDrill()...)
	default:
		errs = append(errs, fmt.Errorf("unknown kind %q", e.Kind))
	}
	return errors.Join(errs...)
}

// LessonFile is the lesson the exercise belongs to, without the section:
// "lessons/01-jobmanager-anatomy.md".
func (e *Exercise) LessonFile() string {
	file, _, _ := strings.Cut(e.Lesson, "#")
	return file
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
