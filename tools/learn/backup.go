package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"flinklab/tools/learn/exercise"
)

// backupDir holds what reset would otherwise throw away, one folder per
// reset: .learn-backups/m03-20261201-101500/runtime/dispatcher/dispatcher.go.
// git ignores it.
const backupDir = ".learn-backups"

// now is the clock of the backups' names; tests set it.
var now = time.Now

// keepLearnersWork copies the files that reset is about to overwrite with
// restored into a new folder under backupDir, if the learner wrote
// anything in them: a file that is the reference already, the template,
// or the holes as learn punched them, holds nothing of the learner's. It
// returns the folder, relative to the repository root, or "" when there
// was nothing to keep.
func (c *course) keepLearnersWork(e *exercise.Exercise, restored map[string][]byte) (string, error) {
	keep := map[string][]byte{}
	for file, next := range restored {
		current, err := c.read(file)
		if err != nil {
			continue // nothing there to lose
		}
		if bytes.Equal(current, next) {
			continue
		}
		if e.Kind == exercise.Write {
			if punched, err := punch(e, file, next); err == nil && bytes.Equal(current, punched) {
				continue
			}
		}
		keep[file] = current
	}
	if len(keep) == 0 {
		return "", nil
	}
	dir := filepath.ToSlash(filepath.Join(backupDir, e.ID+"-"+now().Format("20060102-150405")))
	for n := 2; ; n++ { // two resets within a second keep two folders
		if _, err := os.Stat(c.path(dir)); os.IsNotExist(err) {
			break
		}
		dir = filepath.ToSlash(filepath.Join(backupDir, e.ID+"-"+now().Format("20060102-150405")+"-"+strconv.Itoa(n)))
	}
	for file, data := range keep {
		dst := c.path(filepath.Join(dir, file))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
