package explain_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/examples/shapes"
	"flinklab/runtime/examples/sharing"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/rest"
	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/explain"
	"flinklab/tools/graphs/slots"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The decisions for the lesson's three programs are Flink's for the same
// programs; each golden file is read against the package doc of its
// program, which gives Flink's reasoning (runtime/examples/shapes,
// runtime/examples/wordcount):
//
//   - wordcount: the source chains to the tokenizer, keyBy's HASH edge
//     ends the chain, the sink chains to the counter; two vertices, one
//     ALL_TO_ALL edge through one ConsumedPartitionGroup shared by every
//     consumer; one pipelined region, as for every streaming job with an
//     ALL_TO_ALL edge;
//   - chains: HEAD (startNewChain), NEVER (disableChaining) and another
//     slot sharing group each end a chain; two groups need 2p slots; its
//     edges are all FORWARD, so each subtask index is a region of its own;
//   - fanout: RESCALE 4 → 2 gives each consumer two partitions, 2 → 4
//     gives each partition two consumers, BROADCAST is ALL_TO_ALL and
//     makes the whole job one region.
func TestExplainGivesFlinksDecisions(t *testing.T) {
	for _, tt := range []struct {
		program     string
		parallelism int
	}{
		{wordcount.ProgramClass, 2},
		{shapes.ChainsProgramClass, 2},
		{shapes.FanOutProgramClass, 0}, // its own parallelisms
	} {
		t.Run(tt.program, func(t *testing.T) {
			streamGraph, err := streaming.PlanProgram(tt.program, nil, tt.parallelism)
			require.NoError(t, err)
			jobGraph, err := streamGraph.JobGraph()
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, explain.Write(&out, streamGraph, jobGraph))

			golden := filepath.Join("testdata", tt.program+".txt")
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./tools/graphs/explain -update writes it")
			assert.Equal(t, string(want), out.String())
		})
	}
}

// A JobGraph that does not come from the StreamGraph beside it cannot be
// explained by it: Write says so instead of guessing.
func TestExplainRefusesAJobGraphOfAnotherProgram(t *testing.T) {
	chains, err := streaming.PlanProgram(shapes.ChainsProgramClass, nil, 2)
	require.NoError(t, err)
	fanout, err := streaming.PlanProgram(shapes.FanOutProgramClass, nil, 0)
	require.NoError(t, err)
	jobGraph, err := fanout.JobGraph()
	require.NoError(t, err)
	err = explain.Write(&bytes.Buffer{}, chains, jobGraph)
	assert.ErrorContains(t, err, "the StreamGraph has no edge")
}

// The slot plans the lessons quote, each read against the package doc of
// package slots:
//
//   - wordcount at parallelism 2 on 1 TaskManager × 2 slots: one slot
//     sharing group, so 2 shared slots of ResourceProfile{UNKNOWN}, each
//     a default slot (cpu 1, half the TaskManager's 384 MiB of task heap
//     and 512 MiB of managed memory), and nothing left free;
//   - sharing at parallelism 2 with 8 CPU cores per slot of "counting",
//     on 1 TaskManager × 2 slots: the default slots take the TaskManager,
//     and the counting slots wait, since no TaskManager of 2 cores can
//     ever fit 8.
func TestExplainSlots(t *testing.T) {
	for _, tt := range []struct {
		golden  string
		program string
		args    []string
	}{
		{"wordcount-slots.txt", wordcount.ProgramClass, nil},
		{"sharing-slots-cpu8.txt", sharing.ProgramClass, []string{"--counting-cpu", "8"}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			streamGraph, err := streaming.PlanProgram(tt.program, tt.args, 2)
			require.NoError(t, err)
			jobGraph, err := streamGraph.JobGraph()
			require.NoError(t, err)
			plan, err := slots.PlanJob(jobGraph, slots.Cluster{TaskManagers: 1,
				Configuration: map[string]string{"taskmanager.numberOfTaskSlots": "2"}})
			require.NoError(t, err)
			var out bytes.Buffer
			explain.WriteSlots(&out, plan)

			golden := filepath.Join("testdata", tt.golden)
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./tools/graphs/explain -update writes it")
			assert.Equal(t, string(want), out.String())
		})
	}
}

// A running job is explained per TaskManager, and says that REST does not
// know the slot of a subtask.
func TestExplainRunningSlots(t *testing.T) {
	job := api.NewJobID()
	slot := rest.ResourceProfileInfo{CPUCores: 1, TaskHeapMemory: 191, ManagedMemory: 256, NetworkMemory: 64}
	running := slots.NewRunning(
		rest.JobDetailsInfo{JobID: job, Name: "WordCount", State: api.JobRunning},
		[]rest.JobVertexDetailsInfo{{Name: "tokenize", Parallelism: 2, Subtasks: []rest.SubtaskExecutionAttemptDetailsInfo{
			{Subtask: 0, Status: api.ExecutionRunning, TaskManagerID: "taskexecutor-0"},
			{Subtask: 1, Status: api.ExecutionScheduled, TaskManagerID: rest.Unassigned},
		}}},
		[]rest.TaskManagerDetailsInfo{{
			TaskManagerInfo: rest.TaskManagerInfo{ID: "taskexecutor-0", SlotsNumber: 2, FreeSlots: 1, TotalResource: slot, FreeResource: slot},
			AllocatedSlots:  []rest.SlotInfo{{JobID: job, Resource: slot}},
		}})
	var out bytes.Buffer
	explain.WriteRunningSlots(&out, running)
	text := out.String()
	assert.Contains(t, text, "REST does not say which slot a subtask runs in")
	assert.Contains(t, text, "taskexecutor-0: 2 slots, 1 free, 1 of this job\n")
	assert.Contains(t, text, "  slot  cpu 1, heap 191 MiB, managed 256 MiB  this job\n")
	assert.Contains(t, text, "  runs  tokenize (1/2) #0 RUNNING\n")
	assert.Contains(t, text, "On no TaskManager (no slot yet):\n  tokenize (2/2) #0 SCHEDULED\n")
}
