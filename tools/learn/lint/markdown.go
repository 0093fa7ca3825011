package lint

import (
	"sort"
	"strings"
)

// document is one markdown file, read the way the checker needs it: the
// prose outside fenced code blocks, the links in that prose, and the anchors
// that a "#fragment" may name.
type document struct {
	src       string
	lineStart []int           // byte offset at which each line begins
	links     []link          // in the order they appear
	anchors   map[string]bool // heading slugs and explicit <a id> / <a name>
}

// span is a half-open byte range [start, end) of a document.
type span struct{ start, end int }

// text returns the bytes of src that s covers.
func (s span) text(src string) string { return src[s.start:s.end] }

// parseDocument finds the links and anchors of the markdown in src.
func parseDocument(src string) *document {
	d := &document{src: src}
	lines := splitLines(src)
	for _, l := range lines {
		d.lineStart = append(d.lineStart, l.start)
	}
	prose := proseLines(src, lines)
	for _, b := range paragraphs(src, prose) {
		scanInline(src, b.start, b.end, &d.links)
	}
	for _, l := range prose {
		if def, ok := parseDefinition(src, l); ok {
			d.links = append(d.links, def)
		}
	}
	sort.SliceStable(d.links, func(i, j int) bool { return d.links[i].at < d.links[j].at })
	d.anchors = findAnchors(src, prose)
	return d
}

// lineOf returns the 1-based line that holds byte offset at.
func (d *document) lineOf(at int) int {
	return sort.Search(len(d.lineStart), func(i int) bool { return d.lineStart[i] > at })
}

// splitLines returns each line of src without its line ending ("\n" or
// "\r\n").
func splitLines(src string) []span {
	var lines []span
	for start := 0; start < len(src); {
		end := strings.IndexByte(src[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end = len(src) - start
			next = len(src)
		}
		end += start
		if end > start && src[end-1] == '\r' {
			end--
		}
		lines = append(lines, span{start, end})
		start = next
	}
	return lines
}

// proseLines drops the lines of fenced code blocks (``` or ~~~, fences
// included) and returns the rest. A fence that is never closed runs to the
// end of the file, as on GitHub.
func proseLines(src string, lines []span) []span {
	var prose []span
	var open string // the opening fence while inside a code block
	for _, l := range lines {
		trimmed := strings.TrimLeft(l.text(src), " \t")
		if open != "" {
			if isClosingFence(trimmed, open) {
				open = ""
			}
			continue
		}
		if fence := openingFence(trimmed); fence != "" {
			open = fence
			continue
		}
		prose = append(prose, l)
	}
	return prose
}

// openingFence returns the fence that line (indentation removed) opens,
// such as "```" or "~~~~", or "" when it opens none.
func openingFence(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := countRun(line, 0, c)
		if n < 3 {
			continue
		}
		if c == '`' && strings.IndexByte(line[n:], '`') >= 0 {
			return "" // ```x``` on one line is inline code, not a fence
		}
		return line[:n]
	}
	return ""
}

// isClosingFence reports whether line (indentation removed) closes a code
// block opened by fence: the same character, at least as many, nothing
// after.
func isClosingFence(line, fence string) bool {
	n := countRun(line, 0, fence[0])
	return n >= len(fence) && strings.TrimSpace(line[n:]) == ""
}

// countRun counts the bytes c in s from i on.
func countRun(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// paragraphs joins consecutive prose lines into blocks, split at blank lines
// and at code blocks. A link may wrap onto the next line but never crosses
// a block.
func paragraphs(src string, prose []span) []span {
	var blocks []span
	for i, l := range prose {
		if strings.TrimSpace(l.text(src)) == "" {
			continue
		}
		// A line joins the block before it when that block ends on the
		// line just above (blank lines end no block).
		last := len(blocks) - 1
		if last >= 0 && blocks[last].end == prose[i-1].end && onlyLineEndingBetween(src, prose[i-1].end, l.start) {
			blocks[last].end = l.end
		} else {
			blocks = append(blocks, l)
		}
	}
	return blocks
}

// onlyLineEndingBetween reports whether src[from:to] is a single line ending,
// that is, whether two lines are neighbours in the file.
func onlyLineEndingBetween(src string, from, to int) bool {
	gap := src[from:to]
	return gap == "\n" || gap == "\r\n"
}
