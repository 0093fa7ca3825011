package g05_test

import (
	"fmt"

	"flinklab/runtime/streaming"
)

// The three programs of the exercise, as its README shows them. Each
// builds its job on env and returns its name; none is run.
var programs = []struct {
	name  string
	build func(env *streaming.StreamExecutionEnvironment)
}{
	{"alerts", alerts},
	{"enrich", enrich},
	{"merge", merge},
}

// alerts keeps the hot readings and sums them per sensor.
func alerts(env *streaming.StreamExecutionEnvironment) {
	env.SetParallelism(4)
	readings := env.GenerateSequence(1, 1000).Name("readings")
	parsed := streaming.Map(readings, celsius).Name("parse")
	hot := parsed.Filter(aboveForty).Name("hot")
	perSensor := streaming.KeyBy(hot, sensor).Reduce(add).Name("per-sensor")
	perSensor.Print().Name("alerts")
}

// enrich reads events with one subtask and scores them in a slot sharing
// group of their own.
func enrich(env *streaming.StreamExecutionEnvironment) {
	env.SetParallelism(2)
	events := env.GenerateSequence(1, 1000).Name("events").SetParallelism(1)
	enriched := streaming.Map(events, celsius).Name("enrich")
	scored := streaming.Map(enriched, double).Name("score").SlotSharingGroup("scoring").SetParallelism(4)
	scored.Print().Name("out")
}

// merge reads two streams as one and formats them.
func merge(env *streaming.StreamExecutionEnvironment) {
	env.SetParallelism(3)
	clicks := env.GenerateSequence(1, 100).Name("clicks")
	views := env.GenerateSequence(1, 100).Name("views").SetParallelism(2)
	labelled := streaming.Map(clicks.Union(views.Rescale()), label).Name("label")
	kept := labelled.Filter(nonEmpty).Name("drop-empty").StartNewChain()
	formatted := streaming.Map(kept, upper).Name("format")
	formatted.Print().Name("out").DisableChaining()
}

func celsius(n int64) int64   { return n % 60 }
func aboveForty(c int64) bool { return c > 40 }
func sensor(c int64) int64    { return c % 8 }
func add(a, b int64) int64    { return a + b }
func double(n int64) int64    { return 2 * n }
func label(n int64) string    { return fmt.Sprintf("event-%d", n) }
func nonEmpty(s string) bool  { return s != "" }
func upper(s string) string   { return "[" + s + "]" }
