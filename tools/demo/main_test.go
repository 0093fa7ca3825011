package main

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

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
	require.NoError(t, run(&out, false, 2), out.String())
	text := out.String()

	assert.Contains(t, text, "FINISHED")
	for step := 1; step <= 11; step++ {
		assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`(?m)^\s*\d+\. m%d\s`, step)), text, "step m%d is missing from the trace", step)
	}

	counts := map[string]int{}
	for _, line := range strings.Split(wordcount.Text(), "\n") {
		for _, word := range wordcount.Tokenize(line) {
			counts[word]++
		}
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
