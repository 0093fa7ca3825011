package lint

import (
	"regexp"
	"strings"
)

// link is one markdown link or image, or one link reference definition
// ("[label]: target").
type link struct {
	written  string // the whole link, e.g. "[`NewEndpoint`](../rpc/endpoint.go#L54)"
	text     string // between the brackets: "`NewEndpoint`"
	target   string // the destination as written: "../rpc/endpoint.go#L54"
	at       int    // byte offset of the link's first character
	targetAt int    // byte offset of the target's first character
}

// scanInline appends to links every inline link "[text](target)" and image
// "![alt](target)" in src[start:end]. It follows CommonMark where lessons
// need it: backslash escapes, code spans (which hide links and take
// precedence over brackets), nested brackets in link text, targets in
// <angle brackets>, and titles.
func scanInline(src string, start, end int, links *[]link) {
	for i := start; i < end; {
		switch {
		case src[i] == '\\':
			i += 2
		case src[i] == '`':
			i = skipCodeSpan(src, i, end)
		case src[i] == '[' || (src[i] == '!' && i+1 < end && src[i+1] == '['):
			l, next, ok := parseLink(src, i, end)
			if !ok {
				i++
				continue
			}
			*links = append(*links, l)
			// An image inside a link's text is a link of its own:
			// [![diagram](d.svg)](d.md).
			textStart := strings.IndexByte(src[i:], '[') + i + 1
			scanInline(src, textStart, textStart+len(l.text), links)
			i = next
		default:
			i++
		}
	}
}

// skipCodeSpan returns the offset just after the code span that starts at
// src[i] (a backtick). A run of backticks without a closing run of the same
// length is plain text, so only the run is skipped.
func skipCodeSpan(src string, i, end int) int {
	n := countRun(src[:end], i, '`')
	for j := i + n; j < end; {
		if src[j] != '`' {
			j++
			continue
		}
		m := countRun(src[:end], j, '`')
		if m == n {
			return j + m
		}
		j += m
	}
	return i + n
}

// parseLink parses the link or image that starts at src[i] ('[' or '!').
// It returns the link and the offset just after it, or ok false when the
// brackets are not followed by a (target).
func parseLink(src string, i, end int) (l link, next int, ok bool) {
	textStart := i + 1
	if src[i] == '!' {
		textStart++
	}
	textEnd, ok := closingBracket(src, textStart, end)
	if !ok || textEnd+1 >= end || src[textEnd+1] != '(' {
		return link{}, 0, false
	}
	target, targetAt, next, ok := parseDestination(src, textEnd+2, end)
	if !ok {
		return link{}, 0, false
	}
	return link{
		written:  src[i:next],
		text:     src[textStart:textEnd],
		target:   target,
		at:       i,
		targetAt: targetAt,
	}, next, true
}

// closingBracket returns the offset of the ']' that closes the link text
// starting at src[i]. Brackets inside the text must balance; brackets in
// code spans and escaped brackets do not count.
func closingBracket(src string, i, end int) (int, bool) {
	depth := 0
	for i < end {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case '`':
			i = skipCodeSpan(src, i, end)
			continue
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return i, true
			}
			depth--
		}
		i++
	}
	return 0, false
}

// parseDestination parses "target "title")" from src[i], just after the
// opening parenthesis. It returns the target as written, where it starts,
// and the offset just after the closing parenthesis.
func parseDestination(src string, i, end int) (target string, targetAt, next int, ok bool) {
	i = skipSpace(src, i, end)
	targetAt = i
	if i < end && src[i] == '<' {
		close := strings.IndexAny(src[i+1:end], ">\n")
		if close < 0 || src[i+1+close] != '>' {
			return "", 0, 0, false
		}
		targetAt = i + 1
		target = src[targetAt : i+1+close]
		i += close + 2
	} else {
		depth := 0
	scan:
		for i < end {
			switch c := src[i]; {
			case c == '\\':
				i++
			case c == '(':
				depth++
			case c == ')' && depth == 0:
				break scan
			case c == ')':
				depth--
			case c <= ' ':
				break scan
			}
			i++
		}
		i = min(i, end)
		target = src[targetAt:i]
	}
	i = skipSpace(src, i, end)
	if i < end && strings.IndexByte(`"'(`, src[i]) >= 0 {
		close := src[i]
		if close == '(' {
			close = ')'
		}
		j := i + 1
		for j < end && src[j] != close {
			if src[j] == '\\' {
				j++
			}
			j++
		}
		i = skipSpace(src, j+1, end)
	}
	if i >= end || src[i] != ')' {
		return "", 0, 0, false
	}
	return target, targetAt, i + 1, true
}

// skipSpace returns the offset of the first byte from src[i] on that is not
// a space, tab or line ending.
func skipSpace(src string, i, end int) int {
	for i < end && strings.IndexByte(" \t\r\n", src[i]) >= 0 {
		i++
	}
	return i
}

// definition matches a link reference definition, "[label]: target". A
// label that starts with ^ is a footnote, not a link.
var definition = regexp.MustCompile(`^ {0,3}\[((?:[^\]\\^]|\\.)(?:[^\]\\]|\\.)*)\]:[ \t]*(<[^>]*>|\S+)`)

// parseDefinition parses the line as a link reference definition.
func parseDefinition(src string, line span) (link, bool) {
	m := definition.FindStringSubmatchIndex(line.text(src))
	if m == nil {
		return link{}, false
	}
	targetStart, targetEnd := m[4], m[5]
	if src[line.start+targetStart] == '<' {
		targetStart++
		targetEnd--
	}
	return link{
		written:  strings.TrimSpace(line.text(src)),
		text:     src[line.start+m[2] : line.start+m[3]],
		target:   src[line.start+targetStart : line.start+targetEnd],
		at:       line.start + strings.IndexByte(line.text(src), '['),
		targetAt: line.start + targetStart,
	}, true
}
