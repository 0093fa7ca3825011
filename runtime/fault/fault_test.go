package fault_test

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

func TestParse(t *testing.T) {
	job := api.NewJobID()
	tests := []struct {
		in   string
		want fault.Fault
	}{
		{"m9", fault.Fault{Step: trace.M9, Kind: fault.TaskExecutorDies, Times: 1}},
		{"m4:max-parallelism-exceeded", fault.Fault{Step: trace.M4, Kind: fault.MaxParallelismExceeded, Times: 1}},
		{"m7", fault.Fault{Step: trace.M7, Kind: fault.NoMatchingSlot, Times: 1}},
		{"m7:slot-sharing-group-too-large", fault.Fault{Step: trace.M7, Kind: fault.SlotSharingGroupTooLarge, Times: 1}},
		{" M10:jar-corrupted ", fault.Fault{Step: trace.M10, Kind: fault.JarCorrupted, Times: 1}},
		{"m8:slot-offer-timeout,times=2", fault.Fault{Step: trace.M8, Kind: fault.SlotOfferTimeout, Times: 2}},
		{"m11,times=always,job=" + job.String(), fault.Fault{Step: trace.M11, Kind: fault.OperatorOpenThrows, Times: fault.Always, JobID: job}},
		{"m9,after=4", fault.Fault{Step: trace.M9, Kind: fault.TaskExecutorDies, Times: 1, After: 4}},
		{"m10,times=2,after=1", fault.Fault{Step: trace.M10, Kind: fault.BlobUnavailable, Times: 2, After: 1}},
		{"k1", fault.Fault{Step: trace.K1, Kind: fault.CheckpointExpired, Times: 1}},
		{"k4,after=4", fault.Fault{Step: trace.K4, Kind: fault.BarrierLost, Times: 1, After: 4}},
		{"k5", fault.Fault{Step: trace.K5, Kind: fault.StorageWriteFails, Times: 1}},
		{"K5:taskexecutor-dies-during-checkpoint", fault.Fault{Step: trace.K5, Kind: fault.TaskExecutorDiesDuringCheckpoint, Times: 1}},
		{"k6,times=always", fault.Fault{Step: trace.K6, Kind: fault.MetadataWriteFails, Times: fault.Always}},
	}
	for _, tt := range tests {
		got, err := fault.Parse(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		again, err := fault.Parse(got.String())
		require.NoError(t, err, "String must print what Parse reads: %s", got)
		assert.Equal(t, got, again)
	}
}

func TestParseRejectsWhatIsNotAFault(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `no injection point ""`},
		{"m12", `no injection point "m12" (want one of m1 … m11, k1, k2, k4, k5, k6)`},
		{"k3", `no injection point "k3"`},
		{"k7", `no injection point "k7"`},
		{"k5:barrier-lost", `step k5 has no fault "barrier-lost" (want one of storage-write-fails, taskexecutor-dies-during-checkpoint)`},
		{"m3:slot-offer-timeout", `step m3 has no fault "slot-offer-timeout" (want one of invalid-jobgraph, duplicate-job-id)`},
		{"m9,times=0", `times="0": want a positive number or always`},
		{"m9,times=often", `times="often"`},
		{"m9,job=42", `job="42"`},
		{"m9,seed=1", `unknown option "seed"`},
		{"m9,after=-1", `after="-1": want a number of passes, 0 or more`},
		{"m9,after=soon", `after="soon"`},
	}
	for _, tt := range tests {
		_, err := fault.Parse(tt.in)
		assert.ErrorContains(t, err, tt.want, tt.in)
	}
}

func TestEveryStepHasAnInjectionPointAndAGuide(t *testing.T) {
	for _, step := range append(fault.Steps(), fault.CheckpointSteps()...) {
		kinds := fault.Kinds(step)
		require.NotEmpty(t, kinds, step)
		for _, kind := range kinds {
			f, err := fault.Parse(string(step) + ":" + string(kind))
			require.NoError(t, err)
			assert.Equal(t, kind, f.Kind)
		}
		assert.NotEmpty(t, fault.Component(step), step)
	}
	assert.Nil(t, fault.Kinds("m0"))
}

// Steps are the submission's steps, which every job takes; a checkpoint's
// steps, which only a checkpointed job takes, are CheckpointSteps. Every
// step with kinds is in one of the two lists.
func TestTheSubmissionsStepsAndTheCheckpointsAreListedApart(t *testing.T) {
	for _, step := range fault.Steps() {
		assert.True(t, strings.HasPrefix(string(step), "m"), step)
	}
	assert.Equal(t, []trace.Step{trace.K1, trace.K2, trace.K4, trace.K5, trace.K6}, fault.CheckpointSteps())
	for _, step := range []trace.Step{trace.K3, trace.K7} {
		assert.Nil(t, fault.Kinds(step), "%s has no injection point", step)
	}
}

