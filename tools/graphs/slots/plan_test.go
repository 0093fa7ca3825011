package slots_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
	"flinklab/runtime/examples/sharing"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/streaming"
	"flinklab/tools/graphs/slots"
)

// plan plans a registered program at parallelism p on tms TaskManagers of
// numSlots slots each.
func plan(t *testing.T, program string, args []string, p, tms int, numSlots string) *slots.Plan {
	t.Helper()
	sg, err := streaming.PlanProgram(program, args, p)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)
	got, err := slots.PlanJob(jg, slots.Cluster{TaskManagers: tms,
		Configuration: map[string]string{configuration.NumTaskSlots.Key(): numSlots}})
	require.NoError(t, err)
	return got
}

// layout is a plan in words: per TaskManager, "slot N: <short profile> ←
// <shared slot>: <subtasks>", then "free: <short profile>"; then each
// waiting requirement.
func layout(p *slots.Plan) []string {
	var lines []string
	for _, tm := range p.TaskManagers {
		for _, s := range tm.Slots {
			var subtasks []string
			for _, st := range s.Shared.Subtasks {
				subtasks = append(subtasks, st.String())
			}
			lines = append(lines, fmt.Sprintf("%s slot %d: %s ← %s: %s", tm.Name, s.Number, slots.Short(s.Profile), s.Shared.Name(), strings.Join(subtasks, ", ")))
		}
		lines = append(lines, tm.Name+" free: "+slots.Short(tm.Free))
	}
	for _, w := range p.Waiting {
		var shared []string
		for _, s := range w.Shared {
			shared = append(shared, s.Name())
		}
		lines = append(lines, "waiting: "+w.Reason()+": "+strings.Join(shared, ", "))
	}
	return lines
}

// The default TaskManager (1728m) has 384 MiB of task heap (10 bytes
// short), 512 MiB of managed and 128 MiB of network memory, and as many
// CPU cores as slots; a default slot is an equal share.
func TestTheTaskManagersResources(t *testing.T) {
	p := plan(t, wordcount.ProgramClass, nil, 2, 1, "2")
	assert.Equal(t, 2, p.NumberOfSlots)
	assert.Equal(t, "ResourceProfile{cpuCores=2, taskHeapMemory=384.000mb (402653174 bytes), taskOffHeapMemory=0 bytes, managedMemory=512.000mb (536870920 bytes), networkMemory=128.000mb (134217730 bytes)}", p.Total.String())
	assert.Equal(t, "ResourceProfile{cpuCores=1, taskHeapMemory=192.000mb (201326587 bytes), taskOffHeapMemory=0 bytes, managedMemory=256.000mb (268435460 bytes), networkMemory=64.000mb (67108865 bytes)}", p.DefaultSlot.String())

	p = plan(t, wordcount.ProgramClass, nil, 2, 1, "4")
	assert.Equal(t, "cpu 1, heap 96.000mb, managed 128.000mb", slots.Short(p.DefaultSlot), "4 slots: a quarter each")
}

func TestPlanJob(t *testing.T) {
	tests := []struct {
		name    string
		program string
		args    []string
		tms     int
		slots   string
		want    []string
	}{
		{
			// One slot sharing group: subtask i of both vertices share
			// shared slot i, which asks for any slot and gets a default one.
			name: "WordCount p=2 on 1×2", program: wordcount.ProgramClass, tms: 1, slots: "2",
			want: []string{
				"tm-1 slot 1: cpu 1, heap 192.000mb, managed 256.000mb ← default #1: Source: file-input -> tokenizer (1/2), counter -> Sink: print-sink (1/2)",
				"tm-1 slot 2: cpu 1, heap 192.000mb, managed 256.000mb ← default #2: Source: file-input -> tokenizer (2/2), counter -> Sink: print-sink (2/2)",
				"tm-1 free: cpu 0, heap 0 bytes, managed 0 bytes",
			},
		},
		{
			// The counting slots (specific) are served first and fill tm-1
			// with one default slot; the other default slot goes to tm-2.
			name: "sharing p=2 on 2×2", program: sharing.ProgramClass, tms: 2, slots: "2",
			want: []string{
				"tm-1 slot 1: cpu 0.25, heap 64.000mb, managed 32.000mb ← counting #1: count (1/2), format -> Sink: print-sink (1/2)",
				"tm-1 slot 2: cpu 0.25, heap 64.000mb, managed 32.000mb ← counting #2: count (2/2), format -> Sink: print-sink (2/2)",
				"tm-1 slot 3: cpu 1, heap 192.000mb, managed 256.000mb ← default #1: Source: lines -> tokenize (1/2)",
				"tm-1 free: cpu 0.5, heap 64.000mb, managed 192.000mb",
				"tm-2 slot 1: cpu 1, heap 192.000mb, managed 256.000mb ← default #2: Source: lines -> tokenize (2/2)",
				"tm-2 free: cpu 1, heap 192.000mb, managed 256.000mb",
			},
		},
		{
			// On one TaskManager the counting slots leave room for one
			// default slot only: the other waits, though an empty
			// TaskManager could hold it.
			name: "sharing p=2 on 1×2", program: sharing.ProgramClass, tms: 1, slots: "2",
			want: []string{
				"tm-1 slot 1: cpu 0.25, heap 64.000mb, managed 32.000mb ← counting #1: count (1/2), format -> Sink: print-sink (1/2)",
				"tm-1 slot 2: cpu 0.25, heap 64.000mb, managed 32.000mb ← counting #2: count (2/2), format -> Sink: print-sink (2/2)",
				"tm-1 slot 3: cpu 1, heap 192.000mb, managed 256.000mb ← default #1: Source: lines -> tokenize (1/2)",
				"tm-1 free: cpu 0.5, heap 64.000mb, managed 192.000mb",
				"waiting: no TaskManager has room left for ResourceProfile{UNKNOWN}, a default slot: default #2",
			},
		},
		{
			// 8 cores fit in no TaskManager of 2: the counting slots wait;
			// the default slots take the whole TaskManager.
			name: "sharing p=2 with 8 cores per counting slot", program: sharing.ProgramClass, args: []string{"--counting-cpu", "8"}, tms: 3, slots: "2",
			want: []string{
				"tm-1 slot 1: cpu 1, heap 192.000mb, managed 256.000mb ← default #1: Source: lines -> tokenize (1/2)",
				"tm-1 slot 2: cpu 1, heap 192.000mb, managed 256.000mb ← default #2: Source: lines -> tokenize (2/2)",
				"tm-1 free: cpu 0, heap 0 bytes, managed 0 bytes",
				"tm-2 free: cpu 2, heap 384.000mb, managed 512.000mb",
				"tm-3 free: cpu 2, heap 384.000mb, managed 512.000mb",
				"waiting: no TaskManager can fit ResourceProfile{cpuCores=8, taskHeapMemory=64.000mb (67108864 bytes), taskOffHeapMemory=0 bytes, managedMemory=32.000mb (33554432 bytes), networkMemory=0 bytes}: counting #1, counting #2",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, layout(plan(t, tt.program, tt.args, 2, tt.tms, tt.slots)))
		})
	}
}

