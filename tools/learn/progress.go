package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
)

// progressFile keeps the learner's progress, one line per exercise:
//
//	m03 done hints=2
//
// It is plain text, git-ignored, and safe to delete: everything starts
// over, but for the exercises whose holes are still punched in the tree,
// which stay in progress (the tree is not touched).
const progressFile = ".learn-progress"

type record struct {
	state string // "", "started" or "done"
	hints int    // how many hints were shown
}

// progress is the learner's progress as last read from, or written to,
// the file.
type progress struct {
	path    string
	records map[string]record
}

func loadProgress(path string) (*progress, error) {
	p := &progress{path: path, records: map[string]record{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		r := record{}
		for _, field := range fields[1:] {
			if n, ok := strings.CutPrefix(field, "hints="); ok {
				r.hints, _ = strconv.Atoi(n)
			} else if field != "new" {
				r.state = field
			}
		}
		p.records[fields[0]] = r
	}
	return p, sc.Err()
}

func (p *progress) get(id string) record { return p.records[id] }

// update changes the record of one exercise and writes the file. It reads
// the file again first: a learner runs `learn hint` or `learn start` in one
// terminal while `learn watch` runs in another, and what one wrote must
// not be lost when the other marks an exercise done.
func (p *progress) update(id string, change func(r *record)) error {
	fresh, err := loadProgress(p.path)
	if err != nil {
		return err
	}
	p.records = fresh.records
	r := p.records[id]
	change(&r)
	if r == (record{}) {
		delete(p.records, id)
	} else {
		p.records[id] = r
	}
	return p.save()
}

func (p *progress) save() error {
	var b strings.Builder
	b.WriteString("# flinklab exercises: your progress (go run ./tools/learn list). Safe to delete.\n")
	ids := make([]string, 0, len(p.records))
	for id := range p.records {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		r := p.records[id]
		state := r.state
		if state == "" {
			state = "new"
		}
		fmt.Fprintf(&b, "%s %s hints=%d\n", id, state, r.hints)
	}
	return writeAtomically(p.path, []byte(b.String()), 0o644)
}