// A step whose kinds break in different places (k5: a task's asynchronous
// part, its TaskExecutor) has each place ask for its own kind.
func TestEachPlaceOfACheckpointStepFiresItsOwnKind(t *testing.T) {
	in := fault.NewInjector(nil)
	job := api.NewJobID()
	require.NoError(t, in.Inject(fault.Fault{Step: trace.K5, Kind: fault.TaskExecutorDiesDuringCheckpoint}))
	assert.False(t, in.FireKind(trace.K5, job, fault.StorageWriteFails), "the task's asynchronous part does not use it up")
	assert.True(t, in.FireKind(trace.K5, job, fault.TaskExecutorDiesDuringCheckpoint))
	assert.Empty(t, in.Armed())
}

func TestAFaultFiresTheNumberOfTimesItWasArmedFor(t *testing.T) {
	in := fault.NewInjector(nil)
	job := api.NewJobID()
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M10, Kind: fault.JarCorrupted, Times: 2}))

	for range 2 {
		kind, ok := in.Fire(trace.M10, job)
		assert.True(t, ok)
		assert.Equal(t, fault.JarCorrupted, kind)
	}
	_, ok := in.Fire(trace.M10, job)
	assert.False(t, ok, "used up")
	assert.Empty(t, in.Armed())
	assert.Len(t, in.Fired(), 2)
}

// A fault armed with After lets that many passes of its step go by, then
// fires: a TaskManager that dies at its fifth deployment, not its first.
func TestAFaultFiresAfterThePassesItLetsGoBy(t *testing.T) {
	in := fault.NewInjector(nil)
	job := api.NewJobID()
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M9, After: 2}))

	for pass := range 2 {
		_, ok := in.Fire(trace.M9, job)
		assert.False(t, ok, "pass %d goes by", pass+1)
		assert.Equal(t, []fault.Fault{{Step: trace.M9, Kind: fault.TaskExecutorDies, Times: 1, After: 1 - pass}}, in.Armed())
	}
	_, ok := in.Fire(trace.M11, job)
	assert.False(t, ok, "another step's pass does not count")
	kind, ok := in.Fire(trace.M9, job)
	assert.True(t, ok, "the third pass")
	assert.Equal(t, fault.TaskExecutorDies, kind)
	_, ok = in.Fire(trace.M9, job)
	assert.False(t, ok, "used up")
	assert.Len(t, in.Fired(), 1)
}

func TestAFaultFiresOnlyAtItsStepAndForItsJob(t *testing.T) {
	in := fault.NewInjector(nil)
	mine, other := api.NewJobID(), api.NewJobID()
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M11, JobID: mine}))

	_, ok := in.Fire(trace.M10, mine)
	assert.False(t, ok, "another step")
	_, ok = in.Fire(trace.M11, other)
	assert.False(t, ok, "another job")
	_, ok = in.Fire(trace.M11, api.JobID{})
	assert.False(t, ok, "no job yet")
	kind, ok := in.Fire(trace.M11, mine)
	assert.True(t, ok)
	assert.Equal(t, fault.OperatorOpenThrows, kind)
	fired := in.Fired()
	require.Len(t, fired, 1)
	assert.Equal(t, mine, fired[0].JobID)
}

// At a step whose kinds break in different places (m4: the JobMaster's
// creation, then its start), each place fires only its own kind, and never
// uses up a fault armed for the other.
func TestFireKindFiresOnlyAFaultOfItsKind(t *testing.T) {
	in := fault.NewInjector(nil)
	job := api.NewJobID()
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M4, Kind: fault.JobMasterStartFailure}))
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M4, Kind: fault.MaxParallelismExceeded, Times: 2}))

	assert.True(t, in.FireKind(trace.M4, job, fault.MaxParallelismExceeded), "the creation's kind, armed second")
	assert.Equal(t, []fault.Fault{
		{Step: trace.M4, Kind: fault.JobMasterStartFailure, Times: 1},
		{Step: trace.M4, Kind: fault.MaxParallelismExceeded, Times: 1},
	}, in.Armed(), "the other kind is left armed")
	assert.False(t, in.FireKind(trace.M5, job, fault.MaxParallelismExceeded), "another step")
	assert.False(t, in.FireKind(trace.M4, job, fault.NoMatchingSlot), "a kind that is not armed")

	assert.True(t, in.FireKind(trace.M4, job, fault.JobMasterStartFailure))
	assert.True(t, in.FireKind(trace.M4, job, fault.MaxParallelismExceeded))
	assert.False(t, in.FireKind(trace.M4, job, fault.MaxParallelismExceeded), "used up")
	assert.Empty(t, in.Armed())
	var fired []fault.Kind
	for _, f := range in.Fired() {
		fired = append(fired, f.Fault.Kind)
	}
	assert.Equal(t, []fault.Kind{fault.MaxParallelismExceeded, fault.JobMasterStartFailure, fault.MaxParallelismExceeded}, fired)

	var none *fault.Injector
	assert.False(t, none.FireKind(trace.M4, job, fault.MaxParallelismExceeded), "a nil injector never fires")
}

