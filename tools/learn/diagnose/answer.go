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

// answerKeys are the keys an answer file may have.
var answerKeys = []string{"step", "component", "line"}

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
	seen := make(map[string]bool)
	last := ""
	for n, raw := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(raw)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, value, ok := strings.Cut(trimmed, ":")
		key = strings.ToLower(strings.TrimSpace(key))
		isKey := ok && slices.Contains(answerKeys, key)
		switch {
		case !isKey && last == "line":
			if a.Line != "" && trimmed != "" {
				a.Line += "\n"
			}
			a.Line += trimmed
			continue
		case trimmed == "":
			continue
		case !ok:
			return Answer{}, fmt.Errorf("answer line %d: want \"key: value\", got %q", n+1, trimmed)
		case !isKey:
			return Answer{}, fmt.Errorf("answer line %d: unknown key %q (want step, component or line)", n+1, key)
		case seen[key]:
			return Answer{}, fmt.Errorf("answer line %d: %s given twice", n+1, key)
		}
		seen[key], last = true, key
		value = strings.TrimSpace(value)
		switch key {
		case "step":
			if value == "" {
				continue
			}
			step, err := ParseStep(value)
			if err != nil {
				return Answer{}, fmt.Errorf("answer line %d: %w", n+1, err)
			}
			a.Step = step
		case "component":
			a.Component = value
		case "line":
			a.Line = value
		}
	}
	return a, nil
}
