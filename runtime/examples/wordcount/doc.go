// Package wordcount is flinklab's WordCount: the job every Flink newcomer
// runs first, written with the DataStream API of runtime/streaming. It
// reads a text, splits every line into words and counts each word:
//
//	Source: file-input → tokenizer ─HASH(word)─► counter → Sink: print-sink
//
// It mirrors org.apache.flink.streaming.examples.wordcount.WordCount,
// operator by operator and with the same operator names:
//
//	Flink's WordCount                                  here
//	env.fromSource(FileSource…, "file-input")          env.ReadTextFile(TextResource).Name("file-input")
//	  (or fromData(WordCountData.WORDS), Hamlet)         (the bundled story, see below)
//	.flatMap(new Tokenizer()).name("tokenizer")        streaming.FlatMap(lines, tokenizer).Name("tokenizer")
//	.keyBy(value -> value.f0)                          streaming.KeyBy(words, word)
//	.sum(1).name("counter")                            .Sum(1).Name("counter")
//	.print().name("print-sink")                        .Print().Name("print-sink")
//	env.execute("WordCount")                           env.Execute(JobName)
//
// # The tokenizer
//
// Flink's Tokenizer runs value.toLowerCase().split("\\W+") and drops empty
// tokens; Tokenize does the same with strings.ToLower and regexp's `\W+`.
// In both languages \W is ASCII: a word character is a letter A–Z or a–z,
// a digit or an underscore, and anything else separates words. So
// "It's the baker's dozen!" is six words (it, s, the, baker, s, dozen),
// "tide_table" and "12" are one word each, and "café" becomes "caf".
//
// # The plan
//
// The program makes four operators and one KeyBy (transformations 1–5;
// the KeyBy becomes the HASH edge, not a node). Chaining fuses the source
// with the tokenizer and the counter with the sink, so at any parallelism
// p the JobGraph has two vertices of p subtasks each:
//
//	"Source: file-input -> tokenizer" ─ALL_TO_ALL, HASH─► "counter -> Sink: print-sink"
//
// The HASH edge sends each word to the counter subtask that owns its key
// group (streaming.AssignToKeyGroup), so each word has exactly one running
// count, whichever source subtask found it.
//
// # The text
//
// Flink's example counts lines of Hamlet (WordCountData.WORDS). Ours is an
// original story, "The Counting House on Lantern Street"
// (counting-house.txt, about 2,600 words), written for flinklab and
// dedicated to the public domain under CC0 1.0, so that it can be bundled
// and changed freely. It is about a small cluster of machines that count
// words, and two of its own words, ilse and machines, make its top ten.
// The job jar carries it as TextResource; Text returns it.
//
// # How to run it
//
// Importing the package registers the program as "wordcount" (ProgramClass).
// Jar builds the job jar; upload it to a cluster's REST endpoint and run it
// (RestClusterClient in runtime/client does both):
//
//	POST /jars/upload                multipart field "jarfile": the bytes of Jar()
//	POST /jars/{jarid}/run           {"parallelism": 4, "programArgsList": ["--output", "print"]}
//
// The arguments are Flink's "--key value" pairs:
//
//	--input <resource>          the text resource to count (default TextResource)
//	--output print              print every count, "(word,n)" (the default)
//	--output collect            append every count to Results
//	--execution-mode STREAMING  a running count after every word (the default)
//	--execution-mode BATCH      one final count per word
//	--execution-mode AUTOMATIC  BATCH, as the text is a bounded source
//
// The mode is Flink's execution.runtime-mode, and is read as Flink reads
// it: in any case ("batch" is BATCH); an unknown mode fails the job at
// submission with Flink's "Could not parse value 'bacth' for key
// 'execution.runtime-mode'." and the modes it expected.
//
// To see the plan without a cluster, plan the program as the JobManager
// does:
//
//	sg, err := streaming.PlanProgram("wordcount", []string{"--output", "collect"}, 4)
//	jg, err := sg.JobGraph()
//
// # Streaming and batch
//
// By default WordCount is a streaming job: both tasks run at once, the
// words flow through a PIPELINED_BOUNDED exchange, and the counter emits
// the running count after every word: "the" arrives as (the,1), (the,2),
// … up to its final count. With --execution-mode BATCH the plan keeps its
// two chains, but the exchange between them is BLOCKING: the counting task
// starts once the tokenizing tasks have finished (the stages run one after
// the other), and it emits one count per word at the end of its input,
// (the,245), as Flink's BatchGroupedReduceOperator does:
//
//	"Source: file-input -> tokenizer" ─ALL_TO_ALL, HASH, BLOCKING─► "counter -> Sink: print-sink"
//
// # Reading the results
//
// FinalCounts keeps the last count of each word, whichever the mode, and
// Top orders them. With --output collect on a MiniCluster, where every
// task runs in the test's process, Results holds every record; on a
// cluster of several processes each process collects its own share.
//
// # Differs from Flink
//
//   - --input names a resource inside the job jar, not a file system path,
//     and --output picks print or collect instead of a path for a FileSink.
//   - In BATCH mode the counter keeps every word in memory and emits the
//     final counts in the order the words first arrived; Flink sorts the
//     counter's input by key and emits each word's count as soon as the
//     next word begins. The results are the same.
//   - Without class loading the program is found by name: the jar's
//     Program-Class "wordcount" is the name RegisterProgram was given in
//     this package's init, so the binary that runs the cluster must import
//     this package.
package wordcount
