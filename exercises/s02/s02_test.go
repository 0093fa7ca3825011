// Exercise s02: the TaskSlotTable cuts slots out of the TaskManager's
// resources.
//
// The tests look at the allocation from three distances:
//
//   - TestAllocatingSlots drives a TaskSlotTable on its own, as the
//     TaskExecutor's requestSlot does at step m7: a table of scenarios on
//     a TaskManager of the distribution's default size (1728m) with two
//     slots, each a few allocations and what must come of them: the slots
//     the table holds, the log lines it writes, and what is left of the
//     TaskManager's resources. Each scenario says, in why, the rule it
//     checks.
//   - TestTheSlotReport looks at what the ResourceManager learns of the
//     slots: the SlotReport a TaskExecutor sends with every heartbeat.
//   - TestAJobWithAResourceProfileRunsInDynamicSlots runs a MiniCluster
//     and a job whose slot sharing group names its resources: it runs
//     only if its slots are cut right.
package s02_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/configuration"
	"flinklab/runtime/examples/sharing"
	"flinklab/runtime/gateway"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/streaming"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
	"flinklab/runtime/taskexecutor"
)

// The resources of a TaskManager of taskmanager.memory.process.size 1728m
// with two slots, as it registers them: two cores (one per slot), and its
// task heap, task off-heap, managed and network memory. A default slot is
// half of it, rounded down to the byte.
var (
	total       = api.NewResourceProfile(2, 402653174, 0, 536870920, 134217730)
	defaultSlot = api.NewResourceProfile(1, 201326587, 0, 268435460, 67108865)
	// counting is the profile of the slot sharing group "counting" of the
	// example program sharing: 0.25 cores, 64m of task heap, 32m managed.
	counting = api.NewResourceProfile(0.25, 64*mb, 0, 32*mb, 0)
	// heavy is a slot for an operator with state in RocksDB.
	heavy = api.NewResourceProfile(0.5, 96*mb, 0, 128*mb, 32*mb)
	// tooLarge has more cores than a default slot.
	tooLarge = api.NewResourceProfile(1.5, 128*mb, 0, 0, 0)
	unknown  = api.UnknownResourceProfile
)

const mb = configuration.MemorySize(1 << 20)

// task stands in for a Task in the table's slots.
type task struct{}

func (task) JobID() api.JobID                    { return api.JobID{} }
func (task) ExecutionID() api.ExecutionAttemptID { return api.ExecutionAttemptID{} }
func (task) AllocationID() api.AllocationID      { return api.AllocationID{} }

// IDs that say in a failure which job and which allocation they are.
var (
	jobA, jobB              = mustParse[api.JobID](strings.Repeat("a", 32)), mustParse[api.JobID](strings.Repeat("b", 32))
	alloc1, alloc2, alloc3  = allocation(1), allocation(2), allocation(3)
	alloc4, probeAllocation = allocation(4), allocation(9)
	probeProfile            = api.NewResourceProfile(64, 0, 0, 0, 0) // no TaskManager here has 64 cores
	allocatedSlotLine       = regexp.MustCompile(`Allocated slot for ([0-9a-f]{32}) with resources (ResourceProfile\{[^}]*\})\.`)
)

func allocation(n int) api.AllocationID {
	return mustParse[api.AllocationID](strings.Repeat(fmt.Sprint(n), 32))
}

// mustParse reads an ID from its 32 hex characters.
func mustParse[T any, P interface {
	*T
	UnmarshalText([]byte) error
}](hex string) T {
	var id T
	if err := P(&id).UnmarshalText([]byte(hex)); err != nil {
		panic(err)
	}
	return id
}

// step is one call of the TaskSlotTable: AllocateSlot, or, with free set,
// FreeSlot of alloc. wantErr and wantMsg are what it must answer.
type step struct {
	free    bool
	index   int
	job     api.JobID
	alloc   api.AllocationID
	profile api.ResourceProfile
	wantErr error
	wantMsg string
}

func allocate(index int, job api.JobID, alloc api.AllocationID, profile api.ResourceProfile) step {
	return step{index: index, job: job, alloc: alloc, profile: profile}
}

func (s step) refused(err error, msg string) step { s.wantErr, s.wantMsg = err, msg; return s }

