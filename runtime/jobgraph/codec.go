package jobgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
)

// The JSON form of a JobGraph is what a client sends with POST /jobs (step
// m2) and what the JobGraphStore writes to disk (step m3). It reads top to
// bottom like the graph itself: the vertices in insertion order, each with
// the data sets it reads, then the data sets, each naming its producer.
//
//	{
//	  "jobId": "8d4f...", "name": "WordCount",
//	  "vertices": [
//	    {"id": "a1...", "name": "Source: Words", "invokableClassName": "...", "parallelism": 2},
//	    {"id": "b2...", "name": "Count", "invokableClassName": "...", "parallelism": 2,
//	     "inputs": [{"dataSet": "c3...", "distributionPattern": "ALL_TO_ALL", "shipStrategy": "HASH"}]}
//	  ],
//	  "dataSets": [{"id": "c3...", "producer": "a1...", "resultType": "PIPELINED_BOUNDED"}]
//	}
//
// A job that starts from a savepoint (flink run -s) names it before the
// vertices; a job that starts empty leaves it out:
//
//	"savepointRestoreSettings": {"restorePath": "/savepoints/savepoint-8d4f2a-…", "allowNonRestoredState": true},
//
// Slot sharing groups with resources are listed before the vertices, in
// bytes for memory (api.ResourceProfile's JSON), and a vertex names its
// co-location group after its slot sharing group; both are left out when
// the program set none:
//
//	"slotSharingGroupResources": {"counting": {"cpuCores": 0.25, "taskHeapMemory": 67108864,
//	    "taskOffHeapMemory": 0, "managedMemory": 33554432, "networkMemory": 0}},
//	"vertices": [{..., "slotSharingGroup": "counting", "coLocationGroup": "count-and-format"}]
//
// Differs from Flink: Flink ships the JobGraph as a Java-serialized object
// in a file next to the request; JSON lets a learner read and edit it.
type jobGraphJSON struct {
	JobID                     api.JobID                      `json:"jobId"`
	Name                      string                         `json:"name"`
	JobType                   JobType                        `json:"jobType,omitzero"` // STREAMING when omitted
	UserJarBlobKeys           []blob.PermanentBlobKey        `json:"userJarBlobKeys,omitempty"`
	SlotSharingGroupResources map[string]api.ResourceProfile `json:"slotSharingGroupResources,omitempty"`
	SavepointRestoreSettings  SavepointRestoreSettings       `json:"savepointRestoreSettings,omitzero"`
	Vertices                  []vertexJSON                   `json:"vertices"`
	DataSets                  []dataSetJSON                  `json:"dataSets"`
}

type vertexJSON struct {
	ID                 api.JobVertexID     `json:"id"`
	Name               string              `json:"name"`
	InvokableClassName string              `json:"invokableClassName"`
	Parallelism        int                 `json:"parallelism"`
	MaxParallelism     int                 `json:"maxParallelism,omitempty"`
	SlotSharingGroup   string              `json:"slotSharingGroup,omitempty"`
	CoLocationGroup    string              `json:"coLocationGroup,omitempty"`
	MinResources       api.ResourceProfile `json:"minResources,omitzero"`
	Configuration      map[string]string   `json:"configuration,omitempty"`
	OperatorIDs        []api.OperatorID    `json:"operatorIds,omitempty"`
	Inputs             []inputJSON         `json:"inputs,omitempty"`
}

// inputJSON is one JobEdge, written at its target vertex.
type inputJSON struct {
	DataSet             api.IntermediateDataSetID `json:"dataSet"`
	DistributionPattern *DistributionPattern      `json:"distributionPattern"` // required: there is no natural default
	ShipStrategy        string                    `json:"shipStrategy,omitempty"`
}

type dataSetJSON struct {
	ID         api.IntermediateDataSetID `json:"id"`
	Producer   api.JobVertexID           `json:"producer"`
	ResultType ResultPartitionType       `json:"resultType"` // PIPELINED_BOUNDED when omitted
}

// Encode writes the graph as indented JSON. The output depends only on the
// graph (vertices in insertion order, map keys sorted), so encoding the same
// graph twice gives the same bytes. Encode fails, wrapping
// ErrInvalidJobGraph, when the graph cannot be written down: an edge
// without a source, or an edge reading a data set that no vertex of the
// graph produces.
func Encode(g *JobGraph) ([]byte, error) {
	if g == nil {
		return nil, invalid("cannot encode a nil job graph")
	}
	doc := jobGraphJSON{
		JobID:                     g.JobID,
		Name:                      g.Name,
		JobType:                   g.JobType,
		UserJarBlobKeys:           g.UserJarBlobKeys,
		SlotSharingGroupResources: g.SlotSharingGroupResources,
		SavepointRestoreSettings:  g.SavepointRestoreSettings,
		Vertices:                  make([]vertexJSON, 0, len(g.vertices)),
		DataSets:                  []dataSetJSON{},
	}

	// Data sets first, so that inputs can be checked against them.
	listed := make(map[*IntermediateDataSet]bool)
	for _, v := range g.vertices {
		for _, ds := range v.producedDataSets {
			doc.DataSets = append(doc.DataSets, dataSetJSON{ID: ds.ID, Producer: v.ID, ResultType: ds.ResultType})
			listed[ds] = true
		}
	}

	for _, v := range g.vertices {
		vj := vertexJSON{
			ID:                 v.ID,
			Name:               v.Name,
			InvokableClassName: v.InvokableClassName,
			Parallelism:        v.Parallelism,
			MaxParallelism:     v.MaxParallelism,
			SlotSharingGroup:   v.SlotSharingGroup,
			CoLocationGroup:    v.CoLocationGroup,
			MinResources:       v.MinResources,
			Configuration:      v.Configuration,
			OperatorIDs:        v.OperatorIDs,
		}
		for i, edge := range v.inputs {
			if !listed[edge.Source] {
				return nil, invalid("cannot encode input %d of vertex %s: it reads a data set that no vertex of the job graph produces", i, v)
			}
			pattern := edge.DistributionPattern
			vj.Inputs = append(vj.Inputs, inputJSON{
				DataSet:             edge.Source.ID,
				DistributionPattern: &pattern,
				ShipStrategy:        edge.ShipStrategyName,
			})
		}
		doc.Vertices = append(doc.Vertices, vj)
	}

	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, invalid("cannot encode job graph %s: %v", g.JobID, err)
	}
	return out, nil
}

