package jobgraph

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/blob"
	"flinklab/runtime/configuration"
)

// flatGraph is a JobGraph without pointers, for go-cmp: every reference is
// written as the ID it points to.
type flatGraph struct {
	JobID     string
	Name      string
	Jars      []string
	Resources map[string]api.ResourceProfile
	Vertices  []flatVertex
}

type flatVertex struct {
	ID, Name, Invokable, SlotSharingGroup string
	CoLocationGroup                       string
	Parallelism, MaxParallelism           int
	MinResources                          api.ResourceProfile
	Configuration                         map[string]string
	Inputs                                []flatEdge
	Produced                              []flatDataSet
}

type flatEdge struct {
	DataSet, Producer, Target, Pattern, ShipStrategy string
}

type flatDataSet struct {
	ID, Producer, ResultType string
	Consumers                []string // target vertex IDs
}

func flatten(g *JobGraph) flatGraph {
	out := flatGraph{JobID: g.JobID.String(), Name: g.Name, Resources: g.SlotSharingGroupResources}
	if g.UserJarBlobKeys != nil { // nil and empty differ, as for Configuration
		out.Jars = make([]string, 0, len(g.UserJarBlobKeys))
	}
	for _, key := range g.UserJarBlobKeys {
		out.Jars = append(out.Jars, key.String())
	}
	for _, v := range g.Vertices() {
		fv := flatVertex{
			ID: v.ID.String(), Name: v.Name, Invokable: v.InvokableClassName,
			SlotSharingGroup: v.SlotSharingGroup, CoLocationGroup: v.CoLocationGroup, Parallelism: v.Parallelism,
			MaxParallelism: v.MaxParallelism, MinResources: v.MinResources,
			Configuration: v.Configuration,
		}
		for _, e := range v.Inputs() {
			fv.Inputs = append(fv.Inputs, flatEdge{
				DataSet: e.Source.ID.String(), Producer: e.Source.Producer.ID.String(),
				Target: e.Target.ID.String(), Pattern: e.DistributionPattern.String(),
				ShipStrategy: e.ShipStrategyName,
			})
		}
		for _, ds := range v.ProducedDataSets() {
			fd := flatDataSet{ID: ds.ID.String(), Producer: ds.Producer.ID.String(), ResultType: ds.ResultType.String()}
			for _, e := range ds.Consumers() {
				fd.Consumers = append(fd.Consumers, e.Target.ID.String())
			}
			fv.Produced = append(fv.Produced, fd)
		}
		out.Vertices = append(out.Vertices, fv)
	}
	return out
}

// richGraph uses every field the codec carries.
func richGraph() *JobGraph {
	g, source, mapper, sink := validGraph()
	g.UserJarBlobKeys = []blob.PermanentBlobKey{blob.KeyOf([]byte("wordcount.jar"))}
	source.SlotSharingGroup = "default"
	source.Configuration = map[string]string{"source.path": "/tmp/words", "chaining": "true"}
	mapper.MaxParallelism = 256
	mapper.SlotSharingGroup = "default"
	mapper.MinResources = api.ResourceProfileFromResources(0.5, 64)
	source.CoLocationGroup, mapper.CoLocationGroup = "pair", "pair"
	sink.SlotSharingGroup = "output"
	g.SlotSharingGroupResources = map[string]api.ResourceProfile{
		"output":  api.NewResourceProfile(0.25, configuration.OfMebiBytes(64), 0, configuration.OfMebiBytes(32), 0),
		"default": api.UnknownResourceProfile, // the same as no entry; kept as written
	}
	sink.ConnectNewDataSetAsInput(source, AllToAll, PipelinedBounded) // a second input
	return g
}

func TestCodecRoundTrip(t *testing.T) {
	g := richGraph()

	encoded, err := Encode(g)
	require.NoError(t, err)
	decoded, err := Decode(encoded)
	require.NoError(t, err)

	if diff := cmp.Diff(flatten(g), flatten(decoded)); diff != "" {
		t.Errorf("decoded graph differs (-want +got):\n%s", diff)
	}
	require.NoError(t, decoded.Validate())
	for _, v := range decoded.Vertices() {
		assert.Same(t, v, decoded.Vertex(v.ID), "decoded vertices are indexed by ID")
	}

	reencoded, err := Encode(decoded)
	require.NoError(t, err)
	assert.Equal(t, string(encoded), string(reencoded), "encoding is stable")
}

