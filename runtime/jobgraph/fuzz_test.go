package jobgraph

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// FuzzDecode feeds arbitrary bytes to Decode. Besides the seeds below, the
// corpus committed under testdata/fuzz/FuzzDecode holds a valid graph, a
// cycle, a self loop, dangling edges, huge and negative parallelisms,
// unknown fields, truncated JSON and trailing data. It checks that
//
//   - Decode never panics, and fails only with an error wrapping
//     ErrInvalidJobGraph and no graph;
//   - Validate, the topological sort and SlotSharingGroups never panic on a
//     graph Decode accepts, Validate fails only with ErrInvalidJobGraph, and
//     a sort that succeeds puts every vertex after the vertices it reads;
//   - a decoded graph encodes, the encoding decodes to an equal graph with
//     the same Validate outcome, and encoding that graph gives the same
//     bytes again.
//
// Run it with
//
//	go test -run='^$' -fuzz='^FuzzDecode$' -fuzztime=30s ./runtime/jobgraph/
func FuzzDecode(f *testing.F) {
	valid, err := Encode(richGraph())
	require.NoError(f, err)
	f.Add(valid)
	f.Add([]byte(twoVertexJSON()))
	f.Add([]byte(twoVertexJSON("$PRODUCER", idB))) // a self loop
	f.Add([]byte(twoVertexJSON("$INPUT", idOther)))
	f.Add([]byte(`{"jobId": "` + idJob + `", "vertices": null, "dataSets": null}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"vertices": [{"inputs": [null]}]}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(data)
		if err != nil {
			if g != nil {
				t.Fatalf("Decode returned a graph and an error %v", err)
			}
			if !errors.Is(err, ErrInvalidJobGraph) {
				t.Fatalf("Decode error %v does not wrap ErrInvalidJobGraph", err)
			}
			return
		}

		// Whatever decodes must survive the rest of the package.
		validateErr := g.Validate()
		if validateErr != nil && !errors.Is(validateErr, ErrInvalidJobGraph) {
			t.Fatalf("Validate error %v does not wrap ErrInvalidJobGraph", validateErr)
		}
		if sorted, err := g.VerticesSortedTopologicallyFromSources(); err == nil {
			checkTopologicalOrder(t, g, sorted)
		} else if !errors.Is(err, ErrInvalidJobGraph) {
			t.Fatalf("VerticesSortedTopologicallyFromSources error %v does not wrap ErrInvalidJobGraph", err)
		}
		_ = g.SlotSharingGroups()

		// It encodes to a document that decodes to the same graph...
		encoded, err := Encode(g)
		if err != nil {
			t.Fatalf("Encode of a decoded graph failed: %v", err)
		}
		again, err := Decode(encoded)
		if err != nil {
			t.Fatalf("Decode of an encoded graph failed: %v\n%s", err, encoded)
		}
		if diff := cmp.Diff(flatten(g), flatten(again)); diff != "" {
			t.Fatalf("round trip changed the graph (-first +second):\n%s", diff)
		}
		if againErr := again.Validate(); errorText(againErr) != errorText(validateErr) {
			t.Fatalf("round trip changed Validate from %v to %v", validateErr, againErr)
		}
		// ...and the encoding is a fixed point.
		reencoded, err := Encode(again)
		if err != nil {
			t.Fatalf("Encode of a round-tripped graph failed: %v", err)
		}
		if !bytes.Equal(encoded, reencoded) {
			t.Fatalf("encoding is not stable:\nfirst:\n%s\nsecond:\n%s", encoded, reencoded)
		}
	})
}

// checkTopologicalOrder fails t unless sorted holds every vertex of g once,
// each after the producers of all its inputs.
func checkTopologicalOrder(t *testing.T, g *JobGraph, sorted []*JobVertex) {
	t.Helper()
	if len(sorted) != len(g.Vertices()) {
		t.Fatalf("topological sort returned %d vertices, the graph holds %d", len(sorted), len(g.Vertices()))
	}
	position := make(map[*JobVertex]int, len(sorted))
	for i, v := range sorted {
		if _, twice := position[v]; twice {
			t.Fatalf("topological sort returned vertex %s twice", v)
		}
		position[v] = i
	}
	for i, v := range sorted {
		for _, edge := range v.Inputs() {
			if p, ok := position[edge.Source.Producer]; !ok || p >= i {
				t.Fatalf("topological sort put vertex %s at %d, before its producer %s", v, i, edge.Source.Producer)
			}
		}
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
