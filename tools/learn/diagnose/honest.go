package diagnose

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"flinklab/runtime/fault"
)

// The ways a drill can be dishonest, which CheckHonest wraps.
var (
	// ErrNoEvidence: the key's step and kind have no evidence in package
	// fault, so no line could prove the answer.
	ErrNoEvidence = errors.New("no evidence")
	// ErrIncomplete: a line that must prove the answer is not in the logs.
	ErrIncomplete = errors.New("the logs do not prove the answer")
	// ErrGivesAway: a shown line mentions the fault itself, which a real
	// cluster never would.
	ErrGivesAway = errors.New("a log line gives the fault away")
	// ErrAmbiguous: the logs prove a failure at another step as well, so
	// the answer is not the only one consistent with them.
	ErrAmbiguous = errors.New("the logs prove another step too")
	// ErrHealthyToo: a run without the fault shows the proving lines as
	// well, so they prove nothing.
	ErrHealthyToo = errors.New("a healthy run proves the answer too")
)

// maxQuoted is how many offending lines an error quotes.
const maxQuoted = 5

// CheckHonest reports whether a drill can be answered from its logs and
// only from them, for `learn verify`. It returns nil only if
//
//   - the key's evidence is complete: every clue that is not optional
//     found its line, and for a fault proved by the checkpoint
//     statistics (Key.ProvedByStatistics) a row of them shows where the
//     checkpoint stopped (else ErrIncomplete, naming what is missing);
//   - no line of the logs or of what the client was told gives the fault
//     away: none says "fault", "inject" or "diagnos…" (at the start of a
//     word, so DefaultScheduler is fine), a kind of fault, or a step's
//     name m1–m11 or k1–k7 as a word (else ErrGivesAway, quoting the
//     lines);
//   - the key's evidence is not complete in healthy, the logs of the same
//     cluster and job run without the fault (else ErrHealthyToo: lines
//     every run writes prove nothing);
//   - no other step's evidence, of any of its kinds, m1–m11 and k1–k7, is
//     complete (else ErrAmbiguous, quoting its lines and rows), leaving
//     out the evidence that is complete in healthy too: lines every run
//     writes (a JobMaster connecting to its ResourceManager, say) are no
//     one's proof. Two kinds whose log lines are alike (an expired
//     checkpoint, k1 and k4) are told apart by their rows of the
//     checkpoint statistics, which have no time: such a kind is weighed
//     against the whole run.
//
// All failed checks are reported, joined.
func CheckHonest(key Key, logs, healthy Logs) error {
	e, err := key.Evidence()
	if err != nil {
		return err
	}
	var errs []error

	// (a) The answer is in the logs, and in the checkpoint statistics
	// when its lines are another kind's too.
	if lines, complete := e.Find(logs.Records()); !complete {
		errs = append(errs, fmt.Errorf("%w: %s:%s: no line for %s", ErrIncomplete, key.Step, key.Kind,
			strings.Join(missingClues(e, lines), "; ")))
	}
	if key.ProvedByStatistics() && len(key.ProvingRows(logs)) == 0 {
		errs = append(errs, fmt.Errorf("%w: %s:%s: no row of the checkpoint statistics in %s shows %s", ErrIncomplete, key.Step, key.Kind,
			ClientFile, whatStatisticsShow[key.Kind]))
	}

	// (b) Nothing but the cluster's own words is.
	if offending := givenAway(logs, giveawayPattern()); len(offending) > 0 {
		errs = append(errs, fmt.Errorf("%w:\n%s", ErrGivesAway, quoteLines(offending)))
	}

	// (c) The proof is not what every run writes.
	if findProof(e, healthy).complete {
		errs = append(errs, fmt.Errorf("%w: the evidence of %s:%s is complete in a run without the fault", ErrHealthyToo, key.Step, key.Kind))
	}

	// (d) The answer is the only one the logs prove, before its proof: what
	// comes after the first failure may be its consequence (a restart can
	// have slots offered at the wrong moment), and the step to name is the
	// first.
	earlier := logs.before(firstProof(e, logs))
	for _, step := range append(fault.Steps(), fault.CheckpointSteps()...) {
		if step == key.Step {
			continue
		}
		for _, kind := range fault.Kinds(step) {
			other, ok := fault.EvidenceUnder(key.Scheduler, step, kind)
			if !ok {
				continue
			}
			// The statistics have no time: a kind they prove, whose lines
			// are another's too, is weighed against the whole run.
			scope := earlier
			if _, byStatistics := statisticsProof[kind]; byStatistics {
				scope = logs
			}
			p := findProof(other, scope)
			if !p.complete || findProof(other, healthy).complete {
				continue
			}
			var quoted []string // the rows first: they tell the kind apart
			for _, r := range p.rows {
				quoted = append(quoted, r.Where()+": "+strings.TrimSpace(r.Text))
			}
			for _, r := range p.lines {
				quoted = append(quoted, r.Where()+": "+r.printedLine())
			}
			errs = append(errs, fmt.Errorf("%w: the evidence of %s:%s is complete:\n%s", ErrAmbiguous, step, kind, quoteLines(quoted)))
		}
	}
	return errors.Join(errs...)
}

