package jobgraph

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"flinklab/runtime/api"
)

// JobResourceRequirements are the parallelism bounds of a job's vertices,
// one entry per vertex (Flink's JobResourceRequirements): what GET
// /jobs/{jobid}/resource-requirements answers and PUT asks for. A
// scheduler that can rescale (the AdaptiveScheduler) runs each vertex at a
// parallelism between the bounds, as high as the slots it gets allow; the
// DefaultScheduler runs each vertex at exactly its parallelism and refuses
// to change it.
//
// Its JSON form is Flink's JobResourceRequirementsBody, keyed by the
// vertices' IDs:
//
//	{"bc764cd8ddf7a0cff126f51c16239658": {"parallelism": {"lowerBound": 1, "upperBound": 4}}}
//
// Check requirements against a job with ValidateJobResourceRequirements
// before applying them.
type JobResourceRequirements map[api.JobVertexID]JobVertexResourceRequirements

// JobVertexResourceRequirements are one vertex's requirements (Flink's
// JobVertexResourceRequirements): for now only its parallelism.
type JobVertexResourceRequirements struct {
	Parallelism Parallelism `json:"parallelism"`
}

// Parallelism bounds the number of a vertex's parallel subtasks (Flink's
// JobVertexResourceRequirements.Parallelism). In a request, -1 stands for
// the default: 1 as the lower bound, the vertex's max parallelism as the
// upper bound.
type Parallelism struct {
	LowerBound int `json:"lowerBound"`
	UpperBound int `json:"upperBound"`
}

// ValidateJobResourceRequirements checks requirements against a job whose
// vertices have the given max parallelism, and returns what is wrong with
// them in Flink's words (JobResourceRequirements#validate), or nil. The
// rules are Flink's:
//
//   - every vertex of the job has requirements, and every vertex with
//     requirements is one of the job's;
//   - a bound of -1 means the default (1 for the lower bound, the max
//     parallelism for the upper one), and is replaced before the checks;
//   - both bounds are greater than zero (if not, the vertex is checked no
//     further);
//   - the lower bound is not higher than the upper bound;
//   - the upper bound does not exceed the vertex's max parallelism.
//
// Flink lists the errors in the order of its hash sets; here they come in
// the same two passes, the vertices with requirements first, then the
// vertices without, and within each pass sorted by vertex ID, so that the
// same request always gets the same answer.
func ValidateJobResourceRequirements(requirements JobResourceRequirements, maxParallelismPerVertex map[api.JobVertexID]int) []string {
	var errs []string
	for _, id := range sortedVertexIDs(maps.Keys(requirements)) {
		maxParallelism, ok := maxParallelismPerVertex[id]
		if !ok {
			errs = append(errs, fmt.Sprintf("Job vertex [%s] was not found in the JobGraph.", id))
			continue
		}
		lowerBound, upperBound := requirements[id].Parallelism.LowerBound, requirements[id].Parallelism.UpperBound
		if lowerBound == -1 {
			lowerBound = 1
		}
		if upperBound == -1 {
			upperBound = maxParallelism
		}
		if lowerBound < 1 || upperBound < 1 {
			errs = append(errs, fmt.Sprintf(
				"Both, the requested lower bound [%d] and upper bound [%d] for job vertex [%s] must be greater than zero.",
				lowerBound, upperBound, id))
			continue // Flink: don't validate this vertex any further, to avoid additional noise
		}
		if lowerBound > upperBound {
			errs = append(errs, fmt.Sprintf("The requested lower bound [%d] for job vertex [%s] is higher than the upper bound [%d].",
				lowerBound, id, upperBound))
		}
		if maxParallelism < upperBound {
			errs = append(errs, fmt.Sprintf("The newly requested parallelism %d for the job vertex %s exceeds its maximum parallelism %d.",
				upperBound, id, maxParallelism))
		}
	}
	for _, id := range sortedVertexIDs(maps.Keys(maxParallelismPerVertex)) {
		if _, ok := requirements[id]; !ok {
			errs = append(errs, fmt.Sprintf("The request is incomplete, missing job vertex [%s] resource requirements.", id))
		}
	}
	return errs
}

// sortedVertexIDs returns the IDs sorted by their hex form.
func sortedVertexIDs(ids iter.Seq[api.JobVertexID]) []api.JobVertexID {
	return slices.SortedFunc(ids, func(a, b api.JobVertexID) int { return strings.Compare(a.String(), b.String()) })
}
