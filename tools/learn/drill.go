package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"flinklab/runtime/fault"
	"flinklab/tools/learn/diagnose"
	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/gotest"
)

// A drill's logs are made by a real cluster, in the test TestProduce of
// exercises/internal/drill, on the complete runtime (referenceOverlay), so
// that a writing exercise in progress does not break the run. The test
// reads the drill's Spec and where to write from its environment, under
// the names of exercises/internal/drill.EnvSpec and EnvDir.
const (
	drillPackage = "./exercises/internal/drill"
	drillEnvSpec = "FLINKLAB_DRILL_SPEC"
	drillEnvDir  = "FLINKLAB_DRILL_DIR"
)

// drillDir is where the logs of a drill are kept once made, relative to the
// repository root: .learn-drills/d07. Git ignores it.
func drillDir(e *exercise.Exercise) string { return ".learn-drills/" + e.ID }

// drillPath is drillDir as an absolute path, under c.drills when it is set
// (a test's temporary directory).
func (c *course) drillPath(e *exercise.Exercise) string {
	if c.drills != "" {
		return filepath.Join(c.drills, e.ID)
	}
	return c.path(drillDir(e))
}

// produceDrill runs drill e's cluster and writes its files into dir (an
// absolute path), with the seed replaced when seed is not nil.
func (c *course) produceDrill(ctx context.Context, e *exercise.Exercise, dir string, seed *int64) error {
	spec := maps.Clone(e.Drill.Spec)
	if seed != nil {
		spec["seed"] = *seed
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	run, err := c.drillRun()
	if err != nil {
		return err
	}
	run.Env = []string{drillEnvSpec + "=" + string(data), drillEnvDir + "=" + dir}
	var result *gotest.Result
	if c.drillBinary != "" {
		result, err = gotest.ExecuteBinary(ctx, run, c.drillBinary)
	} else {
		result, err = gotest.Execute(ctx, run)
	}
	if err != nil {
		return err
	}
	if t := result.Test("TestProduce"); result.NoTests && t != nil && t.Action == "skip" { // a failover drill without ZooKeeper
		return fmt.Errorf("%w: the run of %s could not start:\n%s", errRunSkipped, e.ID, indent(strings.Join(skipReasons(result), "\n"), "  "))
	}
	if !result.Passed {
		return fmt.Errorf("the run of %s did not end:\n%s", e.ID, describeFailure(result))
	}
	return nil
}

// errRunSkipped is a drill's run that its producer skipped: a failover
// drill where no ZooKeeper server is installed (under CI=true it fails
// instead).
var errRunSkipped = errors.New("skipped")

// drillRun is the go test invocation of the producer, on the complete
// runtime.
func (c *course) drillRun() (gotest.Run, error) {
	complete, err := c.referenceOverlay()
	if err != nil {
		return gotest.Run{}, err
	}
	return gotest.Run{
		Root:    c.root,
		Package: drillPackage,
		Pattern: "^TestProduce$",
		Overlay: complete,
		Timeout: testTimeout,
		SkipVet: true,
	}, nil
}

// buildDrills builds the producer once for the drill runs to come
// (drillBinary) and returns what removes it again.
func (c *course) buildDrills(ctx context.Context) (cleanup func(), err error) {
	run, err := c.drillRun()
	if err != nil {
		return nil, err
	}
	binary, failed, remove, err := gotest.Compile(ctx, run)
	if err != nil {
		return nil, err
	}
	if failed != nil {
		remove()
		return nil, fmt.Errorf("the drills' producer does not compile:\n%s", strings.Join(failed.Output, "\n"))
	}
	c.drillBinary = binary
	return func() { c.drillBinary = ""; remove() }, nil
}

// startDrill makes the drill's logs unless they are made already (so that
// the drill shows the same logs every time), writes the answer file from
// its template, and says where everything is.
func (c *course) startDrill(ctx context.Context, e *exercise.Exercise, out io.Writer) error {
	if _, err := os.Stat(filepath.Join(c.drillPath(e), "log")); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(out, "A cluster runs %s's job; its logs are kept in %s…\n", e.ID, c.shown(c.drillPath(e)))
		if err := c.produceDrill(ctx, e, c.drillPath(e), nil); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if err := c.punchAndRecord(e, false); err != nil {
		return err
	}
	c.describe(e, out)
	return nil
}

// practiceDrill is `learn diagnose`: a drill the learner has not done
// (any drill once all are), picked at random, on a fresh run with a new
// seed: the same fault, another clock and other IDs. A previous answer is
// kept in .learn-backups/ first, as reset keeps one.
func (c *course) practiceDrill(ctx context.Context, out io.Writer) error {
	var drills, unseen []*exercise.Exercise
	for _, e := range c.exercises {
		if e.Kind == exercise.Diagnose {
			drills = append(drills, e)
			if c.state(e) != done {
				unseen = append(unseen, e)
			}
		}
	}
	if len(unseen) == 0 {
		unseen = drills
	}
	if len(unseen) == 0 {
		return errors.New("the course has no drills")
	}
	e := unseen[rand.IntN(len(unseen))]
	if c.state(e) != notStarted {
		if err := c.reset(e, io.Discard); err != nil {
			return err
		}
	}
	seed := rand.Int64N(1 << 31)
	if err := os.RemoveAll(c.drillPath(e)); err != nil {
		return err
	}
	fmt.Fprintf(out, "A fresh run of %s (seed %d); its logs are kept in %s…\n", e.ID, seed, c.shown(c.drillPath(e)))
	if err := c.produceDrill(ctx, e, c.drillPath(e), &seed); err != nil {
		return err
	}
	return c.startDrill(ctx, e, out)
}

// describeDrill lists what the drill shows, as an engineer on call would
// find it.
func (c *course) describeDrill(e *exercise.Exercise, out io.Writer) {
	fmt.Fprintf(out, "The run's files, in %s:\n", c.shown(c.drillPath(e)))
	files, _ := filepath.Glob(filepath.Join(c.drillPath(e), "log", "*.log"))
	files = append(files, filepath.Join(c.drillPath(e), "client.txt"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(c.drillPath(e), f)
		fmt.Fprintf(out, "  %-52s %5d lines  %s\n", filepath.ToSlash(rel), strings.Count(string(data), "\n"), whoseFile(rel, e.Diagnosis.Failover(), e.Drill.Checkpointed()))
	}
	if e.Diagnosis.Failover() {
		fmt.Fprintf(out, "\nAnswer in %s: what ended the old leader's leadership, the JobManager\n"+
			"it happened to, and the log line that proves it, copied from the logs.\n", answerFile(e))
		return
	}
	key, err := drillKey(e)
	if err == nil && diagnose.IsCheckpointStep(key.Step) {
		fmt.Fprintf(out, "\nAnswer in %s: the step the checkpoint stopped at (%s), the component to open, and the\n"+
			"line that proves it, copied from the logs or from the checkpoint statistics in %s.\n",
			answerFile(e), diagnose.StepRange(key.Step), diagnose.ClientFile)
		return
	}
	fmt.Fprintf(out, "\nAnswer in %s: the step that broke first (%s), the component to open, and the\n"+
		"log line that proves it, copied from the logs.\n", answerFile(e), diagnose.StepRange(key.Step))
}

// shown is path as the learner would type it: relative to the repository
// root when it is under it.
func (c *course) shown(path string) string {
	if rel, err := filepath.Rel(c.root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// whoseFile says whose a drill's file is, from its name; a failover
// drill has a log per JobManager, and what the client was told of a
// checkpointed job has its checkpoints.
func whoseFile(name string, failover, checkpointed bool) string {
	switch {
	case strings.Contains(name, "standalonesession") && failover:
		return "a JobManager's log"
	case strings.Contains(name, "standalonesession"):
		return "the JobManager's log"
	case strings.Contains(name, "taskexecutor"):
		return "a TaskManager's log"
	case name == "client.txt" && checkpointed:
		return "what the client was told (REST answers, the web UI's checkpoints, flink list -a)"
	case name == "client.txt":
		return "what the client was told (REST answers, flink list -a)"
	}
	return ""
}

// drillKey is drill e's answer: the step and kind of its fault, and the
// component to open; its lines are those of the drill's scheduler.
func drillKey(e *exercise.Exercise) (diagnose.Key, error) {
	f, err := fault.Parse(e.Drill.Fault())
	if err != nil {
		return diagnose.Key{}, fmt.Errorf("%s: %w", exercise.DrillFile(e.ID), err)
	}
	key, err := diagnose.NewKey(f.Step, f.Kind)
	key.Scheduler = e.Drill.Scheduler()
	return key, err
}

// checkDrill grades the learner's answer against the drill's logs: each
// of the three parts, and for a wrong one what kind of line to look for.
func (c *course) checkDrill(e *exercise.Exercise, out io.Writer) (bool, error) {
	logs, err := diagnose.LoadLogs(c.drillPath(e))
	if errors.Is(err, diagnose.ErrNoLogs) {
		fmt.Fprintf(out, "✗ %s has no logs yet: go run ./tools/learn start %s\n", e.ID, e.ID)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	data, err := c.readAnswer(e)
	if err != nil {
		return false, err
	}
	verdict, answerErr, err := gradeDrill(e, logs, data)
	if err != nil {
		return false, err
	}
	if answerErr != nil {
		fmt.Fprintf(out, "✗ %s: %v\n", answerFile(e), answerErr)
		return false, nil
	}
	if verdict.Passed() {
		what := "the step, the component and the line that proves it"
		if e.Diagnosis.Failover() {
			what = "the cause, the JobManager and the line that proves it"
		}
		fmt.Fprintf(out, "✓ %s: %s are right.\n", e.ID, what)
		fmt.Fprintf(out, "\nWhat the logs show, and what to read next time: go run ./tools/learn solution %s\n", e.ID)
		return true, c.markDone(e)
	}
	fmt.Fprintf(out, "✗ %s: not yet.\n\n%s", e.ID, indent(verdict.String(), "  "))
	fmt.Fprintf(out, "\nCorrect %s and check again.\n", answerFile(e))
	fmt.Fprintf(out, "\nHint 1 of 3:\n%s", indent(strings.TrimSpace(e.Hints[0]), "  "))
	fmt.Fprintf(out, "\nThe drill: %s/README.md · more hints: go run ./tools/learn hint %s\n", e.Dir, e.ID)
	return false, nil
}

// drillVerdict is the grade of a drill's answer, of the steps or of a
// failover.
type drillVerdict interface {
	Passed() bool
	String() string
}

// gradeDrill reads the learner's answer file and grades it against the
// drill's logs. answerErr is the learner's: the file is not in the form
// of an answer; err is the drill's own.
func gradeDrill(e *exercise.Exercise, logs diagnose.Logs, data []byte) (v drillVerdict, answerErr, err error) {
	if e.Diagnosis.Failover() {
		return gradeFailoverDrill(e, logs, data)
	}
	answer, answerErr := diagnose.ParseAnswer(data)
	if answerErr != nil {
		return nil, answerErr, nil
	}
	key, err := drillKey(e)
	if err != nil {
		return nil, nil, err
	}
	grade := diagnose.Grade(key, logs, answer)
	return grade, nil, grade.Err
}

// drillSolution says what broke, in the words of package fault's
// evidence, and quotes the lines of the learner's logs that prove it.
func (c *course) drillSolution(e *exercise.Exercise, out io.Writer) error {
	if e.Diagnosis.Failover() {
		return c.failoverSolution(e, out)
	}
	key, err := drillKey(e)
	if err != nil {
		return err
	}
	evidence, err := key.Evidence()
	if err != nil {
		return err
	}
	// The words of `make run`'s diagnosis of the same fault.
	d := fault.Diagnosis{Step: key.Step, Component: key.Component, Kind: key.Kind, Cause: evidence.Cause, WhereToLook: evidence.WhereToLook}
	fmt.Fprintf(out, "%s broke at step %s (%s).\n\n%s\n\n", e.ID, key.Step, key.Kind, d)
	logs, err := diagnose.LoadLogs(c.drillPath(e))
	if err != nil {
		return nil // no logs kept: nothing to quote
	}
	lines, _ := logs.Find(evidence)
	if key.ProvedByStatistics() {
		fmt.Fprintln(out, "The lines of your logs that show the checkpoint expired, alike whatever step it stopped at:")
	} else {
		fmt.Fprintln(out, "The lines of your logs that prove it:")
	}
	for _, r := range lines {
		printRecord(out, r)
	}
	if rows := key.ProvingRows(logs); len(rows) > 0 {
		// The first checkpoint that broke; the later ones show the same.
		first := slices.MinFunc(rows, func(a, b diagnose.CheckpointRow) int { return cmp.Compare(a.Checkpoint, b.Checkpoint) }).Checkpoint
		fmt.Fprintf(out, "The rows of your checkpoint statistics that show where checkpoint %d stopped:\n", first)
		for _, r := range rows {
			if r.Checkpoint == first {
				fmt.Fprintf(out, "  %s\n    %s\n", r.Where(), strings.TrimSpace(r.Text))
			}
		}
	}
	if _, err := os.Stat(c.path("solutions/" + e.ID + "/walkthrough.md")); err == nil {
		fmt.Fprintf(out, "Which lines to read, in which order, and what Flink does next: solutions/%s/walkthrough.md\n", e.ID)
	}
	return nil
}

// printRecord prints where a record of a drill's logs is, and the record
// as its log file has it.
func printRecord(out io.Writer, r diagnose.Record) {
	fmt.Fprintf(out, "  %s\n%s\n", r.Where(), indent(strings.TrimRight(r.LogRecord.String(), "\n"), "    "))
}

// verifyDrill proves a drill honest: two runs of its cluster, each
// compared with a run without the fault, prove its answer and no other
// from what the learner is shown, name no fault, and end alike.
func (c *course) verifyDrill(ctx context.Context, e *exercise.Exercise) (string, error) {
	judge, err := judgeOf(e)
	if err != nil {
		return "", err
	}
	healthy, err := c.healthyRun(ctx, e)
	if errors.Is(err, errRunSkipped) {
		return "not proved here: " + strings.TrimPrefix(err.Error(), errRunSkipped.Error()+": "), nil
	}
	if err != nil {
		return "", err
	}
	var outcomes []string
	for range 2 {
		dir, err := os.MkdirTemp("", "flinklab-drill-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		if err := c.produceDrill(ctx, e, dir, nil); err != nil {
			return "", err
		}
		logs, err := diagnose.LoadLogs(dir)
		if err != nil {
			return "", err
		}
		if err := judge.honest(logs, healthy); err != nil {
			return "", err
		}
		outcome, err := judge.outcome(dir, logs)
		if err != nil {
			return "", err
		}
		outcomes = append(outcomes, outcome)
	}
	if outcomes[0] != outcomes[1] {
		return "", fmt.Errorf("two runs end differently: %s, then %s", outcomes[0], outcomes[1])
	}
	return judge.summary(outcomes[0]), nil
}

// drillJudge is how verify proves a kind of drill honest: whether one
// run's logs, beside the run without the fault, are honest; how the run
// ended, which must be the same in two runs; and what verify says of it.
type drillJudge struct {
	honest  func(logs, healthy diagnose.Logs) error
	outcome func(dir string, logs diagnose.Logs) (string, error)
	summary func(outcome string) string
}

// judgeOf returns the judge of drill e: a drill of the steps ends as the
// client saw it end.
func judgeOf(e *exercise.Exercise) (drillJudge, error) {
	if e.Diagnosis.Failover() {
		return failoverJudge(e)
	}
	key, err := drillKey(e)
	if err != nil {
		return drillJudge{}, err
	}
	return drillJudge{
		honest: func(logs, healthy diagnose.Logs) error { return diagnose.CheckHonest(key, logs, healthy) },
		outcome: func(dir string, _ diagnose.Logs) (string, error) {
			client, err := os.ReadFile(filepath.Join(dir, "client.txt"))
			return outcomeOf(string(client)), err
		},
		summary: func(outcome string) string {
			return fmt.Sprintf("two runs prove %s (%s) and no other step before it, which a run without the fault does not, name no fault, and end alike (%s)",
				key.Step, key.Component, outcome)
		},
	}, nil
}

// healthyRun produces, once per verify and cluster, the run of drill e's
// cluster and job without its fault: drills of the same cluster (its
// TaskManagers, slots, scheduler) and job (parallelism, execution mode)
// share it.
func (c *course) healthyRun(ctx context.Context, e *exercise.Exercise) (diagnose.Logs, error) {
	// The spec of the run: drill e's without its fault, or, for a
	// failover drill, its cluster with nothing happening to its leader.
	spec := maps.Clone(e.Drill.Spec)
	spec["fault"] = ""
	delete(spec, "then")
	if e.Diagnosis.Failover() {
		spec["failover"] = failoverNone
	}
	// Drills share the run whose specs differ only in what no longer
	// matters without the fault: its seed and how often it fires.
	shared := maps.Clone(spec)
	delete(shared, "times")
	delete(shared, "seed")
	key, err := json.Marshal(shared) // maps are marshalled in key order
	if err != nil {
		return diagnose.Logs{}, err
	}
	c.healthyMu.Lock()
	if c.healthyRuns == nil {
		c.healthyRuns = make(map[string]*healthyRun)
	}
	run := c.healthyRuns[string(key)]
	if run == nil {
		run = &healthyRun{}
		c.healthyRuns[string(key)] = run
	}
	c.healthyMu.Unlock()

	run.once.Do(func() {
		dir, err := os.MkdirTemp("", "flinklab-healthy-")
		if err != nil {
			run.err = err
			return
		}
		defer os.RemoveAll(dir)
		healthy := *e
		healthy.Drill = &exercise.Drill{Spec: spec}
		if run.err = c.produceDrill(ctx, &healthy, dir, nil); run.err != nil {
			return
		}
		run.logs, run.err = diagnose.LoadLogs(dir)
	})
	return run.logs, run.err
}

// outcomeOf is how the client saw a drill's run end: the last HTTP status
// of each request and the job's state, if it got that far.
func outcomeOf(client string) string {
	var statuses []string
	for _, line := range strings.Split(client, "\n") {
		if len(line) >= 3 && line[0] >= '1' && line[0] <= '5' && (len(line) == 3 || line[3] == ' ') {
			statuses = append(statuses, line[:3])
		}
	}
	outcome := "HTTP " + strings.Join(statuses, ", ")
	if states := jobState.FindAllStringSubmatch(client, -1); len(states) > 0 {
		outcome += ", job " + states[len(states)-1][1]
	}
	return outcome
}

// jobState finds a job's state in a REST answer: "state": "FAILED".
var jobState = regexp.MustCompile(`"state":\s*"([A-Z]+)"`)