// Decode reads a graph written by Encode. It rejects, with an error
// wrapping ErrInvalidJobGraph, anything that is not exactly that format:
// malformed JSON, unknown fields, trailing data, missing or reused IDs, a
// data set whose producer is not a vertex of the graph, and an input that
// reads a data set the graph does not hold. It never panics, whatever the
// input.
//
// An empty userJarBlobKeys list, slotSharingGroupResources map or
// configuration map decodes as nil, as if it were omitted, which is how
// Encode writes it.
//
// Decode checks only what it needs to rebuild the graph; call Validate for
// the rest (parallelism, invokable class, cycles), as the Dispatcher does.
func Decode(data []byte) (*JobGraph, error) {
	var doc jobGraphJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, invalid("Failed to deserialize JobGraph: %v", err)
	}
	if err := dec.Decode(&json.RawMessage{}); !errors.Is(err, io.EOF) {
		return nil, invalid("Failed to deserialize JobGraph: unexpected data after the job graph")
	}
	if doc.JobID.IsZero() {
		return nil, invalid("the job graph has no jobId")
	}

	g := &JobGraph{
		JobID:                     doc.JobID,
		Name:                      doc.Name,
		JobType:                   doc.JobType,
		UserJarBlobKeys:           doc.UserJarBlobKeys,
		SlotSharingGroupResources: doc.SlotSharingGroupResources,
		SavepointRestoreSettings:  doc.SavepointRestoreSettings,
		vertexByID:                make(map[api.JobVertexID]*JobVertex, len(doc.Vertices)),
	}
	// Encode omits empty lists and maps, so an empty one decodes as nil:
	// the graph is the same whether the document spells it out or not.
	if len(g.UserJarBlobKeys) == 0 {
		g.UserJarBlobKeys = nil
	}
	if len(g.SlotSharingGroupResources) == 0 {
		g.SlotSharingGroupResources = nil
	}

	// 1. The vertices, without their connections.
	for i, vj := range doc.Vertices {
		if vj.ID.IsZero() {
			return nil, invalid("vertex %d (%q) has no id", i, vj.Name)
		}
		if other := g.vertexByID[vj.ID]; other != nil {
			return nil, invalid("vertex %d (%q) has the id %s of vertex %q", i, vj.Name, vj.ID, other.Name)
		}
		if len(vj.Configuration) == 0 {
			vj.Configuration = nil
		}
		g.AddVertex(&JobVertex{
			ID:                 vj.ID,
			Name:               vj.Name,
			Parallelism:        vj.Parallelism,
			MaxParallelism:     vj.MaxParallelism,
			InvokableClassName: vj.InvokableClassName,
			SlotSharingGroup:   vj.SlotSharingGroup,
			CoLocationGroup:    vj.CoLocationGroup,
			MinResources:       vj.MinResources,
			Configuration:      vj.Configuration,
			OperatorIDs:        vj.OperatorIDs,
		})
	}

	// 2. The data sets, attached to their producers.
	dataSets := make(map[api.IntermediateDataSetID]*IntermediateDataSet, len(doc.DataSets))
	for i, dj := range doc.DataSets {
		if dj.ID.IsZero() {
			return nil, invalid("data set %d has no id", i)
		}
		if dataSets[dj.ID] != nil {
			return nil, invalid("data set %d has the id %s of an earlier data set", i, dj.ID)
		}
		producer := g.vertexByID[dj.Producer]
		if producer == nil {
			return nil, invalid("data set %s names producer %s, which is not a vertex of the job graph", dj.ID, dj.Producer)
		}
		dataSets[dj.ID] = producer.createAndAddResultDataSet(dj.ID, dj.ResultType)
	}

	// 3. The edges, from each vertex's inputs.
	for i, vj := range doc.Vertices {
		v := g.vertices[i]
		for j, in := range vj.Inputs {
			source := dataSets[in.DataSet]
			if source == nil {
				return nil, invalid("input %d of vertex %s reads data set %s, which is not a data set of the job graph", j, v, in.DataSet)
			}
			if in.DistributionPattern == nil {
				return nil, invalid("input %d of vertex %s has no distributionPattern", j, v)
			}
			v.addInput(&JobEdge{
				Source:              source,
				Target:              v,
				DistributionPattern: *in.DistributionPattern,
				ShipStrategyName:    in.ShipStrategy,
			})
		}
	}
	return g, nil
}
