package shapes

import (
	"flag"
	"fmt"
	"io"

	"flinklab/runtime/streaming"
)

// The names the programs register under, which are also the Program-Class
// of their job jars, and the names Execute gives their jobs.
const (
	ChainsProgramClass = "chains"
	ChainsJobName      = "Chains"
	FanOutProgramClass = "fanout"
	FanOutJobName      = "Fan-out"
)

// The values of --output.
const (
	OutputPrint   = "print"   // print every record the sink gets (the default)
	OutputCollect = "collect" // append every record the sink gets to Results
)

// Count is how many numbers each program's source emits.
const Count = 100

// Results is the sink of --output collect, package-level because the
// runtime plans the program again in every task. Clear it before running a
// job again.
var Results streaming.CollectSink[string]

func init() {
	streaming.RegisterProgram(ChainsProgramClass, Chains)
	streaming.RegisterProgram(FanOutProgramClass, FanOut)
}

// Chains is the program whose chains break for every reason but the
// partitioner (see the package doc).
func Chains(env *streaming.StreamExecutionEnvironment, args []string) error {
	output, err := parseOutput(ChainsProgramClass, args)
	if err != nil {
		return err
	}
	numbers := streaming.FromGenerator(env, identity, Count, 0).Name("numbers")
	doubled := streaming.Map(numbers, double).Name("double")
	kept := doubled.Filter(multipleOf4).Name("multiples-of-4").StartNewChain()
	squared := streaming.Map(kept, square).Name("square").DisableChaining()
	labelled := streaming.Map(squared, label).Name("label").SlotSharingGroup("output")
	sink(labelled, output)
	return env.Execute(ChainsJobName)
}

// FanOut is the program whose edges are RESCALE and BROADCAST between
// operators of different parallelism, ending in a union (see the package
// doc).
func FanOut(env *streaming.StreamExecutionEnvironment, args []string) error {
	output, err := parseOutput(FanOutProgramClass, args)
	if err != nil {
		return err
	}
	readings := streaming.FromGenerator(env, identity, Count, 0).Name("readings").SetParallelism(4)
	compacted := streaming.Map(readings.Rescale(), double).Name("compact").SetParallelism(2)
	widened := streaming.Map(compacted.Rescale(), square).Name("widen").SetParallelism(4)
	late := streaming.FromGenerator(env, identity, Count, 0).Name("late-readings").SetParallelism(3)
	audited := streaming.Map(widened.Broadcast().Union(late), label).Name("audit").SetParallelism(3)
	sink(audited, output).SetParallelism(3)
	return env.Execute(FanOutJobName)
}

// sink ends a program as --output says.
func sink(labels *streaming.DataStream[string], output string) *streaming.DataStreamSink {
	if output == OutputCollect {
		return labels.CollectAsync(&Results).Name("collect-sink")
	}
	return labels.Print().Name("print-sink")
}

// parseOutput reads the one argument the programs take, --output.
func parseOutput(program string, args []string) (string, error) {
	flags := flag.NewFlagSet(program, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	output := flags.String("output", OutputPrint, "print or collect")
	if err := flags.Parse(args); err != nil {
		return "", fmt.Errorf("%s: %w", program, err)
	}
	switch {
	case flags.NArg() > 0:
		return "", fmt.Errorf("%s: unexpected argument %q", program, flags.Arg(0))
	case *output != OutputPrint && *output != OutputCollect:
		return "", fmt.Errorf("%s: --output %q: want %q or %q", program, *output, OutputPrint, OutputCollect)
	}
	return *output, nil
}

func identity(i int64) int64   { return i }
func double(n int64) int64     { return 2 * n }
func multipleOf4(n int64) bool { return n%4 == 0 }
func square(n int64) int64     { return n * n }
func label(n int64) string     { return fmt.Sprintf("n=%d", n) }
