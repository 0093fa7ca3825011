package pipelines

import (
	"flag"
	"fmt"
	"io"
	"strconv"

	"flinklab/runtime/streaming"
)

// ProgramClass is the name the program registers under and the
// Program-Class of its job jar.
const ProgramClass = "pipelines"

// JobName is the name Execute gives the job.
const JobName = "Pipelines"

// DefaultRecordsPerSecond is the rate of --rate when none is given, over
// all source subtasks.
const DefaultRecordsPerSecond = 10

// The values of --output.
const (
	OutputPrint   = "print"   // print every result to standard output (the default)
	OutputCollect = "collect" // append every result to Results
)

// Results is the sink of --output collect, package-level because every
// task plans the program again and must find the same sink.
var Results streaming.CollectSink[int64]

func init() { streaming.RegisterProgram(ProgramClass, Program) }

// Program is the job's main: numbers, doubled, printed, p times side by
// side.
func Program(env *streaming.StreamExecutionEnvironment, args []string) error {
	params, err := parseArgs(args)
	if err != nil {
		return err
	}
	numbers := streaming.FromGenerator(env, Number, params.count, params.rate).Name("numbers")
	// Forward keeps subtask i's records in pipeline i; StartNewChain makes
	// the exchange visible as an edge of the JobGraph.
	doubled := streaming.Map(numbers.Forward(), double).Name("work").StartNewChain()
	switch params.output {
	case OutputCollect:
		doubled.CollectAsync(&Results).Name("collect-sink")
	default:
		doubled.Print().Name("print-sink")
	}
	return env.Execute(JobName)
}

// Number is the generator function: event index is the number index.
func Number(index int64) int64 { return index }

func double(n int64) int64 { return 2 * n }

type params struct {
	rate   float64
	count  int64
	output string
}

// parseArgs reads --rate, --count and --output; anything else is an error
// that fails the job at submission.
func parseArgs(args []string) (params, error) {
	flags := flag.NewFlagSet(ProgramClass, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	p := params{count: streaming.Unbounded}
	flags.Float64Var(&p.rate, "rate", DefaultRecordsPerSecond, "numbers per second over all subtasks; 0: as fast as possible")
	flags.Func("count", "stop after this many numbers (default: never)", func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("want a positive number of numbers, got %q", s)
		}
		p.count = n
		return nil
	})
	flags.StringVar(&p.output, "output", OutputPrint, "print or collect")
	if err := flags.Parse(args); err != nil {
		return params{}, fmt.Errorf("pipelines: %w", err)
	}
	switch {
	case flags.NArg() > 0:
		return params{}, fmt.Errorf("pipelines: unexpected argument %q", flags.Arg(0))
	case p.rate < 0:
		return params{}, fmt.Errorf("pipelines: --rate %v: want 0 or more numbers per second", p.rate)
	case p.output != OutputPrint && p.output != OutputCollect:
		return params{}, fmt.Errorf("pipelines: --output %q: want %q or %q", p.output, OutputPrint, OutputCollect)
	}
	return p, nil
}
