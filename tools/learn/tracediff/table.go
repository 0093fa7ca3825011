package tracediff

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// table writes a side-by-side table, of events (Render) or of counted
// messages (RenderCounts): the titles in bold, then numbered rows, each a
// mark, its number and two cells of one width.
type table struct {
	o           Options
	b           strings.Builder
	digits      int // of the highest row number
	prefixWidth int // mark, space, number, space
	cellWidth   int
}

// newTable sizes a table of rows rows whose cells must hold heads of
// longestHead characters, and writes its titles, or, without rows, that
// there are no what on either side.
func newTable(o Options, rows, longestHead int, what string) *table {
	t := &table{o: o, digits: len(strconv.Itoa(max(rows, 1)))}
	t.prefixWidth = 1 + 1 + t.digits + 1
	// The cells share the width; a cell is never so narrow that it cuts a
	// step or a name, which are what the comparison is about.
	t.cellWidth = max(minCellWidth, longestHead,
		(o.Width-t.prefixWidth-utf8.RuneCountInString(separator)-utf8.RuneCountInString(differenceNote))/2)
	t.line(strings.Repeat(" ", t.prefixWidth)+pad(o.LeftTitle, t.cellWidth)+separator+o.RightTitle, bold)
	if rows == 0 {
		t.note("(no " + what + " on either side)")
	}
	return t
}

// line writes one line, in style when the table is in color.
func (t *table) line(s, style string) {
	s = strings.TrimRight(s, " ")
	if t.o.Color && style != "" {
		s = style + s + reset
	}
	t.b.WriteString(s + "\n")
}

// row writes row i (from 0) with its two cells; the row of the first
// difference is marked ✗ and says so at its end.
func (t *table) row(i, first int, left, right string) {
	mark, style := " ", ""
	if i == first {
		mark, style, right = "✗", red, pad(right, t.cellWidth)+differenceNote
	}
	t.line(fmt.Sprintf("%s %*d %s%s%s", mark, t.digits, i+1, pad(left, t.cellWidth), separator, right), style)
}

// note writes a line between or under the rows, where the cells begin.
func (t *table) note(s string) {
	t.line(strings.Repeat(" ", t.prefixWidth)+s, "")
}
