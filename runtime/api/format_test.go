package api_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// Every identifier prints as Flink prints it, whatever the verb: a test's
// failure, a log line and a debugger all show the ID the logs show.
func TestIDsPrintAsFlinkPrintsThemInEveryFormat(t *testing.T) {
	const hexID = "26ea3f0c9b1d4e5f8a7b6c5d4e3f2a1b"
	vertex := must(parse[api.JobVertexID]("0a448493b4782967b150582570326227"))
	graph := must(parse[api.ExecutionGraphID]("5f2cde7cc3b47b4ab1b1f3e5c5ca2d4a"))
	attempt := api.ExecutionAttemptID{
		ExecutionGraphID:  graph,
		ExecutionVertexID: api.ExecutionVertexID{JobVertexID: vertex, SubtaskIndex: 3},
		AttemptNumber:     1,
	}
	partition := api.IntermediateResultPartitionID{IntermediateDataSetID: must(parse[api.IntermediateDataSetID](hexID)), PartitionNum: 2}
	tests := []struct {
		name string
		id   any
		want string
	}{
		{"JobID", must(parse[api.JobID](hexID)), hexID},
		{"JobVertexID", must(parse[api.JobVertexID](hexID)), hexID},
		{"IntermediateDataSetID", must(parse[api.IntermediateDataSetID](hexID)), hexID},
		{"AllocationID", must(parse[api.AllocationID](hexID)), hexID},
		{"ExecutionGraphID", must(parse[api.ExecutionGraphID](hexID)), hexID},
		{"InstanceID", must(parse[api.InstanceID](hexID)), hexID},
		{"JobMasterID", must(parse[api.JobMasterID](hexID)), hexID},
		{"ResourceManagerID", must(parse[api.ResourceManagerID](hexID)), hexID},
		{"DispatcherID", must(parse[api.DispatcherID](hexID)), hexID},
		{"LeaderSessionID", must(parse[api.LeaderSessionID](hexID)), hexID},
		{"a zero JobID", api.JobID{}, "00000000000000000000000000000000"},
		{"SlotID", api.SlotID{ResourceID: "tm-1", SlotNumber: 4}, "tm-1_4"},
		{"ExecutionVertexID", attempt.ExecutionVertexID, "0a448493b4782967b150582570326227_3"},
		{"ExecutionAttemptID", attempt, "5f2cde7cc3b47b4ab1b1f3e5c5ca2d4a_0a448493b4782967b150582570326227_3_1"},
		{"IntermediateResultPartitionID", partition, hexID + "#2"},
		{"ResultPartitionID", api.ResultPartitionID{PartitionID: partition, ProducerID: attempt},
			hexID + "#2@5f2cde7cc3b47b4ab1b1f3e5c5ca2d4a_0a448493b4782967b150582570326227_3_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, verb := range []string{"%v", "%s", "%+v", "%#v"} {
				got := fmt.Sprintf(verb, tt.id)
				assert.Equal(t, tt.want, got, verb)
			}
			got := fmt.Sprintf("%#v", []any{tt.id})
			assert.Equal(t, "[]interface {}{"+tt.want+"}", got, "%#v of a slice holding the ID")
		})
	}
}

// The lifecycles and the resource profile print as Flink prints them with
// %#v too: testify's "expected" and "actual" say INITIALIZING, not 9.
func TestStatesAndProfilesPrintAsFlinkPrintsThem(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"ExecutionState", api.ExecutionInitializing, "INITIALIZING"},
		{"JobStatus", api.JobCancelling, "CANCELLING"},
		{"an unknown ResourceProfile", api.UnknownResourceProfile, "ResourceProfile{UNKNOWN}"},
		{"a ResourceProfile", api.ResourceProfileFromResources(1, 512),
			"ResourceProfile{cpuCores=1, taskHeapMemory=512.000mb (536870912 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, verb := range []string{"%v", "%#v"} {
				assert.Equal(t, tt.want, fmt.Sprintf(verb, tt.v), verb)
			}
		})
	}
	var f failure
	require.False(t, assert.Equal(&f, []api.ExecutionState{api.ExecutionInitializing, api.ExecutionRunning},
		[]api.ExecutionState{api.ExecutionInitializing, api.ExecutionFailed}))
	assert.Contains(t, f.message, "expected: []api.ExecutionState{INITIALIZING, RUNNING}")
	assert.Contains(t, f.message, "actual  : []api.ExecutionState{INITIALIZING, FAILED}")
}