// givenAway returns the lines of logs, and of what the client was told,
// in which giveaway finds something, each with where it is and what it
// found.
func givenAway(logs Logs, giveaway *regexp.Regexp) []string {
	var offending []string
	for _, r := range logs.All {
		if m := giveaway.FindString(r.Logger + " " + r.Text()); m != "" {
			offending = append(offending, fmt.Sprintf("%s (%q): %s", r.Where(), m, r.printedLine()))
		}
	}
	for i, line := range strings.Split(logs.Client, "\n") {
		if m := giveaway.FindString(line); m != "" {
			offending = append(offending, fmt.Sprintf("%s:%d (%q): %s", ClientFile, i+1, m, line))
		}
	}
	return offending
}

// missingClues describes the clues of e that must be found and are not
// among the lines found.
func missingClues(e fault.Evidence, lines []fault.ProvingLine) []string {
	var missing []string
	for _, c := range e.Clues {
		taken := false
		for i, l := range lines {
			if l.Clue.Pattern == c.Pattern && l.Clue.Logger == c.Logger {
				lines = append(lines[:i], lines[i+1:]...)
				taken = true
				break
			}
		}
		if !taken && !c.Optional {
			missing = append(missing, fmt.Sprintf("%s /%s/", c.Logger, c.Pattern))
		}
	}
	return missing
}

// giveawayPattern matches what a real cluster's log never says and a
// drill's must not: the fault, its injection, a diagnosis, a kind of fault
// or a step's name.
func giveawayPattern() *regexp.Regexp {
	words := []string{`\b(?:fault|inject|diagnos)`, `\bm(?:1[01]|[1-9])\b`, `\bk[1-7]\b`}
	for _, step := range append(fault.Steps(), fault.CheckpointSteps()...) {
		for _, kind := range fault.Kinds(step) {
			words = append(words, regexp.QuoteMeta(string(kind)))
		}
	}
	return regexp.MustCompile(`(?i)` + strings.Join(words, "|"))
}

// quoteLines indents lines, at most maxQuoted of them.
func quoteLines(lines []string) string {
	more := ""
	if len(lines) > maxQuoted {
		more = fmt.Sprintf("\n  … and %d more", len(lines)-maxQuoted)
		lines = lines[:maxQuoted]
	}
	return "  " + strings.Join(lines, "\n  ") + more
}

// firstProof is the time of the earliest line that must prove e in logs
// (a clue that is not optional), or the end of time when there is none.
func firstProof(e fault.Evidence, logs Logs) time.Time {
	first := time.Unix(1<<62, 0)
	lines, _ := e.Find(logs.Records())
	for _, line := range lines {
		if !line.Clue.Optional && line.Record.Time.Before(first) {
			first = line.Record.Time
		}
	}
	return first
}

// before returns the records of logs written strictly before t, and what
// the client was told, whole: it was asked once the job had ended.
func (l Logs) before(t time.Time) Logs {
	files := make(map[string][]Record, len(l.Files))
	for file, records := range l.Files {
		for _, r := range records {
			if r.Time.Before(t) {
				files[file] = append(files[file], r)
			}
		}
	}
	earlier := merge(files)
	earlier.Client = l.Client
	return earlier
}
