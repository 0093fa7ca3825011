package jobmaster_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster"
	"flinklab/runtime/rpc"
	"flinklab/runtime/scheduler/adaptive"
)

// jobmanager.scheduler: adaptive gives a streaming job the
// AdaptiveScheduler, and a BATCH job the DefaultScheduler, with Flink's
// line (Flink gives it its AdaptiveBatchScheduler).
func TestTheSchedulerTypeOfAJob(t *testing.T) {
	for _, tt := range []struct {
		jobType       jobgraph.JobType
		schedulerType string
		reactive      bool
		adaptive      bool
	}{
		{jobgraph.Streaming, "", false, false},
		{jobgraph.Streaming, adaptive.SchedulerTypeAdaptive, false, true},
		{jobgraph.Streaming, "adaptive", false, true}, // any case, as Flink reads the option
		{jobgraph.Streaming, "", true, true},
		{jobgraph.Batch, adaptive.SchedulerTypeAdaptive, false, false},
	} {
		g := jobgraph.New("job")
		source := jobgraph.NewJobVertex("Source", "test.Source", 2)
		sink := jobgraph.NewJobVertex("Sink", "test.Sink", 2)
		sink.ConnectNewDataSetAsInput(source, jobgraph.AllToAll, jobgraph.Blocking)
		g.AddVertex(source)
		g.AddVertex(sink)
		g.JobType = tt.jobType
		var logs logbuf.Buffer
		settings := adaptive.DefaultSettings()
		settings.Reactive = tt.reactive
		jm, err := jobmaster.New(jobmaster.Config{SchedulerType: tt.schedulerType, AdaptiveScheduler: settings,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))},
			jobmaster.Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()},
			g, api.NewJobMasterID(), func(*gateway.ArchivedExecutionGraph) {})
		require.NoError(t, err)
		// The DefaultScheduler names its failover strategy; the
		// AdaptiveScheduler has none.
		assert.Equal(t, !tt.adaptive, strings.Contains(logs.String(), "Using failover strategy"),
			"%v job, scheduler %q, reactive %v", tt.jobType, tt.schedulerType, tt.reactive)
		assert.Equal(t, tt.jobType == jobgraph.Batch, strings.Contains(logs.String(),
			"Adaptive Scheduler configured, but Batch job detected. Changing scheduler type to 'Default'."))
		assert.NoError(t, jm.Close())
	}
}

// Settings the AdaptiveScheduler cannot work with are refused.
func TestAdaptiveSettingsAreChecked(t *testing.T) {
	g := jobgraph.New("job")
	g.AddVertex(jobgraph.NewJobVertex("Source", "test.Source", 2))
	_, err := jobmaster.New(jobmaster.Config{SchedulerType: "Adaptive", AdaptiveScheduler: adaptive.Settings{Reactive: true},
		Logger: slog.New(slog.DiscardHandler)},
		jobmaster.Deps{RPC: rpc.NewLocalService(), HA: highavailability.NewEmbeddedHaServices()},
		g, api.NewJobMasterID(), func(*gateway.ArchivedExecutionGraph) {})
	assert.EqualError(t, err, "jobmanager.adaptive-scheduler.min-parallelism-increase must be at least 1, got 0")
}
