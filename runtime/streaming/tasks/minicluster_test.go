package tasks

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
)

// These tests run jobs end to end through a real MiniCluster: the client
// plans the program into a JobGraph, the jar goes to the BlobServer, the
// Dispatcher, JobMaster and TaskExecutors deploy the tasks, and the tasks
// of this package run the chains and exchange records through real
// partitions. They run inside a synctest bubble, so every timeout of the
// cluster takes no real time.

// soliloquy is the text the WordCount job reads from its jar (Hamlet,
// Act III, Scene 1; public domain).
const soliloquy = `To be, or not to be, that is the question:
Whether 'tis nobler in the mind to suffer
The slings and arrows of outrageous fortune,
Or to take arms against a sea of troubles
And by opposing end them. To die—to sleep,
No more; and by a sleep to say we end
The heart-ache and the thousand natural shocks
That flesh is heir to: 'tis a consummation
Devoutly to be wish'd. To die, to sleep;
To sleep, perchance to dream—ay, there's the rub:
For in that sleep of death what dreams may come,
When we have shuffled off this mortal coil,
Must give us pause—there's the respect
That makes calamity of so long life.
For who would bear the whips and scorns of time,
Th'oppressor's wrong, the proud man's contumely,
The pangs of dispriz'd love, the law's delay,
The insolence of office, and the spurns
That patient merit of th'unworthy takes,
When he himself might his quietus make
With a bare bodkin? Who would fardels bear,
To grunt and sweat under a weary life,
But that the dread of something after death,
The undiscovere'd country, from whose bourn
No traveller returns, puzzles the will,
And makes us rather bear those ills we have
Than fly to others that we know not of?
Thus conscience doth make cowards of us all,
And thus the native hue of resolution
Is sicklied o'er with the pale cast of thought,
And enterprises of great pith and moment
With this regard their currents turn awry
And lose the name of action.
`

// startCluster starts a cluster of 2 TaskExecutors × 2 slots inside the
// test's bubble and closes it when the test ends.
func startCluster(t *testing.T) (*minicluster.MiniCluster, *logbuf.Buffer) {
	t.Helper()
	return startClusterWith(t, minicluster.Config{NumTaskManagers: 2, NumSlotsPerTaskManager: 2})
}

// startClusterWith starts a cluster of cfg inside the test's bubble, with a
// working directory of its own and its INFO log in the returned buffer,
// and closes it when the test ends.
func startClusterWith(t *testing.T, cfg minicluster.Config) (*minicluster.MiniCluster, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	cfg.WorkingDir = t.TempDir()
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cluster, err := minicluster.New(cfg)
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	t.Cleanup(func() { require.NoError(t, cluster.Close()) })
	synctest.Wait() // the TaskExecutors have registered
	return cluster, logs
}

// jarBytes builds a job jar: the manifest names the program, and the
// resources travel with it.
func jarBytes(t testing.TB, programClass string, resources map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, client.WriteJar(&buf, programClass, resources))
	return buf.Bytes()
}

// runJob uploads the jar, submits the job and waits for its result.
func runJob(t *testing.T, cluster *minicluster.MiniCluster, jg *jobgraph.JobGraph, jar []byte) api.JobResult {
	t.Helper()
	require.NoError(t, cluster.UploadJar(jg, jar))
	jobID, err := cluster.SubmitJob(context.Background(), jg)
	require.NoError(t, err)
	result, err := cluster.RequestJobResult(context.Background(), jobID)
	require.NoError(t, err)
	return result
}

// WordCount reads the soliloquy from its jar and counts the words at
// parallelism 1, 2 and 4; the counts are exactly those the test computes.
func TestWordCountOnAMiniCluster(t *testing.T) {
	want := map[string]int{}
	tokens := 0
	for _, line := range strings.Split(soliloquy, "\n") {
		for _, word := range tokenize(line) {
			want[word]++
			tokens++
		}
	}
	require.Greater(t, tokens, 250)

	for _, parallelism := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				wordCounts.Clear()
				cluster, _ := startCluster(t)
				// The client plans the program (as `flink run` does) ...
				jg := planJobGraph(t, wordCountProgram, []string{"--jar"}, parallelism)
				require.Equal(t, 2, jg.NumberOfVertices())
				// ... and ships the text in the jar, in the program's directory.
				jar := jarBytes(t, wordCountProgram, map[string][]byte{wordCountProgram + "/hamlet.txt": []byte(soliloquy)})

				result := runJob(t, cluster, jg, jar)
				require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)

				// Sum emits a running count per record: word w's values are
				// exactly 1, 2, …, want[w], in that order.
				got := map[string][]int{}
				for _, count := range wordCounts.Values() {
					got[count.F0] = append(got[count.F0], count.F1)
				}
				assert.Len(t, wordCounts.Values(), tokens)
				require.Len(t, got, len(want))
				for word, n := range want {
					wantSeq := make([]int, n)
					for i := range wantSeq {
						wantSeq[i] = i + 1
					}
					assert.Equal(t, wantSeq, got[word], "counts of %q", word)
				}
			})
		})
	}
}

