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

// received counts what the benchmark sinks get, per key, and keeps the
// last running sum the keyed exchange's Sum emitted for the key. Each key
// is owned by one consumer subtask, and the counters are padded to a cache
// line each, so subtasks neither race nor share lines.
var received [benchmarkKeys]struct {
	n, lastSum int64
	_          [48]byte
}

func resetReceived() {
	for i := range received {
		received[i].n, received[i].lastSum = 0, 0
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

// keyed-exchange: sequence 1…n at parallelism 2 → Map(x → (x % 1024, 1))
// → KeyBy(F0) → Sum(1) → sink at parallelism 2: every record is
// serialized, partitioned by key group, read back in another task, and
// added to its key's running sum in the keyed state backend.
func keyedExchangeMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	n, err := recordCount(args)
	if err != nil {
		return err
	}
	ones := streaming.Map(env.GenerateSequence(1, n), func(x int64) streaming.Tuple2[int64, int64] {
		return streaming.Tuple2Of(x%benchmarkKeys, int64(1))
	})
	counts := streaming.KeyBy(ones, func(t streaming.Tuple2[int64, int64]) int64 { return t.F0 }).Sum(1)
	counts.AddSink(func(t streaming.Tuple2[int64, int64]) error {
		received[t.F0].n++
		received[t.F0].lastSum = t.F1
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
// two keyed Sum subtasks through a HASH exchange: serialization, key
// groups, real ResultPartitions and InputGates, and a state lookup and
// update per record. Target: 2 M records/s.
//
//	go test -run '^$' -bench KeyedExchange -benchmem ./runtime/streaming/tasks/
func BenchmarkKeyedExchange(b *testing.B) {
	benchmarkJob(b, keyedExchangeProgram, 2)
	// The keyed state is right: each key's running sum counts its records.
	for key := range received {
		if got, want := received[key].lastSum, received[key].n; got != want {
			b.Fatalf("key %d: the last sum is %d, want %d", key, got, want)
		}
	}
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
