package main

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The demo behind `make run` is exercised here, so it cannot break
// silently: it must finish, show every step m1…m11, and print the ten most
// frequent words with the counts this test computes on its own.
func TestMakeRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, false, defaultParallelism, nil), out.String())
	text := out.String()
	assert.NotContains(t, text, "diagnosis:", "nothing broke, nothing to diagnose")

	assert.Contains(t, text, "FINISHED")
	for step := 1; step <= 11; step++ {
		assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`(?m)^\s*\d+\. m%d\s`, step)), text, "step m%d is missing from the trace", step)
	}

	assert.Contains(t, text, "the ten most frequent words:\n"+topTen())
}

// TestMakeRunWithAFault is `make run INJECT=mN` for every step and kind:
// the demo works (returns nil, so the command exits 0), prints the
// diagnosis naming the component to dig into, and ends as Flink would: a
// refused job for m1–m3, a job FAILED during initialization for m4, and a
// job that recovers and still counts every word exactly for m5–m11.
func TestMakeRunWithAFault(t *testing.T) {
	want := topTen()
	for _, step := range fault.Steps() {
		for _, kind := range fault.Kinds(step) {
			f := fault.Fault{Step: step, Kind: kind}
			t.Run(f.String(), func(t *testing.T) {
				var out bytes.Buffer
				require.NoError(t, run(&out, false, 0, &f), out.String())
				text := out.String()

				assert.Contains(t, text, fmt.Sprintf("diagnosis: step %s — %s: ", step, fault.Component(step)), text)
				assert.Contains(t, text, "injecting fault "+f.String()+" once")
				switch step {
				case trace.M1:
					assert.Contains(t, text, "upload refused: REST request failed with status 500")
				case trace.M2:
					assert.Contains(t, text, "job refused: REST request failed with status 400")
				case trace.M3:
					assert.Contains(t, text, "job refused: REST request failed with status 500")
				case trace.M4:
					assert.Regexp(t, `job [0-9a-f]{32} FAILED`, text)
					assert.Contains(t, text, "root exception: JobInitializationException: Could not start the JobMaster.")
				default:
					assert.Regexp(t, `job [0-9a-f]{32} FINISHED`, text)
					assert.Contains(t, text, "the ten most frequent words:\n"+want, "every word counted exactly, despite the fault")
				}
			})
		}
	}
}

// topTen is the demo's expected answer, counted with the test's own
// splitter (Flink's rule: lower-case, split on anything but ASCII letters,
// digits and '_'), not the job's.
func topTen() string {
	counts := map[string]int{}
	isWordChar := func(r rune) bool {
		return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '_'
	}
	for _, word := range strings.FieldsFunc(strings.ToLower(wordcount.Text()), func(r rune) bool { return !isWordChar(r) }) {
		counts[word]++
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	var want strings.Builder
	for _, w := range words[:10] {
		fmt.Fprintf(&want, "%s: %d\n", w, counts[w])
	}
	return want.String()
}
