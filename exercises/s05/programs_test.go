package s05_test

import (
	"fmt"

	"flinklab/runtime/streaming"
)

// The three programs of the exercise, as its README shows them. None is
// run: each is planned, and its slots are placed on the README's cluster.
var programs = []struct {
	name  string
	build func(env *streaming.StreamExecutionEnvironment) error
}{
	{"report", report},
	{"split", split},
	{"heavy", heavy},
}

// report counts events per key: one slot sharing group, no resources.
func report(env *streaming.StreamExecutionEnvironment) error {
	env.SetParallelism(3)
	events := env.GenerateSequence(1, 1000).Name("events")
	perKey := streaming.KeyBy(events, key).Reduce(add).Name("per-key")
	perKey.Print().Name("report")
	return nil
}

// split scores events in a slot sharing group with resources of its own.
func split(env *streaming.StreamExecutionEnvironment) error {
	scoring, err := streaming.NewSlotSharingGroupBuilder("scoring").
		SetCPUCores(0.5).SetTaskHeapMemoryMB(100).SetManagedMemoryMB(100).Build()
	if err != nil {
		return err
	}
	env.SetParallelism(2)
	events := env.GenerateSequence(1, 1000).Name("events")
	parsed := streaming.Map(events, parse).Name("parse")
	scored := streaming.KeyBy(parsed, key).Reduce(add).Name("score").SetSlotSharingGroup(scoring).SetParallelism(3)
	scored.Print().Name("out")
	return nil
}

// heavy keeps a large state in a slot sharing group that asks for much
// managed memory.
func heavy(env *streaming.StreamExecutionEnvironment) error {
	state, err := streaming.NewSlotSharingGroupBuilder("state").
		SetCPUCores(0.5).SetTaskHeapMemoryMB(64).SetManagedMemoryMB(400).Build()
	if err != nil {
		return err
	}
	env.SetParallelism(2)
	events := env.GenerateSequence(1, 1000).Name("events")
	parsed := streaming.Map(events, parse).Name("parse")
	totals := streaming.KeyBy(parsed, key).Reduce(add).Name("totals").SetSlotSharingGroup(state)
	streaming.Map(totals, format).Name("format").SlotSharingGroup("default").Print().Name("out")
	return nil
}

func key(n int64) int64     { return n % 16 }
func add(a, b int64) int64  { return a + b }
func parse(n int64) int64   { return n * 3 }
func format(n int64) string { return fmt.Sprintf("total=%d", n) }
