package ticker

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strconv"

	"flinklab/runtime/client"
	"flinklab/runtime/streaming"
)

// ProgramClass is the name the program registers under and the
// Program-Class of its job jar.
const ProgramClass = "ticker"

// JobName is the name Execute gives the job.
const JobName = "Ticker"

// DefaultRecordsPerSecond is the rate of --rate when none is given: over
// all source subtasks, slow enough to read the printed counts as they come.
const DefaultRecordsPerSecond = 10

// The values of --output.
const (
	OutputPrint   = "print"   // print every running count to standard output (the default)
	OutputCollect = "collect" // append every running count to Results
	OutputFile    = "file"    // write every running count, exactly once, into part files under --path
)

// NumSensors is how many sensors the generator reports for: sensor-1 …
// sensor-5, taking turns.
const NumSensors = 5

// Results is the sink of --output collect. It is package-level because the
// runtime plans the program again in every task (streaming.PlanProgram) and
// must find the same sink each time. Clear it before running the job again.
var Results streaming.CollectSink[streaming.Tuple2[string, int64]]

func init() { streaming.RegisterProgram(ProgramClass, Program) }

// Program is the ticker's main: a generator of sensor events, one per
// tick, keyed by sensor, with a running count per sensor:
//
//	Source: sensor-events ─HASH(sensor)─► running-count → Sink: print-sink
//
// Its arguments, in Flink's "--key value" style:
//
//	--rate <records/s>   over all source subtasks (default 10; 0: as fast as possible)
//	--count <n>          stop after n events (default: never, the job is unbounded)
//	--output <sink>      print (default), collect (into Results) or file (under --path)
//	--path <dir>         the directory of --output file's part files
func Program(env *streaming.StreamExecutionEnvironment, args []string) error {
	params, err := parseArgs(args)
	if err != nil {
		return err
	}

	// The source: event i is (Sensor(i), 1), at most rate events a second.
	events := streaming.FromGenerator(env, Event, params.count, params.rate).Name("sensor-events")

	// KeyBy sends all events of a sensor to one subtask; Reduce keeps the
	// sensor's count so far in keyed state and emits it after every event.
	counts := streaming.KeyBy(events, sensor).Reduce(addCounts).Name("running-count")

	switch params.output {
	case OutputCollect:
		counts.CollectAsync(&Results).Name("collect-sink")
	case OutputFile:
		counts.SinkToTransactionalFiles(params.path).Name("file-sink")
	default:
		counts.Print().Name("print-sink")
	}
	return env.Execute(JobName)
}

// params are the program's parsed arguments.
type params struct {
	rate   float64
	count  int64
	output string
	path   string
}

// parseArgs reads --rate, --count, --output and --path. Unknown flags, stray
// arguments and impossible values are errors, which fail the job at
// submission.
func parseArgs(args []string) (params, error) {
	flags := flag.NewFlagSet(ProgramClass, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	p := params{count: streaming.Unbounded}
	flags.Float64Var(&p.rate, "rate", DefaultRecordsPerSecond, "events per second over all subtasks; 0: as fast as possible")
	flags.Func("count", "stop after this many events (default: never)", func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("want a positive number of events, got %q", s)
		}
		p.count = n
		return nil
	})
	flags.StringVar(&p.output, "output", OutputPrint, "print, collect or file")
	flags.StringVar(&p.path, "path", "", "the directory of --output file's part files")
	if err := flags.Parse(args); err != nil {
		return params{}, fmt.Errorf("ticker: %w", err)
	}
	switch {
	case flags.NArg() > 0:
		return params{}, fmt.Errorf("ticker: unexpected argument %q", flags.Arg(0))
	case p.rate < 0:
		return params{}, fmt.Errorf("ticker: --rate %v: want 0 or more events per second", p.rate)
	case p.output != OutputPrint && p.output != OutputCollect && p.output != OutputFile:
		return params{}, fmt.Errorf("ticker: --output %q: want %q, %q or %q", p.output, OutputPrint, OutputCollect, OutputFile)
	case p.output == OutputFile && p.path == "":
		return params{}, fmt.Errorf("ticker: --output %s needs --path <dir>", OutputFile)
	case p.output != OutputFile && p.path != "":
		return params{}, fmt.Errorf("ticker: --path is for --output %s only", OutputFile)
	}
	return p, nil
}

// Event is the generator function: event index reports (sensor, 1). It
// depends on the index alone, so a restarted source produces the same
// events again.
func Event(index int64) streaming.Tuple2[string, int64] {
	return streaming.Tuple2Of(Sensor(index), int64(1))
}

// Sensor returns the sensor of event index: the sensors take turns, so
// event 0 comes from sensor-1, event 4 from sensor-5, event 5 from
// sensor-1 again.
func Sensor(index int64) string { return "sensor-" + strconv.FormatInt(index%NumSensors+1, 10) }

// sensor is the key selector.
func sensor(event streaming.Tuple2[string, int64]) string { return event.F0 }

// addCounts is the reduce function: the count so far plus the new event's.
func addCounts(count, event streaming.Tuple2[string, int64]) streaming.Tuple2[string, int64] {
	return streaming.Tuple2Of(count.F0, count.F1+event.F1)
}

// Jar builds the job jar: a manifest naming ProgramClass, and no
// resources. The same bytes every time, so the same BLOB key.
func Jar() ([]byte, error) {
	var jar bytes.Buffer
	if err := client.WriteJar(&jar, ProgramClass, nil); err != nil {
		return nil, fmt.Errorf("ticker jar: %w", err)
	}
	return jar.Bytes(), nil
}
