package wordcount

import (
	"bytes"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"flinklab/runtime/client"
	"flinklab/runtime/streaming"
)

// ProgramClass is the name the program registers under and the
// Program-Class of its job jar (Flink: the entry class
// org.apache.flink.streaming.examples.wordcount.WordCount).
const ProgramClass = "wordcount"

// JobName is the name Execute gives the job, as in Flink's example.
const JobName = "WordCount"

// TextResource is the name of the bundled text inside the job jar, and the
// default of --input.
const TextResource = "wordcount/counting-house.txt"

// The values of --output.
const (
	OutputPrint   = "print"   // print every running count to standard output (the default)
	OutputCollect = "collect" // append every running count to Results
)

// text is "The Counting House on Lantern Street", an original story
// written for flinklab and dedicated to the public domain (CC0 1.0).
//
//go:embed counting-house.txt
var text string

// Results is the sink of --output collect. It is package-level because the
// runtime plans the program again in every task (streaming.PlanProgram) and
// must find the same sink each time. In STREAMING it receives a running
// count after every word, so a word that occurs n times arrives n times,
// as (w,1) … (w,n); FinalCounts keeps the last. In BATCH it receives (w,n)
// once per word. Clear it before running the job again.
var Results streaming.CollectSink[streaming.Tuple2[string, int]]

func init() { streaming.RegisterProgram(ProgramClass, Program) }

// Program is WordCount's main: it reads the text resource line by line,
// splits each line into words, and counts every word:
//
//	Source: file-input → tokenizer ─HASH(word)─► counter → Sink: print-sink
//
// Its arguments, in Flink's "--key value" style:
//
//	--input <resource>        a text resource of the job jar (default TextResource)
//	--output <sink>           print (default) or collect (into Results)
//	--execution-mode <mode>   STREAMING (default), BATCH or AUTOMATIC, in any case
func Program(env *streaming.StreamExecutionEnvironment, args []string) error {
	params, err := parseArgs(args)
	if err != nil {
		return err
	}

	// The runtime mode, as Flink's example sets it from its arguments. In
	// BATCH the counter emits one final count per word, and the exchange
	// between the two tasks is BLOCKING.
	env.SetRuntimeMode(params.executionMode)

	// The source: one record per line of the resource. The task reads it
	// from the jar it fetched from the BlobServer (step m10).
	lines := env.ReadTextFile(params.input).Name("file-input")

	// Split every line into (word, 1). Chained to the source: same
	// parallelism, FORWARD edge.
	words := streaming.FlatMap(lines, tokenizer).Name("tokenizer")

	// KeyBy sends every occurrence of a word to the one subtask that owns
	// the word's key group; Sum(1) adds up F1 per word and emits the
	// running count after each record (in BATCH, the final count once).
	counts := streaming.KeyBy(words, word).Sum(1).Name("counter")

	switch params.output {
	case OutputCollect:
		counts.CollectAsync(&Results).Name("collect-sink")
	default:
		counts.Print().Name("print-sink")
	}
	return env.Execute(JobName)
}

// params are the program's parsed arguments.
type params struct {
	input         string
	output        string
	executionMode streaming.RuntimeExecutionMode
}

// parseArgs reads --input, --output and --execution-mode. Unknown flags,
// stray arguments, unknown sinks and unknown modes are errors, which fail
// the job at submission.
func parseArgs(args []string) (params, error) {
	flags := flag.NewFlagSet(ProgramClass, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	var p params
	var executionMode string
	flags.StringVar(&p.input, "input", TextResource, "a text resource of the job jar")
	flags.StringVar(&p.output, "output", OutputPrint, "print or collect")
	flags.StringVar(&executionMode, "execution-mode", streaming.Streaming.String(), "STREAMING, BATCH or AUTOMATIC")
	if err := flags.Parse(args); err != nil {
		return params{}, fmt.Errorf("wordcount: %w", err)
	}
	switch {
	case flags.NArg() > 0:
		return params{}, fmt.Errorf("wordcount: unexpected argument %q", flags.Arg(0))
	case p.output != OutputPrint && p.output != OutputCollect:
		return params{}, fmt.Errorf("wordcount: --output %q: want %q or %q", p.output, OutputPrint, OutputCollect)
	}
	mode, err := streaming.ParseRuntimeExecutionMode(executionMode)
	if err != nil {
		return params{}, fmt.Errorf("wordcount: --execution-mode %q: %w", executionMode, err)
	}
	p.executionMode = mode
	return p, nil
}

// nonWord matches what Flink's tokenizer splits on: `\W+`, one or more
// characters that are not [0-9A-Za-z_]. Go's \W, like Java's, is ASCII.
var nonWord = regexp.MustCompile(`\W+`)

// Tokenize splits a line into words exactly as Flink's WordCount
// Tokenizer does: value.toLowerCase().split("\\W+"), dropping empty
// tokens. So "It's the baker's dozen!" gives it, s, the, baker, s, dozen;
// digits and underscores are word characters ("tide_table", "12"), and
// every other character, including letters outside ASCII such as "é",
// separates words.
func Tokenize(line string) []string {
	var words []string
	for _, token := range nonWord.Split(strings.ToLower(line), -1) {
		if token != "" {
			words = append(words, token)
		}
	}
	return words
}

// tokenizer is the FlatMap function: Flink's WordCount.Tokenizer, which
// emits (word, 1) for every word of the line.
func tokenizer(line string, out streaming.Collector[streaming.Tuple2[string, int]]) {
	for _, w := range Tokenize(line) {
		out.Collect(streaming.Tuple2Of(w, 1))
	}
}

// word is the key selector: Flink's `value -> value.f0`.
func word(count streaming.Tuple2[string, int]) string { return count.F0 }

// Text returns the bundled text: "The Counting House on Lantern Street",
// an original story dedicated to the public domain (CC0 1.0).
func Text() string { return text }

// Jar builds the job jar: a manifest naming ProgramClass and the text as
// TextResource. The same bytes every time, so the same BLOB key.
func Jar() ([]byte, error) {
	var jar bytes.Buffer
	if err := client.WriteJar(&jar, ProgramClass, map[string][]byte{TextResource: []byte(text)}); err != nil {
		return nil, fmt.Errorf("wordcount jar: %w", err)
	}
	return jar.Bytes(), nil
}

// FinalCounts turns the running counts the sink received into the count
// of each word: the largest count seen for it. Counts only grow, and the
// records of one word all come from one subtask, in order. The one count
// per word of a BATCH run is its own final count.
func FinalCounts(records []streaming.Tuple2[string, int]) map[string]int {
	counts := make(map[string]int)
	for _, r := range records {
		counts[r.F0] = max(counts[r.F0], r.F1)
	}
	return counts
}

// Top returns the n most frequent words, most frequent first; words with
// equal counts are in alphabetical order, so the answer is deterministic.
// It returns fewer when there are fewer words, and none for n <= 0.
func Top(counts map[string]int, n int) []streaming.Tuple2[string, int] {
	all := make([]streaming.Tuple2[string, int], 0, len(counts))
	for w, c := range counts {
		all = append(all, streaming.Tuple2Of(w, c))
	}
	slices.SortFunc(all, func(a, b streaming.Tuple2[string, int]) int {
		if a.F1 != b.F1 {
			return b.F1 - a.F1
		}
		return strings.Compare(a.F0, b.F0)
	})
	return all[:min(max(n, 0), len(all))]
}
