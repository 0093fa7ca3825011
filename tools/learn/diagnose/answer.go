package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"flinklab/runtime/trace"
)

// Answer is what a learner wrote in a drill's answer file.
type Answer struct {
	Step      trace.Step // "" when the file names none
	Component string
	// Line is the log line the learner pasted: the whole printed line, the
	// text after "[] - ", or a part of it; a pasted cause adds lines.
	Line string
}

// ParseAnswer reads an answer file:
//
//	# the step that broke first, the component to open, the line that proves it
//	step: m10
//	component: BlobCache
//	line: 2026-11-30 10:16:02,475 ERROR BlobClient [] - Failed to fetch BLOB …
//
// Keys are case-insensitive, lines starting with # are comments, and a
// missing key leaves its field empty. A step may be written "m7", "M7",
// "7" or "m07". Lines after "line:" that are no "key:" line continue the
// pasted line (a record's cause). A line that is neither, a key given
// twice, an unknown key or a step that is none of m1–m11 is an error.
func ParseAnswer(data []byte) (Answer, error) {
	var a Answer
	err := parseFields(data, []string{"step", "component", "line"}, func(n int, key, value string) error {
		switch key {
		case "step":
			if value == "" {
				return nil
			}
			step, err := ParseStep(value)
			if err != nil {
				return fmt.Errorf("answer line %d: %w", n, err)
			}
			a.Step = step
		case "component":
			a.Component = value
		case "line":
			a.Line = value
		}
		return nil
	})
	if err != nil {
		return Answer{}, err
	}
	return a, nil
}

// FailoverAnswer is what a learner wrote in a failover drill's answer
// file, as written: GradeFailover reads the names.
type FailoverAnswer struct {
	Cause   string // a kind of Causes, or an alias of one: "leader-killed", "SIGKILL"
	Process string // a JobManager: "standalonesession-0", or its log file's name
	Line    string // as Answer.Line
}

// ParseFailoverAnswer reads the answer file of a failover drill, by the
// rules of ParseAnswer:
//
//	# what ended the old leader's leadership, whose, the line that proves it
//	cause: leader-killed
//	process: standalonesession-0
//	line: 2026-11-30 16:43:17,438 INFO  PekkoRpcService [] - The connection to …
//
// The names are not checked here: a cause or a process that is none is
// the learner's mistake, which GradeFailover explains.
func ParseFailoverAnswer(data []byte) (FailoverAnswer, error) {
	var a FailoverAnswer
	err := parseFields(data, []string{"cause", "process", "line"}, func(_ int, key, value string) error {
		switch key {
		case "cause":
			a.Cause = value
		case "process":
			a.Process = value
		case "line":
			a.Line = value
		}
		return nil
	})
	if err != nil {
		return FailoverAnswer{}, err
	}
	return a, nil
}

// parseFields reads the "key: value" lines of an answer file whose keys
// are keys, the last of them "line", and hands each to set with the
// number of the line it is on; the value of "line" comes once, with the
// lines that continue it. See ParseAnswer for the rules.
func parseFields(data []byte, keys []string, set func(n int, key, value string) error) error {
	seen := make(map[string]bool)
	last, line, lineAt := "", "", 0
	for n, raw := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(raw)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, value, ok := strings.Cut(trimmed, ":")
		key = strings.ToLower(strings.TrimSpace(key))
		isKey := ok && slices.Contains(keys, key)
		switch {
		case !isKey && last == "line":
			if line != "" && trimmed != "" {
				line += "\n"
			}
			line += trimmed
			continue
		case trimmed == "":
			continue
		case !ok:
			return fmt.Errorf("answer line %d: want \"key: value\", got %q", n+1, trimmed)
		case !isKey:
			return fmt.Errorf("answer line %d: unknown key %q (want %s)", n+1, key, enumerateOr(keys))
		case seen[key]:
			return fmt.Errorf("answer line %d: %s given twice", n+1, key)
		}
		seen[key], last = true, key
		value = strings.TrimSpace(value)
		if key == "line" {
			line, lineAt = value, n+1
			continue
		}
		if err := set(n+1, key, value); err != nil {
			return err
		}
	}
	if seen["line"] {
		return set(lineAt, "line", line)
	}
	return nil
}

// enumerateOr joins words as a sentence does: "a, b or c".
func enumerateOr(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
