package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/hole"
)

// start punches the exercise's holes in the tree, or writes the answer
// file of a reading exercise from its template, and shows the task.
func (c *course) start(e *exercise.Exercise, force bool, out io.Writer) error {
	if err := c.punchAndRecord(e, force); err != nil {
		return err
	}
	c.syncGitView(os.Stderr)
	c.describe(e, out)
	return nil
}

// punchAndRecord punches the exercise's holes, unless they are punched
// already, and records it as started.
func (c *course) punchAndRecord(e *exercise.Exercise, force bool) error {
	if e.Kind == exercise.Write && !c.punched(e) {
		differs, err := c.differsFromReference(e)
		if err != nil {
			return err
		}
		if differs && !force {
			return fmt.Errorf("the functions of %s differ from the reference already (your own version?); "+
				"`go run ./tools/learn reset %s` first, or start --force to punch them anyway", e.ID, e.ID)
		}
		for _, file := range e.Files() {
			src, err := c.readGo(file)
			if err != nil {
				return err
			}
			punched, err := punch(e, file, src)
			if err != nil {
				return err
			}
			if err := c.writeFile(file, punched); err != nil {
				return err
			}
		}
	}
	if e.Kind != exercise.Write {
		if err := c.ensureAnswer(e); err != nil {
			return err
		}
	}
	return c.progress.update(e.ID, func(r *record) { r.state = "started" })
}

// punch returns src, the source of file, with the exercise's holes in it
// punched.
func punch(e *exercise.Exercise, file string, src []byte) ([]byte, error) {
	todo := map[string]string{}
	for _, h := range e.Holes {
		if h.File == file {
			todo[h.Func] = h.TODO
		}
	}
	punched, err := hole.Punch(src, e.ID, todo)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return punched, nil
}

// describe prints what the exercise asks, where its holes are and where
// to read.
func (c *course) describe(e *exercise.Exercise, out io.Writer) {
	fmt.Fprintf(out, "%s · %s\n\n", e.ID, e.Title)
	if intro := c.readmeIntro(e); intro != "" {
		fmt.Fprintf(out, "%s\n", indent(intro, "  "))
	}
	switch e.Kind {
	case exercise.Write:
		fmt.Fprintln(out, "Write:")
		for _, h := range e.Holes {
			fmt.Fprintf(out, "  %s:%d  %s\n", h.File, c.holeLine(e, h), h.Func)
		}
	case exercise.Read:
		fmt.Fprintf(out, "Answer in %s: the calls from %s to %s, one per line.\n", answerFile(e), e.Reading.From, e.Reading.To)
	case exercise.Predict:
		switch e.Prediction.Of {
		case exercise.PredictGraphs:
			fmt.Fprintf(out, "Answer in %s: for each program, its JobVertices, subtasks and slots, and the operators of each task.\n", answerFile(e))
		case exercise.PredictLogs:
			fmt.Fprintf(out, "Answer in %s: after each log line, the processes whose logs have it, or none.\n", answerFile(e))
		case exercise.PredictRun:
			fmt.Fprintf(out, "Answer in %s: after each question, what the run will have done.\n", answerFile(e))
		default:
			fmt.Fprintf(out, "Answer in %s: the messages you expect, in the order they first come, and how often each comes.\n", answerFile(e))
		}
	case exercise.Diagnose:
		c.describeDrill(e, out)
	}
	if e.Kind == exercise.Write {
		fmt.Fprintf(out, "\ngit leaves %s out while %s is in progress, so that git diff does not\n"+
			"show the reference (nor git status, commit -a or stash: finish or reset the exercise before a\n"+
			"git pull); reset or a passing check gives them back.\n",
			strings.Join(e.Files(), ", "), e.ID)
	}
	fmt.Fprintf(out, "\nRead:   %s/README.md · %s\n", e.Dir, e.Lesson)
	if e.Flink != "" {
		fmt.Fprintf(out, "Flink:  %s\n", e.Flink)
	}
	fmt.Fprintf(out, "Check:  go run ./tools/learn check %s   (or: go run ./tools/learn watch)\n", e.ID)
}

// holeLine is the line of the hole's panic when it is punched, else of its
// func keyword.
func (c *course) holeLine(e *exercise.Exercise, h exercise.Hole) int {
	src, err := c.read(h.File)
	if err != nil {
		return 0
	}
	fn, err := hole.Find(src, h.Func)
	if err != nil {
		return 0
	}
	panicAt := strings.Index(fn.Decl, "panic(\"TODO("+e.ID)
	if panicAt < 0 {
		return fn.Line
	}
	declStart := strings.Index(string(src), fn.Decl)
	return strings.Count(string(src[:declStart+panicAt]), "\n") + 1
}

