package streaming

import (
	"errors"
	"fmt"
	"slices"

	"flinklab/runtime/jobgraph"
)

// ErrNoOperators is returned for a program that defined no operator or
// sink (Flink's message, from StreamExecutionEnvironment.getStreamGraph).
var ErrNoOperators = errors.New("No operators defined in streaming topology. Cannot execute.")

// generateStreamGraph turns the environment's transformations into a
// StreamGraph. It mirrors Flink's StreamGraphGenerator:
//
//  1. Only transformations that feed an operator or a sink are translated
//     (a source nobody reads is dropped, as in Flink, where sources are
//     reached only through their consumers).
//  2. Each source, operator and sink becomes a StreamNode with the ID of
//     its transformation, its name ("Source: "/"Sink: " prefixed), its
//     parallelism (or the environment's), its max parallelism (or the
//     default for its parallelism) and its slot sharing group (or its
//     input's, or "default").
//  3. Each node gets an edge from its input. Partition transformations
//     between the two become the edge's partitioner (the one nearest the
//     consumer wins); without one, the edge is FORWARD when both sides have
//     the same parallelism and REBALANCE otherwise (Flink's
//     StreamGraph.addEdgeInternal).
//
// Transformations are visited in ID order, which is a topological order:
// a stream exists before anything reads it.
func generateStreamGraph(env *StreamExecutionEnvironment, jobName string) (*StreamGraph, error) {
	g := newStreamGraph(jobName)
	g.ChainingEnabled = env.chainingEnabled
	g.ProgramName = env.program.name
	g.ProgramArgs = slices.Clone(env.program.args)
	g.ProgramParallelism = env.program.parallelism

	needed := neededTransformations(env.transformations)
	if len(needed) == 0 {
		return nil, ErrNoOperators
	}

	uids := make(map[string]*StreamNode)
	for _, t := range env.transformations {
		if !needed[t] || !t.isOperator() {
			continue
		}
		node := newStreamNode(env, g, t)
		if err := checkUidUnique(uids, node); err != nil {
			return nil, err
		}
		g.addNode(node)
		if t.input == nil {
			continue
		}
		upstream, partitioner := resolveInput(t.input)
		if err := connect(g, g.StreamNode(upstream.id), node, partitioner); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// neededTransformations marks every operator and sink, and everything they
// read from. Nil means the program defined no operator or sink at all.
func neededTransformations(transformations []*transformation) map[*transformation]bool {
	needed := make(map[*transformation]bool)
	for _, t := range transformations {
		if t.kind != oneInputTransformation && t.kind != sinkTransformation {
			continue
		}
		for in := t; in != nil && !needed[in]; in = in.input {
			needed[in] = true
		}
	}
	if len(needed) == 0 {
		return nil
	}
	return needed
}

// newStreamNode makes the node of an operator transformation, resolving
// the settings the program left to defaults.
func newStreamNode(env *StreamExecutionEnvironment, g *StreamGraph, t *transformation) *StreamNode {
	parallelism := t.parallelism
	if parallelism == 0 {
		parallelism = env.GetParallelism()
	}
	maxParallelism := env.maxParallelism
	if maxParallelism == 0 {
		maxParallelism = jobgraph.DefaultMaxParallelism(parallelism)
	}
	name := t.name
	switch t.kind {
	case sourceTransformation:
		name = "Source: " + name
	case sinkTransformation:
		name = "Sink: " + name
	}
	return &StreamNode{
		ID:               t.id,
		OperatorName:     name,
		Parallelism:      parallelism,
		MaxParallelism:   maxParallelism,
		SlotSharingGroup: determineSlotSharingGroup(g, t),
		ChainingStrategy: t.chainingStrategy,
		Uid:              t.uid,
		Operator:         t.operator,
		KeySelector:      t.keySelector,
		OutputType:       t.outputType,
	}
}

// determineSlotSharingGroup mirrors StreamGraphGenerator.determineSlotSharingGroup:
// the group the operator set; else its input's group (Flink: when all
// inputs share one group; ours have one input at most); else "default".
func determineSlotSharingGroup(g *StreamGraph, t *transformation) string {
	if t.slotSharingGroup != "" {
		return t.slotSharingGroup
	}
	if t.input != nil {
		upstream, _ := resolveInput(t.input)
		return g.StreamNode(upstream.id).SlotSharingGroup
	}
	return DefaultSlotSharingGroup
}

// resolveInput walks back from an input through partition transformations
// to the operator that produces the records, and returns it with the
// partitioner nearest the consumer (nil if there is none). Flink does the
// same through its virtual partition nodes.
func resolveInput(input *transformation) (*transformation, StreamPartitioner) {
	var partitioner StreamPartitioner
	for input.kind == partitionTransformation {
		if partitioner == nil {
			partitioner = input.partitioner
		}
		input = input.input
	}
	return input, partitioner
}

// connect adds the edge upstream → downstream. It mirrors
// StreamGraph.addEdgeInternal: the default partitioner, the check that
// FORWARD keeps the parallelism, and (here, not at runtime) the number of
// key groups of a HASH edge, which is the consumer's max parallelism.
func connect(g *StreamGraph, upstream, downstream *StreamNode, partitioner StreamPartitioner) error {
	switch {
	case partitioner == nil && upstream.Parallelism == downstream.Parallelism:
		partitioner = &ForwardPartitioner{}
	case partitioner == nil:
		partitioner = &RebalancePartitioner{}
	default:
		partitioner = partitioner.Copy() // each edge owns its partitioner
	}
	if _, forward := partitioner.(*ForwardPartitioner); forward && upstream.Parallelism != downstream.Parallelism {
		return fmt.Errorf("Forward partitioning does not allow change of parallelism. Upstream operation: %v parallelism: %d, downstream operation: %v parallelism: %d You must use another partitioning strategy, such as broadcast, rebalance, shuffle or global.",
			upstream, upstream.Parallelism, downstream, downstream.Parallelism)
	}
	if hash, ok := partitioner.(*KeyGroupStreamPartitioner); ok {
		hash.MaxParallelism = downstream.MaxParallelism
	}
	g.addEdge(upstream, downstream, partitioner)
	return nil
}

// checkUidUnique rejects a uid used twice. Flink finds this when it hashes
// the graph (StreamGraphHasherV2), with this message.
func checkUidUnique(uids map[string]*StreamNode, node *StreamNode) error {
	if node.Uid == "" {
		return nil
	}
	if first, taken := uids[node.Uid]; taken {
		return fmt.Errorf("Hash collision on user-specified ID %q (operators %v and %v). Most likely cause is a non-unique ID. Please check that all IDs specified via `uid(String)` are unique.",
			node.Uid, first, node)
	}
	uids[node.Uid] = node
	return nil
}
