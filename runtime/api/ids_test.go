package api_test

import (
	"encoding"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

func TestParseJobIDRoundTrip(t *testing.T) {
	const hexID = "fd72014d4c864993a2e5a9287b4a9c5d"
	id, err := api.ParseJobID(hexID)
	require.NoError(t, err)
	assert.Equal(t, hexID, id.String())
	assert.False(t, id.IsZero())

	// Flink accepts [0-9a-fA-F]{32} and prints lower case.
	upper, err := api.ParseJobID(strings.ToUpper(hexID))
	require.NoError(t, err)
	assert.Equal(t, id, upper)
	assert.Equal(t, hexID, upper.String())
}

func TestParseJobIDRejectsBadInput(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{"empty", ""},
		{"too short", "abc"},
		{"31 characters", "fd72014d4c864993a2e5a9287b4a9c5"},
		{"33 characters", "fd72014d4c864993a2e5a9287b4a9c5d0"},
		{"64 characters (two IDs)", "fd72014d4c864993a2e5a9287b4a9c5dfd72014d4c864993a2e5a9287b4a9c5d"},
		{"not hex", "gd72014d4c864993a2e5a9287b4a9c5d"},
		{"spaces", " d72014d4c864993a2e5a9287b4a9c5 "},
		{"UUID with dashes", "fd72014d-4c86-4993-a2e5-a9287b4a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				id  api.JobID
				err error
			)
			require.NotPanics(t, func() { id, err = api.ParseJobID(tt.input) })
			require.Error(t, err)
			assert.Contains(t, err.Error(), `Cannot parse JobID from "`+tt.input+`"`)
			assert.True(t, id.IsZero(), "a failed parse must return the zero JobID, got %s", id)
		})
	}
}

func TestParseJobIDErrorIsFlinks(t *testing.T) {
	_, err := api.ParseJobID("xyz")
	require.Error(t, err)
	got, want := err.Error(), `Cannot parse JobID from "xyz". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.`
	assert.Equal(t, want, got)
}

// textID is what every AbstractID type offers: 32 hex characters in and out.
type textID interface {
	encoding.TextMarshaler
	encoding.TextUnmarshaler
	String() string
}

func TestAbstractIDsRoundTripThroughText(t *testing.T) {
	tests := []struct {
		kind  string
		fresh func() textID // a random ID
		empty func() textID // a zero ID to decode into
	}{
		{"JobID", func() textID { id := api.NewJobID(); return &id }, func() textID { return new(api.JobID) }},
		{"JobVertexID", func() textID { id := api.NewJobVertexID(); return &id }, func() textID { return new(api.JobVertexID) }},
		{"IntermediateDataSetID", func() textID { id := api.NewIntermediateDataSetID(); return &id }, func() textID { return new(api.IntermediateDataSetID) }},
		{"AllocationID", func() textID { id := api.NewAllocationID(); return &id }, func() textID { return new(api.AllocationID) }},
		{"ExecutionGraphID", func() textID { id := api.NewExecutionGraphID(); return &id }, func() textID { return new(api.ExecutionGraphID) }},
		{"InstanceID", func() textID { id := api.NewInstanceID(); return &id }, func() textID { return new(api.InstanceID) }},
		{"JobMasterID", func() textID { id := api.NewJobMasterID(); return &id }, func() textID { return new(api.JobMasterID) }},
		{"ResourceManagerID", func() textID { id := api.NewResourceManagerID(); return &id }, func() textID { return new(api.ResourceManagerID) }},
		{"DispatcherID", func() textID { id := api.NewDispatcherID(); return &id }, func() textID { return new(api.DispatcherID) }},
		{"LeaderSessionID", func() textID { id := api.NewLeaderSessionID(); return &id }, func() textID { return new(api.LeaderSessionID) }},
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			id := tt.fresh()
			assert.Regexp(t, hex32, id.String())
			assert.NotEqual(t, id.String(), tt.fresh().String(), "two random IDs should differ")

			// JSON: a plain string of 32 hex characters.
			data, err := json.Marshal(id)
			require.NoError(t, err)
			assert.Equal(t, `"`+id.String()+`"`, string(data))
			back := tt.empty()
			require.NoError(t, json.Unmarshal(data, back))
			assert.Equal(t, id, back)

			// A bad value names the type it was meant to be.
			err = tt.empty().UnmarshalText([]byte("not-an-id"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), `Cannot parse `+tt.kind+` from "not-an-id"`)
		})
	}
}