func free(alloc api.AllocationID) step { return step{free: true, alloc: alloc} }

// slot is what the table holds at an index.
func slot(index int, job api.JobID, alloc api.AllocationID, profile api.ResourceProfile) taskexecutor.TaskSlot {
	return taskexecutor.TaskSlot{Index: index, State: taskexecutor.SlotAllocated, ResourceProfile: profile, JobID: job, AllocationID: alloc}
}

// logged is one "Allocated slot for … with resources …." line.
func logged(alloc api.AllocationID, profile api.ResourceProfile) string {
	return "Allocated slot for " + alloc.String() + " with resources " + profile.String() + "."
}

// table is a TaskSlotTable of two static slots of defaultSlot, sharing
// total, with its log.
type table struct {
	*taskexecutor.TaskSlotTable[task]
	log *bytes.Buffer
}

func newTable() table {
	var log bytes.Buffer
	return table{taskexecutor.NewTaskSlotTable[task](2, total, defaultSlot, slog.New(slog.NewTextHandler(&log, nil))), &log}
}

// allocate calls AllocateSlot. A body that panics fails the test here,
// with the rule the scenario checks, instead of ending the test binary.
func (tb table) allocate(t *testing.T, why string, s step) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("AllocateSlot must allocate or refuse, not panic: %v\nThe rule this case checks: %s", r, why)
		}
	}()
	return tb.AllocateSlot(s.index, s.job, s.alloc, s.profile)
}

// allocated returns the "Allocated slot for …" lines logged so far.
func (tb table) allocated() []string {
	var lines []string
	for _, m := range allocatedSlotLine.FindAllStringSubmatch(tb.log.String(), -1) {
		lines = append(lines, m[0])
	}
	return lines
}

// remaining is what is left of the TaskManager's resources, as the
// refusal of a slot larger than any TaskManager here reports it. It is
// asked last: it must change nothing, but a wrong body might.
func (tb table) remaining(t *testing.T, why string) string {
	t.Helper()
	err := tb.allocate(t, why, allocate(-1, jobB, probeAllocation, probeProfile))
	if err == nil {
		t.Errorf("a slot of 64 cores was allocated out of a TaskManager of 2\nThe rule this case checks: %s", why)
		return ""
	}
	m := regexp.MustCompile(`the currently remaining available resources are (ResourceProfile\{[^}]*\})`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Errorf("a slot too large for what is left must be refused with Flink's text, which says what is left; got %q", err)
		return ""
	}
	return m[1]
}

