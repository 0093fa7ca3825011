package tasks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"time"

	"flinklab/runtime/streaming"
)

// sourceOperator heads the chain of a SourceStreamTask: run emits the
// subtask's share of the source's records into the chain and returns when
// the source is exhausted (a bounded source) or ctx ends. It mirrors
// Flink's StreamSource running a SourceFunction.
//
// Every source is parallel: subtask s of p emits the records with index i
// where i % p == s, in order (see streaming.Operator).
type sourceOperator interface {
	streamOperator
	run(ctx context.Context) error
}

// cancellationCheckInterval is how many records a source emits between two
// looks at its ctx. A source whose records all stay inside the chain never
// blocks, so it must look itself; every 1024 records keeps the look cheap
// and the reaction prompt (well under a millisecond).
const cancellationCheckInterval = 1024

// subtaskShare says which records of a source one subtask emits.
type subtaskShare struct {
	subtaskIndex int
	parallelism  int
}

// collectionSource emits the elements of FromElements and FromCollection
// (Flink: FromElementsFunction).
type collectionSource struct {
	abstractUdfStreamOperator
	sourcePosition
	elements []any
	out      output
}

// run emits the subtask's elements from its position on. The position
// moves past each element before the element is emitted: a checkpoint
// taken while the element passes through the chain counts it as emitted.
func (s *collectionSource) run(ctx context.Context) error {
	done := ctx.Done()
	for n, i := 0, s.first(); i < int64(len(s.elements)); n, i = n+1, s.next {
		if n%cancellationCheckInterval == 0 && isDone(done) {
			return ctx.Err()
		}
		s.next = s.advance(i)
		if err := s.out.collect(s.elements[i]); err != nil {
			return err
		}
	}
	return nil
}

// textFileSource emits the lines of a text resource of the job jar, as
// Java's BufferedReader.readLine splits them: at "\n", "\r\n" or "\r",
// without the line breaks (Flink: the reader behind readTextFile). The
// resource is read when the operator opens, so a missing resource fails
// the task while it is INITIALIZING. The name is looked up as given, then
// inside the program's directory: ReadTextFile("counting-house.txt") of
// program "wordcount" finds "counting-house.txt" or
// "wordcount/counting-house.txt".
type textFileSource struct {
	abstractUdfStreamOperator
	sourcePosition
	resourceName string
	jar          userJar
	text         []byte
	out          output
}

func (s *textFileSource) open() error {
	text, err := s.jar.Resource(s.resourceName)
	if errors.Is(err, fs.ErrNotExist) {
		// Like a class loader's resource lookup relative to the class:
		// "counting-house.txt" of program "wordcount" may be
		// "wordcount/counting-house.txt".
		text, err = s.jar.Resource(path.Join(s.jar.ProgramClass(), s.resourceName))
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("the job jar holds neither %q nor %q: %w", s.resourceName,
				path.Join(s.jar.ProgramClass(), s.resourceName), fs.ErrNotExist)
		}
	}
	if err != nil {
		return fmt.Errorf("cannot read the text file: %w", err)
	}
	s.text = text
	return s.abstractUdfStreamOperator.open()
}

func (s *textFileSource) run(ctx context.Context) error {
	done := ctx.Done()
	rest := s.text
	s.first()
	for i := int64(0); len(rest) > 0; i++ {
		var line []byte
		line, rest = cutLine(rest)
		if i%cancellationCheckInterval == 0 && isDone(done) {
			return ctx.Err()
		}
		if i != s.next {
			continue // another subtask's line, or one emitted before the restore
		}
		s.next = s.advance(i)
		if err := s.out.collect(string(line)); err != nil {
			return err
		}
	}
	return nil
}

// cutLine returns the first line of text and the text after its line
// break. The break is "\n", "\r\n" or "\r"; the last line needs none.
func cutLine(text []byte) (line, rest []byte) {
	end := bytes.IndexAny(text, "\r\n")
	if end < 0 {
		return text, nil
	}
	next := end + 1
	if text[end] == '\r' && next < len(text) && text[next] == '\n' {
		next++
	}
	return text[:end], text[next:]
}

// sequenceSource emits the numbers From to To, inclusive (Flink:
// StatefulSequenceSource).
type sequenceSource struct {
	abstractUdfStreamOperator
	sourcePosition
	from, to int64
	out      output
}