// A jar whose program this process does not know fails every task while
// it loads its user code, with Flink's "Cannot load user class" text, and
// the job ends FAILED.
func TestUnknownProgramFailsTheJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t)
		// A JobGraph planned where the program existed, run where it does not.
		const unknown = "tasks-test.no-such-program"
		jg := planJobGraph(t, wordCountProgram, []string{"to be"}, 2)
		for _, v := range jg.Vertices() {
			v.Configuration[streaming.ConfigProgramName] = unknown
		}

		result := runJob(t, cluster, jg, jarBytes(t, unknown, nil))
		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.Contains(t, result.FailureCause, "Cannot load user class: ClassNotFoundException: "+unknown)
		assert.Contains(t, result.FailureCause, "Class not resolvable through given classloader.")
		assert.Contains(t, logs.String(), "switched from INITIALIZING to FAILED")
	})
}

// An operator whose open fails (here a text source whose jar lacks the
// file) takes its task from INITIALIZING to FAILED, never to RUNNING:
// step m11's failure mode.
func TestOperatorOpenFailureFailsTheTaskFromInitializing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := startCluster(t)
		jg := planJobGraph(t, missingResourceProgram, nil, 1)
		result := runJob(t, cluster, jg, jarBytes(t, missingResourceProgram, nil))

		assert.Equal(t, api.JobFailed, result.JobStatus)
		assert.Contains(t, result.FailureCause, `Source: Custom File Source-1: open: cannot read the text file: the job jar holds neither "no-such-file.txt"`)
		assert.Contains(t, logs.String(), "switched from INITIALIZING to FAILED")
		assert.NotContains(t, logs.String(), "switched from INITIALIZING to RUNNING")
	})
}

// User code that fails while records flow (an error from a sink, a panic
// in a map) takes its task from RUNNING to FAILED, unlike a failing open.
func TestUserCodeFailureFailsTheTaskWhileRunning(t *testing.T) {
	for _, tt := range []struct{ mode, wantCause string }{
		{"error", "sink refused 2"},
		{"panic", "the task's user code panicked: map cannot handle 2"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cluster, logs := startCluster(t)
				jg := planJobGraph(t, failingProgram, []string{tt.mode}, 1)
				result := runJob(t, cluster, jg, jarBytes(t, failingProgram, nil))

				assert.Equal(t, api.JobFailed, result.JobStatus)
				assert.Contains(t, result.FailureCause, tt.wantCause)
				assert.Contains(t, logs.String(), "switched from RUNNING to FAILED")
			})
		})
	}
}

// An unbounded, rate-limited generator runs until the job is cancelled:
// its records flow through a keyed exchange all along, and cancelling ends
// every task promptly (goleak checks that nothing is left behind).
func TestCancellingAnUnboundedJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		generated.Clear()
		cluster, _ := startCluster(t)
		jg := planJobGraph(t, generatorProgram, []string{fmt.Sprint(streaming.Unbounded), "100"}, 2)
		require.NoError(t, cluster.UploadJar(jg, jarBytes(t, generatorProgram, nil)))
		jobID, err := cluster.SubmitJob(context.Background(), jg)
		require.NoError(t, err)

		time.Sleep(2 * time.Second) // fake time: 100 records a second
		synctest.Wait()
		status, err := cluster.RequestJobStatus(context.Background(), jobID)
		require.NoError(t, err)
		require.Equal(t, api.JobRunning, status)
		n := generated.Len()
		assert.Greater(t, n, 150, "the records reached the sink while the job runs")
		// The running sums of key i%4 grow by the generated numbers.
		sums := generated.Values()
		assert.True(t, slices.Contains(sums, int64(0+4+8)), "key 0 summed 0, 4, 8: %v", sums[:min(len(sums), 20)])

		require.NoError(t, cluster.CancelJob(context.Background(), jobID))
		result, err := cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		assert.Equal(t, api.JobCanceled, result.JobStatus)
	})
}
