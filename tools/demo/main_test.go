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
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The demo behind `make run` is exercised here, so it cannot break
// silently: it must finish, show every step m1…m11, and print the ten most
// frequent words with the counts this test computes on its own.
func TestMakeRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, false, defaultParallelism, nil), out.String())
	text := out.String()

	assert.Contains(t, text, "FINISHED")
	for step := 1; step <= 11; step++ {
		assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`(?m)^\s*\d+\. m%d\s`, step)), text, "step m%d is missing from the trace", step)
	}

	// Count with the test's own splitter (Flink's rule: lower-case, split on
	// anything but ASCII letters, digits and '_'), not the job's.
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
	assert.Contains(t, text, "the ten most frequent words:\n"+want.String())
}
