package tracediff

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// VerifyPrediction proves a predict exercise honest, for `learn verify`.
// testOutput is the output of the exercise's scenario test (`go test -json`
// or `go test -v`), reference the exercise's reference prediction. It
// returns nil when
//
//   - the test logged a trace, and the reference matches it row for row:
//     a learner who writes the reference passes; and
//   - the reference, with any two adjacent rows that differ swapped, no
//     longer matches: the order is what the exercise checks, so a learner
//     who gets one pair of messages the wrong way round does not pass.
//
// Otherwise the error says what is wrong; for a reference that does not
// match, it holds the two traces side by side.
func VerifyPrediction(testOutput, reference io.Reader) error {
	happened, err := ParseTestOutput(testOutput)
	if err != nil {
		return fmt.Errorf("the test output: %w", err)
	}
	if len(happened) == 0 {
		return fmt.Errorf("the test output holds no trace: no line with %q", TracePrefix)
	}
	predicted, err := ParsePrediction(reference)
	if err != nil {
		return fmt.Errorf("the reference prediction: %w", err)
	}
	if FirstDifference(predicted, happened) >= 0 {
		return fmt.Errorf("the reference prediction does not match the scenario's trace:\n%s",
			Render(predicted, happened, Options{LeftTitle: TitleReference, RightTitle: TitleHappened}))
	}

	var errs []error
	swaps := 0
	for i := range len(predicted) - 1 {
		if Same(predicted[i], predicted[i+1]) {
			continue // swapping equal rows changes nothing
		}
		swaps++
		swapped := slices.Clone(predicted)
		swapped[i], swapped[i+1] = swapped[i+1], swapped[i]
		if FirstDifference(swapped, happened) < 0 {
			errs = append(errs, fmt.Errorf("rows %d and %d swapped (%s, then %s) still match the trace",
				i+1, i+2, swapped[i], swapped[i+1]))
		}
	}
	if swaps == 0 {
		return errors.New("the reference prediction has no two different steps in a row: there is no order to predict")
	}
	return errors.Join(errs...)
}
