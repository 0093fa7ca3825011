package tasks

import (
	"context"
	"strconv"
	"testing"

	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
)

// The benchmark programs. Their first argument is the number of records.
const (
	chainedMapFilterProgram = "tasks-bench.chained-map-filter"
	keyedExchangeProgram    = "tasks-bench.keyed-exchange"
)

func init() {
	streaming.RegisterProgram(chainedMapFilterProgram, chainedMapFilterMain)
	streaming.RegisterProgram(keyedExchangeProgram, keyedExchangeMain)
}

// benchmarkKeys is how many keys the keyed exchange spreads its records over.
const benchmarkKeys = 1024

// received counts what the benchmark sinks get, per key. Each key is
// owned by one consumer subtask, and the counters are padded to a cache
// line each, so subtasks neither race nor share lines.
var received [benchmarkKeys]struct {
	n int64
	_ [56]byte
}

func resetReceived() {
	for i := range received {
		received[i].n = 0
	}
}

func totalReceived() int64 {
	var total int64
	for i := range received {
		total += received[i].n
	}
	return total
}

func recordCount(args []string) (int64, error) { return strconv.ParseInt(args[0], 10, 64) }

// chained-map-filter: sequence 1…n → Map(x*2) → Filter(keep all) →
// sink, one chain, one subtask.
func chainedMapFilterMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	n, err := recordCount(args)
	if err != nil {
		return err
	}
	doubled := streaming.Map(env.GenerateSequence(1, n), func(x int64) int64 { return 2 * x })
	even := doubled.Filter(func(x int64) bool { return x%2 == 0 })
	even.AddSink(func(x int64) error {
		received[0].n++
		return nil
	})
	return env.Execute("chained map filter")
}

// keyed-exchange: sequence 1…n at parallelism 2 → KeyBy(x % 1024) → sink
// at parallelism 2: every record is serialized, partitioned by key group
// and read back from another task.
func keyedExchangeMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	n, err := recordCount(args)
	if err != nil {
		return err
	}
	keyed := streaming.KeyBy(env.GenerateSequence(1, n), func(x int64) int64 { return x % benchmarkKeys })
	keyed.AddSink(func(x int64) error {
		received[x%benchmarkKeys].n++
		return nil
	})
	return env.Execute("keyed exchange")
}

// BenchmarkChainedMapFilter pushes b.N records through source → map →
// filter → sink inside one task: function calls, no serialization, no
// network. Target: 10 M records/s on one core.
//
//	go test -run '^$' -bench ChainedMapFilter -benchmem -cpu 1 ./runtime/streaming/tasks/
func BenchmarkChainedMapFilter(b *testing.B) {
	benchmarkJob(b, chainedMapFilterProgram, 1)
}

// BenchmarkKeyedExchange sends b.N records from two source subtasks to
// two sink subtasks through a HASH exchange: serialization, key groups,
// real ResultPartitions and InputGates. Target: 2 M records/s.
//
//	go test -run '^$' -bench KeyedExchange -benchmem ./runtime/streaming/tasks/
func BenchmarkKeyedExchange(b *testing.B) {
	benchmarkJob(b, keyedExchangeProgram, 2)
}

func benchmarkJob(b *testing.B, program string, parallelism int) {
	resetReceived()
	args := []string{strconv.Itoa(b.N)}
	jg := planJobGraph(b, program, args, parallelism)
	job := deployLocally(b, jg, writeJar(b, program, nil), network.Config{})
	ctx := context.Background()

	b.ReportAllocs()
	b.ResetTimer()
	if err := job.run(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := totalReceived(); got != int64(b.N) {
		b.Fatalf("the sinks received %d records, want %d", got, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
