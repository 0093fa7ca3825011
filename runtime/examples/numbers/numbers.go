package numbers

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"flinklab/runtime/jobgraph"
	"flinklab/runtime/network"
	"flinklab/runtime/taskmanager"
)

// The invokable class names of the job's three vertices.
const (
	SourceClass  = "flinklab.examples.numbers.NumberSource"
	SquareClass  = "flinklab.examples.numbers.Square"
	CollectClass = "flinklab.examples.numbers.CollectSink"
)

// Config describes one numbers job.
type Config struct {
	Count       int  // the source emits 1…Count
	Parallelism int  // of every vertex
	Unbounded   bool // the source never ends
	// Collector receives the sink's output; required.
	Collector *Collector
}

// JobGraph builds the job.
func JobGraph(cfg Config) *jobgraph.JobGraph {
	g := jobgraph.New("numbers")
	source := jobgraph.NewJobVertex("Source: numbers", SourceClass, cfg.Parallelism)
	source.Configuration = map[string]string{"count": strconv.Itoa(cfg.Count), "unbounded": strconv.FormatBool(cfg.Unbounded)}
	square := jobgraph.NewJobVertex("Map: square", SquareClass, cfg.Parallelism)
	collect := jobgraph.NewJobVertex("Sink: collect", CollectClass, cfg.Parallelism)
	collect.Configuration = map[string]string{"collector": cfg.Collector.id}
	for _, v := range []*jobgraph.JobVertex{source, square, collect} {
		v.SlotSharingGroup = "default"
		g.AddVertex(v)
	}
	square.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded).ShipStrategyName = "HASH"
	collect.ConnectNewDataSetAsInput(square, jobgraph.Pointwise, jobgraph.PipelinedBounded).ShipStrategyName = "FORWARD"
	return g
}

// Jar returns a minimal job jar for the job: a zip with a manifest naming
// the program. The TaskExecutors fetch it at deployment (step m10).
func Jar() []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("META-INF/MANIFEST.MF")
	_, _ = io.WriteString(f, "Manifest-Version: 1.0\r\nProgram-Class: numbers\r\n\r\n")
	_ = w.Close()
	return buf.Bytes()
}

// Collector gathers what the sink subtasks receive. Collectors are found
// by ID through a process-wide registry, as Flink tests find their
// collecting sinks through static fields.
type Collector struct {
	id     string
	mu     sync.Mutex
	values []int64
}

var (
	collectorsMu sync.Mutex
	collectors   = map[string]*Collector{}
	collectorSeq int
)

// NewCollector returns a registered, empty collector.
func NewCollector() *Collector {
	collectorsMu.Lock()
	defer collectorsMu.Unlock()
	collectorSeq++
	c := &Collector{id: "collector-" + strconv.Itoa(collectorSeq)}
	collectors[c.id] = c
	return c
}

// Close unregisters the collector; sinks that look it up later fail.
func (c *Collector) Close() {
	collectorsMu.Lock()
	defer collectorsMu.Unlock()
	delete(collectors, c.id)
}

// Values returns what was collected, sorted.
func (c *Collector) Values() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.values))
}

// Len returns how many values were collected.
func (c *Collector) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.values)
}

func (c *Collector) add(v int64) {
	c.mu.Lock()
	c.values = append(c.values, v)
	c.mu.Unlock()
}

func init() {
	taskmanager.RegisterInvokable(SourceClass, newSource)
	taskmanager.RegisterInvokable(SquareClass, func(env *taskmanager.Environment) (taskmanager.Invokable, error) {
		return &square{env: env}, nil
	})
	taskmanager.RegisterInvokable(CollectClass, newCollect)
}

func encode(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func decode(record []byte) (int64, error) {
	if len(record) != 8 {
		return 0, fmt.Errorf("a number record has 8 bytes, got %d", len(record))
	}
	return int64(binary.BigEndian.Uint64(record)), nil
}

type source struct {
	env       *taskmanager.Environment
	count     int
	unbounded bool
}

func newSource(env *taskmanager.Environment) (taskmanager.Invokable, error) {
	count, err := strconv.Atoi(env.TaskInfo.TaskConfiguration["count"])
	if err != nil {
		return nil, fmt.Errorf("NumberSource needs a count: %w", err)
	}
	return &source{env: env, count: count, unbounded: env.TaskInfo.TaskConfiguration["unbounded"] == "true"}, nil
}

func (s *source) Restore(context.Context) error { return nil }

// UnboundedInterval is how often an unbounded source emits a number.
const UnboundedInterval = 10 * time.Millisecond

// Invoke emits this subtask's share of 1…count, each number to the
// subpartition n mod p. Unbounded, it keeps counting, one number per
// UnboundedInterval, until it is cancelled.
func (s *source) Invoke(ctx context.Context) error {
	out := s.env.Writers[0]
	p, subtask := s.env.TaskInfo.NumberOfSubtasks, s.env.SubtaskIndex
	var tick <-chan time.Time
	if s.unbounded {
		ticker := time.NewTicker(UnboundedInterval)
		defer ticker.Stop()
		tick = ticker.C
	}
	for n := int64(subtask + 1); s.unbounded || n <= int64(s.count); n += int64(p) {
		if err := out.EmitRecord(ctx, encode(n), int(n%int64(out.NumberOfSubpartitions()))); err != nil {
			return err
		}
		if s.unbounded {
			if err := out.Flush(ctx); err != nil {
				return err
			}
			select {
			case <-tick:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

type square struct{ env *taskmanager.Environment }

func (m *square) Restore(context.Context) error { return nil }

func (m *square) Invoke(ctx context.Context) error {
	out := m.env.Writers[0]
	return forEachNumber(ctx, m.env.Inputs[0], func(n int64) error {
		return out.EmitRecord(ctx, encode(n*n), 0)
	})
}

// forEachNumber reads numbers from an input gate until its end.
func forEachNumber(ctx context.Context, in *network.InputGate, handle func(int64) error) error {
	for {
		record, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		n, err := decode(record)
		if err != nil {
			return err
		}
		if err := handle(n); err != nil {
			return err
		}
	}
}

type collect struct {
	env       *taskmanager.Environment
	collector *Collector
}

func newCollect(env *taskmanager.Environment) (taskmanager.Invokable, error) {
	id := env.TaskInfo.TaskConfiguration["collector"]
	collectorsMu.Lock()
	c, ok := collectors[id]
	collectorsMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no collector %q", id)
	}
	return &collect{env: env, collector: c}, nil
}

func (c *collect) Restore(context.Context) error { return nil }

func (c *collect) Invoke(ctx context.Context) error {
	return forEachNumber(ctx, c.env.Inputs[0], func(n int64) error {
		c.collector.add(n)
		return nil
	})
}
