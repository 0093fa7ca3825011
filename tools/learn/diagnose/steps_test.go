package diagnose

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/fault"
)

// A learner who named the wrong step reads what that step does: the text
// names its own component only, never another, which could be the one to
// open, nor one of another's parts.
func TestWhatAStepDoesNamesNoOtherComponent(t *testing.T) {
	for _, step := range append(fault.Steps(), checkpointSteps...) {
		text := strings.ToLower(whatStepDoes[step])
		assert.NotEmpty(t, text, step)
		for _, c := range Components() {
			if c == ComponentOf(step) {
				continue
			}
			for _, name := range slices.Concat([]string{c}, aliases[c], checkpointAliases[c]) {
				if len(name) > 4 { // "rest", "Task" are words as well as names
					assert.NotContains(t, text, strings.ToLower(name), "%s names %s", step, c)
				}
			}
		}
	}
}
