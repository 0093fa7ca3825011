// Package logpredict reads and grades a prediction of where log lines
// appear: for each line of a list, the processes whose logs have it
// (exercise h05: which lines the processes of a high-availability
// cluster write once its leader JobManager is killed). The exercise's
// test runs the scenario, hands the logs to Grade and fails with each
// mistake Grade finds, so that a wrong answer is told what is wrong and
// never what is right.
//
// The learner answers one line of the list per line of the answer file:
//
//	Successfully recovered 1 persisted job graphs. = new-leader
//	Job … reached terminal state SUSPENDED. = none
//
// A "…" in a log line stands for what differs from run to run (an ID,
// an address): a message has the line if it reads the same with any text
// in place of each "…".
package logpredict

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// None is the answer for a line that no process writes.
const None = "none"

// Process is a kind of process that a prediction names: one process (the
// leader that was killed) or several alike (the TaskManagers).
type Process struct {
	Name string // as the learner writes it: "old-leader"
}

// Prediction holds the processes predicted for each answered line, in
// the order written; a line answered None has none. A line of the list
// that is not in it is not answered yet.
type Prediction map[string][]string

// Read reads a prediction of where each of lines appears, in lines
// "LINE = PROCESSES": LINE one of lines, as the list writes it, and
// PROCESSES the names of processes separated by commas, or None. A line
// without processes after "=" is not answered yet. Lines that start with
// "#" are comments.
func Read(r io.Reader, lines []string, processes []Process) (Prediction, error) {
	names := make([]string, len(processes))
	for i, p := range processes {
		names[i] = p.Name
	}
	p := Prediction{}
	scanner := bufio.NewScanner(r)
	for n := 1; scanner.Scan(); n++ {
		text := strings.TrimSpace(scanner.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		i := strings.LastIndex(text, "=")
		if i < 0 {
			return nil, fmt.Errorf("line %d: %q: write the log line, \" = \", and the processes whose logs have it", n, text)
		}
		line := squash(text[:i])
		listed := slices.IndexFunc(lines, func(l string) bool { return squash(l) == line })
		if listed < 0 {
			return nil, fmt.Errorf("line %d: %q is none of the log lines of the exercise: keep each line as the template writes it", n, line)
		}
		line = lines[listed]
		if _, twice := p[line]; twice {
			return nil, fmt.Errorf("line %d: %q is answered twice", n, line)
		}
		answer := strings.TrimSpace(text[i+1:])
		if answer == "" {
			continue
		}
		predicted := []string{}
		for name := range strings.SplitSeq(answer, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == None && answer != None:
				return nil, fmt.Errorf("line %d: %q: %s stands alone, for a line that no process writes", n, answer, None)
			case name == None:
				continue
			case !slices.Contains(names, name):
				return nil, fmt.Errorf("line %d: %q is none of the processes: write %s, separated by commas, or %s", n, name, strings.Join(names, ", "), None)
			case slices.Contains(predicted, name):
				return nil, fmt.Errorf("line %d: %s is written twice", n, name)
			}
			predicted = append(predicted, name)
		}
		p[line] = predicted
	}
	return p, scanner.Err()
}

// squash writes each run of white space as one space, so that a line
// re-indented or re-wrapped in an editor still reads the same.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// Pattern returns the regular expression of a log line: the whole
// message, with any text of one character or more in place of each "…".
func Pattern(line string) *regexp.Regexp {
	parts := strings.Split(squash(line), "…")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".+") + "$")
}
