package tracediff

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Column titles for the two ways the course lays traces side by side:
// `learn check` puts what happened next to the reference trace, and the
// predict exercise puts the prediction next to what happened.
const (
	TitleHappened  = "what happened"
	TitleReference = "reference"
	TitlePredicted = "you predicted"
)

// Defaults of Options.
const (
	DefaultWidth   = 120 // characters, a whole line
	DefaultMaxRows = 24  // rows shown before the middle of the table is cut
	DefaultContext = 3   // rows kept around the first difference and at each end
)

// Options shape a rendered comparison; the zero value takes the defaults.
type Options struct {
	// LeftTitle and RightTitle head the two columns; empty means
	// TitleHappened and TitleReference.
	LeftTitle, RightTitle string
	// Width is the length of a line in characters; messages are shortened
	// to fit, but never the steps and names, so a line grows past Width
	// when they do not fit. 0 means DefaultWidth.
	Width int
	// MaxRows is the longest table shown whole. A longer one keeps its
	// first and last Context rows and Context rows on either side of the
	// first difference; the rest is left out, and a line says how many
	// rows. 0 means DefaultMaxRows.
	MaxRows int
	// Context is how many rows are kept around the first difference and
	// at each end when the table is cut. 0 means DefaultContext.
	Context int
	// Color marks the first difference in red and the titles in bold,
	// with ANSI escapes, for a terminal that shows them.
	Color bool
	// HideAfterDifference (RenderCounts) leaves the right column empty
	// below the first difference, so that a learner who checks a
	// prediction sees what happened up to the first row they got wrong,
	// and not the rest of the answer.
	HideAfterDifference bool
}

func (o Options) withDefaults() Options {
	if o.LeftTitle == "" {
		o.LeftTitle = TitleHappened
	}
	if o.RightTitle == "" {
		o.RightTitle = TitleReference
	}
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.Context <= 0 {
		o.Context = DefaultContext
	}
	return o
}

// The pieces of a line of the table.
const (
	separator      = " │ "
	differenceNote = "  ← first difference"
	endedCell      = "(no more steps)"
	minCellWidth   = 20
)

// ANSI escapes, used only with Options.Color.
const (
	red   = "\x1b[31m"
	bold  = "\x1b[1m"
	reset = "\x1b[0m"
)

// Render lays left and right side by side as plain text for a terminal,
// one numbered row per event, and ends with a sentence saying where they
// first differ (see FirstDifference), or that they agree:
//
//	    what happened                    │ reference
//	  1 m1  Client → REST: POST /jars/u… │ m1  Client → REST
//	✗ 2 m3  REST → Dispatcher: submitJo… │ m2  Client → REST                 ← first difference
//	  3 m4  JobManagerRunner → JobMaster │ m3  REST → Dispatcher
//
//	First difference at row 2 — what happened: m3 REST → Dispatcher; reference: m2 Client → REST.
//
// The row of the first difference is marked ✗. Where one side has ended,
// its cell says "(no more steps)". Each cell shows the step and the two
// names first, then as much of the message as fits. A long table is cut in
// the middle, keeping the rows around the first difference (see Options).
func Render(left, right []Event, opts Options) string {
	o := opts.withDefaults()
	rows := max(len(left), len(right))
	first := FirstDifference(left, right)
	t := newTable(o, rows, max(longestHead(left), longestHead(right)), "steps")
	for _, span := range shownRows(rows, first, o) {
		if span.leftOut > 0 {
			t.line(fmt.Sprintf("%*s %s", t.prefixWidth-1, "⋮", rowsLeftOut(span.from, span.leftOut)), "")
			continue
		}
		i := span.from
		t.row(i, first, cell(left, i, first, t.cellWidth), cell(right, i, first, t.cellWidth))
	}

	t.b.WriteString("\n")
	t.b.WriteString(summary(left, right, first, o))
	t.b.WriteString("\n")
	return t.b.String()
}

// span is one line of the table's body: row from, or, when leftOut is
// above zero, that many rows from row from on, left out.
type span struct {
	from, leftOut int
}

// shownRows decides which rows a table of n rows shows (see
// Options.MaxRows). A gap of a single row is shown rather than replaced by
// a line saying so.
func shownRows(n, first int, o Options) []span {
	keep := func(i int) bool {
		if n <= o.MaxRows || i < o.Context || i >= n-o.Context {
			return true
		}
		return first >= 0 && i >= first-o.Context && i <= first+o.Context
	}
	var spans []span
	for i := 0; i < n; {
		if keep(i) {
			spans = append(spans, span{from: i})
			i++
			continue
		}
		j := i
		for j < n && !keep(j) {
			j++
		}
		if j-i == 1 {
			spans = append(spans, span{from: i})
		} else {
			spans = append(spans, span{from: i, leftOut: j - i})
		}
		i = j
	}
	return spans
}

func rowsLeftOut(from, count int) string {
	return fmt.Sprintf("(%d rows left out: %d–%d)", count, from+1, from+count)
}

// longestHead returns the length of the longest step and names of events,
// as a cell shows them before the message.
func longestHead(events []Event) int {
	longest := 0
	for _, e := range events {
		longest = max(longest, utf8.RuneCountInString(e.head()))
	}
	return longest
}

// cell is what row i of one side shows: its event, "(no more steps)" on
// the row of the first difference where this side has ended, or nothing.
func cell(events []Event, i, first, width int) string {
	switch {
	case i < len(events):
		e := events[i]
		text := e.head()
		// The message gets the room the head leaves, if it is enough for
		// a character and the ellipsis.
		msg := strings.Join(strings.Fields(e.Message), " ")
		if room := width - utf8.RuneCountInString(text) - len(": "); msg != "" && room >= 2 {
			text += ": " + shorten(msg, room)
		}
		return shorten(text, width)
	case i == first:
		return endedCell
	default:
		return ""
	}
}

// summary is the sentence under the table.
func summary(left, right []Event, first int, o Options) string {
	if first < 0 {
		if len(left) == 0 {
			return "No difference: there are no steps on either side."
		}
		return fmt.Sprintf("No difference: the %d rows agree.", len(left))
	}
	side := func(events []Event) string {
		if first < len(events) {
			return events[first].String()
		}
		return endedCell
	}
	return fmt.Sprintf("First difference at row %d — %s: %s; %s: %s.",
		first+1, o.LeftTitle, side(left), o.RightTitle, side(right))
}

// shorten cuts s to at most width characters, ending it with … when it
// was longer.
func shorten(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:max(width-1, 0)]), " ") + "…"
}

// pad fills s with spaces to width characters.
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
