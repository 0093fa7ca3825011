package tasks

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"flinklab/runtime/streaming"
)

// The programs of these tests. Like every program they register by name
// and are planned again by each task, so what they collect into must be a
// package-level variable (see streaming.DataStream.CollectAsync).
const (
	wordCountProgram       = "tasks-test.wordcount"
	chainProgram           = "tasks-test.chain"
	keyedSumProgram        = "tasks-test.keyed-sum"
	printProgram           = "tasks-test.print"
	missingResourceProgram = "tasks-test.missing-resource"
	generatorProgram       = "tasks-test.generator"
	failingProgram         = "tasks-test.failing"
)

func init() {
	streaming.RegisterProgram(wordCountProgram, wordCountMain)
	streaming.RegisterProgram(chainProgram, chainMain)
	streaming.RegisterProgram(keyedSumProgram, keyedSumMain)
	streaming.RegisterProgram(printProgram, printMain)
	streaming.RegisterProgram(missingResourceProgram, missingResourceMain)
	streaming.RegisterProgram(generatorProgram, generatorMain)
	streaming.RegisterProgram(failingProgram, failingMain)
}

// WordCount, shaped like Flink's example: text → FlatMap(tokenize) →
// KeyBy(word) → Sum(1) → collect. With the argument "--jar" it reads the
// jar's "hamlet.txt"; otherwise its arguments are the lines.
var wordCounts streaming.CollectSink[streaming.Tuple2[string, int]]

var nonWord = regexp.MustCompile(`\W+`)

// tokenize splits a line as Flink's WordCount does: lower-case, split on
// \W+, drop empty tokens.
func tokenize(line string) []string {
	var words []string
	for _, word := range nonWord.Split(strings.ToLower(line), -1) {
		if word != "" {
			words = append(words, word)
		}
	}
	return words
}

func wordCountMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	var text *streaming.DataStream[string]
	if len(args) == 1 && args[0] == "--jar" {
		text = env.ReadTextFile("hamlet.txt")
	} else {
		text = streaming.FromCollection(env, args)
	}
	words := streaming.FlatMap(text, func(line string, out streaming.Collector[streaming.Tuple2[string, int]]) {
		for _, word := range tokenize(line) {
			out.Collect(streaming.Tuple2Of(word, 1))
		}
	})
	counts := streaming.KeyBy(words, func(t streaming.Tuple2[string, int]) string { return t.F0 }).Sum(1)
	counts.CollectAsync(&wordCounts)
	return env.Execute("WordCount")
}

// chain: elements → Map → Filter → Map → collect, one chain. The middle
// record type holds a func, which no serializer accepts: the program runs
// only if records never leave the chain. Every call is logged.
var (
	chainResults streaming.CollectSink[string]
	chainCallsMu sync.Mutex
	chainCalls   []string
)

type unserializable struct {
	N    int
	Show func(int) string
}

func logChainCall(format string, args ...any) {
	chainCallsMu.Lock()
	defer chainCallsMu.Unlock()
	chainCalls = append(chainCalls, fmt.Sprintf(format, args...))
}

func chainMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	var numbers []int
	for _, arg := range args {
		n, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		numbers = append(numbers, n)
	}
	wrapped := streaming.Map(streaming.FromCollection(env, numbers), func(n int) unserializable {
		logChainCall("map1(%d)", n)
		return unserializable{N: n, Show: strconv.Itoa}
	})
	odd := wrapped.Filter(func(u unserializable) bool {
		logChainCall("filter(%d)", u.N)
		return u.N%2 == 1
	})
	shown := streaming.Map(odd, func(u unserializable) string {
		logChainCall("map2(%d)", u.N)
		return "#" + u.Show(u.N)
	})
	shown.CollectAsync(&chainResults)
	return env.Execute("chain")
}

// keyed-sum: (key, value) pairs "k=v" → KeyBy(key) → Sum(1) → collect.
var keyedSums streaming.CollectSink[streaming.Tuple2[string, int]]

func keyedSumMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	var pairs []streaming.Tuple2[string, int]
	for _, arg := range args {
		key, value, _ := strings.Cut(arg, "=")
		n, err := strconv.Atoi(value)
		if err != nil {
			return err
		}
		pairs = append(pairs, streaming.Tuple2Of(key, n))
	}
	source := streaming.FromCollection(env, pairs).Name("pairs")
	streaming.KeyBy(source, func(t streaming.Tuple2[string, int]) string { return t.F0 }).Sum(1).CollectAsync(&keyedSums)
	return env.Execute("keyed sum")
}

// print: words → KeyBy(word) → Print, so the printing subtask of a word
// is the owner of its key group.
func printMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	streaming.KeyBy(streaming.FromCollection(env, args), func(w string) string { return w }).Print()
	return env.Execute("print")
}

// missing-resource reads a text file its jar does not hold: the source
// fails to open.
func missingResourceMain(env *streaming.StreamExecutionEnvironment, _ []string) error {
	env.ReadTextFile("no-such-file.txt").Print()
	return env.Execute("missing resource")
}

// generator: FromGenerator(i → i) with args [count, recordsPerSecond] →
// KeyBy(i % 4) → Sum → collect: a keyed running sum.
var generated streaming.CollectSink[int64]

func generatorMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	count, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		return err
	}
	rate, err := strconv.ParseFloat(args[1], 64)
	if err != nil {
		return err
	}
	numbers := streaming.FromGenerator(env, func(i int64) int64 { return i }, count, rate)
	streaming.KeyBy(numbers, func(i int64) int64 { return i % 4 }).Sum(0).CollectAsync(&generated)
	return env.Execute("generator")
}

// failing: 1, 2, 3 → Map → sink, where the record 2 makes the map panic
// (argument "panic") or the sink return an error (argument "error").
func failingMain(env *streaming.StreamExecutionEnvironment, args []string) error {
	mode := args[0]
	mapped := streaming.Map(streaming.FromElements(env, 1, 2, 3), func(n int) int {
		if mode == "panic" && n == 2 {
			panic("map cannot handle 2")
		}
		return n
	})
	mapped.AddSink(func(n int) error {
		if mode == "error" && n == 2 {
			return errors.New("sink refused 2")
		}
		return nil
	})
	return env.Execute("failing")
}