// A kind that breaks its step away from the step's usual place (m7's
// slot-sharing-group-too-large, which the JobMaster applies long before
// the SlotManager asks Fire for m7) is fired only by its own place,
// FireKind: the usual place's Fire passes it by and fires the step's
// other kinds as before.
func TestFireLeavesAKindAskedForByNameToItsOwnPlace(t *testing.T) {
	in := fault.NewInjector(nil)
	job := api.NewJobID()
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M7, Kind: fault.SlotSharingGroupTooLarge, Times: 2}))

	_, ok := in.Fire(trace.M7, job)
	assert.False(t, ok, "the SlotManager's Fire does not use it up")
	assert.True(t, in.FireKind(trace.M7, job, fault.SlotSharingGroupTooLarge), "the JobMaster's FireKind fires it")

	require.NoError(t, in.Inject(fault.Fault{Step: trace.M7, Kind: fault.NoMatchingSlot}))
	kind, ok := in.Fire(trace.M7, job)
	assert.True(t, ok)
	assert.Equal(t, fault.NoMatchingSlot, kind, "armed after it, fired past it")
	assert.Equal(t, []fault.Fault{{Step: trace.M7, Kind: fault.SlotSharingGroupTooLarge, Times: 1}}, in.Armed())
	assert.True(t, in.FireKind(trace.M7, job, fault.SlotSharingGroupTooLarge))
	assert.Empty(t, in.Armed())
}

func TestFireKindHonoursTheFaultsJob(t *testing.T) {
	in := fault.NewInjector(nil)
	mine, other := api.NewJobID(), api.NewJobID()
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M4, Kind: fault.MaxParallelismExceeded, JobID: mine}))

	assert.False(t, in.FireKind(trace.M4, other, fault.MaxParallelismExceeded), "another job")
	assert.True(t, in.FireKind(trace.M4, mine, fault.MaxParallelismExceeded))
}

func TestAlwaysFiresUntilCleared(t *testing.T) {
	in := fault.NewInjector(nil)
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M5, Times: fault.Always}))
	for range 100 {
		_, ok := in.Fire(trace.M5, api.NewJobID())
		require.True(t, ok)
	}
	assert.Equal(t, []fault.Fault{{Step: trace.M5, Kind: fault.ResourceManagerUnreachable, Times: fault.Always}}, in.Armed())
	in.Clear()
	_, ok := in.Fire(trace.M5, api.NewJobID())
	assert.False(t, ok)
	assert.Len(t, in.Fired(), 100, "clearing keeps the history")
}

func TestInjectRejectsBadFaults(t *testing.T) {
	in := fault.NewInjector(nil)
	assert.ErrorContains(t, in.Inject(fault.Fault{Step: "m42"}), `no injection point "m42"`)
	assert.ErrorContains(t, in.Inject(fault.Fault{Step: trace.M9, Times: -7}), "times must be positive or always")
	assert.Empty(t, in.Armed())
}

func TestAFiredFaultIsLogged(t *testing.T) {
	var log strings.Builder
	in := fault.NewInjector(slog.New(slog.NewTextHandler(&log, nil)))
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M10, Kind: fault.JarCorrupted}))
	job := api.NewJobID()
	_, ok := in.Fire(trace.M10, job)
	require.True(t, ok)
	assert.Contains(t, log.String(), "level=WARN")
	assert.Contains(t, log.String(), "Injecting fault jar-corrupted at step m10 for job "+job.String()+".")
	assert.Contains(t, log.String(), "logger=FaultInjector")
}

