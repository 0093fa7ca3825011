package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
)

// operatorChain is the operators one task runs, wired together: each
// operator's output is the next operator of the chain (a function call),
// or a record writer when the edge leaves the chain. It mirrors Flink's
// OperatorChain (RegularOperatorChain).
//
// For the WordCount source chain "Source: file-input -> tokenizer" (see
// runtime/examples/wordcount) at parallelism 2 it looks like this:
//
//	textFileSource ─chainingOutput─► streamFlatMap ─recordWriterOutput(HASH)─► ResultPartition (2 subpartitions)
//
// It belongs to the task's goroutine, except flushRequested, which the
// task's outputFlusher sets.
type operatorChain struct {
	// operators are the chain's operators in the order of the
	// StreamConfig's ChainedNodeIDs: head first, then depth first along
	// the chained edges.
	operators []streamOperator
	nodes     []*streaming.StreamNode
	// source is the head of a SourceStreamTask's chain, head the head of a
	// OneInputStreamTask's; the other is nil.
	source sourceOperator
	head   oneInputStreamOperator
	// writers are the outputs that leave the chain, in the order of the
	// StreamConfig's OutEdges, which is the order of the task's partitions.
	writers []*recordWriterOutput
	// ctx is the ctx of Invoke (setContext).
	ctx context.Context
	// flushRequested says that the buffer timeout has passed since the
	// outputs were last flushed: the outputFlusher sets it, the task
	// clears it when it flushes (flushOutputsIfRequested).
	flushRequested atomic.Bool
	// mailbox holds what other goroutines ask of the task (checkpoints);
	// the task runs it between records.
	mailbox *mailbox

	// opened counts the operators opened so far, from the tail; closed
	// says that closeOperators has run.
	opened int
	closed bool
}

// chainBuilder holds what building one chain needs.
type chainBuilder struct {
	graph   *streaming.StreamGraph
	config  *streaming.StreamConfig
	share   subtaskShare
	jar     userJar
	inChain map[int]bool
	built   map[int]streamOperator
	chain   *operatorChain
}

// newOperatorChain builds the chain the StreamConfig describes from the
// nodes of the re-planned StreamGraph, and connects its out edges to the
// task's partitions. Nothing is opened yet. An error means the StreamGraph
// the program built now differs from the one the JobGraph was made of.
func newOperatorChain(graph *streaming.StreamGraph, config *streaming.StreamConfig, share subtaskShare,
	jar userJar, partitions []*network.ResultPartition) (*operatorChain, error) {
	if len(partitions) != len(config.OutEdges) {
		return nil, fmt.Errorf("the chain has %d out edges, but the task writes %d partitions", len(config.OutEdges), len(partitions))
	}
	b := &chainBuilder{
		graph:   graph,
		config:  config,
		share:   share,
		jar:     jar,
		inChain: make(map[int]bool),
		built:   make(map[int]streamOperator),
		chain:   &operatorChain{ctx: context.Background(), mailbox: newMailbox()},
	}
	for _, id := range config.ChainedNodeIDs {
		node := graph.StreamNode(id)
		if node == nil {
			return nil, fmt.Errorf("program %s has no node %d", config.ProgramName, id)
		}
		// The task runs share.parallelism subtasks, which may differ from
		// the parallelism the program was planned with: the
		// AdaptiveScheduler runs a job as wide as its slots allow. The
		// operators take the task's, as Flink's take the runtime context's
		// (getNumberOfParallelSubtasks); only the max parallelism, which
		// fixes the key groups, must hold.
		if share.parallelism > node.MaxParallelism {
			return nil, fmt.Errorf("%v has max parallelism %d, but the task runs %d subtasks", node, node.MaxParallelism, share.parallelism)
		}
		b.inChain[id] = true
	}

	// The edges that leave the chain, each into its partition.
	for i, outEdge := range config.OutEdges {
		edge, err := findStreamEdge(graph, outEdge)
		if err != nil {
			return nil, err
		}
		writer, err := newRecordWriterOutput(outEdge, edge, partitions[i], share.subtaskIndex)
		if err != nil {
			return nil, err
		}
		b.chain.writers = append(b.chain.writers, writer)
	}

	// The operators, from the head along the chained edges.
	head, err := b.createOperator(graph.StreamNode(config.HeadNodeID()))
	if err != nil {
		return nil, err
	}
	switch head := head.(type) {
	case sourceOperator:
		b.chain.source = head
	case oneInputStreamOperator:
		b.chain.head = head
	}
	for _, id := range config.ChainedNodeIDs {
		op, ok := b.built[id]
		if !ok {
			return nil, fmt.Errorf("%v is not reached from the chain's head", graph.StreamNode(id))
		}
		b.chain.operators = append(b.chain.operators, op)
		b.chain.nodes = append(b.chain.nodes, graph.StreamNode(id))
	}
	return b.chain, nil
}

// findStreamEdge returns the StreamEdge an OutEdge of the config names.
func findStreamEdge(graph *streaming.StreamGraph, outEdge streaming.OutEdge) (*streaming.StreamEdge, error) {
	if source := graph.StreamNode(outEdge.SourceNodeID); source != nil {
		for _, edge := range source.OutEdges {
			if edge.Target.ID == outEdge.TargetNodeID {
				return edge, nil
			}
		}
	}
	return nil, fmt.Errorf("the program has no edge from node %d to node %d", outEdge.SourceNodeID, outEdge.TargetNodeID)
}

