package diagrams

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

// committed is the repository's diagrams/ directory.
var committed = filepath.Join("..", "..", "..", "diagrams")

func TestCommittedDiagramsAreUpToDate(t *testing.T) {
	// In a synctest bubble, as TestRunAdaptive: the AdaptiveScheduler's
	// run takes the same path on any machine.
	synctest.Test(t, testCommittedDiagramsAreUpToDate)
}

func testCommittedDiagramsAreUpToDate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	files, err := Generate(ctx)
	require.NoError(t, err)

	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Errorf("diagrams/%s: %v; generate it with `%s`", name, err, FixCommand)
			continue
		}
		if diff := cmp.Diff(string(got), string(files[name])); diff != "" {
			t.Errorf("diagrams/%s is out of date (-committed +generated):\n%s\nregenerate it with `%s`", name, diff, FixCommand)
		}
		// Every DOT source is committed with its SVG, which the README shows.
		if svg, ok := strings.CutSuffix(name, ".dot"); ok {
			if _, err := os.Stat(filepath.Join(committed, svg+".svg")); err != nil {
				t.Errorf("diagrams/%s has no SVG: %v; render it with `%s`", name, err, FixCommand)
			}
		}
	}

	// The slot views (-slots) are among them, each shown in the README.
	for _, view := range slotViews {
		name := SlotsFile(view.class)
		if assert.Contains(t, files, name, "the slot view of %s", view.class) {
			assert.Contains(t, string(files["README.md"]), "("+strings.TrimSuffix(name, ".dot")+".svg)")
		}
	}
	// So are the regions views (-regions), with a failure marked, and
	// the AdaptiveScheduler's states (-adaptive), each shown in the README.
	for _, view := range regionViews {
		name := RegionsFile(view.name)
		if assert.Contains(t, files, name, "the regions view of %s", view.name) {
			assert.Contains(t, string(files[name]), "✗ failed")
			assert.Contains(t, string(files["README.md"]), "("+strings.TrimSuffix(name, ".dot")+".svg)")
		}
	}
	assert.Contains(t, files, AdaptiveFile+".dot")
	assert.Contains(t, string(files["README.md"]), "("+AdaptiveFile+".svg)")
	assert.Contains(t, string(files["README.md"]), string(files[AdaptiveFile+".mmd"]), "the README shows the states in Mermaid")
	// And a checkpoint of the ticker (-checkpoint), on its ExecutionGraph
	// and as a sequence, in step order: the same on every run.
	sequence := CheckpointSequenceFile(CheckpointProgram)
	for _, name := range []string{CheckpointFile(CheckpointProgram), sequence + ".dot", sequence + ".mmd"} {
		assert.Contains(t, files, name)
	}
	assert.Contains(t, string(files["README.md"]), "("+strings.TrimSuffix(CheckpointFile(CheckpointProgram), ".dot")+".svg)")
	assert.Contains(t, string(files["README.md"]), string(files[sequence+".mmd"]), "the README shows the checkpoint in Mermaid")
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"stored at 02:26:41.131", "stored at <time>"},
		{"jar 3d5b6732-ec9f-42fa-b97d-d87123e3fee1_WordCount.jar", "jar <id>_WordCount.jar"},
		{"(c0deb8f074005841bc41523d423f696d_5e2800a447827439c3030ef6c361244c_1_0)", "(<attempt>)"},
		{"job 403afa16f06f1d76b683f3dfb1e8d9b9 requires 2 slot(s)", "job <id> requires 2 slot(s)"},
		{"Fetched p-f91a551baf4ba99226fba2606c4527d3 of", "Fetched p-<id> of"},
		{"slot taskexecutor-0_1 (1/2)#0", "slot taskexecutor-0_1 (1/2)#0"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Sanitize(tt.in), "Sanitize(%q)", tt.in)
	}
}

func TestCanonicalOrdersByStepThenMessage(t *testing.T) {
	e := func(step trace.Step, msg string) trace.Event {
		return trace.Event{Step: step, Message: msg, Time: time.Now()}
	}
	got := Canonical([]trace.Event{e(trace.M10, "b"), e(trace.M11, "a"), e(trace.M9, "x"), e(trace.M10, "a")})
	var msgs []string
	for _, ev := range got {
		msgs = append(msgs, string(ev.Step)+" "+ev.Message)
		assert.True(t, ev.Time.IsZero())
	}
	assert.Equal(t, "m9 x|m10 a|m10 b|m11 a", strings.Join(msgs, "|"))
}

func TestPlanProgramFromJar(t *testing.T) {
	jar, err := wordcount.Jar()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "WordCount.jar")
	require.NoError(t, os.WriteFile(path, jar, 0o644))

	plan, err := PlanProgram(path, nil, 3)
	require.NoError(t, err)
	assert.Equal(t, "WordCount", plan.Name)
	assert.Equal(t, jar, plan.Jar)
	for _, v := range plan.JobGraph.Vertices() {
		assert.Equal(t, 3, v.Parallelism, v.Name)
	}
	assert.ElementsMatch(t, []string{"WordCount-streamgraph.dot", "WordCount-jobgraph.dot"}, slices.Collect(maps.Keys(plan.DOT())))
}

func TestCanonicalMergesSlotOffers(t *testing.T) {
	got := Canonical([]trace.Event{
		{Step: trace.M8, From: "TaskExecutor", To: "JobMaster", Message: "offerSlots from taskexecutor-0: 1 offered, 1 accepted"},
		{Step: trace.M8, From: "TaskExecutor", To: "JobMaster", Message: "offerSlots from taskexecutor-1: 2 offered, 1 accepted"},
		{Step: trace.M8, From: "TaskExecutor", To: "JobMaster", Message: "offerSlots from taskexecutor-0: 1 offered, 1 accepted"},
		{Step: trace.M9, From: "JobMaster", To: "TaskExecutor", Message: "Received task"},
	})
	var msgs []string
	for _, e := range got {
		msgs = append(msgs, e.Message)
	}
	assert.Equal(t, []string{
		"offerSlots from taskexecutor-0",
		"offerSlots from taskexecutor-1",
		"Received task",
	}, msgs)
}

// TestRunWithAFaultDrawsWhereTheSubmissionBroke runs WordCount with step
// m11 broken once: the sequence marks the failed report with a cross and a
// note, and goes on with the restarted attempts.
func TestRunWithAFaultDrawsWhereTheSubmissionBroke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defer wordcount.Results.Clear()
	plan, err := PlanProgram(Program, sequenceArgs, Parallelism)
	require.NoError(t, err)
	run, err := plan.RunWithFault(ctx, fault.Fault{Step: trace.M11})
	require.NoError(t, err)

	sequence := string(plan.SequenceMermaid(run))
	assert.Regexp(t, `Task-xJobMaster: m11 ✗( ×\d+)?: `, sequence)
	assert.Contains(t, sequence, "Note over JobMaster: the submission broke here, at step m11")
	assert.Regexp(t, `#35;1 `, sequence, "the restarted attempts (#1) are drawn after the failure")
	assert.Contains(t, string(plan.ExecutionGraphDOT(run)), "#1\\nFINISHED")

	_, err = plan.RunWithFault(ctx, fault.Fault{Step: trace.M1})
	assert.ErrorContains(t, err, "steps m1 and m2 break in the REST endpoint")
}
