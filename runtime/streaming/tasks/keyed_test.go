package tasks

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
)

// Sum keeps one running sum per key, in the subtask that owns the key's
// key group, however many subtasks produce and consume: the records
// cross a HASH exchange through real partitions and gates.
func TestKeyedSumPerKey(t *testing.T) {
	pairs := []string{"a=1", "b=10", "a=2", "c=5", "b=20", "a=3", "d=7", "a=4", "c=1", "e=2"}
	// What the test expects, computed on its own: per key, the running sums.
	want := map[string][]int{}
	for _, pair := range pairs {
		key, value, _ := strings.Cut(pair, "=")
		var n int
		fmt.Sscan(value, &n)
		sum := n
		if sums := want[key]; len(sums) > 0 {
			sum += sums[len(sums)-1]
		}
		want[key] = append(want[key], sum)
	}

	for _, parallelism := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			keyedSums.Clear()
			jg := planJobGraph(t, keyedSumProgram, pairs, parallelism)
			require.Equal(t, 2, jg.NumberOfVertices(), "the HASH edge splits the job in two tasks")
			job := deployLocally(t, jg, writeJar(t, keyedSumProgram, nil), network.Config{BufferSize: 64})
			require.NoError(t, job.run(t.Context()))

			got := map[string][]int{}
			for _, sum := range keyedSums.Values() {
				got[sum.F0] = append(got[sum.F0], sum.F1)
			}
			for key, sums := range want {
				// Records of one key come from several source subtasks, so
				// their order (and so the intermediate sums) may differ; the
				// number of sums, their growth and the total may not.
				assert.Len(t, got[key], len(sums), "key %s", key)
				assert.True(t, slices.IsSorted(got[key]), "key %s: running sums %v", key, got[key])
				assert.Equal(t, sums[len(sums)-1], slices.Max(got[key]), "key %s", key)
			}
			assert.Len(t, got, len(want))
		})
	}
}

// The state backend holds only the key groups of its subtask; a key from
// another key group means producer and consumer hash differently, and the
// task fails with Flink's message.
func TestKeyedStateRejectsKeysOfOtherKeyGroups(t *testing.T) {
	backend := newHeapKeyedStateBackend(128, 2, 0) // key groups 0–63
	var own, foreign string
	for i := 0; own == "" || foreign == ""; i++ {
		key := fmt.Sprintf("key-%d", i)
		if streaming.AssignToKeyGroup(key, 128) < 64 {
			own = key
		} else {
			foreign = key
		}
	}

	values, err := backend.stateMapForKey(own)
	require.NoError(t, err)
	values[own] = 1
	assert.Equal(t, 1, backend.numberOfKeys())

	_, err = backend.stateMapForKey(foreign)
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("Key group %d is not in KeyGroupRange{startKeyGroup=0, endKeyGroup=63}. Unless you're directly using low level state access APIs",
		streaming.AssignToKeyGroup(foreign, 128)))
}

// Print writes "<subtask index+1>> <record>" when the sink runs in several
// subtasks, and the bare record in one; after KeyBy each word is printed by
// the owner of its key group, and only by it.
func TestPrintSinkPrefixesTheSubtaskIndex(t *testing.T) {
	words := []string{"to", "be", "or", "not", "to", "be", "that", "is", "the", "question"}
	for _, parallelism := range []int{1, 3} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			out := &logbuf.Buffer{}
			defer SetStdout(out)()
			jg := planJobGraph(t, printProgram, words, parallelism)
			job := deployLocally(t, jg, writeJar(t, printProgram, nil), network.Config{})
			require.NoError(t, job.run(t.Context()))

			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			require.Len(t, lines, len(words))
			var printed []string
			for _, line := range lines {
				if parallelism == 1 {
					printed = append(printed, line)
					continue
				}
				var subtask int
				var word string
				_, err := fmt.Sscanf(line, "%d> %s", &subtask, &word)
				require.NoError(t, err, "line %q", line)
				assert.Equal(t, streaming.AssignKeyToParallelOperator(word, 128, parallelism)+1, subtask,
					"%q is printed by the owner of its key group", word)
				printed = append(printed, word)
			}
			assert.ElementsMatch(t, words, printed)
		})
	}
}
