package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"flinklab/tools/learn/callgraph"
	"flinklab/tools/learn/diagnose"
	"flinklab/tools/learn/exercise"
	"flinklab/tools/learn/hole"
)

// course is the repository as the learner has it: the exercises, their
// references, and the learner's progress.
type course struct {
	root      string
	exercises []*exercise.Exercise
	progress  *progress

	graphOnce sync.Once
	graph     *callgraph.Graph
	graphErr  error

	// drills is where the drills' logs are kept; empty: drillDir, in the
	// repository.
	drills string
	// drillBinary, when set, is the producer's test binary, built once
	// for all the drill runs of a verify.
	drillBinary string
	// The runs of the drills' clusters without a fault, made once per
	// verify for each cluster and job a drill runs (healthyRun).
	healthyMu   sync.Mutex
	healthyRuns map[string]*healthyRun
}

// healthyRun is one run without a fault, made once.
type healthyRun struct {
	once sync.Once
	logs diagnose.Logs
	err  error
}

// openCourse finds the repository root above the working directory (the
// directory whose go.mod declares module flinklab) and loads the course.
func openCourse() (*course, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module flinklab\n")) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, errors.New("not inside the flinklab repository: run learn from the repository (go run ./tools/learn)")
		}
		dir = parent
	}
	all, err := exercise.Load(dir)
	if err != nil {
		return nil, err
	}
	p, err := loadProgress(filepath.Join(dir, progressFile))
	if err != nil {
		return nil, err
	}
	return &course{root: dir, exercises: all, progress: p}, nil
}

// exercise returns the exercise with the given id.
func (c *course) exercise(id string) (*exercise.Exercise, error) {
	for _, e := range c.exercises {
		if e.ID == id {
			return e, nil
		}
	}
	var ids []string
	for _, e := range c.exercises {
		ids = append(ids, e.ID)
	}
	return nil, fmt.Errorf("no exercise %q; the exercises are %s", id, strings.Join(ids, ", "))
}

func (c *course) path(rel string) string { return filepath.Join(c.root, filepath.FromSlash(rel)) }

func (c *course) read(rel string) ([]byte, error) { return os.ReadFile(c.path(rel)) }

// referenceFile is where the reference of an exercise's holes in one
// runtime file is kept: solutions/m03/dispatcher.go for
// runtime/dispatcher/dispatcher.go.
func referenceFile(e *exercise.Exercise, runtimeFile string) string {
	return "solutions/" + e.ID + "/" + path.Base(runtimeFile)
}

// readGo reads a runtime file that holds holes. The holes are found by
// parsing the file, so a file that a learner left with a syntax error is
// refused, with the compiler's position and a way out.
func (c *course) readGo(file string) ([]byte, error) {
	src, err := c.read(file)
	if err != nil {
		return nil, err
	}
	if _, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution); err != nil {
		checkout := fmt.Sprintf("`git checkout -- %s`", file)
		if c.gitHiddenFrom(file) { // an exercise in progress keeps it out of git's view
			checkout = fmt.Sprintf("`git update-index --no-skip-worktree %s && git checkout -- %s`", file, file)
		}
		return nil, fmt.Errorf("%w\n(learn finds the holes by parsing the file: fix its syntax first; "+
			"%s gives the whole file back as committed, throwing away every change to it)", err, checkout)
	}
	return src, nil
}

// reference returns the reference bodies of the exercise's holes in one
// runtime file, and the imports that file needs.
func (c *course) reference(e *exercise.Exercise, file string) (map[string]string, []hole.Import, error) {
	src, err := c.read(referenceFile(e, file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("the reference of %s, %s, is missing (`go run ./tools/learn solutions %s` on a complete tree writes it)",
			e.ID, referenceFile(e, file), e.ID)
	}
	if err != nil {
		return nil, nil, err
	}
	imports, err := hole.Imports(src)
	if err != nil {
		return nil, nil, err
	}
	bodies := map[string]string{}
	for _, h := range e.Holes {
		if h.File != file {
			continue
		}
		fn, err := hole.Find(src, h.Func)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", referenceFile(e, file), err)
		}
		bodies[h.Func] = fn.Body
	}
	return bodies, imports, nil
}

