package diagnose

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// minPasted is how many characters of a line a learner must paste, unless
// the line is shorter: fewer tell one line from another by chance.
const minPasted = 20

// pastedPrefix is what may come before a record's text when a learner
// copies a whole line: a grep's "file:line:", the label of a quoted
// proving line, the date and time, the level, the logger, and "[] - ".
// The file, the time and the logger, when pasted, must be the record's.
var pastedPrefix = regexp.MustCompile(`^(?:(\S*\.log):(?:\d+:)?)?\s*(?:(?:JobManager|TaskManager)\s+)?` +
	`(?:(?:(\d{4}-\d\d-\d\d)\s+)?(\d\d:\d\d:\d\d,\d{3})\s+)?(?:(?:ERROR|WARN|INFO|DEBUG)\s+)?(?:(\S+)\s+)?\[\]\s+-(?:\s+|$)`)

// pasted is a learner's line, read: the text to look for and what its
// prefix says of the record.
type pasted struct {
	text                      string // with runs of white space as one space
	file, date, clock, logger string // "" when not pasted; file is a base name
}

func readPasted(s string) pasted {
	s = strings.TrimSpace(s)
	var p pasted
	if m := pastedPrefix.FindStringSubmatch(s); m != nil {
		p.date, p.clock, p.logger = m[2], m[3], m[4]
		if m[1] != "" {
			p.file = path.Base(m[1])
		}
		s = s[len(m[0]):]
	}
	p.text = squash(s)
	return p
}

// squash turns each run of white space (a line break too) into one space,
// so that a line pasted from a terminal matches the file.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// located is where a pasted line is in the logs.
type located int

const (
	found     located = iota // in exactly one record
	tooShort                 // under minPasted characters, and not a whole line
	notInLogs                // in no record
	inSeveral                // in more than one record
)

// locate finds the record of logs a pasted line is from: the one whose
// printed text (first line, or whole with its cause) contains it.
func locate(logs Logs, p pasted) (located, int) {
	short := utf8.RuneCountInString(p.text) < minPasted
	var matches []int
	for i, r := range logs.All {
		if !p.fits(r) {
			continue
		}
		text := squash(r.Text())
		if short && p.text != "" && squash(firstLine(r.Text())) == p.text || !short && strings.Contains(text, p.text) {
			matches = append(matches, i)
		}
	}
	return verdict(matches, short)
}

// clientPrefix is what grep puts before a line of the ClientFile:
// "client.txt:57:".
var clientPrefix = regexp.MustCompile(`^\S*` + regexp.QuoteMeta(ClientFile) + `:(?:\d+:)?`)

// locateClient finds the line of the ClientFile a pasted line is from, by
// the rules of locate: the line that contains it, or, for fewer than
// minPasted characters, the line that it is whole. It returns the line's
// number, from 1.
func locateClient(client, line string) (located, int) {
	text := squash(clientPrefix.ReplaceAllString(strings.TrimSpace(line), ""))
	short := utf8.RuneCountInString(text) < minPasted
	var matches []int
	for i, l := range strings.Split(client, "\n") {
		l = squash(l)
		if text != "" && (short && l == text || !short && strings.Contains(l, text)) {
			matches = append(matches, i+1)
		}
	}
	return verdict(matches, short)
}

// fits reports whether r is in the file, at the time and of the logger
// the pasted prefix names.
func (p pasted) fits(r Record) bool {
	return (p.file == "" || p.file == r.File) && (p.logger == "" || p.logger == r.Logger) &&
		(p.date == "" || p.date == r.Time.Format("2006-01-02")) &&
		(p.clock == "" || p.clock == r.Time.Format("15:04:05,000"))
}

// quote shows a learner's own text back, its first line and at most 80
// characters of it.
func quote(s string) string {
	s = strings.TrimSpace(s)
	line, _, more := strings.Cut(s, "\n")
	if utf8.RuneCountInString(line) > 80 {
		line, more = string([]rune(line)[:80]), true
	}
	if more {
		line += "…"
	}
	return `"` + line + `"`
}

// verdict says where a pasted line was found: the one place it matches,
// or why there is none: in several places, too short to be anywhere
// but whole, or nowhere.
func verdict(matches []int, short bool) (located, int) {
	switch {
	case len(matches) == 1:
		return found, matches[0]
	case len(matches) > 1:
		return inSeveral, -1
	case short:
		return tooShort, -1
	}
	return notInLogs, -1
}
