package logpredict

import (
	"fmt"
	"slices"
	"strings"

	"flinklab/tools/learn/diagnose"
)

// Logs are what the processes of a run wrote, by the name of their kind
// of Process: the log of each process of that kind, as its file has it.
type Logs map[string][]string

// Where returns the processes whose logs have the line: the kinds of
// Process every process of which wrote a message the line matches, in
// the order of processes. A kind some processes of which wrote it and
// others did not is an error: the run does not say where the line is.
func Where(line string, logs Logs, processes []Process) ([]string, error) {
	pattern := Pattern(line)
	var where []string
	for _, p := range processes {
		have := 0
		for _, log := range logs[p.Name] {
			messages, err := messagesOf(log)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Name, err)
			}
			if slices.ContainsFunc(messages, pattern.MatchString) {
				have++
			}
		}
		switch {
		case have > 0 && have < len(logs[p.Name]):
			return nil, fmt.Errorf("%q is in %d of the %d logs of %s: the run does not say whether it is there", line, have, len(logs[p.Name]), p.Name)
		case have > 0:
			where = append(where, p.Name)
		}
	}
	return where, nil
}

// messagesOf returns the message of each record of a log, its first line
// (without the cause or the rest of a message of several lines).
func messagesOf(log string) ([]string, error) {
	records, err := diagnose.ParseLog(strings.NewReader(log))
	if err != nil {
		return nil, err
	}
	messages := make([]string, len(records))
	for i, r := range records {
		messages[i], _, _ = strings.Cut(r.Message, "\n")
	}
	return messages, nil
}

// Grade compares a prediction with the logs of a run and returns what is
// wrong, line by line, in the order of lines: a line not answered yet,
// how many of the processes it names have no such line in their logs, and
// how many of those whose logs have it it leaves out, never which: naming
// them would let an answer that names every process, or none, be
// corrected into the right one without a thought. An error says that the
// logs do not tell where a line is (see Where).
func Grade(p Prediction, lines []string, logs Logs, processes []Process) ([]string, error) {
	var mistakes []string
	for _, line := range lines {
		predicted, answered := p[line]
		if !answered {
			mistakes = append(mistakes, fmt.Sprintf("%q: not predicted yet", line))
			continue
		}
		where, err := Where(line, logs, processes)
		if err != nil {
			return nil, err
		}
		wrong := 0
		for _, name := range predicted {
			if !slices.Contains(where, name) {
				wrong++
			}
		}
		switch {
		case wrong == 1:
			mistakes = append(mistakes, fmt.Sprintf("%q: your answer names a process whose log has no such line", line))
		case wrong > 1:
			mistakes = append(mistakes, fmt.Sprintf("%q: your answer names %d processes whose logs have no such line", line, wrong))
		}
		left := 0
		for _, name := range where {
			if !slices.Contains(predicted, name) {
				left++
			}
		}
		switch {
		case left > 0 && len(predicted) == 0:
			mistakes = append(mistakes, fmt.Sprintf("%q: some process's log has this line", line))
		case left == 1:
			mistakes = append(mistakes, fmt.Sprintf("%q: your answer leaves out a process whose log has this line", line))
		case left > 1:
			mistakes = append(mistakes, fmt.Sprintf("%q: your answer leaves out %d of the processes whose logs have this line", line, left))
		}
	}
	return mistakes, nil
}
