package streaming

import (
	"fmt"
	"strings"

	"flinklab/runtime/jobgraph"
)

// The invokable classes of streaming JobVertices: the task a TaskExecutor
// runs for each subtask of a chain.
const (
	// SourceStreamTaskClass runs a chain whose head is a source.
	SourceStreamTaskClass = "org.apache.flink.streaming.runtime.tasks.SourceStreamTask"
	// OneInputStreamTaskClass runs a chain whose head reads one input.
	OneInputStreamTaskClass = "org.apache.flink.streaming.runtime.tasks.OneInputStreamTask"
)

// CreateJobGraph turns a StreamGraph into a JobGraph: it fuses operators
// into chains (one JobVertex each) and connects the chains with JobEdges.
// It mirrors Flink's StreamingJobGraphGenerator.createJobGraph, whose steps
// it follows:
//
//  1. setChaining: starting from each source (in ID order), createChain
//     walks the graph depth first. An edge for which IsChainable holds
//     pulls its target into the current chain; any other edge ends the
//     chain there, becomes one of the chain's outputs, and its target
//     starts a chain of its own.
//  2. One JobVertex per chain, named like Flink ("Source: Collection Source
//     -> Flat Map"), with the head's parallelism, max parallelism and slot
//     sharing group, the invokable class SourceStreamTaskClass or
//     OneInputStreamTaskClass, and a StreamConfig in its Configuration.
//  3. connect: one JobEdge per chain output, POINTWISE for FORWARD and
//     RESCALE, ALL_TO_ALL otherwise, its ShipStrategyName the partitioner's
//     name, its result PIPELINED_BOUNDED, or BLOCKING when the StreamGraph
//     was built in BATCH mode (determineResultPartitionType).
//  4. setSlotSharingAndCoLocation: the resources of the slot sharing groups
//     the vertices use, and the co-location groups of their heads; then
//     jobgraph's Validate, whose error (if any) CreateJobGraph returns.
func CreateJobGraph(streamGraph *StreamGraph) (*jobgraph.JobGraph, error) {
	gen := &jobGraphGenerator{streamGraph: streamGraph, chainOf: make(map[int]*operatorChain)}

	// Step 1: decide the chains.
	for _, id := range streamGraph.SourceIDs() {
		gen.startChain(streamGraph.StreamNode(id))
	}

	// Step 2: one JobVertex per chain.
	jobGraph := jobgraph.New(streamGraph.JobName)
	if streamGraph.RuntimeMode == Batch {
		jobGraph.JobType = jobgraph.Batch // Flink: jobGraph.setJobType(streamGraph.getJobType())
	}
	for _, chain := range gen.chains {
		chain.vertex = gen.createJobVertex(chain)
		jobGraph.AddVertex(chain.vertex)
	}

	// Step 3: connect each chain to the chains its outputs lead to, in the
	// order of its outputs, which is the order of the data sets it produces.
	resultType := determineResultPartitionType(streamGraph)
	for _, chain := range gen.chains {
		for _, edge := range chain.outEdges {
			downstream := gen.chainOf[edge.Target.ID].vertex
			pattern := distributionPattern(edge.Partitioner)
			jobEdge := downstream.ConnectNewDataSetAsInput(chain.vertex, pattern, resultType)
			jobEdge.ShipStrategyName = edge.Partitioner.String()
		}
	}

	// Step 4: the resources of the slot sharing groups, the co-location groups.
	if err := gen.setSlotSharingAndCoLocation(jobGraph); err != nil {
		return nil, err
	}
	if err := jobGraph.Validate(); err != nil {
		return nil, err
	}
	return jobGraph, nil
}

// operatorChain is a set of StreamNodes that run in one task, one thread,
// handing records to each other by function call.
type operatorChain struct {
	head *StreamNode
	// nodes are the chain's nodes, head first, then depth first along the
	// chained edges.
	nodes []*StreamNode
	// name is the chained name of the head: "Source: X -> Map -> Filter".
	name string
	// outEdges are the edges that leave the chain, in Flink's order (see
	// createChain).
	outEdges []*StreamEdge
	vertex   *jobgraph.JobVertex
}

// jobGraphGenerator holds the state of one CreateJobGraph call.
type jobGraphGenerator struct {
	streamGraph *StreamGraph
	chains      []*operatorChain       // in the order they were started
	chainOf     map[int]*operatorChain // node ID → its chain
}

// startChain makes head the head of a new chain, unless a chain already
// holds it (a node reached again through another input), and fills the
// chain.
func (gen *jobGraphGenerator) startChain(head *StreamNode) {
	if gen.chainOf[head.ID] != nil {
		return
	}
	chain := &operatorChain{head: head}
	gen.chains = append(gen.chains, chain)
	chain.outEdges, chain.name = gen.createChain(head, chain)
}