// readmeIntro is the README's first paragraph after its title.
func (c *course) readmeIntro(e *exercise.Exercise) string {
	data, err := c.read(e.Dir + "/README.md")
	if err != nil {
		return ""
	}
	var para []string
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"): // a paragraph ends, or a heading comes
			if len(para) > 0 {
				return strings.Join(para, "\n")
			}
		default:
			para = append(para, line)
		}
	}
	return strings.Join(para, "\n")
}

// reset puts the reference back into the exercise's holes, or the
// template into its answer file, and clears its progress. What the
// learner wrote is never lost: a copy goes to .learn-backups first, and
// reset says where.
func (c *course) reset(e *exercise.Exercise, out io.Writer) error {
	restored := map[string][]byte{} // file → what reset puts there
	if e.Kind == exercise.Write {
		for _, file := range e.Files() {
			full, err := c.completed(e, file)
			if err != nil {
				return err
			}
			restored[file] = full
		}
	} else {
		template, err := c.read(templateFile(e))
		if err != nil {
			return err
		}
		restored[answerFile(e)] = template
	}
	kept, err := c.keepLearnersWork(e, restored)
	if err != nil {
		return err
	}
	for _, file := range slices.Sorted(maps.Keys(restored)) {
		err := c.writeFile(file, restored[file])
		if errors.Is(err, fs.ErrNotExist) { // an answer file that was deleted
			err = writeAtomically(c.path(file), restored[file], 0o644)
		}
		if err != nil {
			return err
		}
	}
	if err := c.progress.update(e.ID, func(r *record) { *r = record{} }); err != nil {
		return err
	}
	c.syncGitView(os.Stderr)
	if e.Kind == exercise.Write {
		fmt.Fprintf(out, "%s: the reference is back in place; progress cleared.\n", e.ID)
	} else {
		fmt.Fprintf(out, "%s: the answer template is back in %s; progress cleared.\n", e.ID, answerFile(e))
	}
	if kept != "" {
		fmt.Fprintf(out, "  Your version is kept in %s/.\n", kept)
	}
	return nil
}

// resetAll resets every exercise, going on past one that cannot be reset
// (its reference missing, its file not parsing) so that the others are.
func (c *course) resetAll(out io.Writer) error {
	var errs []error
	for _, e := range c.exercises {
		if err := c.reset(e, out); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.ID, err))
		}
	}
	return errors.Join(errs...)
}

// answerFile is where a reading or predict exercise is answered, relative
// to the repository root: exercises/r01/answer.txt. It is the learner's,
// and git ignores it; learn writes it from the template when the
// exercise starts.
func answerFile(e *exercise.Exercise) string {
	switch e.Kind {
	case exercise.Predict:
		return e.Dir + "/" + e.Prediction.Answer
	case exercise.Diagnose:
		return e.Dir + "/" + e.Diagnosis.Answer
	}
	return e.Dir + "/" + e.Reading.Answer
}

// templateFile is the answer as it starts, tracked next to it:
// exercises/r01/answer.template.txt for exercises/r01/answer.txt.
func templateFile(e *exercise.Exercise) string {
	answer := answerFile(e)
	ext := path.Ext(answer)
	return strings.TrimSuffix(answer, ext) + ".template" + ext
}

// readAnswer reads the learner's answer, writing it from the template
// first if there is none yet (the exercise was never started, or the
// file was deleted).
func (c *course) readAnswer(e *exercise.Exercise) ([]byte, error) {
	if err := c.ensureAnswer(e); err != nil {
		return nil, err
	}
	return c.read(answerFile(e))
}

// ensureAnswer writes the answer file from the template unless it exists.
func (c *course) ensureAnswer(e *exercise.Exercise) error {
	if _, err := os.Stat(c.path(answerFile(e))); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	template, err := c.read(templateFile(e))
	if err != nil {
		return err
	}
	return writeAtomically(c.path(answerFile(e)), template, 0o644)
}