// createOperator makes the operator of node, after the operators it feeds:
// an operator's output must exist before the operator does. This is
// Flink's OperatorChain#createOutputCollector recursion.
func (b *chainBuilder) createOperator(node *streaming.StreamNode) (streamOperator, error) {
	if _, dup := b.built[node.ID]; dup {
		return nil, fmt.Errorf("%v is reached twice inside the chain", node)
	}
	out, err := b.createOutput(node)
	if err != nil {
		return nil, err
	}
	var op streamOperator
	if node.Operator.Kind.IsSource() {
		out = sourceOutput{out, b.chain}
		op, err = newSourceOperator(node, out, b.share, b.jar, b.chain.flushOutputs, b.chain.mailbox)
	} else {
		op, err = newOneInputOperator(node, out, b.share.subtaskIndex, b.share.parallelism)
	}
	if err != nil {
		return nil, err
	}
	b.built[node.ID] = op
	return op, nil
}

// createOutput makes node's output: one per out edge, chained edges first
// handing records to the next operator, the others to their writer.
func (b *chainBuilder) createOutput(node *streaming.StreamNode) (output, error) {
	var outputs broadcastingOutput
	for _, edge := range node.OutEdges {
		if b.inChain[edge.Target.ID] {
			next, err := b.createOperator(edge.Target)
			if err != nil {
				return nil, err
			}
			oneInput, ok := next.(oneInputStreamOperator)
			if !ok {
				return nil, fmt.Errorf("%v cannot be chained behind %v", edge.Target, node)
			}
			outputs = append(outputs, chainingOutput{oneInput})
			continue
		}
		writer := b.writerFor(edge)
		if writer == nil {
			return nil, fmt.Errorf("the edge %v neither stays in the chain nor leaves it", edge)
		}
		outputs = append(outputs, writer)
	}
	switch len(outputs) {
	case 0:
		return discardingOutput{}, nil
	case 1:
		return outputs[0], nil
	default:
		return outputs, nil
	}
}

func (b *chainBuilder) writerFor(edge *streaming.StreamEdge) *recordWriterOutput {
	for _, w := range b.chain.writers {
		if w.edge.SourceNodeID == edge.Source.ID && w.edge.TargetNodeID == edge.Target.ID {
			return w
		}
	}
	return nil
}

// openOperators opens every operator, tail first, so that an operator
// never emits into one that is not open yet. It mirrors
// RegularOperatorChain#initializeStateAndOpenOperators. On an error the
// task closes the operators opened so far (closeOperators).
func (c *operatorChain) openOperators() error {
	for i := len(c.operators) - 1; i >= 0; i-- {
		if err := c.operators[i].open(); err != nil {
			return fmt.Errorf("%v: open: %w", c.nodes[i], err)
		}
		c.opened++
	}
	return nil
}

// endInput tells the operators that want to know (boundedOneInput) that
// their input has ended, head first: an operator's end may emit records
// (a BATCH reduce emits all its results), which the operators behind it
// must still process before their own input ends. It mirrors Flink's
// OperatorChain#endInput followed by finishOperators, which ends the
// input of each chained operator in the same order.
func (c *operatorChain) endInput() error {
	for i, op := range c.operators {
		bounded, ok := op.(boundedOneInput)
		if !ok {
			continue
		}
		if err := bounded.endInput(); err != nil {
			return fmt.Errorf("%v: endInput: %w", c.nodes[i], err)
		}
	}
	return nil
}

// closeOperators closes the opened operators, head first (Flink's
// RegularOperatorChain#closeAllOperators order). Every operator is
// closed, even after an error; the errors are joined.
func (c *operatorChain) closeOperators() error {
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	first := len(c.operators) - c.opened // the opened ones are the last c.opened
	for i := first; i < len(c.operators); i++ {
		if err := c.operators[i].close(); err != nil {
			errs = append(errs, fmt.Errorf("%v: close: %w", c.nodes[i], err))
		}
	}
	return errors.Join(errs...)
}

// setContext gives the chain and its record writers the ctx of Invoke.
func (c *operatorChain) setContext(ctx context.Context) {
	c.ctx = ctx
	for _, w := range c.writers {
		w.ctx = ctx
	}
}

// flushOutputs hands every partly filled network buffer to the consumers
// (Flink: OperatorChain#flushOutputs).
func (c *operatorChain) flushOutputs(ctx context.Context) error {
	c.flushRequested.Store(false)
	for _, w := range c.writers {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// flushOutputsIfRequested flushes the outputs if the outputFlusher asked
// for it since the last flush. When it did not, it costs one atomic load,
// so the task may call it after every record.
func (c *operatorChain) flushOutputsIfRequested() error {
	if !c.flushRequested.Load() {
		return nil
	}
	return c.flushOutputs(c.ctx)
}

// sourceOutput is the output of a source. After each record the source
// emits, and the chain has handed on (or dropped: a Filter may keep few),
// it lets the chain flush if the buffer timeout has passed, and runs the
// task's mails: a checkpoint to take. A source runs its own loop and never
// comes back to the task between records, so this is where a busy source
// flushes and injects its barriers. In Flink the OutputFlusher thread
// flushes by itself, and the source's loop yields to the mailbox.
type sourceOutput struct {
	out   output
	chain *operatorChain
}

func (o sourceOutput) collect(record any) error {
	if err := o.out.collect(record); err != nil {
		return err
	}
	if len(o.chain.writers) > 0 {
		if err := o.chain.flushOutputsIfRequested(); err != nil {
			return err
		}
	}
	if o.chain.mailbox.hasMail.Load() {
		return o.chain.mailbox.runMails()
	}
	return nil
}
