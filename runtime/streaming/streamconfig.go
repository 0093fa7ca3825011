package streaming

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The keys of a streaming JobVertex's Configuration. Each value is a
// string; the formats are:
//
//	key                             value                                                  example
//	streaming.program.name          the registered program's name                          wordcount
//	streaming.program.args          the program's arguments, a JSON array of strings       ["--input","hamlet.txt"]
//	streaming.program.parallelism   the runner's default parallelism, decimal; 0 for none  4
//	streaming.program.runtime-mode  the runner's execution.runtime-mode                    BATCH
//	streaming.chain.node-ids        the chain's StreamNode IDs, head first, a JSON array   [1,2]
//	streaming.chain.out-edges       the edges leaving the chain, one per data set the      [{"sourceNodeId":2,"targetNodeId":4,"partitioner":"HASH"}]
//	                                vertex produces and in that order, a JSON array
//
// The program keys let the TaskExecutor run the program again
// (PlanProgramInRuntimeMode) and so rebuild the StreamGraph, in the mode
// the client built it in; the chain keys say which of its nodes this task
// runs and where each output goes. Everything else (the functions, the key
// selector, the partitioner object, the parallelism, the kind of each
// operator) is found on the StreamNodes by ID.
const (
	ConfigProgramName        = "streaming.program.name"
	ConfigProgramArgs        = "streaming.program.args"
	ConfigProgramParallelism = "streaming.program.parallelism"
	ConfigProgramRuntimeMode = "streaming.program.runtime-mode"
	ConfigChainedNodeIDs     = "streaming.chain.node-ids"
	ConfigOutEdges           = "streaming.chain.out-edges"
)

// StreamConfig is the typed view of a streaming JobVertex's Configuration:
// what the task running the chain needs to find its operators. It mirrors
// Flink's org.apache.flink.streaming.api.graph.StreamConfig, which wraps
// the vertex Configuration with typed getters and setters; Flink stores the
// serialized operators in it, this one stores where to find them.
type StreamConfig struct {
	ProgramName        string
	ProgramArgs        []string
	ProgramParallelism int
	// ProgramRuntimeMode is the mode the runner started the program in
	// (STREAMING unless it chose one); the program's main may choose
	// another, and does so again when a task plans it.
	ProgramRuntimeMode RuntimeExecutionMode
	// ChainedNodeIDs are the IDs of the chain's nodes, head first, then
	// depth first along the chained edges.
	ChainedNodeIDs []int
	// OutEdges are the edges that leave the chain. OutEdges[i] is written
	// to the vertex's i-th produced data set (ProducedDataSets()[i]), which
	// is the task's i-th ResultPartition.
	OutEdges []OutEdge
}

// OutEdge is one edge leaving a chain: the StreamEdge from SourceNodeID (a
// node of the chain) to TargetNodeID (the head of another chain), and the
// name of its partitioner. The partitioner itself, with the key selector
// of a HASH edge, is on that StreamEdge.
type OutEdge struct {
	SourceNodeID int    `json:"sourceNodeId"`
	TargetNodeID int    `json:"targetNodeId"`
	Partitioner  string `json:"partitioner"`
}

// HeadNodeID returns the ID of the chain's head, or 0 for an empty config.
func (c *StreamConfig) HeadNodeID() int {
	if len(c.ChainedNodeIDs) == 0 {
		return 0
	}
	return c.ChainedNodeIDs[0]
}

// Configuration encodes the config as JobVertex Configuration entries.
func (c *StreamConfig) Configuration() map[string]string {
	return map[string]string{
		ConfigProgramName:        c.ProgramName,
		ConfigProgramArgs:        mustJSON(nonNil(c.ProgramArgs)),
		ConfigProgramParallelism: strconv.Itoa(c.ProgramParallelism),
		ConfigProgramRuntimeMode: c.ProgramRuntimeMode.String(),
		ConfigChainedNodeIDs:     mustJSON(nonNil(c.ChainedNodeIDs)),
		ConfigOutEdges:           mustJSON(nonNil(c.OutEdges)),
	}
}

// ReadStreamConfig decodes the config a JobVertex (or a TaskInformation's
// TaskConfiguration) carries. A missing or malformed entry is an error: the
// vertex was not made by CreateJobGraph.
func ReadStreamConfig(configuration map[string]string) (*StreamConfig, error) {
	for _, key := range []string{ConfigProgramName, ConfigProgramArgs, ConfigProgramParallelism, ConfigProgramRuntimeMode, ConfigChainedNodeIDs, ConfigOutEdges} {
		if _, ok := configuration[key]; !ok {
			return nil, fmt.Errorf("not a streaming task configuration: %s is missing", key)
		}
	}

	c := StreamConfig{ProgramName: configuration[ConfigProgramName]}
	parallelism := configuration[ConfigProgramParallelism]
	var err error
	if c.ProgramParallelism, err = strconv.Atoi(parallelism); err != nil {
		return nil, fmt.Errorf("bad %s %q: %w", ConfigProgramParallelism, parallelism, err)
	}
	mode := configuration[ConfigProgramRuntimeMode]
	if c.ProgramRuntimeMode, err = ParseRuntimeExecutionMode(mode); err != nil {
		return nil, fmt.Errorf("bad %s %q: %w", ConfigProgramRuntimeMode, mode, err)
	}
	for _, entry := range []struct {
		key  string
		into any
	}{
		{ConfigProgramArgs, &c.ProgramArgs},
		{ConfigChainedNodeIDs, &c.ChainedNodeIDs},
		{ConfigOutEdges, &c.OutEdges},
	} {
		value := configuration[entry.key]
		if err := json.Unmarshal([]byte(value), entry.into); err != nil {
			return nil, fmt.Errorf("bad %s %q: %w", entry.key, value, err)
		}
	}
	if len(c.ChainedNodeIDs) == 0 {
		return nil, fmt.Errorf("bad %s: the chain has no nodes", ConfigChainedNodeIDs)
	}
	return &c, nil
}

// nonNil turns a nil slice into an empty one, so it encodes as [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// mustJSON encodes values that cannot fail to encode (strings, ints,
// OutEdges).
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("streaming: encode %T: %v", v, err))
	}
	return string(b)
}
