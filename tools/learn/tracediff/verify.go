package tracediff

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// VerifyPrediction proves a predict exercise honest, for `learn verify`.
// testOutput is the output of the exercise's scenario test (`go test -json`
// or `go test -v`), reference the exercise's reference prediction. Both
// are compared counted (see Count): each message with the number of times
// it happened, in the order in which the messages first happened. It
// returns nil when
//
//   - the test logged a trace, and the reference matches it: a learner
//     who writes the reference passes;
//   - the course's table of a clean submission (CleanSubmission), copied
//     as it is, does not match: the exercise asks for more than the table;
//   - the reference with any two neighbouring messages swapped does not
//     match: the order in which messages first happen is checked;
//   - the reference with any one message counted once more, or once
//     fewer, does not match: the counts are checked, down to a message
//     that never happens.
//
// Otherwise the error says what is wrong; for a reference that does not
// match, it holds the two sides in a table.
func VerifyPrediction(testOutput, reference io.Reader) error {
	events, err := ParseTestOutput(testOutput)
	if err != nil {
		return fmt.Errorf("the test output: %w", err)
	}
	if len(events) == 0 {
		return fmt.Errorf("the test output holds no trace: no line with %q", TracePrefix)
	}
	predicted, err := ParsePrediction(reference)
	if err != nil {
		return fmt.Errorf("the reference prediction: %w", err)
	}
	happened, want := Count(events), Count(predicted)
	if FirstCountDifference(want, happened) >= 0 {
		return fmt.Errorf("the reference prediction does not match the scenario's trace:\n%s",
			RenderCounts(want, happened, Options{LeftTitle: TitleReference, RightTitle: TitleHappened}))
	}
	return checkPredictionIsAsked(want, happened, FirstCountDifference)
}

// checkPredictionIsAsked returns an error for each wrong prediction that
// firstDifference (FirstCountDifference, or a comparison under test) fails
// to tell from what happened: the table of a clean submission, the
// reference want with two neighbouring messages swapped, and want with a
// message counted once more or once fewer.
func checkPredictionIsAsked(want, happened []Counted, firstDifference func(a, b []Counted) int) error {
	if len(want) < 2 {
		return errors.New("the reference prediction has fewer than two different messages: there is no order to predict")
	}
	var errs []error
	matches := func(variant []Counted) bool {
		variant = slices.DeleteFunc(variant, func(c Counted) bool { return c.Times == 0 })
		return firstDifference(variant, happened) < 0
	}
	if matches(Count(CleanSubmission())) {
		errs = append(errs, errors.New("the table of a clean submission (m1 … m11, each once) matches the trace: "+
			"the exercise can be answered by copying it"))
	}
	for i := range len(want) - 1 {
		swapped := slices.Clone(want)
		swapped[i], swapped[i+1] = swapped[i+1], swapped[i]
		if matches(swapped) {
			errs = append(errs, fmt.Errorf("rows %d and %d swapped (%s, then %s) still match the trace",
				i+1, i+2, swapped[i], swapped[i+1]))
		}
	}
	for i := range want {
		for _, by := range []int{-1, +1} {
			miscounted := slices.Clone(want)
			miscounted[i].Times += by
			if matches(miscounted) {
				errs = append(errs, fmt.Errorf("row %d counted %s (%s) still matches the trace",
					i+1, timesInWords(miscounted[i].Times), miscounted[i].Event))
			}
		}
	}
	return errors.Join(errs...)
}