func TestEncodeFormat(t *testing.T) {
	source, sink := vertex("Source", 2), vertex("Sink", 1)
	sink.ConnectNewDataSetAsInput(source, AllToAll, Blocking).ShipStrategyName = "REBALANCE"
	g := graphOf(source, sink)
	g.JobID = mustJobID(t, "00000000000000000000000000000001")
	source.ID = mustVertexID(t, "0000000000000000000000000000000a")
	sink.ID = mustVertexID(t, "0000000000000000000000000000000b")
	source.ProducedDataSets()[0].ID = mustDataSetID(t, "000000000000000000000000000000d5")

	got, err := Encode(g)
	require.NoError(t, err)

	want := `{
  "jobId": "00000000000000000000000000000001",
  "name": "test job",
  "vertices": [
    {
      "id": "0000000000000000000000000000000a",
      "name": "Source",
      "invokableClassName": "flinklab.NoOpInvokable",
      "parallelism": 2
    },
    {
      "id": "0000000000000000000000000000000b",
      "name": "Sink",
      "invokableClassName": "flinklab.NoOpInvokable",
      "parallelism": 1,
      "inputs": [
        {
          "dataSet": "000000000000000000000000000000d5",
          "distributionPattern": "ALL_TO_ALL",
          "shipStrategy": "REBALANCE"
        }
      ]
    }
  ],
  "dataSets": [
    {
      "id": "000000000000000000000000000000d5",
      "producer": "0000000000000000000000000000000a",
      "resultType": "BLOCKING"
    }
  ]
}`
	assert.Equal(t, want, string(got))
}

// The resources of a slot sharing group and a vertex's co-location group
// are written as in the package's example; a graph without them (as in
// TestEncodeFormat) has neither field.
func TestEncodeSlotSharingAndCoLocation(t *testing.T) {
	count, format := vertex("count", 2), vertex("format -> Sink: print-sink", 2)
	count.SlotSharingGroup, format.SlotSharingGroup = "counting", "counting"
	count.CoLocationGroup, format.CoLocationGroup = "count-and-format", "count-and-format"
	format.ConnectNewDataSetAsInput(count, Pointwise, PipelinedBounded)
	g := graphOf(count, format)
	g.SlotSharingGroupResources = map[string]api.ResourceProfile{
		"counting": api.NewResourceProfile(0.25, configuration.OfMebiBytes(64), 0, configuration.OfMebiBytes(32), 0),
	}

	got, err := Encode(g)
	require.NoError(t, err)

	doc := string(got)
	assert.Contains(t, doc, `
  "slotSharingGroupResources": {
    "counting": {
      "cpuCores": 0.25,
      "taskHeapMemory": 67108864,
      "taskOffHeapMemory": 0,
      "managedMemory": 33554432,
      "networkMemory": 0
    }
  },
  "vertices": [`)
	assert.Equal(t, 2, strings.Count(doc, `"slotSharingGroup": "counting",
      "coLocationGroup": "count-and-format"`))
	decoded, err := Decode(got)
	require.NoError(t, err)
	assert.Equal(t, g.SlotSharingGroupResources, decoded.SlotSharingGroupResources)
	assert.Equal(t, g.SlotSharingGroupResourceProfile("counting"), decoded.SlotSharingGroupResourceProfile("counting"))
	require.NoError(t, decoded.Validate())
}

func TestEncodeRejectsUnencodableGraphs(t *testing.T) {
	g, _, mapper, _ := validGraph()
	mapper.ConnectNewDataSetAsInput(vertex("Outsider", 1), Pointwise, PipelinedBounded)

	_, err := Encode(g)

	require.ErrorIs(t, err, ErrInvalidJobGraph)
	assert.Contains(t, err.Error(), "cannot encode input 1 of vertex Map")

	_, err = Encode(nil)
	assert.ErrorIs(t, err, ErrInvalidJobGraph)
}

const (
	idJob   = "00000000000000000000000000000001"
	idA     = "0000000000000000000000000000000a"
	idB     = "0000000000000000000000000000000b"
	idData  = "000000000000000000000000000000d5"
	idOther = "000000000000000000000000000000ff"
)

// twoVertexJSON returns a valid document. Pairs of old, new strings passed
// in are replaced first, to break it; the $-placeholders then become IDs.
func twoVertexJSON(replacer ...string) string {
	doc := `{
  "jobId": "$JOB",
  "name": "test",
  "vertices": [
    {"id": "$A", "name": "Source", "invokableClassName": "x", "parallelism": 2},
    {"id": "$B", "name": "Sink", "invokableClassName": "x", "parallelism": 1,
     "inputs": [{"dataSet": "$INPUT", "distributionPattern": "ALL_TO_ALL"}]}
  ],
  "dataSets": [{"id": "$DATA", "producer": "$PRODUCER", "resultType": "PIPELINED_BOUNDED"}]
}`
	defaults := []string{"$JOB", idJob, "$A", idA, "$B", idB, "$INPUT", idData, "$DATA", idData, "$PRODUCER", idA}
	return strings.NewReplacer(append(replacer, defaults...)...).Replace(doc)
}

