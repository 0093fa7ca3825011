package dot

import (
	"fmt"
	"strings"

	"flinklab/tools/graphs/checkpoints"
)

// coordinatorTable is the coordinator's label: the trigger (k1), the
// completion (k6) and the notifications (k7), one row for all of them.
func coordinatorTable(c *checkpoints.Checkpoint) string {
	acks := acknowledgements(c)
	completed := fmt.Sprintf("k6 completed: %d of %d subtasks acknowledged", acks, len(c.Tasks))
	if c.Measured {
		completed += fmt.Sprintf(", %d bytes", c.StateSize)
	}
	rows := []string{
		headerRow(c, "CheckpointCoordinator (JobMaster)"),
		stepRow(c, c.Trigger, fmt.Sprintf("k1 triggered checkpoint %d", c.ID), "k1 triggered"),
		stepRow(c, c.Completion, completed, "k6 completed"),
	}
	var first, last checkpoints.Step
	for _, t := range c.Tasks {
		if n := t.Notified; n.Happened() {
			if !first.Happened() || n.Order < first.Order {
				first = n
			}
			if n.Order > last.Order {
				last = n
			}
		}
	}
	if first.Happened() {
		order := fmt.Sprint(first.Order)
		if last.Order > first.Order {
			order = fmt.Sprintf("%d–%d", first.Order, last.Order)
		}
		what := "k7 notifyCheckpointComplete to " + count(acks, "subtask", "subtasks")
		rows = append(rows, cells(c, order, htmlText(what), sinceTrigger(first.Since)))
	}
	return table(rows)
}

// taskTable is a subtask's label: the steps it should take, in order,
// each with its number and time, or grey when the trace lacks it.
func taskTable(c *checkpoints.Checkpoint, t checkpoints.Task) string {
	header := fmt.Sprintf("%d/%d", t.Subtask.Index+1, t.Subtask.Parallelism)
	if t.Name != "" {
		header += fmt.Sprintf(" #%d", t.Attempt)
	}
	if t.TaskManager != "" {
		header += " on " + t.TaskManager
	}
	rows := []string{headerRow(c, header)}
	if t.Source {
		rows = append(rows,
			stepRow(c, t.Triggered, "k2 trigger received", "k2 trigger received"),
			stepRow(c, t.SentBarrier, "k3 barrier sent on "+count(t.Outputs, "output", "outputs"), "k3 barrier sent"))
	} else {
		aligned := "k4 barrier on all " + count(t.Inputs, "input", "inputs")
		if c.Measured {
			aligned += fmt.Sprintf(", aligned in %d ms", t.Alignment.Milliseconds())
		}
		rows = append(rows, stepRow(c, t.Aligned, aligned, "k4 barrier on all inputs"))
	}
	acknowledged := "k5 acknowledged"
	if c.Measured && t.AckRank > 0 {
		acknowledged += fmt.Sprintf(", %s of %d", ordinal(t.AckRank), acknowledgements(c))
	}
	rows = append(rows,
		stepRow(c, t.Acknowledged, acknowledged, "k5 acknowledged"),
		stepRow(c, t.Notified, "k7 notified: complete", "k7 notified"))
	return table(rows)
}

// acknowledgements counts the subtasks that acknowledged.
func acknowledgements(c *checkpoints.Checkpoint) int {
	n := 0
	for _, t := range c.Tasks {
		n += b2i(t.Acknowledged.Happened())
	}
	return n
}

// headerRow is a node's first row, in bold across its columns.
func headerRow(c *checkpoints.Checkpoint, text string) string {
	span := 2
	if c.Measured {
		span = 4
	}
	return fmt.Sprintf(`<tr><td colspan="%d" align="left"><b>%s</b></td></tr>`, span, htmlText(text))
}

// stepRow is one step of a node: its number, what happened, and its time
// when measured; when the trace lacks the step, the step alone, in grey,
// "not in the trace".
func stepRow(c *checkpoints.Checkpoint, s checkpoints.Step, what, missing string) string {
	if !s.Happened() {
		return cells(c, "", fmt.Sprintf(`<font color="%s">%s: not in the trace</font>`, notTraced, htmlText(missing)), "")
	}
	return cells(c, fmt.Sprint(s.Order), htmlText(what), sinceTrigger(s.Since))
}

// cells is one row of a node's table: the number, the text (HTML) and,
// when the checkpoint is measured, the time.
func cells(c *checkpoints.Checkpoint, order, what, since string) string {
	row := fmt.Sprintf(`<tr><td align="right">%s</td><td align="left">%s</td>`, htmlText(order), what)
	if c.Measured {
		// The spacer keeps the columns apart where a viewer's font is
		// wider than the one Graphviz measured.
		row += fmt.Sprintf(`<td width="16"></td><td align="right">%s</td>`, htmlText(since))
	}
	return row + "</tr>"
}

// table wraps rows in an HTML-like table without borders.
func table(rows []string) string {
	return `<table border="0" cellborder="0" cellspacing="0" cellpadding="3">` + strings.Join(rows, "") + `</table>`
}
