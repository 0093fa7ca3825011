package diagnose

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// CheckFailoverHonest reports whether a failover drill can be answered
// from its logs and only from them, for `learn verify`, as CheckHonest
// does for a drill of the submission steps. It returns nil only if
//
//   - hatrace.Explain reads the key's cause from the logs, and the key's
//     process as the one it happened to (else ErrIncomplete);
//   - the proof has a line a learner may answer with, one that is not a
//     grant of the leadership, and each such line can be told from every
//     other by pasting it whole (else ErrIncomplete);
//   - no line gives the incident away: none says "fault", "inject",
//     "diagnos…", "drill", a signal's name (SIGKILL, SIGSTOP, SIGCONT),
//     "kill -9" or a kind of cause as hatrace names it (else
//     ErrGivesAway, quoting the lines);
//   - healthy, the logs of the same cluster and job run with nothing
//     happening to the leader, show no cause at all (else ErrHealthyToo).
//
// All failed checks are reported, joined.
func CheckFailoverHonest(key FailoverKey, logs, healthy Logs) error {
	var errs []error
	cause, ok := logs.Explain()
	switch {
	case !ok:
		errs = append(errs, fmt.Errorf("%w: hatrace.Explain reads no cause from them, want %s of %s", ErrIncomplete, key.Cause, key.Process))
	case cause.Kind != key.Cause || cause.Process != key.Process:
		errs = append(errs, fmt.Errorf("%w: hatrace.Explain reads %s of %s, want %s of %s", ErrIncomplete, cause.Kind, cause.Process, key.Cause, key.Process))
	default:
		lines := quotable(cause)
		if len(lines) == 0 {
			errs = append(errs, fmt.Errorf("%w: the proof of %s is its context alone (grants of the leadership, the last line before a silence), which other causes leave too", ErrIncomplete, key.Cause))
		}
		for _, r := range logs.ProofOf(cause) {
			whole := pasted{text: squash(firstLine(r.Message)), file: r.File, date: r.Time.Format("2006-01-02"), clock: r.Time.Format("15:04:05,000"), logger: r.Logger}
			if status, _ := locate(logs, whole); status != found {
				errs = append(errs, fmt.Errorf("%w: the proving line %s: %s cannot be told from the others, even pasted whole with its file's name",
					ErrIncomplete, r.Where(), r.printedLine()))
			}
		}
	}
	if offending := givenAway(logs, failoverGiveaway); len(offending) > 0 {
		errs = append(errs, fmt.Errorf("%w:\n%s", ErrGivesAway, quoteLines(offending)))
	}
	if c, ok := healthy.Explain(); ok {
		errs = append(errs, fmt.Errorf("%w: a run with nothing happening to the leader shows %s of %s", ErrHealthyToo, c.Kind, c.Process))
	}
	return errors.Join(errs...)
}

// failoverGiveaway matches what a cluster's log never says and a failover
// drill's must not: how the incident was made, and the answer's words.
var failoverGiveaway = func() *regexp.Regexp {
	words := []string{`\b(?:fault|inject|diagnos|drill)`, `\bsig(?:kill|stop|cont)\b`, `\bkill -9\b`}
	for _, c := range Causes() {
		words = append(words, regexp.QuoteMeta(string(c)))
	}
	return regexp.MustCompile(`(?i)` + strings.Join(words, "|"))
}()
