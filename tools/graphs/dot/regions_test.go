package dot

import (
	"bytes"
	"testing"

	"flinklab/runtime/examples/pipelines"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/regions"
)

// planProgram plans a registered program at parallelism p.
func planProgram(t *testing.T, program string, args []string, p int) *jobgraph.JobGraph {
	t.Helper()
	sg, err := streaming.PlanProgram(program, args, p)
	if err != nil {
		t.Fatal(err)
	}
	jg, err := sg.JobGraph()
	if err != nil {
		t.Fatal(err)
	}
	return jg
}

// Pipelines at parallelism 4 with one subtask failed: four regions of one
// pipeline each, joined inside by a solid (pipelined) arrow; the failed
// one red, the others green.
func TestRegionsPipelinesWithAFailure(t *testing.T) {
	j, err := regions.Fail(planProgram(t, pipelines.ProgramClass, nil, 4), "work -> Sink: print-sink (2/4)")
	if err != nil {
		t.Fatal(err)
	}
	got := Regions(j)
	checkGolden(t, "pipelines_regions.dot", got)
	for _, want := range []string{
		`r2_s1 [label="work\nSink: print-sink (2/4)\n✗ failed", fillcolor="#f0b0b0", color="#c03030", penwidth=3];`,
		"\tr1_s0 -> r1_s1;\n",
		`label="region 3\nkeeps running";`,
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("the diagram lacks %s", want)
		}
	}
}

// WordCount in BATCH with a source subtask failed: every subtask is a
// region, the exchanges between them dashed (BLOCKING); the failed
// source's region restarts with both counters, which read its result.
func TestRegionsWordCountBatchWithAFailure(t *testing.T) {
	j, err := regions.Fail(planProgram(t, wordcount.ProgramClass, []string{"--execution-mode", "BATCH"}, 2), "Source: file-input -> tokenizer (1/2)")
	if err != nil {
		t.Fatal(err)
	}
	got := Regions(j)
	checkGolden(t, "wordcount_batch_regions.dot", got)
	if n := bytes.Count(got, []byte("[style=dashed];")); n != 4 {
		t.Errorf("%d dashed arrows, want the 4 of the BLOCKING ALL_TO_ALL exchange", n)
	}
	if !bytes.Contains(got, []byte(`label="region 4 restarts:\nreads region 1's result";`)) {
		t.Errorf("region 4 does not say why it restarts:\n%s", got)
	}
}

// Without a failure the regions are plain, and the title says nothing
// failed.
func TestRegionsWithoutAFailure(t *testing.T) {
	j, err := regions.Of(planProgram(t, wordcount.ProgramClass, nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	got := string(Regions(j))
	if want := `label="WordCount: 1 pipelined region\nsolid: pipelined (PIPELINED_BOUNDED)\ndashed: blocking (BLOCKING)";`; !bytes.Contains([]byte(got), []byte(want)) {
		t.Errorf("the title is not %s:\n%s", want, got)
	}
	if bytes.Contains([]byte(got), []byte("restarts")) || bytes.Contains([]byte(got), []byte("dashed]")) {
		t.Errorf("a region restarts, or an exchange is blocking:\n%s", got)
	}
}
