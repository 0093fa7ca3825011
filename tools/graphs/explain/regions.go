package explain

import (
	"fmt"
	"io"
	"strings"

	"flinklab/tools/graphs/regions"
)

// maxKeptListed is how many regions that keep running are listed one by
// one after a failure; the others are counted.
const maxKeptListed = 8

// WriteRegions prints a job's pipelined regions (package regions): its
// JobEdges with the result type that decides whether they join regions,
// then each region with its subtasks and, after a failure, what the
// RestartPipelinedRegionFailoverStrategy restarts and why, region by
// region.
func WriteRegions(w io.Writer, j *regions.Job) {
	fmt.Fprintf(w, "%s: %s, %s\n", j.Name, count(len(j.Regions), "pipelined region", "pipelined regions"), count(j.NumberOfSubtasks(), "subtask", "subtasks"))
	fmt.Fprintln(w, "JobEdges (a pipelined result joins the regions at its two ends, a BLOCKING one does not):")
	var edges [][2]string
	for _, e := range j.Edges {
		edges = append(edges, [2]string{fmt.Sprintf("%s → %s", e.Producer, e.Consumer), fmt.Sprintf("%v %s, %v", e.DistributionPattern, e.ShipStrategy, e.ResultType)})
	}
	writeRows(w, edges)
	if j.Failed == nil {
		fmt.Fprintln(w, "Regions (each deployed together, and restarted together by region failover):")
		for i, r := range j.Regions {
			if i == maxRegionsListed {
				fmt.Fprintf(w, "  … and %d more regions\n", len(j.Regions)-i)
				break
			}
			fmt.Fprintf(w, "  region %d: %s\n", r.Number, regionSubtasks(r.Subtasks))
		}
		return
	}

	fmt.Fprintf(w, "\n%s fails: the RestartPipelinedRegionFailoverStrategy restarts %d of %s\n", j.Failed, len(j.Restart), count(j.NumberOfSubtasks(), "subtask", "subtasks"))
	fmt.Fprintln(w, "(every BLOCKING result can still be read):")
	kept := 0
	for _, r := range j.Regions {
		if r.Why == regions.Keeps {
			kept++
			if kept <= maxKeptListed {
				fmt.Fprintf(w, "  region %d keeps running: %s\n", r.Number, regionSubtasks(r.Subtasks))
			}
			continue
		}
		fmt.Fprintf(w, "  region %d restarts, %s: %s\n", r.Number, r.Reason(), regionSubtasks(r.Subtasks))
	}
	if kept > maxKeptListed {
		fmt.Fprintf(w, "  … and %d more regions keep running\n", kept-maxKeptListed)
	}
	fmt.Fprintf(w, "Tasks needing restart: %s\n", regionSubtasks(j.Restart))
}

// regionSubtasks lists subtasks as Flink prints them, separated by commas.
func regionSubtasks(subtasks []regions.Subtask) string {
	names := make([]string, len(subtasks))
	for i, s := range subtasks {
		names[i] = s.String()
	}
	return strings.Join(names, ", ")
}
