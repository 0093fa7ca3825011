package sharing_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/configuration"
	"flinklab/runtime/examples/sharing"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// vertex is what the plan says of one JobVertex.
type vertex struct {
	Name             string
	Parallelism      int
	SlotSharingGroup string
	CoLocationGroup  string
	Inputs           []string // "producer (DISTRIBUTION_PATTERN, SHIP_STRATEGY)"
}

func summarize(jg *jobgraph.JobGraph) []vertex {
	var got []vertex
	for _, v := range jg.Vertices() {
		s := vertex{Name: v.Name, Parallelism: v.Parallelism, SlotSharingGroup: v.SlotSharingGroup, CoLocationGroup: v.CoLocationGroup}
		for _, edge := range v.Inputs() {
			s.Inputs = append(s.Inputs, fmt.Sprintf("%s (%v, %s)", edge.Source.Producer.Name, edge.DistributionPattern, edge.ShipStrategyName))
		}
		got = append(got, s)
	}
	return got
}

// At any parallelism p the program makes three JobVertices in two slot
// sharing groups: p slots of any size for "default", and p slots of the
// counting profile, each holding subtask i of count and of format, which
// are co-located.
func TestPlan(t *testing.T) {
	for _, p := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("parallelism %d", p), func(t *testing.T) {
			plan, err := streaming.PlanProgram(sharing.ProgramClass, nil, p)
			require.NoError(t, err)
			jg, err := plan.JobGraph()
			require.NoError(t, err)

			assert.Equal(t, sharing.JobName, jg.Name)
			assert.Equal(t, []vertex{
				{"Source: lines -> tokenize", p, "default", "", nil},
				{"count", p, "counting", "count-and-format", []string{"Source: lines -> tokenize (ALL_TO_ALL, HASH)"}},
				{"format -> Sink: print-sink", p, "counting", "count-and-format", []string{"count (POINTWISE, FORWARD)"}},
			}, summarize(jg))

			assert.Equal(t, []string{"default", "counting"}, jg.SlotSharingGroups())
			total, perGroup := jg.SlotsNeeded()
			assert.Equal(t, 2*p, total)
			assert.Equal(t, map[string]int{"default": p, "counting": p}, perGroup)

			counting := api.NewResourceProfile(0.25, configuration.OfMebiBytes(64), 0, configuration.OfMebiBytes(32), 0)
			assert.Equal(t, map[string]api.ResourceProfile{"counting": counting}, jg.SlotSharingGroupResources)
			assert.Equal(t, counting, jg.SlotSharingGroupResourceProfile("counting"))
			assert.Equal(t, "ResourceProfile{cpuCores=0.25, taskHeapMemory=64.000mb (67108864 bytes), taskOffHeapMemory=0 bytes, managedMemory=32.000mb (33554432 bytes), networkMemory=0 bytes}",
				jg.SlotSharingGroupResourceProfile("counting").String())
			assert.Equal(t, api.UnknownResourceProfile, jg.SlotSharingGroupResourceProfile("default"))
		})
	}
}

// Why the format and its sink are one vertex, and the count another: the
// reasons the StreamGraph's edges do not chain.
func TestWhyTheChainsBreak(t *testing.T) {
	plan, err := streaming.PlanProgram(sharing.ProgramClass, []string{"--output", sharing.OutputCollect}, 2)
	require.NoError(t, err)
	jg, err := plan.JobGraph()
	require.NoError(t, err)
	reasons, err := streaming.NotChainedReasons(plan, jg)
	require.NoError(t, err)

	got := make(map[string]string)
	for edge, reason := range reasons {
		got[edge.Source.Producer.Name+" → "+edge.Target.Name] = reason
	}
	assert.Equal(t, map[string]string{
		"Source: lines -> tokenize → count":    `slot sharing group "default" ≠ "counting"`,
		"count → format -> Sink: collect-sink": "format-5 is HEAD (startNewChain)",
	}, got)
}

// The flags set the counting group's resources, and the builder's checks
// fail the program at submission.
func TestArguments(t *testing.T) {
	plan, err := streaming.PlanProgram(sharing.ProgramClass,
		[]string{"--counting-cpu", "1.5", "--counting-heap-mb", "128", "--counting-managed-mb", "0"}, 1)
	require.NoError(t, err)
	jg, err := plan.JobGraph()
	require.NoError(t, err)
	assert.Equal(t, api.NewResourceProfile(1.5, configuration.OfMebiBytes(128), 0, 0, 0), jg.SlotSharingGroupResourceProfile("counting"))

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--output", "kafka"}, `--output "kafka": want "print" or "collect"`},
		{[]string{"--count", "3"}, "flag provided but not defined: -count"},
		{[]string{"now"}, `unexpected argument "now"`},
		{[]string{"--counting-cpu", "0"}, "The cpu cores should be positive."},
		{[]string{"--counting-heap-mb", "0"}, "The task heap memory should be positive."},
		{[]string{"--counting-managed-mb", "-1"}, "The managed memory should not be negative."},
	} {
		_, err := streaming.PlanProgram(sharing.ProgramClass, tt.args, 1)
		assert.ErrorContains(t, err, sharing.ProgramClass+": "+tt.want, "%q", tt.args)
	}
}

// The job runs to the end on a MiniCluster with the slots it needs, and
// its sink gets every running count of every word: with the counting
// group's resources (the ResourceManager cuts slots of two profiles out of
// the TaskManager, and the slot pool gives each to the request of exactly
// its profile), and without them.
func TestTheProgramRuns(t *testing.T) {
	var want []string
	counts := make(map[string]int)
	for _, line := range sharing.Lines() {
		for _, w := range sharing.Tokenize(line) {
			counts[w]++
			want = append(want, fmt.Sprintf("%s=%d", w, counts[w]))
		}
	}
	slices.Sort(want)

	for _, tt := range []struct {
		name          string
		withResources bool
	}{
		{"with the counting group's resources", true},
		{"without resources", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plan, err := streaming.PlanProgram(sharing.ProgramClass, []string{"--output", sharing.OutputCollect}, 2)
				require.NoError(t, err)
				job, err := plan.JobGraph()
				require.NoError(t, err)
				if !tt.withResources {
					job.SlotSharingGroupResources = nil
				}
				slots, _ := job.SlotsNeeded()
				cluster, err := minicluster.New(minicluster.Config{
					NumTaskManagers: 1, NumSlotsPerTaskManager: slots,
					WorkingDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
				})
				require.NoError(t, err)
				require.NoError(t, cluster.Start())
				defer cluster.Close()
				sharing.Results.Clear()
				defer sharing.Results.Clear()

				var jar bytes.Buffer
				require.NoError(t, client.WriteJar(&jar, sharing.ProgramClass, nil))
				require.NoError(t, cluster.UploadJar(job, jar.Bytes()))
				jobID, err := cluster.SubmitJob(context.Background(), job)
				require.NoError(t, err)
				result, err := cluster.RequestJobResult(context.Background(), jobID)
				require.NoError(t, err)
				require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)

				got := sharing.Results.Values()
				slices.Sort(got)
				assert.Equal(t, want, got)
			})
		})
	}
}