// The rule, one scenario per part of it: a non-negative index asks for
// that static slot, a negative one for a new dynamic slot numbered from
// the number of static slots up; an unknown profile is the default slot's;
// a request repeated changes nothing; every slot is cut out of what is
// left of the TaskManager's resources, and a slot that does not fit, or
// whose index is taken, is refused with Flink's text and changes nothing.
func TestAllocatingSlots(t *testing.T) {
	tests := []struct {
		name          string
		why           string // what a failure of this case means
		steps         []step
		wantSlots     []taskexecutor.TaskSlot // what the table holds afterwards, by index
		wantLogged    []string                // the "Allocated slot for …" lines, in order
		wantRemaining api.ResourceProfile     // what is left of total
	}{
		{
			name: "static slots 0 and 1, each the default slot",
			why: "a slot asked for with ResourceProfile{UNKNOWN} is a default slot (here: half the TaskManager), " +
				"cut out of the TaskManager's resources; two of them take everything",
			steps:         []step{allocate(0, jobA, alloc1, unknown), allocate(1, jobB, alloc2, unknown)},
			wantSlots:     []taskexecutor.TaskSlot{slot(0, jobA, alloc1, defaultSlot), slot(1, jobB, alloc2, defaultSlot)},
			wantLogged:    []string{logged(alloc1, defaultSlot), logged(alloc2, defaultSlot)},
			wantRemaining: api.ZeroResourceProfile,
		},
		{
			name: "two dynamic slots of different profiles, after the static slots",
			why: "a negative index asks for a new dynamic slot: it is numbered from the number of static slots up " +
				"(here 2, then 3), has the profile it asks for, and is cut out of what the slots before it left",
			steps: []step{
				allocate(0, jobA, alloc1, unknown),
				allocate(-1, jobA, alloc2, counting),
				allocate(-1, jobB, alloc3, heavy),
			},
			wantSlots: []taskexecutor.TaskSlot{
				slot(0, jobA, alloc1, defaultSlot), slot(2, jobA, alloc2, counting), slot(3, jobB, alloc3, heavy),
			},
			wantLogged:    []string{logged(alloc1, defaultSlot), logged(alloc2, counting), logged(alloc3, heavy)},
			wantRemaining: total.Subtract(defaultSlot).Subtract(counting).Subtract(heavy),
		},
		{
			name: "a dynamic slot asked for with ResourceProfile{UNKNOWN}",
			why:  "an unknown profile is the default slot's, for a dynamic slot too; the static slots stay free",
			steps: []step{
				allocate(-1, jobA, alloc1, unknown),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(2, jobA, alloc1, defaultSlot)},
			wantLogged:    []string{logged(alloc1, defaultSlot)},
			wantRemaining: defaultSlot,
		},
		{
			name: "a dynamic slot too large for what is left is refused, and nothing changes",
			why: "a slot is cut only if what is left is at least its profile in every dimension; one that does not fit " +
				"is refused with Flink's text, takes nothing, is not logged, and its index stays free for the next",
			steps: []step{
				allocate(0, jobA, alloc1, unknown),
				allocate(-1, jobA, alloc2, tooLarge).refused(gateway.ErrSlotAllocation,
					"Cannot allocate the requested resources. Trying to allocate "+tooLarge.String()+
						", while the currently remaining available resources are "+defaultSlot.String()+
						", total is "+total.String()+"."),
				allocate(-1, jobB, alloc3, counting),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(0, jobA, alloc1, defaultSlot), slot(2, jobB, alloc3, counting)},
			wantLogged:    []string{logged(alloc1, defaultSlot), logged(alloc3, counting)},
			wantRemaining: defaultSlot.Subtract(counting),
		},
		{
			name: "freeing a slot gives its resources back",
			why: "a freed slot gives back exactly what it took, its default profile for a slot asked for as UNKNOWN, " +
				"so a slot of that size fits again",
			steps: []step{
				allocate(0, jobA, alloc1, unknown),
				allocate(1, jobA, alloc2, unknown),
				allocate(-1, jobB, alloc3, counting).refused(gateway.ErrSlotAllocation,
					"Cannot allocate the requested resources. Trying to allocate "+counting.String()+
						", while the currently remaining available resources are "+api.ZeroResourceProfile.String()+
						", total is "+total.String()+"."),
				free(alloc1),
				allocate(-1, jobB, alloc4, defaultSlot),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(1, jobA, alloc2, defaultSlot), slot(2, jobB, alloc4, defaultSlot)},
			wantLogged:    []string{logged(alloc1, defaultSlot), logged(alloc2, defaultSlot), logged(alloc4, defaultSlot)},
			wantRemaining: api.ZeroResourceProfile,
		},
		{
			name: "a repeated request changes nothing",
			why: "the same allocation for the same job, index and profile (an unknown one being the default slot's) " +
				"is a request the ResourceManager repeated: it succeeds, and takes nothing twice",
			steps: []step{
				allocate(0, jobA, alloc1, unknown),
				allocate(0, jobA, alloc1, unknown),
				allocate(0, jobA, alloc1, defaultSlot),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(0, jobA, alloc1, defaultSlot)},
			wantLogged:    []string{logged(alloc1, defaultSlot)},
			wantRemaining: defaultSlot,
		},
		{
			name: "a repeated request for a dynamic slot changes nothing",
			why: "the ResourceManager asks for every slot as a dynamic one; asked again for the same allocation, job " +
				"and profile, the TaskExecutor would number a new dynamic slot, but it is the same request: it " +
				"succeeds, and takes nothing twice (Flink's isDuplicatedSlot)",
			steps: []step{
				allocate(-1, jobA, alloc1, counting),
				allocate(-1, jobA, alloc1, counting),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(2, jobA, alloc1, counting)},
			wantLogged:    []string{logged(alloc1, counting)},
			wantRemaining: total.Subtract(counting),
		},
		{
			name: "an index already taken is refused, and nothing changes",
			why: "a static slot held by one allocation is not given to another: the request is refused as occupied, " +
				"naming the allocation that holds it, and takes nothing",
			steps: []step{
				allocate(0, jobA, alloc1, unknown),
				allocate(0, jobB, alloc2, unknown).refused(gateway.ErrSlotOccupied,
					"The slot with index 0 is already assigned to another allocation with id "+alloc1.String()+"."),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(0, jobA, alloc1, defaultSlot)},
			wantLogged:    []string{logged(alloc1, defaultSlot)},
			wantRemaining: defaultSlot,
		},
		{
			name: "an allocation asked for again at another index is refused",
			why: "an allocation names one slot: asked for again at another index it is refused, naming the slot it holds, " +
				"and takes nothing",
			steps: []step{
				allocate(0, jobA, alloc1, unknown),
				allocate(1, jobA, alloc1, unknown).refused(gateway.ErrSlotAllocation,
					"Slot with allocationId "+alloc1.String()+" already exist, with resource profile "+defaultSlot.String()+
						", job id "+jobA.String()+" and index 0. The required index is 1."),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(0, jobA, alloc1, defaultSlot)},
			wantLogged:    []string{logged(alloc1, defaultSlot)},
			wantRemaining: defaultSlot,
		},
		{
			name: "an allocation asked for again by another job is refused",
			why:  "an allocation belongs to one job: asked for again by another job it is refused, not taken as repeated",
			steps: []step{
				allocate(0, jobA, alloc1, unknown),
				allocate(0, jobB, alloc1, unknown).refused(gateway.ErrSlotAllocation,
					"Slot with allocationId "+alloc1.String()+" already exist, with resource profile "+defaultSlot.String()+
						", job id "+jobA.String()+" and index 0. The required index is 0."),
			},
			wantSlots:     []taskexecutor.TaskSlot{slot(0, jobA, alloc1, defaultSlot)},
			wantLogged:    []string{logged(alloc1, defaultSlot)},
			wantRemaining: defaultSlot,
		},
		{
			name: "an index beyond the static slots is refused",
			why: "a non-negative index names a static slot, 0 to the number of slots − 1; any other is refused " +
				"before anything is taken (dynamic slots are asked for with a negative index)",
			steps: []step{
				allocate(2, jobA, alloc1, unknown).refused(gateway.ErrSlotAllocation,
					"Could not allocate slot: the slot index 2 is not below the number of slots 2."),
			},
			wantRemaining: total,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := newTable()
			for i, s := range tt.steps {
				if s.free {
					_, err := tb.FreeSlot(s.alloc)
					require.NoError(t, err, "step %d: freeing %s\nThe rule this case checks: %s", i+1, s.alloc, tt.why)
					continue
				}
				err := tb.allocate(t, tt.why, s)
				if s.wantErr == nil {
					require.NoError(t, err, "step %d: slot %d for %s must be allocated\nThe rule this case checks: %s", i+1, s.index, s.alloc, tt.why)
					continue
				}
				require.ErrorIs(t, err, s.wantErr, "step %d: slot %d for %s must be refused\nThe rule this case checks: %s", i+1, s.index, s.alloc, tt.why)
				assert.Contains(t, err.Error(), s.wantMsg, "step %d: Flink's text\nThe rule this case checks: %s", i+1, tt.why)
			}
			assert.Equal(t, tt.wantSlots, nilIfEmpty(tb.Slots()), "the slots the table holds, by index\nThe rule this case checks: %s", tt.why)
			assert.Equal(t, tt.wantLogged, tb.allocated(), "the allocations logged, one line for each slot cut\nThe rule this case checks: %s", tt.why)
			assert.Equal(t, tt.wantRemaining.String(), tb.remaining(t, tt.why),
				"what is left of the TaskManager's resources once the slots took theirs\nThe rule this case checks: %s", tt.why)
		})
	}
}