// createChain adds current to chain, follows its chainable edges into the
// chain, and starts new chains behind the others. It returns the edges
// leaving the chain from current onwards and current's chained name. It
// mirrors StreamingJobGraphGenerator.createChain, including its orders:
// the outputs of chained successors come first, then current's own; and
// the name joins the successors' names with " -> ", in parentheses when
// there are several ("Map -> (Filter, Sink: Print to Std. Out)").
//
// Step m2: the JarRunHandler (or `flink run`, on the client) plans the
// program into a JobGraph; here the operators of one task are gathered.
func (gen *jobGraphGenerator) createChain(current *StreamNode, chain *operatorChain) ([]*StreamEdge, string) {
	chain.nodes = append(chain.nodes, current)
	gen.chainOf[current.ID] = chain

	var chainable, nonChainable []*StreamEdge
	for _, edge := range current.OutEdges {
		if IsChainable(edge, gen.streamGraph) {
			chainable = append(chainable, edge)
		} else {
			nonChainable = append(nonChainable, edge)
		}
	}

	var transitiveOutEdges []*StreamEdge
	var chainedNames []string
	for _, edge := range chainable {
		outEdges, name := gen.createChain(edge.Target, chain)
		transitiveOutEdges = append(transitiveOutEdges, outEdges...)
		chainedNames = append(chainedNames, name)
	}
	for _, edge := range nonChainable {
		transitiveOutEdges = append(transitiveOutEdges, edge)
		gen.startChain(edge.Target)
	}
	return transitiveOutEdges, createChainedName(current.OperatorName, chainedNames)
}

// createChainedName mirrors StreamingJobGraphGenerator.createChainedName.
func createChainedName(operatorName string, chainedNames []string) string {
	switch len(chainedNames) {
	case 0:
		return operatorName
	case 1:
		return operatorName + " -> " + chainedNames[0]
	default:
		return operatorName + " -> (" + strings.Join(chainedNames, ", ") + ")"
	}
}

// createJobVertex makes the JobVertex of a chain.
func (gen *jobGraphGenerator) createJobVertex(chain *operatorChain) *jobgraph.JobVertex {
	head := chain.head
	invokable := OneInputStreamTaskClass
	if head.Operator.Kind.IsSource() {
		invokable = SourceStreamTaskClass
	}
	vertex := jobgraph.NewJobVertex(chain.name, invokable, head.Parallelism)
	vertex.MaxParallelism = head.MaxParallelism
	vertex.SlotSharingGroup = head.SlotSharingGroup
	vertex.Configuration = gen.streamConfig(chain).Configuration()
	for _, node := range chain.nodes {
		vertex.OperatorIDs = append(vertex.OperatorIDs, OperatorIDOf(node))
	}
	return vertex
}

// streamConfig describes the chain for the task that will run it.
func (gen *jobGraphGenerator) streamConfig(chain *operatorChain) *StreamConfig {
	g := gen.streamGraph
	config := &StreamConfig{
		ProgramName:        g.ProgramName,
		ProgramArgs:        g.ProgramArgs,
		ProgramParallelism: g.ProgramParallelism,
		ProgramRuntimeMode: g.ProgramRuntimeMode,
	}
	for _, node := range chain.nodes {
		config.ChainedNodeIDs = append(config.ChainedNodeIDs, node.ID)
	}
	for _, edge := range chain.outEdges {
		config.OutEdges = append(config.OutEdges, OutEdge{
			SourceNodeID: edge.Source.ID,
			TargetNodeID: edge.Target.ID,
			Partitioner:  edge.Partitioner.String(),
		})
	}
	return config
}

// IsChainable reports whether edge's two operators can run in one task, so
// that records pass between them by function call instead of through the
// network stack. It mirrors StreamingJobGraphGenerator.isChainable; all of
// these must hold:
//
//  1. the downstream operator has exactly one input (an operator that
//     reads a Union has one per stream, and reads them through the network);
//  2. chaining is enabled for the job (no DisableOperatorChaining);
//  3. both operators are in the same slot sharing group;
//  4. the upstream chaining strategy is not NEVER;
//  5. the downstream strategy is ALWAYS, or HEAD_WITH_SOURCES behind a source;
//  6. both operators have the same parallelism;
//  7. the partitioner is FORWARD.
//
// Flink checks two more conditions, which never fail here: that no other
// input of the downstream operator has the same input position (a union;
// condition 1 already rules it out, as our operators have one input
// position), and, since 2.0, equal max parallelism (which Flink waives by
// default, pipeline.operator-chaining.chain-operators-with-different-max-parallelism).
func IsChainable(edge *StreamEdge, streamGraph *StreamGraph) bool {
	return NotChainableReason(edge, streamGraph) == ""
}