// completed returns file as it is in the tree with the exercise's holes
// filled by the reference: the complete runtime, whatever the learner has
// written there.
func (c *course) completed(e *exercise.Exercise, file string) ([]byte, error) {
	src, err := c.readGo(file)
	if err != nil {
		return nil, err
	}
	return c.fillHoles(e, file, src)
}

// fillHoles returns src, the source of file, with the exercise's holes in
// it filled by the reference.
func (c *course) fillHoles(e *exercise.Exercise, file string, src []byte) ([]byte, error) {
	bodies, imports, err := c.reference(e, file)
	if err != nil {
		return nil, err
	}
	full, err := hole.Replace(src, bodies, imports)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return full, nil
}

// referenceOverlay returns every runtime file that holds holes of a
// writing exercise, with the reference in all of them: the complete
// runtime, whatever the learner has punched or written. verify, the
// reference run that check compares with, the predict scenario and the
// call graph of the reading exercises all run on it (through go test
// -overlay and packages.Load), so none of them depends on how far the
// learner is, and the tree is never touched.
//
// An exercise whose reference is missing keeps its holes as the tree has
// them; verify reports the missing reference on that exercise alone.
func (c *course) referenceOverlay() (map[string][]byte, error) {
	overlay := map[string][]byte{}
	for _, e := range c.exercises {
		if e.Kind != exercise.Write {
			continue
		}
		for _, file := range e.Files() {
			if _, err := os.Stat(c.path(referenceFile(e, file))); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			src, ok := overlay[file]
			if !ok {
				var err error
				if src, err = c.readGo(file); err != nil {
					return nil, err
				}
			}
			full, err := c.fillHoles(e, file, src)
			if err != nil {
				return nil, err
			}
			overlay[file] = full
		}
	}
	return overlay, nil
}

// state is where the learner is with an exercise.
type state int

const (
	notStarted state = iota
	inProgress
	done
)

func (s state) String() string {
	return [...]string{"not started", "in progress", "done"}[s]
}

// state reads the progress file; holes still punched in the tree mean
// the exercise is in progress even when the file says nothing (it was
// deleted, or the holes were punched by hand).
func (c *course) state(e *exercise.Exercise) state {
	switch c.progress.get(e.ID).state {
	case "done":
		return done
	case "started":
		return inProgress
	}
	if c.punched(e) {
		return inProgress
	}
	return notStarted
}

// punched reports whether any hole of the exercise is still open in the
// tree.
func (c *course) punched(e *exercise.Exercise) bool {
	for _, h := range e.Holes {
		src, err := c.read(h.File)
		if err == nil && hole.IsPunched(src, e.ID, h.Func) {
			return true
		}
	}
	return false
}

// differsFromReference reports whether the tree's holes differ from the
// reference: punched, or written by the learner.
func (c *course) differsFromReference(e *exercise.Exercise) (bool, error) {
	for _, file := range e.Files() {
		src, err := c.readGo(file)
		if err != nil {
			return false, err
		}
		full, err := c.fillHoles(e, file, src)
		if err != nil {
			return false, err
		}
		formatted, err := hole.Replace(src, nil, nil)
		if err != nil {
			return false, err
		}
		if !bytes.Equal(formatted, full) {
			return true, nil
		}
	}
	return false, nil
}

// writeFile replaces a file of the tree atomically, keeping its mode. A
// file that would not change is left alone, so that its modification time
// does not make editors, builds and `learn watch` think it did.
func (c *course) writeFile(rel string, data []byte) error {
	path := c.path(rel)
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return writeAtomically(path, data, info.Mode().Perm())
}

// callGraph loads the call graph of the complete runtime (see
// referenceOverlay) once per run of learn, however many reading exercises
// ask for it.
func (c *course) callGraph() (*callgraph.Graph, error) {
	c.graphOnce.Do(func() {
		overlay, err := c.referenceOverlay()
		if err != nil {
			c.graphErr = err
			return
		}
		c.graph, c.graphErr = callgraph.Load(c.root, overlay)
	})
	return c.graph, c.graphErr
}