func nilIfEmpty(slots []taskexecutor.TaskSlot) []taskexecutor.TaskSlot {
	if len(slots) == 0 {
		return nil
	}
	return slots
}

// What the ResourceManager learns of the slots: every static index, free
// ones with the default slot profile, then every dynamic slot, by index.
func TestTheSlotReport(t *testing.T) {
	const why = "a SlotReport lists the static slots, allocated or not, then the dynamic slots, each with its index and profile"
	tb := newTable()
	for _, s := range []step{
		allocate(1, jobA, alloc1, unknown),
		allocate(-1, jobA, alloc2, counting),
		allocate(-1, jobB, alloc3, heavy),
	} {
		require.NoError(t, tb.allocate(t, why, s), "slot %d for %s must be allocated", s.index, s.alloc)
	}

	slotID := func(n int) api.SlotID { return api.SlotID{ResourceID: "tm-1", SlotNumber: n} }
	assert.Equal(t, gateway.SlotReport{
		{SlotID: slotID(0), ResourceProfile: defaultSlot},
		{SlotID: slotID(1), ResourceProfile: defaultSlot, AllocationID: alloc1, JobID: jobA},
		{SlotID: slotID(2), ResourceProfile: counting, AllocationID: alloc2, JobID: jobA},
		{SlotID: slotID(3), ResourceProfile: heavy, AllocationID: alloc3, JobID: jobB},
	}, tb.CreateSlotReport("tm-1"), why)
}