func TestDecode(t *testing.T) {
	g, err := Decode([]byte(twoVertexJSON()))
	require.NoError(t, err)

	assert.Equal(t, idJob, g.JobID.String())
	require.Equal(t, []string{"Source", "Sink"}, names(g.Vertices()))
	source, sink := g.Vertices()[0], g.Vertices()[1]
	require.Len(t, sink.Inputs(), 1)
	edge := sink.Inputs()[0]
	assert.Equal(t, AllToAll, edge.DistributionPattern)
	assert.Same(t, source, edge.Source.Producer)
	assert.Equal(t, []*JobEdge{edge}, source.ProducedDataSets()[0].Consumers())
	assert.NoError(t, g.Validate())
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"not JSON", `{"jobId": `, "Failed to deserialize JobGraph"},
		{"not an object", `[1, 2]`, "Failed to deserialize JobGraph"},
		{"unknown top-level field", strings.Replace(twoVertexJSON(), `"name": "test",`, `"name": "test", "savepoint": "s3://x",`, 1), `unknown field "savepoint"`},
		{"unknown vertex field", twoVertexJSON(`"parallelism": 1,`, `"parallelism": 1, "chained": true,`), `unknown field "chained"`},
		{"trailing data", twoVertexJSON() + `{}`, "unexpected data after the job graph"},
		{"missing job id", twoVertexJSON(`"jobId": "$JOB",`, ``), "the job graph has no jobId"},
		{"malformed job id", twoVertexJSON("$JOB", "not-hex"), "Cannot parse JobID"},
		{"vertex without id", twoVertexJSON(`"id": "$B", `, ``), `vertex 1 ("Sink") has no id`},
		{"two vertices with one id", twoVertexJSON("$B", idA), `vertex 1 ("Sink") has the id ` + idA + ` of vertex "Source"`},
		{"data set without id", twoVertexJSON(`"id": "$DATA", `, ``), "data set 0 has no id"},
		{"unknown producer", twoVertexJSON("$PRODUCER", idOther), "data set " + idData + " names producer " + idOther + ", which is not a vertex of the job graph"},
		{"unknown input data set", twoVertexJSON("$INPUT", idOther), "reads data set " + idOther + ", which is not a data set of the job graph"},
		{"input without pattern", twoVertexJSON(`, "distributionPattern": "ALL_TO_ALL"`, ``), "has no distributionPattern"},
		{"unknown pattern", twoVertexJSON(`"ALL_TO_ALL"`, `"BROADCAST"`), `unknown DistributionPattern "BROADCAST"`},
		{"unknown result type", twoVertexJSON(`"PIPELINED_BOUNDED"`, `"PIPELINED"`), `unknown ResultPartitionType "PIPELINED"`},
		{
			"two data sets with one id",
			strings.Replace(twoVertexJSON(), `"dataSets": [`, `"dataSets": [{"id": "`+idData+`", "producer": "`+idB+`"}, `, 1),
			"data set 1 has the id " + idData + " of an earlier data set",
		},
		{"malformed resources", twoVertexJSON(`"name": "test",`, `"name": "test", "slotSharingGroupResources": {"g": {"cpuCores": "one"}},`), "Failed to deserialize JobGraph"},
		{"resources not a map", twoVertexJSON(`"name": "test",`, `"name": "test", "slotSharingGroupResources": [],`), "Failed to deserialize JobGraph"},
		{"co-location group not a string", twoVertexJSON(`"parallelism": 1,`, `"parallelism": 1, "coLocationGroup": 7,`), "Failed to deserialize JobGraph"},
		{"bad jar key", twoVertexJSON(`"name": "test",`, `"name": "test", "userJarBlobKeys": ["p-123"],`), "invalid permanent BLOB key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Decode([]byte(tt.input))

			require.Error(t, err)
			assert.Nil(t, g)
			assert.True(t, errors.Is(err, ErrInvalidJobGraph), "got %v, want it to wrap ErrInvalidJobGraph", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestDecodeEmptyCollectionsAsOmitted(t *testing.T) {
	spelledOut := twoVertexJSON(`"name": "test",`, `"name": "test", "userJarBlobKeys": [], "slotSharingGroupResources": {},`,
		`"parallelism": 1,`, `"parallelism": 1, "configuration": {},`)

	g, err := Decode([]byte(spelledOut))
	require.NoError(t, err)
	omitted, err := Decode([]byte(twoVertexJSON()))
	require.NoError(t, err)

	assert.Nil(t, g.UserJarBlobKeys)
	assert.Nil(t, g.SlotSharingGroupResources)
	assert.Nil(t, g.Vertices()[1].Configuration)
	if diff := cmp.Diff(flatten(omitted), flatten(g)); diff != "" {
		t.Errorf("empty collections decode differently from omitted ones (-omitted +empty):\n%s", diff)
	}
	encoded, err := Encode(g)
	require.NoError(t, err)
	assert.Equal(t, twoVertexJSONEncoded(t), string(encoded))
}

// twoVertexJSONEncoded is twoVertexJSON as Encode writes it.
func twoVertexJSONEncoded(t *testing.T) string {
	t.Helper()
	g, err := Decode([]byte(twoVertexJSON()))
	require.NoError(t, err)
	encoded, err := Encode(g)
	require.NoError(t, err)
	return string(encoded)
}

func TestDecodeLeavesSemanticChecksToValidate(t *testing.T) {
	g, err := Decode([]byte(twoVertexJSON(`"parallelism": 2`, `"parallelism": 0`)))
	require.NoError(t, err)

	err = g.Validate()

	assert.ErrorIs(t, err, ErrInvalidJobGraph)
	assert.Contains(t, err.Error(), "The parallelism must be at least one, found 0.")
}

func mustJobID(t *testing.T, s string) api.JobID {
	t.Helper()
	id, err := api.ParseJobID(s)
	require.NoError(t, err)
	return id
}

func mustVertexID(t *testing.T, s string) api.JobVertexID {
	t.Helper()
	var id api.JobVertexID
	require.NoError(t, id.UnmarshalText([]byte(s)))
	return id
}

func mustDataSetID(t *testing.T, s string) api.IntermediateDataSetID {
	t.Helper()
	var id api.IntermediateDataSetID
	require.NoError(t, id.UnmarshalText([]byte(s)))
	return id
}

// A BATCH job says so; a STREAMING one, the zero value, says nothing.
func TestEncodeJobType(t *testing.T) {
	source, sink := vertex("Source", 2), vertex("Sink", 2)
	sink.ConnectNewDataSetAsInput(source, AllToAll, Blocking)
	g := graphOf(source, sink)
	streaming, err := Encode(g)
	require.NoError(t, err)
	assert.NotContains(t, string(streaming), "jobType")

	g.JobType = Batch
	batch, err := Encode(g)
	require.NoError(t, err)
	assert.Contains(t, string(batch), `"jobType": "BATCH",`)
	decoded, err := Decode(batch)
	require.NoError(t, err)
	assert.Equal(t, Batch, decoded.JobType)

	_, err = Decode([]byte(strings.Replace(string(batch), `"BATCH"`, `"MICRO_BATCH"`, 1)))
	assert.ErrorContains(t, err, `unknown JobType "MICRO_BATCH": want STREAMING or BATCH`)
}

// A job that starts from a savepoint names it, as Flink's JobGraph carries
// its SavepointRestoreSettings; a job that starts empty says nothing.
func TestEncodeSavepointRestoreSettings(t *testing.T) {
	g := graphOf(vertex("Source", 1))
	empty, err := Encode(g)
	require.NoError(t, err)
	assert.NotContains(t, string(empty), "savepointRestoreSettings")

	g.SavepointRestoreSettings = SavepointRestoreSettingsForPath("/savepoints/savepoint-8d4f2a-0123456789ab", true)
	data, err := Encode(g)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"savepointRestoreSettings": {
    "restorePath": "/savepoints/savepoint-8d4f2a-0123456789ab",
    "allowNonRestoredState": true
  },`)
	decoded, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, g.SavepointRestoreSettings, decoded.SavepointRestoreSettings)
	assert.True(t, decoded.SavepointRestoreSettings.RestoreSavepoint())
	assert.Equal(t, "SavepointRestoreSettings{restorePath='/savepoints/savepoint-8d4f2a-0123456789ab', "+
		"allowNonRestoredState=true, recoveryClaimMode=NO_CLAIM}", decoded.SavepointRestoreSettings.String())
	assert.Equal(t, "SavepointRestoreSettings.none()", SavepointRestoreSettingsNone.String())
}