func TestJobIDInJSONDocument(t *testing.T) {
	type doc struct {
		JobID api.JobID `json:"jobid"`
	}
	want := doc{JobID: api.NewJobID()}
	data, err := json.Marshal(want)
	require.NoError(t, err)
	assert.JSONEq(t, `{"jobid":"`+want.JobID.String()+`"}`, string(data))

	var got doc
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, want, got)

	err = json.Unmarshal([]byte(`{"jobid":"fd72014d4c864993a2e5a9287b4a9c5dfd72014d4c864993a2e5a9287b4a9c5d"}`), &got)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Cannot parse JobID from")
}

func TestZeroIDIsZero(t *testing.T) {
	var id api.JobID
	assert.True(t, id.IsZero())
	assert.Equal(t, "00000000000000000000000000000000", id.String())
	assert.False(t, api.NewJobID().IsZero())
}

func TestFencingTokensShareTheLeaderSessionRepresentation(t *testing.T) {
	session := api.NewLeaderSessionID()
	got := api.JobMasterID(session)
	assert.Equal(t, session.String(), got.String())
	assert.Equal(t, session, api.LeaderSessionID(got))
}

func TestNewResourceID(t *testing.T) {
	id := api.NewResourceID("taskexecutor")
	assert.Regexp(t, `^taskexecutor-[0-9a-f]{6}$`, string(id))
	assert.NotEqual(t, id, api.NewResourceID("taskexecutor"))
}

func TestCompositeIDsPrintLikeFlink(t *testing.T) {
	vertex, err := parse[api.JobVertexID]("0a448493b4782967b150582570326227")
	require.NoError(t, err)
	graph, err := parse[api.ExecutionGraphID]("5f2cde7cc3b47b4ab1b1f3e5c5ca2d4a")
	require.NoError(t, err)
	dataSet, err := parse[api.IntermediateDataSetID]("9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f")
	require.NoError(t, err)

	attempt := api.ExecutionAttemptID{
		ExecutionGraphID:  graph,
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: vertex, SubtaskIndex: 3},
		AttemptNumber:     1,
	}
	partition := api.IntermediateResultPartitionID{IntermediateDataSetID: dataSet, PartitionNum: 2}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"SlotID", api.SlotID{ResourceID: "tm-1", SlotNumber: 4}.String(), "tm-1_4"},
		{"ExecutionVertexID", attempt.ExecutionVertexID.String(), "0a448493b4782967b150582570326227_3"},
		{"ExecutionAttemptID", attempt.String(), "5f2cde7cc3b47b4ab1b1f3e5c5ca2d4a_0a448493b4782967b150582570326227_3_1"},
		{"IntermediateResultPartitionID", partition.String(), "9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f#2"},
		{"ResultPartitionID", api.ResultPartitionID{PartitionID: partition, ProducerID: attempt}.String(),
			"9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f#2@5f2cde7cc3b47b4ab1b1f3e5c5ca2d4a_0a448493b4782967b150582570326227_3_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}
}

func TestExecutionAttemptIDJSONRoundTrip(t *testing.T) {
	want := api.ExecutionAttemptID{
		ExecutionGraphID:  api.NewExecutionGraphID(),
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: api.NewJobVertexID(), SubtaskIndex: 7},
		AttemptNumber:     2,
	}
	data, err := json.Marshal(want)
	require.NoError(t, err)
	var got api.ExecutionAttemptID
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, want, got)
}

// parse decodes 32 hex characters into any of the AbstractID types.
func parse[T any, P interface {
	*T
	encoding.TextUnmarshaler
}](s string) (T, error) {
	var id T
	err := P(&id).UnmarshalText([]byte(s))
	return id, err
}