// NotChainableReason says which chaining condition edge breaks (the first,
// in IsChainable's order), in a few words for a diagram's edge or
// `go run ./tools/graphs -explain`: "parallelism 4 ≠ 2", "REBALANCE, not
// FORWARD". It returns "" when the edge can be chained.
//
// Step m2: while the program is planned into a JobGraph, this decides
// whether two operators run as one task or exchange records through the
// network.
func NotChainableReason(edge *StreamEdge, streamGraph *StreamGraph) string {
	up, down := edge.Source, edge.Target
	switch {
	case len(down.InEdges) != 1:
		return fmt.Sprintf("%v has %d inputs", down, len(down.InEdges))
	case !streamGraph.ChainingEnabled:
		return "chaining disabled for the job (disableOperatorChaining)"
	case up.SlotSharingGroup != down.SlotSharingGroup:
		return fmt.Sprintf("slot sharing group %q ≠ %q", up.SlotSharingGroup, down.SlotSharingGroup)
	case up.ChainingStrategy == Never:
		return fmt.Sprintf("%v is NEVER (disableChaining)", up)
	case !downstreamStrategyAllowsChaining(up, down):
		return downstreamStrategyReason(up, down)
	case up.Parallelism != down.Parallelism:
		return fmt.Sprintf("parallelism %d ≠ %d", up.Parallelism, down.Parallelism)
	case !isForward(edge.Partitioner):
		return fmt.Sprintf("%v, not FORWARD", edge.Partitioner)
	}
	return ""
}

// downstreamStrategyReason says why down's chaining strategy keeps it out
// of up's chain.
func downstreamStrategyReason(up, down *StreamNode) string {
	switch down.ChainingStrategy {
	case Never:
		return fmt.Sprintf("%v is NEVER (disableChaining)", down)
	case Head:
		return fmt.Sprintf("%v is HEAD (startNewChain)", down)
	default:
		return fmt.Sprintf("%v is %v, and %v is no source", down, down.ChainingStrategy, up)
	}
}

// isForward reports whether partitioner is a ForwardPartitioner.
func isForward(partitioner StreamPartitioner) bool {
	_, ok := partitioner.(*ForwardPartitioner)
	return ok
}

// downstreamStrategyAllowsChaining is the downstream half of Flink's
// areOperatorsChainable.
func downstreamStrategyAllowsChaining(up, down *StreamNode) bool {
	switch down.ChainingStrategy {
	case Always:
		return true
	case HeadWithSources:
		return up.Operator.Kind.IsSource()
	default: // NEVER, HEAD
		return false
	}
}

// distributionPattern is how the JobEdge of a partitioner wires producer
// and consumer subtasks (Flink's StreamingJobGraphGenerator#connect):
// POINTWISE for FORWARD and RESCALE, ALL_TO_ALL for the rest.
func distributionPattern(partitioner StreamPartitioner) jobgraph.DistributionPattern {
	if partitioner.IsPointwise() {
		return jobgraph.Pointwise
	}
	return jobgraph.AllToAll
}

// determineResultPartitionType is how the data sets between chains are
// exchanged. It mirrors Flink's
// StreamingJobGraphGenerator#determineUndefinedResultPartitionType, which
// follows the StreamGraph's GlobalStreamExchangeMode:
//
//	STREAMING  ALL_EDGES_PIPELINED  PIPELINED_BOUNDED: the consumer reads while the producer runs
//	BATCH      ALL_EDGES_BLOCKING   BLOCKING: the consumer starts when the producer has finished
//
// BATCH's mode is Flink's default execution.batch-shuffle-mode,
// ALL_EXCHANGES_BLOCKING. Edges inside a chain exchange nothing: chaining
// is the same in both modes.
func determineResultPartitionType(streamGraph *StreamGraph) jobgraph.ResultPartitionType {
	if streamGraph.RuntimeMode == Batch {
		return jobgraph.Blocking
	}
	return jobgraph.PipelinedBounded
}

// NotChainedReasons says, for each JobEdge of jobGraph, which chaining
// condition the StreamEdge behind it breaks (NotChainableReason): why the
// two operators it connects run in two tasks. jobGraph must come from
// streamGraph (CreateJobGraph): each JobVertex's StreamConfig names the
// StreamEdge behind each data set the vertex produces.
func NotChainedReasons(streamGraph *StreamGraph, jobGraph *jobgraph.JobGraph) (map[*jobgraph.JobEdge]string, error) {
	reasons := make(map[*jobgraph.JobEdge]string)
	for _, vertex := range jobGraph.Vertices() {
		config, err := ReadStreamConfig(vertex.Configuration)
		if err != nil {
			return nil, fmt.Errorf("JobVertex %s: %w", vertex.Name, err)
		}
		for i, dataSet := range vertex.ProducedDataSets() {
			if i >= len(config.OutEdges) {
				return nil, fmt.Errorf("JobVertex %s produces %d data sets, its chain has %d outputs", vertex.Name, len(vertex.ProducedDataSets()), len(config.OutEdges))
			}
			edge := streamGraph.streamEdge(config.OutEdges[i])
			if edge == nil {
				return nil, fmt.Errorf("JobVertex %s: the StreamGraph has no edge %d → %d", vertex.Name, config.OutEdges[i].SourceNodeID, config.OutEdges[i].TargetNodeID)
			}
			for _, jobEdge := range dataSet.Consumers() {
				reasons[jobEdge] = NotChainableReason(edge, streamGraph)
			}
		}
	}
	return reasons, nil
}