func TestANilInjectorNeverFires(t *testing.T) {
	var in *fault.Injector
	_, ok := in.Fire(trace.M9, api.NewJobID())
	assert.False(t, ok)
	assert.Nil(t, in.Armed())
	assert.Nil(t, in.Fired())
}

func TestConcurrentFiresUseEachPassOnce(t *testing.T) {
	in := fault.NewInjector(nil)
	require.NoError(t, in.Inject(fault.Fault{Step: trace.M9, Times: 50}))
	var wg sync.WaitGroup
	var mu sync.Mutex
	fired := 0
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if _, ok := in.Fire(trace.M9, api.NewJobID()); ok {
					mu.Lock()
					fired++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 50, fired)
}

func TestDiagnoseNamesTheFirstStepThatBroke(t *testing.T) {
	events := []trace.Event{
		{Step: trace.M9, From: "JobMaster", To: "TaskExecutor", Message: "Received task"},
		{Step: trace.M10, From: "TaskExecutor", To: "BlobServer", Message: "Failed to fetch BLOB p-1", Failed: true},
		{Step: trace.M11, From: "Task", To: "JobMaster", Message: "switched from DEPLOYING to FAILED", Failed: true},
	}
	d, ok := fault.Diagnose(events)
	require.True(t, ok)
	assert.Equal(t, trace.M10, d.Step)
	assert.Equal(t, "BlobServer/BlobCache", d.Component)
	assert.Equal(t, "Failed to fetch BLOB p-1", d.What)
	assert.Equal(t, "diagnosis: step m10 — BlobServer/BlobCache: Failed to fetch BLOB p-1\n"+
		"  where to look: the task could not get the job's jar; look for \"Failed to fetch BLOB … No retries\n"+
		"    left.\" in the TaskManager log and read the cause under it: it says whether the jar was missing\n"+
		"    or damaged", d.String())

	_, ok = fault.Diagnose(events[:1])
	assert.False(t, ok, "nothing broke")
}

func TestAnExplainedDiagnosisPrintsItsCauseAndTheLinesThatProveIt(t *testing.T) {
	d, ok := fault.Diagnose([]trace.Event{{Step: trace.M6, From: "JobMaster", To: "ResourceManager", Message: "declareRequiredResources: lost", Failed: true}})
	require.True(t, ok)
	at := func(ms int) time.Time { return time.Date(2026, 12, 1, 10, 15, 58, ms*int(time.Millisecond), time.UTC) }
	d = fault.Explain(d, []fault.LogRecord{
		{Time: at(535), Level: slog.LevelInfo, Logger: "JobMaster", Message: "JobManager successfully registered at ResourceManager, leader id: 3f24."},
		{Time: at(536), Level: slog.LevelWarn, Logger: "FaultInjector", Message: "Injecting fault resource-declaration-lost at step m6 for job 2ac2."},
		{Time: at(537), Level: slog.LevelWarn, Logger: "JobMaster", Message: "Failed to declare resource requirements of job 2ac2; retrying in 1 ms.",
			Attrs: []slog.Attr{slog.String("cause", "rpc timeout: context deadline exceeded")}},
		{Time: at(539), Level: slog.LevelInfo, Logger: "FineGrainedSlotManager", Message: "Received resource requirements from job 2ac2: [ResourceRequirement{…}]"},
	})
	assert.Equal(t, fault.ResourceDeclarationLost, d.Kind)
	printed := d.String()
	assert.True(t, strings.HasPrefix(printed, "diagnosis: step m6 — SlotPool: the JobMaster's declareRequiredResources got no answer"), printed)
	assert.Contains(t, printed, "\n  where to look: the JobManager log: ")
	assert.True(t, strings.HasSuffix(printed, "\n  the log lines that prove it:\n"+
		"    JobManager   10:15:58,535 INFO  JobMaster [] - JobManager successfully registered at ResourceManager, leader id: 3f24.\n"+
		"    JobManager   10:15:58,537 WARN  JobMaster [] - Failed to declare resource requirements of job 2ac2; retrying in 1 ms.\n"+
		"                 rpc timeout: context deadline exceeded\n"+
		"    JobManager   10:15:58,539 INFO  FineGrainedSlotManager [] - Received resource requirements from job 2ac2: [ResourceRequirement{…}]"), printed)
	for _, line := range strings.Split(printed, "\n") {
		if !strings.HasPrefix(line, "    JobManager") && !strings.HasPrefix(line, "                 ") {
			assert.LessOrEqual(t, len([]rune(line)), 100, "the prose is wrapped: %q", line)
		}
	}
}
