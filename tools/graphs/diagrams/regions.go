package diagrams

import (
	"bytes"
	"fmt"
	"strings"

	"flinklab/runtime/examples/pipelines"
	"flinklab/runtime/examples/wordcount"
	"flinklab/tools/graphs/dot"
	"flinklab/tools/graphs/explain"
	"flinklab/tools/graphs/regions"
)

// RegionsFile names the file of a regions view: <name>-regions.dot.
func RegionsFile(name string) string { return name + "-regions.dot" }

// PlanRegions works out the pipelined regions of input (see JobGraphFor)
// and, when failed names one of its subtasks ("NAME (i/p)"), what region
// failover restarts when it fails (package regions). It returns the name
// its files are given.
func PlanRegions(input string, args []string, parallelism int, failed string) (string, *regions.Job, error) {
	name, g, err := JobGraphFor(input, args, parallelism)
	if err != nil {
		return "", nil, err
	}
	var job *regions.Job
	if failed == "" {
		job, err = regions.Of(g)
	} else {
		job, err = regions.Fail(g, failed)
	}
	if err != nil {
		return "", nil, fmt.Errorf("regions of %s: %w", input, err)
	}
	return name, job, nil
}

// regionViews are the committed regions views (-regions): a program with
// its arguments at a parallelism, with one subtask failed, under a name of
// its own, and what the README says of it.
var regionViews = []struct {
	name        string
	class       string
	args        []string
	parallelism int
	failed      string
	title       string
	about       string
}{
	{"pipelines", pipelines.ProgramClass, nil, 4, "work -> Sink: print-sink (2/4)",
		"Pipelines at parallelism 4, one subtask failed",
		"The program `pipelines` (runtime/examples/pipelines) is four pipelines side by side: its " +
			"only exchange is FORWARD, POINTWISE and pipelined, so subtask i of the source and subtask i " +
			"of `work` are region i, and nothing joins two regions. When `work` (2/4) fails, region " +
			"failover restarts its region, 2 subtasks of 8, and the other three pipelines keep running."},
	{"wordcount-batch", wordcount.ProgramClass, []string{"--execution-mode", "BATCH"}, 2, "Source: file-input -> tokenizer (1/2)",
		"WordCount in BATCH at parallelism 2, a source subtask failed",
		"In BATCH the keyBy exchange is BLOCKING: each source subtask writes its whole result " +
			"before a counter reads it, so every subtask is a region of its own. When source (1/2) " +
			"fails, its region restarts, and so do both counters, which read the result it will produce " +
			"again; source (2/2) keeps its finished result, which the counters read again. In STREAMING " +
			"the same exchange is pipelined and ALL_TO_ALL, the job is one region, and any failure " +
			"restarts all four subtasks."},
}

// regionsCommand is the command line that draws a regions view.
func regionsCommand(class string, args []string, parallelism int, failed string) string {
	cmd := fmt.Sprintf("go run ./tools/graphs -regions -fail %q -p %d %s", failed, parallelism, class)
	if len(args) > 0 {
		cmd += " " + strings.Join(args, " ")
	}
	return cmd
}

// regionsView is a drawn regions view, for the README.
type regionsView struct{ Name, Title, About, Command, Text string }

// generateRegions adds the regions views to files and returns them for
// the README, each with the text -regions prints.
func generateRegions(files map[string][]byte) ([]regionsView, error) {
	var drawn []regionsView
	for _, view := range regionViews {
		_, job, err := PlanRegions(view.class, view.args, view.parallelism, view.failed)
		if err != nil {
			return nil, err
		}
		files[RegionsFile(view.name)] = dot.Regions(job)
		var text bytes.Buffer
		explain.WriteRegions(&text, job)
		drawn = append(drawn, regionsView{
			Name: view.name, Title: view.title, About: view.about,
			Command: regionsCommand(view.class, view.args, view.parallelism, view.failed),
			Text:    strings.TrimRight(text.String(), "\n"),
		})
	}
	return drawn, nil
}