// The JobMaster declares one requirement per profile, counting the shared
// slots, in the order the profiles first occur.
func TestRequirements(t *testing.T) {
	p := plan(t, sharing.ProgramClass, nil, 3, 1, "8")
	var got []string
	for _, r := range p.Requirements {
		got = append(got, r.String())
	}
	assert.Equal(t, []string{
		"ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=3}",
		"ResourceRequirement{resourceProfile=ResourceProfile{cpuCores=0.25, taskHeapMemory=64.000mb (67108864 bytes), taskOffHeapMemory=0 bytes, managedMemory=32.000mb (33554432 bytes), networkMemory=0 bytes}, numberOfRequiredSlots=3}",
	}, got)
	assert.Equal(t, []string{"default", "counting"}, p.Groups)
}

// A hand-built JobGraph: a vertex in no slot sharing group is alone in a
// group named after it (never after its random ID), and a group that asks
// for more than any TaskManager has waits however many TaskManagers there
// are.
func TestAHandBuiltJobGraph(t *testing.T) {
	g := jobgraph.New("Handmade")
	source := jobgraph.NewJobVertex("Source: numbers", "Invokable", 2)
	source.SlotSharingGroup = "big"
	sink := jobgraph.NewJobVertex("Sink: log", "Invokable", 1) // in no group
	sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.PipelinedBounded)
	g.AddVertex(source)
	g.AddVertex(sink)
	g.SlotSharingGroupResources = map[string]api.ResourceProfile{
		"big": api.NewResourceProfile(8, configuration.OfMebiBytes(64), 0, 0, 0),
	}

	p, err := slots.PlanJob(g, slots.Cluster{TaskManagers: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"big", "no group (Sink: log)"}, p.Groups)
	assert.Equal(t, []string{
		"tm-1 slot 1: cpu 1, heap 384.000mb, managed 512.000mb ← no group (Sink: log) #1: Sink: log (1/1)",
		"tm-1 free: cpu 0, heap 0 bytes, managed 0 bytes",
		"tm-2 free: cpu 1, heap 384.000mb, managed 512.000mb",
		"waiting: no TaskManager can fit ResourceProfile{cpuCores=8, taskHeapMemory=64.000mb (67108864 bytes), taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}: big #1, big #2",
	}, layout(p))
	assert.False(t, p.Waiting[0].FitsSomewhere)
	assert.Equal(t, 1, p.TaskManagers[1].RoomForDefaultSlots())
}

func TestPlanJobRefuses(t *testing.T) {
	sg, err := streaming.PlanProgram(wordcount.ProgramClass, nil, 2)
	require.NoError(t, err)
	jg, err := sg.JobGraph()
	require.NoError(t, err)

	tests := []struct {
		name    string
		cluster slots.Cluster
		want    string
	}{
		{"no TaskManager", slots.Cluster{}, "a cluster has at least one TaskManager, got 0"},
		{"the key people write for slots", slots.Cluster{TaskManagers: 1, Configuration: map[string]string{"taskmanager.numberOfSlots": "2"}},
			"unknown key taskmanager.numberOfSlots: Flink's is taskmanager.numberOfTaskSlots"},
		{"memory that does not add up", slots.Cluster{TaskManagers: 1, Configuration: map[string]string{"taskmanager.memory.process.size": "100m"}},
			"TaskManager memory configuration failed: "},
		{"no CPU", slots.Cluster{TaskManagers: 1, Configuration: map[string]string{"taskmanager.cpu.cores": "0"}},
			"TaskExecutors need to be started with a positive number of CPU cores."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := slots.PlanJob(jg, tt.cluster)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestDescribe(t *testing.T) {
	assert.Equal(t, "1 TaskManager × 1 slot", slots.Describe(1, 1))
	assert.Equal(t, "2 TaskManagers × 4 slots", slots.Describe(2, 4))
}