// hint shows the next hint (all shown so far, then the new one).
func (c *course) hint(e *exercise.Exercise, out io.Writer) error {
	err := c.progress.update(e.ID, func(r *record) { r.hints = min(r.hints+1, len(e.Hints)) })
	if err != nil {
		return err
	}
	r := c.progress.get(e.ID)
	names := []string{"a nudge", "where to look", "nearly the answer"}
	for i := range r.hints {
		fmt.Fprintf(out, "Hint %d of %d, %s:\n%s\n", i+1, len(e.Hints), names[i], indent(strings.TrimSpace(e.Hints[i]), "  "))
	}
	if r.hints < len(e.Hints) {
		fmt.Fprintf(out, "(run it again for the next one)\n")
	}
	return nil
}

// solution shows the reference once the exercise passes, or when forced.
func (c *course) solution(e *exercise.Exercise, force bool, out io.Writer) error {
	if c.state(e) != done && !force {
		return fmt.Errorf("the solution of %s opens once `go run ./tools/learn check %s` passes (or use solution --force %s)", e.ID, e.ID, e.ID)
	}
	switch e.Kind {
	case exercise.Diagnose:
		return c.drillSolution(e, out)
	case exercise.Write:
		for _, file := range e.Files() {
			data, err := c.read(referenceFile(e, file))
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "── %s (the reference of %s) ──\n%s\n", referenceFile(e, file), file, data)
		}
	default:
		data, err := c.read("solutions/" + e.ID + "/reference.txt")
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "── solutions/%s/reference.txt ──\n%s\n", e.ID, data)
	}
	fmt.Fprintf(out, "Why it is written this way: solutions/%s/walkthrough.md\n", e.ID)
	return nil
}

// list prints every exercise with its state and a progress bar.
func (c *course) list(out io.Writer) {
	finished, width := 0, 0
	for _, e := range c.exercises {
		width = max(width, utf8.RuneCountInString(e.Title))
	}
	lesson := ""
	for _, e := range c.exercises {
		if e.LessonFile() != lesson {
			lesson = e.LessonFile()
			if lesson != c.exercises[0].LessonFile() {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "  %s\n", c.lessonTitle(lesson))
		}
		s := c.state(e)
		if s == done {
			finished++
		}
		mark := map[state]string{notStarted: " ", inProgress: "…", done: "✓"}[s]
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(e.Title))
		fmt.Fprintf(out, "  [%s] %-4s %s%s  %s\n", mark, e.ID, e.Title, pad, s)
	}
	const bar = 30
	filled := 0
	if n := len(c.exercises); n > 0 {
		filled = finished * bar / n
	}
	fmt.Fprintf(out, "\n  %s%s %d/%d done\n", strings.Repeat("█", filled), strings.Repeat("░", bar-filled), finished, len(c.exercises))
	if next := c.next(); next != nil {
		verb := "start"
		if c.state(next) == inProgress {
			verb = "check"
		}
		fmt.Fprintf(out, "  next: %s · go run ./tools/learn %s %s\n", next.ID, verb, next.ID)
	}
}

// lessonTitle is the first heading of a lesson ("01 · Anatomy of the
// JobManager"), or its path when it has none.
func (c *course) lessonTitle(lesson string) string {
	data, err := c.read(lesson)
	if err != nil {
		return lesson
	}
	for line := range strings.Lines(string(data)) {
		if title, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(title)
		}
	}
	return lesson
}

// next is the first exercise that is not done.
func (c *course) next() *exercise.Exercise {
	for _, e := range c.exercises {
		if c.state(e) != done {
			return e
		}
	}
	return nil
}

var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprint(w, `learn: the flinklab exercises.

  go run ./tools/learn                  watch the next unfinished exercise
  go run ./tools/learn list             every exercise and your progress
  go run ./tools/learn start ID         punch the exercise's holes and show the task
  go run ./tools/learn check [ID]       run its tests and say what is still wrong
  go run ./tools/learn watch [ID]       check on every save; move on when green
  go run ./tools/learn hint ID          the next of three hints
  go run ./tools/learn diagnose         practice: a drill you have not done, on a fresh run
  go run ./tools/learn solution ID      the reference, once the exercise passes (--force: now)
  go run ./tools/learn reset ID|--all   put the reference back, keeping your version
  go run ./tools/learn verify [ID...]   prove the exercises honest (make test runs it)
  go run ./tools/learn lint [--fix]     check the code links of lessons and exercises, and the holes' step markers
  go run ./tools/learn solutions [ID...] regenerate solutions/*/ from the runtime

Exercise IDs: mNN for the writing exercises (one per submission step),
rNN for the reading ones, dNN for the log-detective drills; list shows
them all. Flags may come before or
after the ID: start m03 --force.
`)
}
