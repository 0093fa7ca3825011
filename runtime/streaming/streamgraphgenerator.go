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
//  2. The runtime mode is resolved (shouldExecuteInBatchMode): AUTOMATIC
//     becomes BATCH when every source of those transformations is bounded,
//     and BATCH with an unbounded source is an error.
//  3. Each source, operator and sink becomes a StreamNode with the ID of
//     its transformation, its name ("Source: "/"Sink: " prefixed), its
//     parallelism (or the environment's), its max parallelism (or the
//     default for its parallelism), its slot sharing group (or its input's,
//     or "default"; a group's resources go to the graph) and co-location
//     key. In BATCH a keyed reduce becomes a BatchReduceOperator.
//  4. Each node gets an edge from its input, or from each input of a union
//     it reads. Partition transformations between the two become the
//     edge's partitioner (the one nearest the consumer wins); without one,
//     the edge is FORWARD when both sides have the same parallelism and
//     REBALANCE otherwise (Flink's StreamGraph.addEdgeInternal).
//
// Transformations are visited in ID order, which is a topological order:
// a stream exists before anything reads it.
func generateStreamGraph(env *StreamExecutionEnvironment, jobName string) (*StreamGraph, error) {
	needed := neededTransformations(env.transformations)
	if len(needed) == 0 {
		return nil, ErrNoOperators
	}
	batch, err := shouldExecuteInBatchMode(env.runtimeMode, needed)
	if err != nil {
		return nil, err
	}
	mode := Streaming
	if batch {
		mode = Batch
	}
	g := newStreamGraph(jobName, mode)
	configureStreamGraph(g, env)

	uids := make(map[string]*StreamNode)
	for _, t := range env.transformations {
		if !needed[t] || !t.isOperator() {
			continue
		}
		node := newStreamNode(env, g, t)
		if err := checkUidUnique(uids, node); err != nil {
			return nil, err
		}
		if err := setSlotSharingGroupResource(g, t); err != nil {
			return nil, err
		}
		g.addNode(node)
		if t.input == nil {
			continue
		}
		for _, in := range resolveInputs(t.input, nil) {
			if err := connect(g, g.StreamNode(in.upstream.id), node, in.partitioner); err != nil {
				return nil, err
			}
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
		markNeeded(needed, t)
	}
	if len(needed) == 0 {
		return nil
	}
	return needed
}

// markNeeded marks t and everything it reads from.
func markNeeded(needed map[*transformation]bool, t *transformation) {
	if needed[t] {
		return
	}
	needed[t] = true
	for _, in := range t.upstream() {
		markNeeded(needed, in)
	}
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
	operator := t.operator
	if g.RuntimeMode == Batch && operator.Kind == ReduceOperator {
		// Flink's ReduceTransformationTranslator#translateForBatchInternal:
		// in BATCH, reduce and the aggregations are not rolling.
		operator.Kind = BatchReduceOperator
	}
	return &StreamNode{
		ID:               t.id,
		OperatorName:     name,
		Parallelism:      parallelism,
		MaxParallelism:   maxParallelism,
		SlotSharingGroup: determineSlotSharingGroup(g, t),
		CoLocationGroup:  t.coLocationGroupKey,
		ChainingStrategy: t.chainingStrategy,
		Uid:              t.uid,
		Operator:         operator,
		KeySelector:      t.keySelector,
		KeyType:          t.keyType,
		OutputType:       t.outputType,
	}
}

// determineSlotSharingGroup mirrors Flink's method of that name: the group
// the operator set, else its inputs' if they all share one, else "default".
func determineSlotSharingGroup(g *StreamGraph, t *transformation) string {
	if t.slotSharingGroup.name != "" {
		return t.slotSharingGroup.name
	}
	if t.input == nil {
		return DefaultSlotSharingGroup
	}
	inputGroup := ""
	for _, in := range resolveInputs(t.input, nil) {
		candidate := g.StreamNode(in.upstream.id).SlotSharingGroup
		switch {
		case inputGroup == "":
			inputGroup = candidate
		case inputGroup != candidate:
			return DefaultSlotSharingGroup
		}
	}
	return inputGroup
}

// resolvedInput is an operator an edge comes from, and the partitioner of
// that edge (nil for the default).
type resolvedInput struct {
	upstream    *transformation
	partitioner StreamPartitioner
}

// resolveInputs walks back from an input through partition and union
// transformations to the operators that produce the records, and returns
// each with the partitioner nearest the consumer (partitioner, if set, is
// one already seen nearer). Flink does the same through its virtual
// partition nodes, and a union's inputs become the consumer's inputs.
func resolveInputs(input *transformation, partitioner StreamPartitioner) []resolvedInput {
	switch input.kind {
	case partitionTransformation:
		if partitioner == nil {
			partitioner = input.partitioner
		}
		return resolveInputs(input.input, partitioner)
	case unionTransformation:
		var resolved []resolvedInput
		for _, in := range input.inputs {
			resolved = append(resolved, resolveInputs(in, partitioner)...)
		}
		return resolved
	}
	return []resolvedInput{{upstream: input, partitioner: partitioner}}
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

// configureStreamGraph copies the environment's settings into the graph
// (Flink's StreamGraphGenerator#configureStreamGraph, and the resources of
// the slot sharing groups, which Flink's generator is given by the
// environment): chaining, the program invocation, and the groups
// RegisterSlotSharingGroup gave resources.
func configureStreamGraph(g *StreamGraph, env *StreamExecutionEnvironment) {
	g.ChainingEnabled = env.chainingEnabled
	g.ProgramName = env.program.name
	g.ProgramArgs = slices.Clone(env.program.args)
	g.ProgramParallelism = env.program.parallelism
	g.ProgramRuntimeMode = env.program.runtimeMode
	g.slotSharingGroups = make(map[string]SlotSharingGroup, len(env.slotSharingGroups))
	for name, group := range env.slotSharingGroups {
		g.slotSharingGroups[name] = group
	}
}

// setSlotSharingGroupResource records the resources of the slot sharing
// group an operator set with SetSlotSharingGroup, as Flink's
// StreamGraphGenerator#transform does: a group may get resources from the
// environment (RegisterSlotSharingGroup) and from any number of operators,
// as long as they all give the same. A group set by name only takes its
// resources from the others.
func setSlotSharingGroupResource(g *StreamGraph, t *transformation) error {
	group := t.slotSharingGroup
	if !group.hasResources() {
		return nil
	}
	if known, ok := g.slotSharingGroups[group.name]; ok && known != group {
		return fmt.Errorf("%s: The slot sharing group %s has been configured with two different resource spec.", t.describe(), group.name)
	}
	g.slotSharingGroups[group.name] = group
	return nil
}