// The example program sharing at parallelism 2: its slot sharing group
// "default" asks for two slots of any size, its group "counting" for two
// slots of 0.25 cores, 64m of task heap and 32m of managed memory. The
// ResourceManager asks the one TaskManager (1728m, four slots) for four
// dynamic slots of two profiles; the job finishes only if the TaskManager
// cuts each out of what the ones before it left.
func TestAJobWithAResourceProfileRunsInDynamicSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, logs := scenario.Cluster(t, minicluster.Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 4})
		plan, err := streaming.PlanProgram(sharing.ProgramClass, []string{"--output", sharing.OutputCollect}, 2)
		require.NoError(t, err)
		job, err := plan.JobGraph()
		require.NoError(t, err)
		var jar bytes.Buffer
		require.NoError(t, client.WriteJar(&jar, sharing.ProgramClass, nil))
		require.NoError(t, cluster.UploadJar(job, jar.Bytes()))
		sharing.Results.Clear()
		t.Cleanup(sharing.Results.Clear)

		jobID, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		result, err := cluster.RequestJobResult(ctx, jobID)
		require.NoError(t, err, "the job must get its four slots and finish within a minute%s", refusals(logs))
		require.Equal(t, api.JobFinished, result.JobStatus, "the job must finish: %s%s", result.FailureCause, refusals(logs))
		assert.Equal(t, wantCounts(), sorted(sharing.Results.Values()), "every running count of every word")

		var profiles []string
		for _, m := range allocatedSlotLine.FindAllStringSubmatch(logs.String(), -1) {
			profiles = append(profiles, m[2])
		}
		slices.Sort(profiles)
		assert.Equal(t, []string{counting.String(), counting.String(), quarter().String(), quarter().String()}, profiles,
			"the TaskManager logs each slot it cuts: two of the counting group's profile, and two default slots "+
				"(a quarter of the TaskManager each) for the requirements of unknown profile")
	})
}

// refusals returns the ResourceManager's first lines about slots the
// TaskManager refused, with what the TaskManager answered.
func refusals(logs *scenario.Logs) string {
	var lines []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "Slot allocation for allocation") {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("\nThe TaskManager refused %d requestSlot calls of the ResourceManager; the first ones:\n%s",
		len(lines), strings.Join(lines[:min(len(lines), 4)], "\n"))
}

// quarter is the default slot of a TaskManager of 1728m with four slots
// (and so four cores).
func quarter() api.ResourceProfile {
	return api.NewResourceProfile(4, 402653174, 0, 536870920, 134217730).Divide(4)
}

// wantCounts returns what the sharing job's sink receives: "word=n" after
// every word of its text, sorted.
func wantCounts() []string {
	var want []string
	counts := make(map[string]int)
	for _, line := range sharing.Lines() {
		for _, w := range sharing.Tokenize(line) {
			counts[w]++
			want = append(want, fmt.Sprintf("%s=%d", w, counts[w]))
		}
	}
	return sorted(want)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
