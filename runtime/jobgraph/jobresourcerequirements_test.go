package jobgraph

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

// vertexIDOf parses a JobVertexID from its 32 hex digits.
func vertexIDOf(t *testing.T, hex string) api.JobVertexID {
	t.Helper()
	var id api.JobVertexID
	require.NoError(t, id.UnmarshalText([]byte(hex)))
	return id
}

// bounds is the requirement of one vertex.
func bounds(lower, upper int) JobVertexResourceRequirements {
	return JobVertexResourceRequirements{Parallelism: Parallelism{LowerBound: lower, UpperBound: upper}}
}

// The JSON form is Flink's JobResourceRequirementsBody, both ways.
func TestJobResourceRequirementsJSONIsFlinks(t *testing.T) {
	source := vertexIDOf(t, "bc764cd8ddf7a0cff126f51c16239658")
	sink := vertexIDOf(t, "0a448493b4782967b150582570326227")
	requirements := JobResourceRequirements{source: bounds(1, 4), sink: bounds(2, 2)}
	const flinks = `{
		"bc764cd8ddf7a0cff126f51c16239658": {"parallelism": {"lowerBound": 1, "upperBound": 4}},
		"0a448493b4782967b150582570326227": {"parallelism": {"lowerBound": 2, "upperBound": 2}}
	}`

	got, err := json.Marshal(requirements)
	require.NoError(t, err)
	assert.JSONEq(t, flinks, string(got))

	var read JobResourceRequirements
	require.NoError(t, json.Unmarshal([]byte(flinks), &read))
	assert.Equal(t, requirements, read)

	err = json.Unmarshal([]byte(`{"not-a-vertex-id": {"parallelism": {"lowerBound": 1, "upperBound": 1}}}`), &read)
	assert.Error(t, err, "a key that is no JobVertexID")
}

func TestValidateJobResourceRequirements(t *testing.T) {
	// a < b < c by their hex form, the order of the answers.
	a := vertexIDOf(t, "0a448493b4782967b150582570326227")
	b := vertexIDOf(t, "bc764cd8ddf7a0cff126f51c16239658")
	c := vertexIDOf(t, "ea632d67b7d595e5b851708ae9ad79d6")
	job := map[api.JobVertexID]int{a: 128, b: 4} // max parallelism per vertex

	tests := []struct {
		name         string
		requirements JobResourceRequirements
		want         []string // nil: valid
	}{
		{
			name:         "within the bounds",
			requirements: JobResourceRequirements{a: bounds(1, 128), b: bounds(4, 4)},
		},
		{
			name:         "-1 is the default: 1 below, the max parallelism above",
			requirements: JobResourceRequirements{a: bounds(-1, -1), b: bounds(2, -1)},
		},
		{
			name:         "the lower bound above the upper bound",
			requirements: JobResourceRequirements{a: bounds(3, 2), b: bounds(-1, -1)},
			want: []string{
				"The requested lower bound [3] for job vertex [0a448493b4782967b150582570326227] is higher than the upper bound [2].",
			},
		},
		{
			name:         "the upper bound above the max parallelism",
			requirements: JobResourceRequirements{a: bounds(1, 128), b: bounds(1, 5)},
			want: []string{
				"The newly requested parallelism 5 for the job vertex bc764cd8ddf7a0cff126f51c16239658 exceeds its maximum parallelism 4.",
			},
		},
		{
			name:         "-1 above is the max parallelism, so a lower bound above it fails both checks",
			requirements: JobResourceRequirements{a: bounds(1, 1), b: bounds(5, -1)},
			want: []string{
				"The requested lower bound [5] for job vertex [bc764cd8ddf7a0cff126f51c16239658] is higher than the upper bound [4].",
			},
		},
		{
			name:         "a bound below one is checked no further",
			requirements: JobResourceRequirements{a: bounds(0, 200), b: bounds(-2, -1)},
			want: []string{
				"Both, the requested lower bound [0] and upper bound [200] for job vertex [0a448493b4782967b150582570326227] must be greater than zero.",
				"Both, the requested lower bound [-2] and upper bound [4] for job vertex [bc764cd8ddf7a0cff126f51c16239658] must be greater than zero.",
			},
		},
		{
			name:         "a vertex the job does not have, and one it has left out",
			requirements: JobResourceRequirements{a: bounds(1, 1), c: bounds(1, 1)},
			want: []string{
				"Job vertex [ea632d67b7d595e5b851708ae9ad79d6] was not found in the JobGraph.",
				"The request is incomplete, missing job vertex [bc764cd8ddf7a0cff126f51c16239658] resource requirements.",
			},
		},
		{
			name:         "both checks of one vertex, in Flink's order, then the next vertex",
			requirements: JobResourceRequirements{a: bounds(200, 150), b: bounds(1, 8)},
			want: []string{
				"The requested lower bound [200] for job vertex [0a448493b4782967b150582570326227] is higher than the upper bound [150].",
				"The newly requested parallelism 150 for the job vertex 0a448493b4782967b150582570326227 exceeds its maximum parallelism 128.",
				"The newly requested parallelism 8 for the job vertex bc764cd8ddf7a0cff126f51c16239658 exceeds its maximum parallelism 4.",
			},
		},
		{
			name: "an empty request misses every vertex",
			want: []string{
				"The request is incomplete, missing job vertex [0a448493b4782967b150582570326227] resource requirements.",
				"The request is incomplete, missing job vertex [bc764cd8ddf7a0cff126f51c16239658] resource requirements.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 3 { // the same answer every time, whatever the maps' order
				got := ValidateJobResourceRequirements(tt.requirements, job)
				assert.Equal(t, tt.want, got)
			}
		})
	}
}
