package network

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"flinklab/runtime/api"
)

// BenchmarkExchange measures one producer goroutine sending 8-byte records
// to one consumer goroutine through a partition and a gate, with default
// buffers. Run it with
//
//	go test -run '^$' -bench Exchange -benchmem ./runtime/network/
func BenchmarkExchange(b *testing.B) {
	benchmarkAllToAll(b, 1, 1)
}

// BenchmarkExchangeAllToAll is a keyed exchange between two producers and
// two consumers: every producer spreads its records over both consumers.
// b.N is the total number of records.
func BenchmarkExchangeAllToAll(b *testing.B) {
	benchmarkAllToAll(b, 2, 2)
}

func benchmarkAllToAll(b *testing.B, producers, consumers int) {
	ctx := context.Background()
	env := newEnvironment(b, Config{})
	ids := make([]api.ResultPartitionID, producers)
	partitions := make([]*ResultPartition, producers)
	for p := range producers {
		ids[p] = newPartitionID(p)
		partition, err := env.CreateResultPartition(ids[p], consumers)
		if err != nil {
			b.Fatal(err)
		}
		partitions[p] = partition
	}
	gates := make([]*InputGate, consumers)
	for c := range consumers {
		gates[c] = env.CreateInputGate(gateDescriptor(c, ids...))
		defer gates[c].Close()
	}
	record := make([]byte, 8)

	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	errs := make(chan error, producers+consumers)
	for p, partition := range partitions {
		count := b.N / producers
		if p < b.N%producers {
			count++
		}
		wg.Go(func() {
			for i := range count {
				if err := partition.EmitRecord(ctx, record, i%consumers); err != nil {
					errs <- err
					return
				}
			}
			if err := partition.Finish(ctx); err != nil {
				errs <- err
			}
		})
	}
	received := make([]int, consumers)
	for c, gate := range gates {
		wg.Go(func() {
			// Count in a local variable: consumers incrementing neighbouring
			// elements of received on every record would share a cache line,
			// and the benchmark would measure that instead of the exchange.
			n := 0
			defer func() { received[c] = n }()
			for {
				_, err := gate.Next(ctx)
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				n++
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	total := 0
	for _, n := range received {
		total += n
	}
	if total != b.N {
		b.Fatalf("received %d records, want %d", total, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRemoteExchange is BenchmarkExchange between two processes: the
// producer's partition is served by a PartitionRequestServer and the
// consumer's gate reads it over a TCP connection on the loopback
// interface, with credit-based flow control, default buffers and 8-byte
// records. Run it with
//
//	go test -run '^$' -bench RemoteExchange -benchmem ./runtime/network/
func BenchmarkRemoteExchange(b *testing.B) {
	ctx := context.Background()
	producerProcess, consumerProcess := newProcess(b, Config{}), newProcess(b, Config{})
	id := newPartitionID(0)
	partition, err := producerProcess.env.CreateResultPartition(id, 1)
	if err != nil {
		b.Fatal(err)
	}
	gate := consumerProcess.env.CreateInputGate(remoteGateDescriptor(0, producerProcess.server.Address(), id))
	defer gate.Close()
	if err := gate.RequestPartitions(ctx); err != nil {
		b.Fatal(err)
	}
	record := make([]byte, 8)

	b.ReportAllocs()
	b.ResetTimer()
	produced := make(chan error, 1)
	go func() {
		for range b.N {
			if err := partition.EmitRecord(ctx, record, 0); err != nil {
				produced <- err
				return
			}
		}
		produced <- partition.Finish(ctx)
	}()
	received := 0
	for {
		_, err := gate.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		received++
	}
	b.StopTimer()
	if err := <-produced; err != nil {
		b.Fatal(err)
	}
	if received != b.N {
		b.Fatalf("received %d records, want %d", received, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
