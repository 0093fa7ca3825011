package diagnose_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
	"flinklab/tools/learn/diagnose"
)

func TestComponentOfEachStep(t *testing.T) {
	want := map[trace.Step]string{
		trace.M1: "REST", trace.M2: "REST", trace.M3: "Dispatcher", trace.M4: "JobMaster",
		trace.M5: "ResourceManager/SlotManager", trace.M6: "JobMaster", trace.M7: "ResourceManager/SlotManager",
		trace.M8: "TaskExecutor", trace.M9: "TaskExecutor", trace.M10: "BlobServer/BlobCache", trace.M11: "Task",
		// The CheckpointCoordinator is the JobMaster's; the tasks do the rest.
		trace.K1: "JobMaster", trace.K2: "Task", trace.K3: "Task", trace.K4: "Task", trace.K5: "Task",
		trace.K6: "JobMaster", trace.K7: "Task",
	}
	for step := range want {
		assert.Equal(t, want[step], diagnose.ComponentOf(step), "%s", step)
		assert.Contains(t, diagnose.Components(), diagnose.ComponentOf(step))
	}
	assert.Empty(t, diagnose.ComponentOf("m12"))
	assert.Empty(t, diagnose.ComponentOf("k8"))
}

// Each step of a checkpoint that package fault breaks has a component
// among the learner's, and package fault's name for it is an alias of it
// there.
func TestTheComponentOfACheckpointStepIsFaultsToo(t *testing.T) {
	for _, step := range fault.CheckpointSteps() {
		for _, kind := range fault.Kinds(step) {
			key, err := diagnose.NewKey(step, kind)
			require.NoError(t, err)
			name := fault.Component(step)
			e, ok := fault.EvidenceFor(step, kind)
			require.True(t, ok)
			if e.Component != "" {
				name = e.Component
			}
			got, ok := diagnose.CanonicalComponent(step, name)
			assert.True(t, ok, "%s:%s: package fault's %q is a component's name", step, kind, name)
			assert.Equal(t, key.Component, got, "%s:%s", step, kind)
		}
	}
}

func TestCanonicalComponentAcceptsEveryAlias(t *testing.T) {
	tests := []struct {
		step trace.Step
		name string
		want string // "" for no component
	}{
		{trace.M1, "REST", diagnose.REST},
		{trace.M1, "rest", diagnose.REST},
		{trace.M1, "Rest Endpoint", diagnose.REST},
		{trace.M2, "DispatcherRestEndpoint", diagnose.REST},
		{trace.M2, "webmonitorendpoint", diagnose.REST},
		{trace.M3, "Dispatcher", diagnose.Dispatcher},
		{trace.M3, "Standalone Dispatcher", diagnose.Dispatcher},
		{trace.M4, "JobMaster", diagnose.JobMaster},
		{trace.M4, "JobManagerRunner", diagnose.JobMaster},
		{trace.M4, "JOBMASTERSERVICELEADERSHIPRUNNER", diagnose.JobMaster},
		{trace.M6, "SlotPool", diagnose.JobMaster},
		{trace.M6, "declarative slot pool", diagnose.JobMaster},
		{trace.M4, "SlotPool", ""}, // the slot pool is the JobMaster at m6 only
		{trace.M5, "ResourceManager", diagnose.ResourceManager},
		{trace.M7, "slotmanager", diagnose.ResourceManager},
		{trace.M5, "StandaloneResourceManager", diagnose.ResourceManager},
		{trace.M7, "FineGrainedSlotManager", diagnose.ResourceManager},
		{trace.M7, "ResourceManager / SlotManager", diagnose.ResourceManager},
		{trace.M8, "TaskExecutor", diagnose.TaskExecutor},
		{trace.M9, "task manager", diagnose.TaskExecutor},
		{trace.M11, "Task", diagnose.Task},
		{trace.M11, "StreamTask", diagnose.Task},
		{trace.M11, "Operator", diagnose.Task},
		{trace.M10, "BlobServer", diagnose.Blob},
		{trace.M10, "blobcache", diagnose.Blob},
		{trace.M10, "PermanentBlobCache", diagnose.Blob},
		{trace.M10, "BlobClient", diagnose.Blob},
		{trace.M10, "BlobServer/BlobCache", diagnose.Blob},
		{trace.M10, "", ""},
		{trace.M10, "the blob thing", ""},
		{trace.M9, "ExecutionGraph", ""},

		// The parts of a checkpoint, at its steps only.
		{trace.K1, "CheckpointCoordinator", diagnose.JobMaster},
		{trace.K6, "checkpoint coordinator", diagnose.JobMaster},
		{trace.M4, "CheckpointCoordinator", ""},
		{trace.K4, "CheckpointBarrierHandler", diagnose.Task},
		{trace.K4, "SingleCheckpointBarrierHandler", diagnose.Task},
		{trace.K4, "StreamTask", diagnose.Task},
		{trace.K5, "AsyncCheckpointRunnable/CheckpointStorage", diagnose.Task},
		{trace.K5, "TaskManager", diagnose.TaskExecutor},
		{trace.M11, "CheckpointBarrierHandler", ""},
		{trace.K1, "CheckpointFailureManager", ""},
	}
	for _, tt := range tests {
		got, ok := diagnose.CanonicalComponent(tt.step, tt.name)
		assert.Equal(t, tt.want, got, "%s %q", tt.step, tt.name)
		assert.Equal(t, tt.want != "", ok, "%s %q", tt.step, tt.name)
	}
}

func TestParseStep(t *testing.T) {
	for in, want := range map[string]trace.Step{"m7": "m7", "M7": "m7", "7": "m7", "m07": "m7", " m10 ": "m10", "11": "m11", "m1": "m1",
		"k4": "k4", "K4": "k4", "k04": "k4", " k1 ": "k1", "k7": "k7"} {
		got, err := diagnose.ParseStep(in)
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
	for _, in := range []string{"", "m", "m0", "m12", "twelve", "m-1", "+3", "m7a", "k", "k0", "k8", "k11", "k-1", "km4", "mk4"} {
		_, err := diagnose.ParseStep(in)
		assert.Error(t, err, "%q", in)
	}
}

func TestNewKeyFillsInTheKindAndTheComponent(t *testing.T) {
	k, err := diagnose.NewKey("m10", "")
	require.NoError(t, err)
	assert.Equal(t, diagnose.Key{Step: trace.M10, Kind: fault.BlobUnavailable, Component: diagnose.Blob}, k)

	k, err = diagnose.NewKey("m6", fault.ResourceDeclarationLost)
	require.NoError(t, err)
	assert.Equal(t, diagnose.JobMaster, k.Component)

	_, err = diagnose.NewKey("m10", fault.SlotOfferRejected)
	assert.Error(t, err, "a kind of another step")

	k, err = diagnose.NewKey("k4", "")
	require.NoError(t, err)
	assert.Equal(t, diagnose.Key{Step: trace.K4, Kind: fault.BarrierLost, Component: diagnose.Task}, k)
	k, err = diagnose.NewKey("k5", fault.TaskExecutorDiesDuringCheckpoint)
	require.NoError(t, err)
	assert.Equal(t, diagnose.TaskExecutor, k.Component, "the kind's evidence names its own component")
}

func TestStepRange(t *testing.T) {
	for step, want := range map[trace.Step]string{trace.M7: "m1–m11", trace.K1: "k1–k7", trace.K7: "k1–k7", "": "m1–m11"} {
		assert.Equal(t, want, diagnose.StepRange(step), "%q", step)
		assert.Equal(t, want == "k1–k7", diagnose.IsCheckpointStep(step), "%q", step)
	}
}
