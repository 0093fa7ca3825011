package wordcount_test

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks"
)

// WordCount over the bundled text, run through a real MiniCluster (2
// TaskExecutors × 2 slots) at parallelism 1, 2 and 4, counts every word
// exactly as this test counts it on its own.
func TestWordCountOnACluster(t *testing.T) {
	want := map[string]int{} // counted with the test's own splitter, not the job's
	total := 0
	for _, word := range referenceWords(wordcount.Text()) {
		want[word]++
		total++
	}
	for _, parallelism := range []int{1, 2, 4} {
		t.Run("parallelism "+strconv.Itoa(parallelism), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cluster, err := minicluster.New(minicluster.Config{
					NumTaskManagers: 2, NumSlotsPerTaskManager: 2,
					WorkingDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
				})
				require.NoError(t, err)
				require.NoError(t, cluster.Start())
				defer cluster.Close()
				wordcount.Results.Clear()

				plan, err := streaming.PlanProgram(wordcount.ProgramClass, []string{"--output", wordcount.OutputCollect}, parallelism)
				require.NoError(t, err)
				job, err := plan.JobGraph()
				require.NoError(t, err)
				jar, err := wordcount.Jar()
				require.NoError(t, err)
				require.NoError(t, cluster.UploadJar(job, jar))

				jobID, err := cluster.SubmitJob(context.Background(), job)
				require.NoError(t, err)
				result, err := cluster.RequestJobResult(context.Background(), jobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
				// The sink gets a running count after every word: (w,1) … (w,n)
				// for a word that occurs n times, in that order.
				records := wordcount.Results.Values()
				assert.Len(t, records, total)
				got := map[string][]int{}
				for _, r := range records {
					got[r.F0] = append(got[r.F0], r.F1)
				}
				assert.Len(t, got, len(want))
				for word, n := range want {
					wantSeq := make([]int, n)
					for i := range wantSeq {
						wantSeq[i] = i + 1
					}
					assert.Equal(t, wantSeq, got[word], "running counts of %q", word)
				}
			})
		})
	}
}

// WordCount in BATCH mode on a real MiniCluster: its HASH exchange is
// BLOCKING, so the counting stage starts once every tokenizer has
// finished, reads the files they left, and prints one final count per
// word.
func TestBatchWordCountOnACluster(t *testing.T) {
	want := map[string]int{}
	for _, word := range referenceWords(wordcount.Text()) {
		want[word]++
	}
	synctest.Test(t, func(t *testing.T) {
		cluster, err := minicluster.New(minicluster.Config{
			NumTaskManagers: 2, NumSlotsPerTaskManager: 1,
			WorkingDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
		})
		require.NoError(t, err)
		require.NoError(t, cluster.Start())
		defer cluster.Close()
		wordcount.Results.Clear()

		plan, err := streaming.PlanProgram(wordcount.ProgramClass,
			[]string{"--output", wordcount.OutputCollect, "--execution-mode", "batch"}, 4)
		require.NoError(t, err)
		job, err := plan.JobGraph()
		require.NoError(t, err)
		jar, err := wordcount.Jar()
		require.NoError(t, err)
		require.NoError(t, cluster.UploadJar(job, jar))

		jobID, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err)
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
		got := map[string]int{}
		for _, r := range wordcount.Results.Values() {
			_, twice := got[r.F0]
			assert.False(t, twice, "%q counted twice: BATCH emits one final count per word", r.F0)
			got[r.F0] = r.F1
		}
		assert.Equal(t, want, got)
	})
}
