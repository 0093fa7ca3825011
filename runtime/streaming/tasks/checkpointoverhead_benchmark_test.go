package tasks

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/minicluster"
)

// checkpointOverheadRecords is how many records each run of
// BenchmarkCheckpointOverhead counts: about two seconds of work at 5 M
// records/s, so that a 100 ms interval takes some 20 checkpoints.
const checkpointOverheadRecords = 10_000_000

// BenchmarkCheckpointOverhead measures what checkpoints cost a keyed job:
// the keyed exchange (sequence → Map(x → (x % 1024, 1)) → KeyBy → Sum →
// sink, parallelism 2, WordCount's shape) counts 10 M records on a
// MiniCluster without checkpoints, then on one that checkpoints every
// 100 ms (into the JobManager's memory: the state is small, 1,024 sums
// and two source positions). Every iteration runs both, one after the
// other, so that both see the same machine.
//
// The clock of each run covers the whole job: submission, deployment,
// the records, and the end. It reports each throughput, the overhead
// (how much lower the checkpointed throughput is, in %), and the median
// checkpointDuration of the coordinator's "Completed checkpoint" lines
// (step k6: from the trigger to the last acknowledgement).
//
//	go test ./runtime/streaming/tasks -run '^$' -bench CheckpointOverhead -benchtime=5x
func BenchmarkCheckpointOverhead(b *testing.B) {
	unchecked := startBenchmarkCluster(b, 0)
	checkpointed := startBenchmarkCluster(b, 100*time.Millisecond)

	var without, with time.Duration
	b.ResetTimer()
	for range b.N {
		without += unchecked.runKeyedExchange(b)
		with += checkpointed.runKeyedExchange(b)
	}
	b.StopTimer()

	perSecond := func(d time.Duration) float64 { return float64(b.N*checkpointOverheadRecords) / d.Seconds() }
	b.ReportMetric(perSecond(without), "records/s-without")
	b.ReportMetric(perSecond(with), "records/s-checkpointed")
	b.ReportMetric(100*(1-perSecond(with)/perSecond(without)), "overhead-%")
	durations := completedCheckpointDurations(checkpointed.logs.String())
	if len(durations) == 0 {
		b.Fatal("no checkpoint completed")
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2]), "checkpoint-median-ms")
	b.ReportMetric(float64(len(durations))/float64(b.N), "checkpoints/run")
}

// benchmarkCluster is a MiniCluster of one TaskManager with two slots.
type benchmarkCluster struct {
	*minicluster.MiniCluster
	logs *logbuf.Buffer
}

// startBenchmarkCluster starts a cluster that checkpoints every interval
// (never, for 0) and closes it when the benchmark ends.
func startBenchmarkCluster(b *testing.B, interval time.Duration) *benchmarkCluster {
	b.Helper()
	cfg := checkpoint.CheckpointCoordinatorConfiguration{}
	if interval > 0 {
		cfg = checkpoint.DefaultCheckpointCoordinatorConfiguration()
		cfg.Interval = interval
	}
	c := &benchmarkCluster{logs: &logbuf.Buffer{}}
	cluster, err := minicluster.New(minicluster.Config{
		NumTaskManagers:        1,
		NumSlotsPerTaskManager: 2,
		WorkingDir:             b.TempDir(),
		RequirementCheckDelay:  time.Microsecond,
		Checkpointing:          cfg,
		Logger:                 slog.New(slog.NewTextHandler(c.logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := cluster.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := cluster.Close(); err != nil {
			b.Error(err)
		}
	})
	c.MiniCluster = cluster
	return c
}

// runKeyedExchange runs the keyed exchange over
// checkpointOverheadRecords records, checks that every record arrived,
// and returns how long the job took.
func (c *benchmarkCluster) runKeyedExchange(b *testing.B) time.Duration {
	resetReceived()
	jg := planJobGraph(b, keyedExchangeProgram, []string{strconv.Itoa(checkpointOverheadRecords)}, 2)
	if err := c.UploadJar(jg, jarBytes(b, keyedExchangeProgram, nil)); err != nil {
		b.Fatal(err)
	}
	started := time.Now()
	jobID, err := c.SubmitJob(context.Background(), jg)
	if err != nil {
		b.Fatal(err)
	}
	result, err := c.RequestJobResult(context.Background(), jobID)
	took := time.Since(started)
	if err != nil || result.JobStatus != api.JobFinished {
		b.Fatalf("the job ended %v: %v %s", result.JobStatus, err, result.FailureCause)
	}
	if got := totalReceived(); got != checkpointOverheadRecords {
		b.Fatalf("the sinks received %d records, want %d", got, checkpointOverheadRecords)
	}
	return took
}

var checkpointDurationPattern = regexp.MustCompile(`Completed checkpoint \d+ for job \S+ \(\d+ bytes, checkpointDuration=(\d+) ms`)

// completedCheckpointDurations reads the checkpointDuration of every
// "Completed checkpoint" line in logs, in ms.
func completedCheckpointDurations(logs string) []int {
	var durations []int
	for _, m := range checkpointDurationPattern.FindAllStringSubmatch(logs, -1) {
		d, err := strconv.Atoi(m[1])
		if err == nil {
			durations = append(durations, d)
		}
	}
	return durations
}
