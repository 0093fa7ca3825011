package sharing

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"flinklab/runtime/streaming"
)

// ProgramClass is the name the program registers under and the
// Program-Class of its job jar.
const ProgramClass = "sharing"

// JobName is the name Execute gives the job.
const JobName = "Sharing"

// The program's slot sharing group with resources, and its co-location key.
const (
	CountingGroup   = "counting"
	CoLocationGroup = "count-and-format"
)

// The defaults of the counting group's resources, per shared slot.
const (
	DefaultCountingCPU       = 0.25
	DefaultCountingHeapMB    = 64
	DefaultCountingManagedMB = 32
)

// The values of --output.
const (
	OutputPrint   = "print"   // print every running count (the default)
	OutputCollect = "collect" // append every running count to Results
)

// Results is the sink of --output collect, package-level because the
// runtime plans the program again in every task. It receives "word=n"
// after every word, so a word that occurs n times arrives n times. Clear it
// before running the job again.
var Results streaming.CollectSink[string]

func init() { streaming.RegisterProgram(ProgramClass, Program) }

// lines is the built-in text, an original verse written for flinklab and
// dedicated to the public domain (CC0 1.0).
var lines = []string{
	"Two tasks may share a slot, and share it well,",
	"if both belong to one slot sharing group;",
	"a co-located pair will always dwell",
	"in one slot, subtask by subtask, in one loop.",
	"The count is heavy, so its group says how",
	"much heap and managed memory it needs;",
	"the format follows it, and takes its bow",
	"in the same slot, wherever the count leads.",
}

// Lines returns the built-in text the source reads, one record per line.
func Lines() []string { return slices.Clone(lines) }

// Program is the job's main (see the package doc for its graphs):
//
//	Source: lines → tokenize ─HASH(word)─► count ─FORWARD─► format → Sink: print-sink
//	└──── slot sharing group "default" ───┘ └─ slot sharing group "counting", co-located ─┘
//
// Its arguments, in Flink's "--key value" style:
//
//	--output <sink>               print (default) or collect (into Results)
//	--counting-cpu <cores>        CPU cores of each slot of "counting" (default 0.25)
//	--counting-heap-mb <MB>       task heap of each slot of "counting" (default 64)
//	--counting-managed-mb <MB>    managed memory of each slot of "counting" (default 32)
func Program(env *streaming.StreamExecutionEnvironment, args []string) error {
	params, err := parseArgs(args)
	if err != nil {
		return err
	}
	// The group "counting", with the resources each of its slots needs.
	// Task off-heap memory is left at 0.
	counting, err := streaming.NewSlotSharingGroupBuilder(CountingGroup).
		SetCPUCores(params.countingCPU).
		SetTaskHeapMemoryMB(params.countingHeapMB).
		SetManagedMemoryMB(params.countingManagedMB).
		Build()
	if err != nil {
		return fmt.Errorf("%s: %w", ProgramClass, err)
	}

	// The source and the tokenizer stay in the group "default", with no
	// resources: any slot will do.
	text := streaming.FromCollection(env, lines).Name("lines")
	words := streaming.FlatMap(text, tokenize).Name("tokenize")

	// The count runs in "counting", in the co-location group of the format.
	counts := streaming.KeyBy(words, word).Sum(1).Name("count").
		SetSlotSharingGroup(counting).
		SetCoLocationGroupKey(CoLocationGroup)

	// The format inherits "counting" from the count, starts a chain of its
	// own (the sink joins it), and is co-located with the count: subtask i
	// of format runs in the slot of subtask i of count.
	formatted := streaming.Map(counts, format).Name("format").
		StartNewChain().
		SetCoLocationGroupKey(CoLocationGroup)

	switch params.output {
	case OutputCollect:
		formatted.CollectAsync(&Results).Name("collect-sink")
	default:
		formatted.Print().Name("print-sink")
	}
	return env.Execute(JobName)
}

// params are the program's parsed arguments.
type params struct {
	output            string
	countingCPU       float64
	countingHeapMB    int
	countingManagedMB int
}

// parseArgs reads the flags. Unknown flags, stray arguments and unknown
// sinks are errors, which fail the job at submission; so are resources the
// builder refuses (Program reports those).
func parseArgs(args []string) (params, error) {
	flags := flag.NewFlagSet(ProgramClass, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	var p params
	flags.StringVar(&p.output, "output", OutputPrint, "print or collect")
	flags.Float64Var(&p.countingCPU, "counting-cpu", DefaultCountingCPU, "CPU cores of each slot of the group counting")
	flags.IntVar(&p.countingHeapMB, "counting-heap-mb", DefaultCountingHeapMB, "task heap of each slot of the group counting, in MB")
	flags.IntVar(&p.countingManagedMB, "counting-managed-mb", DefaultCountingManagedMB, "managed memory of each slot of the group counting, in MB")
	if err := flags.Parse(args); err != nil {
		return params{}, fmt.Errorf("%s: %w", ProgramClass, err)
	}
	switch {
	case flags.NArg() > 0:
		return params{}, fmt.Errorf("%s: unexpected argument %q", ProgramClass, flags.Arg(0))
	case p.output != OutputPrint && p.output != OutputCollect:
		return params{}, fmt.Errorf("%s: --output %q: want %q or %q", ProgramClass, p.output, OutputPrint, OutputCollect)
	}
	return p, nil
}

// nonWord splits words as WordCount's tokenizer does: \W+, ASCII.
var nonWord = regexp.MustCompile(`\W+`)

// Tokenize splits a line into lower-case words, as WordCount does.
func Tokenize(line string) []string {
	var words []string
	for _, token := range nonWord.Split(strings.ToLower(line), -1) {
		if token != "" {
			words = append(words, token)
		}
	}
	return words
}

// tokenize is the FlatMap function: (word, 1) for every word of a line.
func tokenize(line string, out streaming.Collector[streaming.Tuple2[string, int]]) {
	for _, w := range Tokenize(line) {
		out.Collect(streaming.Tuple2Of(w, 1))
	}
}

// word is the key selector.
func word(count streaming.Tuple2[string, int]) string { return count.F0 }

// format is the Map function: "word=n".
func format(count streaming.Tuple2[string, int]) string {
	return fmt.Sprintf("%s=%d", count.F0, count.F1)
}
