package tracediff

import (
	"fmt"
	"slices"
)

// Counted is one message of a trace counted: the first time it happened
// (step, sender, receiver, whether it failed, and its message), and how
// many times it happened in all.
//
// A predict exercise compares traces counted, not row for row: when
// several TaskManagers answer at once, the order in which their messages
// interleave is up to the scheduler of goroutines (of threads and the
// network, in Flink), and a prediction must not be asked for it. What the
// program does guarantee is how many times each message happens, and the
// order in which the messages first happen: a TaskExecutor offers a slot
// only after the SlotManager asked it for one.
type Counted struct {
	Event     // the first time the message happened
	Times int // how many times it happened, 1 or more
}

// String returns the message as a prediction writes it, with its count
// when that is not 1: "m7 SlotManager → TaskExecutor ×4".
func (c Counted) String() string {
	return c.Event.String() + c.timesSuffix()
}

// timesSuffix is " ×N" for a count other than 1, else nothing.
func (c Counted) timesSuffix() string {
	if c.Times == 1 {
		return ""
	}
	return fmt.Sprintf(" ×%d", c.Times)
}

// Count folds a trace into its messages: one Counted per distinct message
// (see Same), in the order in which each first happened, with the number
// of times it happened. A prediction read by ParsePrediction is counted
// the same way, so a message written on two lines counts twice, as it
// would written once with ×2.
func Count(events []Event) []Counted {
	var counted []Counted
	for _, e := range events {
		if i := slices.IndexFunc(counted, func(c Counted) bool { return Same(c.Event, e) }); i >= 0 {
			counted[i].Times++
			continue
		}
		counted = append(counted, Counted{Event: e, Times: 1})
	}
	return counted
}

// FirstCountDifference returns the index of the first row at which a and
// b differ: another message (see Same), or the same message another number
// of times. It returns -1 if they have the same length and agree on every
// row; when one is the beginning of the other, the first difference is the
// row where the shorter one has ended: its length.
func FirstCountDifference(a, b []Counted) int {
	for i := range min(len(a), len(b)) {
		if !Same(a[i].Event, b[i].Event) || a[i].Times != b[i].Times {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// DescribeCountDifference says in a sentence how the two counted traces
// differ at row i, their first difference (see FirstCountDifference):
// left is what someone expected (a prediction, a reference), right what
// happened, and leftTitle names the left side as the table does
// (TitlePredicted, TitleReference). For example:
//
//	Row 7: m7 SlotManager → TaskExecutor happened 4 times; you predicted 5 times.
//	Row 9: you predicted m9 JobMaster → TaskExecutor; it never happened: the run ends after row 8.
//
// It names what happened at row i, and nothing after it.
func DescribeCountDifference(left, right []Counted, i int, leftTitle string) string {
	says := claim(leftTitle)
	switch {
	case i < 0:
		return "No difference."
	case i >= len(left) && i < len(right):
		return fmt.Sprintf("Row %d: %s nothing more, but the run went on: %s happened %s.",
			i+1, says, right[i].Event, timesInWords(right[i].Times))
	case i >= len(right) && i < len(left):
		return fmt.Sprintf("Row %d: %s %s; it never happened: the run ends after row %d.",
			i+1, says, left[i].Event, i)
	case i >= len(left):
		return "No difference."
	}
	l, r := left[i], right[i]
	if Same(l.Event, r.Event) {
		return fmt.Sprintf("Row %d: %s happened %s; %s %s.",
			i+1, r.Event, timesInWords(r.Times), says, timesInWords(l.Times))
	}
	later := slices.IndexFunc(right[i+1:], func(c Counted) bool { return Same(c.Event, l.Event) }) >= 0
	if later {
		return fmt.Sprintf("Row %d: %s %s here, but it happened later; the next new message was %s.",
			i+1, says, l.Event, r.Event)
	}
	return fmt.Sprintf("Row %d: %s %s; it never happened. The next new message was %s.",
		i+1, says, l.Event, r.Event)
}

// claim is how a sentence introduces what the left side says.
func claim(leftTitle string) string {
	switch leftTitle {
	case "", TitlePredicted:
		return TitlePredicted
	case TitleReference:
		return "the reference says"
	default:
		return leftTitle + ":"
	}
}

// timesInWords writes a count as a sentence says it: once, twice, 3 times.
func timesInWords(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	case 2:
		return "twice"
	default:
		return fmt.Sprintf("%d times", n)
	}
}