// run emits From+i for the subtask's offsets i. The offsets count from
// From, so a sequence up to math.MaxInt64 does not overflow; a sequence
// of more than math.MaxInt64 numbers is cut there.
func (s *sequenceSource) run(ctx context.Context) error {
	done := ctx.Done()
	last := int64(uint64(s.to-s.from) & math.MaxInt64)
	for n, i := 0, s.first(); i <= last; n, i = n+1, s.next {
		if n%cancellationCheckInterval == 0 && isDone(done) {
			return ctx.Err()
		}
		s.next = s.advance(i)
		if err := s.out.collect(s.from + i); err != nil {
			return err
		}
		if i == math.MaxInt64 {
			break
		}
	}
	return nil
}

// generatorSource emits generate(0), generate(1), … up to count records
// (streaming.Unbounded: forever), at most recordsPerSecond over all
// subtasks (Flink: DataGeneratorSource with RateLimiterStrategy.perSecond,
// which also divides the rate by the parallelism).
//
// The rate is kept with a time.Ticker, never a sleep: at each tick the
// subtask may emit its allowance of records, then it flushes its outputs,
// so a slow stream reaches the next task at once instead of waiting for a
// network buffer to fill. Ticks come at most every minGeneratorTick; a
// faster rate emits several records per tick.
type generatorSource struct {
	abstractUdfStreamOperator
	sourcePosition
	generate         func(int64) any
	count            int64
	recordsPerSecond float64
	out              output
	// flushOutputs hands the records emitted so far to the network.
	flushOutputs func(ctx context.Context) error
	// mailbox wakes the source between two ticks: a checkpoint to take.
	mailbox *mailbox
}

// minGeneratorTick bounds how often a rate-limited generator wakes up.
const minGeneratorTick = 10 * time.Millisecond

func (s *generatorSource) run(ctx context.Context) error {
	index := s.first()
	emit := func() error {
		i := index
		index = min(s.advance(i), s.count)
		s.next = index
		return s.out.collect(s.generate(i))
	}

	ratePerSubtask := s.recordsPerSecond / float64(s.parallelism)
	if ratePerSubtask <= 0 { // no limit
		done := ctx.Done()
		for n := 0; index < s.count; n++ {
			if n%cancellationCheckInterval == 0 && isDone(done) {
				return ctx.Err()
			}
			if err := emit(); err != nil {
				return err
			}
		}
		return nil
	}

	tick, perTick := time.Duration(float64(time.Second)/ratePerSubtask), 1.0
	if tick < minGeneratorTick {
		tick, perTick = minGeneratorTick, ratePerSubtask*minGeneratorTick.Seconds()
	}
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	allowance := 0.0
	for index < s.count {
		// The first allowance is emitted at once, as a rate limiter lets
		// the first permit through.
		for allowance += perTick; allowance >= 1 && index < s.count; allowance-- {
			if err := emit(); err != nil {
				return err
			}
		}
		if err := s.flushOutputs(ctx); err != nil {
			return err
		}
		if index >= s.count {
			break
		}
		for waiting := true; waiting; {
			select {
			case <-ticker.C:
				waiting = false
			case <-s.mailbox.available:
				if err := s.mailbox.runMails(); err != nil {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// newSourceOperator makes the operator of a source node.
func newSourceOperator(node *streaming.StreamNode, out output, share subtaskShare, jar userJar,
	flushOutputs func(context.Context) error, mails *mailbox) (sourceOperator, error) {
	op := node.Operator
	udf := abstractUdfStreamOperator{op.UserFunction}
	position := sourcePosition{subtaskShare: share}
	switch op.Kind {
	case streaming.CollectionSource:
		return &collectionSource{udf, position, op.Elements, out}, nil
	case streaming.TextFileSource:
		return &textFileSource{abstractUdfStreamOperator: udf, sourcePosition: position, resourceName: op.ResourceName, jar: jar, out: out}, nil
	case streaming.SequenceSource:
		return &sequenceSource{udf, position, op.From, op.To, out}, nil
	case streaming.GeneratorSource:
		if op.Generate == nil {
			return nil, fmt.Errorf("%v: the %v has no function", node, op.Kind)
		}
		return &generatorSource{udf, position, op.Generate, op.Count, op.RecordsPerSecond, out, flushOutputs, mails}, nil
	default:
		return nil, fmt.Errorf("%v: a %v is no source", node, op.Kind)
	}
}

// isDone reports whether done is closed, without waiting.
func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
