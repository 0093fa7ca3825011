package tracediff

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// RenderCounts lays two counted traces (see Count) side by side, one
// numbered row per message with its count (×N when it is not 1), marks
// the first difference ✗ and ends with a sentence that says what differs
// there (DescribeCountDifference), or that the two agree:
//
//	     you predicted                          │ what happened
//	   1 m1  Client → REST                      │ m1  Client → REST: POST /jars/upload: jar…
//	   …
//	✗  7 m7  SlotManager → TaskExecutor ×5      │ m7  SlotManager → TaskExecutor ×4: req…  ← first difference
//	   8 m8  TaskExecutor → JobMaster ×4        │
//	     (what happened after row 7 is not shown)
//
//	Row 7: m7 SlotManager → TaskExecutor happened 4 times; you predicted 5 times.
//
// The right column stops at the first difference with
// Options.HideAfterDifference; MaxRows and Context do not apply: a
// counted trace is short.
func RenderCounts(left, right []Counted, opts Options) string {
	o := opts.withDefaults()
	first := FirstCountDifference(left, right)
	rows := max(len(left), len(right))
	shownRight := len(right)
	if o.HideAfterDifference && first >= 0 {
		// Nothing below the first difference may tell what happened,
		// not even how many messages did.
		shownRight = min(len(right), first+1)
		rows = max(len(left), first+1)
	}
	t := newTable(o, rows, max(longestCountedHead(left), longestCountedHead(right[:shownRight])), "messages")
	for i := range rows {
		l := countedCell(left, i, first, t.cellWidth)
		r := ""
		if i < shownRight || i == first {
			r = countedCell(right, i, first, t.cellWidth)
		}
		t.row(i, first, l, r)
	}
	if shownRight < len(right) || (o.HideAfterDifference && first >= 0) {
		// Said also when nothing happened after that row: the table must
		// not tell where the run ends by leaving the line out.
		t.note(fmt.Sprintf("(what happened after row %d is not shown)", first+1))
	}

	b := &t.b
	b.WriteString("\n")
	if first < 0 {
		if len(left) == 0 {
			b.WriteString("No difference: there are no messages on either side.\n")
		} else {
			fmt.Fprintf(b, "No difference: the %d messages agree, each as many times.\n", len(left))
		}
		return b.String()
	}
	b.WriteString(DescribeCountDifference(left, right, first, o.LeftTitle) + "\n")
	return b.String()
}

// countedHead is a counted message as a cell shows it before its note:
// the step padded to three characters, the names, and the count.
func countedHead(c Counted) string { return c.head() + c.timesSuffix() }

// longestCountedHead returns the length of the longest head of counted.
func longestCountedHead(counted []Counted) int {
	longest := 0
	for _, c := range counted {
		longest = max(longest, utf8.RuneCountInString(countedHead(c)))
	}
	return longest
}

// countedCell is what row i of one side shows: its message with its count
// and as much of its note as fits, "(no more messages)" on the row of the
// first difference where this side has ended, or nothing.
func countedCell(counted []Counted, i, first, width int) string {
	switch {
	case i < len(counted):
		text := countedHead(counted[i])
		msg := strings.Join(strings.Fields(counted[i].Message), " ")
		if room := width - utf8.RuneCountInString(text) - len(": "); msg != "" && room >= 2 {
			text += ": " + shorten(msg, room)
		}
		return shorten(text, max(width, utf8.RuneCountInString(countedHead(counted[i]))))
	case i == first:
		return "(no more messages)"
	default:
		return ""
	}
}