// A ResourceID is a free-form string, as in Flink: %#v quotes it, so that
// an empty one shows.
func TestResourceIDPrintsAsItsString(t *testing.T) {
	id := api.ResourceID("tm-1")
	assert.Equal(t, "tm-1", fmt.Sprintf("%v", id))
	assert.Equal(t, `"tm-1"`, fmt.Sprintf("%#v", id))
}

func TestAZeroIDHasOneRepresentation(t *testing.T) {
	parsed := must(parse[api.JobID]("00000000000000000000000000000000"))
	assert.True(t, parsed.IsZero())
	assert.Equal(t, api.JobID{}, parsed, "the zero ID parsed and the zero value are one ID")

	upper := must(api.ParseJobID("FD72014D4C864993A2E5A9287B4A9C5D"))
	lower := must(api.ParseJobID("fd72014d4c864993a2e5a9287b4a9c5d"))
	assert.Equal(t, lower, upper, "an ID parsed in upper case is the same ID")
	assert.True(t, lower == upper, "and equal as a map key")
}

// failure is a testify TestingT that keeps what a failed assertion says.
type failure struct{ message string }

func (f *failure) Errorf(format string, args ...any) { f.message += fmt.Sprintf(format, args...) }

// testify prints "expected" and "actual" with %#v and its diff with its
// own dump of the values' fields, ignoring their methods: both must show
// the IDs as Flink prints them, not as bytes.
func TestTestifyFailuresShowIDsAsFlinkPrintsThem(t *testing.T) {
	type slot struct {
		Job        api.JobID
		Allocation api.AllocationID
		Attempt    api.ExecutionAttemptID
	}
	want := slot{Job: api.NewJobID(), Allocation: api.NewAllocationID(), Attempt: api.ExecutionAttemptID{ExecutionGraphID: api.NewExecutionGraphID()}}
	got := want
	got.Allocation = api.NewAllocationID()

	tests := []struct {
		name   string
		assert func(assert.TestingT) bool
		shows  []string // beside both allocations
	}{
		{"a struct", func(t assert.TestingT) bool { return assert.Equal(t, want, got) }, []string{
			"expected: api_test.slot{Job:" + want.Job.String() + ", Allocation:" + want.Allocation.String(),
			"-  abstractID: (api.abstractID) (len=32) \"" + want.Allocation.String() + "\"", // the diff
			"+  abstractID: (api.abstractID) (len=32) \"" + got.Allocation.String() + "\"",
		}},
		{"a map", func(t assert.TestingT) bool {
			return assert.Equal(t, map[api.AllocationID]api.JobID{want.Allocation: want.Job}, map[api.AllocationID]api.JobID{got.Allocation: got.Job})
		}, []string{"expected: map[api.AllocationID]api.JobID{" + want.Allocation.String() + ":" + want.Job.String() + "}"}},
		{"a slice, in any order", func(t assert.TestingT) bool {
			return assert.ElementsMatch(t, []api.AllocationID{want.Allocation}, []api.AllocationID{got.Allocation})
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f failure
			require.False(t, tt.assert(&f), "the assertion must fail")
			assert.NotContains(t, f.message, "0x", "no ID as bytes")
			assert.NotContains(t, f.message, "00000000 ", "no ID as a hex dump")
			for _, s := range append(tt.shows, want.Allocation.String(), got.Allocation.String()) {
				assert.Contains(t, f.message, s)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
