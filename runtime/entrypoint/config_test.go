package entrypoint

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/executiongraph/failover"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/internal/logbuf"
	"flinklab/runtime/registration"
	"flinklab/runtime/rest"
)

func TestHeartbeatOptions(t *testing.T) {
	tests := []struct {
		name string
		conf map[string]string
		want heartbeat.HeartbeatServices
	}{
		{"none: Flink's defaults", nil, heartbeat.DefaultHeartbeatServices()},
		{"milliseconds, as Flink reads them", map[string]string{KeyHeartbeatInterval: "200", KeyHeartbeatTimeout: "1000"},
			heartbeat.HeartbeatServices{Interval: 200 * time.Millisecond, Timeout: time.Second, RPCFailureThreshold: 2}},
		{"durations with a unit", map[string]string{KeyHeartbeatInterval: "500 ms", KeyHeartbeatTimeout: " 2s ", KeyHeartbeatRPCFailureThreshold: "-1"},
			heartbeat.HeartbeatServices{Interval: 500 * time.Millisecond, Timeout: 2 * time.Second, RPCFailureThreshold: heartbeat.FailedRPCDetectionDisabled}},
		{"other keys are not heartbeat options", map[string]string{"heartbeat": "1", "taskmanager.numberOfTaskSlots": "4"}, heartbeat.DefaultHeartbeatServices()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := heartbeatServices(tt.conf)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestWrongOptionsAreRefusedWithFlinksWords(t *testing.T) {
	tests := []struct {
		conf map[string]string
		want string
	}{
		{map[string]string{KeyHeartbeatInterval: "soon"}, "Could not parse value 'soon' for key 'heartbeat.interval'."},
		{map[string]string{KeyHeartbeatTimeout: "-5"}, "Could not parse value '-5' for key 'heartbeat.timeout'."},
		{map[string]string{KeyHeartbeatRPCFailureThreshold: "two"}, "Could not parse value 'two' for key 'heartbeat.rpc-failure-threshold'."},
		{map[string]string{KeyHeartbeatInterval: "2000", KeyHeartbeatTimeout: "1000"}, "The heartbeat timeout should be larger or equal than the heartbeat interval."},
		{map[string]string{KeyHeartbeatRPCFailureThreshold: "0"}, "The number of failed heartbeat RPC requests has to be larger than 0 or -1 (deactivated)."},
	}
	for _, tt := range tests {
		_, err := heartbeatServices(tt.conf)
		assert.ErrorContains(t, err, tt.want, "%v", tt.conf)
	}

	// A process given a wrong option does not start, and says why.
	var logs logbuf.Buffer
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir:    t.TempDir(),
		Configuration: map[string]string{"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.attempts": "many"},
		Logger:        slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	err := jm.Start()
	assert.ErrorContains(t, err, "Could not parse value 'many' for key 'restart-strategy.fixed-delay.attempts'.")
	assert.Equal(t, 1, jm.ExitCode())
	jm = NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir:    t.TempDir(),
		Configuration: map[string]string{KeyRequirementCheckDelay: "later"},
		Logger:        slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	assert.ErrorContains(t, jm.Start(), "Could not parse value 'later' for key 'slotmanager.requirement-check.delay'.")
	for option, want := range map[[2]string]string{
		{"jobmanager.execution.failover-strategy", "individual"}: "Unknown failover strategy: individual",
		{"scheduler-mode", "reactive"}: "Reactive mode is configured for an unsupported cluster type. At the moment, " +
			"reactive mode is only supported by standalone application clusters (bin/standalone-job.sh).",
	} {
		jm = NewStandaloneSessionClusterEntrypoint(Config{
			RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
			WorkingDir:    t.TempDir(),
			Configuration: map[string]string{option[0]: option[1]},
			Logger:        slog.New(slog.NewJSONHandler(&logs, nil)),
		})
		assert.EqualError(t, jm.Start(), "could not start cluster entrypoint StandaloneSessionClusterEntrypoint: "+want)
	}
	tm := NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: "127.0.0.1:6123",
		Configuration:     map[string]string{KeyHeartbeatInterval: "soon"},
		Logger:            slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	assert.ErrorContains(t, tm.Start(), "Could not parse value 'soon' for key 'heartbeat.interval'.")
	tm = NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: "127.0.0.1:6123",
		Configuration:     map[string]string{KeyRegistrationErrorDelay: "soon"},
		Logger:            slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	assert.ErrorContains(t, tm.Start(), "Could not parse value 'soon' for key 'cluster.registration.error-delay'.")
}

// The JobManager's components run with what the configuration says: every
// JobMaster with its restart strategy, and GET /jobmanager/config lists
// the options, the heartbeat options as the JobManager runs with them.
func TestTheJobManagerRunsWithItsConfiguration(t *testing.T) {
	var jmLogs, tmLogs logbuf.Buffer
	jm := NewStandaloneSessionClusterEntrypoint(Config{
		RPCAddress: "127.0.0.1:0", RESTAddress: "127.0.0.1:0", BlobServerAddress: "127.0.0.1:0",
		WorkingDir: t.TempDir(),
		Configuration: map[string]string{
			KeyHeartbeatTimeout:                     "20000",
			"restart-strategy.type":                 "fixed-delay",
			"restart-strategy.fixed-delay.attempts": "3",
			"restart-strategy.fixed-delay.delay":    "200 ms",
			KeyRequirementCheckDelay:                "1ms",
			"pipeline.name":                         "kept as given",
		},
		Logger: slog.New(slog.NewJSONHandler(&jmLogs, nil)),
	})
	require.NoError(t, jm.Start())
	t.Cleanup(func() { assert.NoError(t, jm.Close()) })
	startTaskManager(t, jm, 1, &tmLogs)

	var entries []rest.ConfigurationInfoEntry
	require.NoError(t, client.NewRestClusterClient(jm.RESTAddress()).SendRequest(context.Background(), http.MethodGet, "/jobmanager/config", &entries))
	conf := map[string]string{}
	for _, e := range entries {
		conf[e.Key] = e.Value
	}
	assert.Equal(t, "10000", conf[KeyHeartbeatInterval], "Flink's default")
	assert.Equal(t, "20000", conf[KeyHeartbeatTimeout])
	assert.Equal(t, "2", conf[KeyHeartbeatRPCFailureThreshold])
	assert.Equal(t, "fixed-delay", conf["restart-strategy.type"])
	assert.Equal(t, "kept as given", conf["pipeline.name"])
	assert.NotEmpty(t, conf["jobmanager.rpc.port"])

	result := awaitResult(t, jm, submitWordCount(t, jm, 1))
	require.Equal(t, api.JobFinished, result.JobStatus, result.FailureCause)
	assert.NotEmpty(t, jmLogs.Messages("Using restart back off time strategy FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=3, backoffTimeMS=200) for WordCount"))
}

// A TaskManager watches the ResourceManager with its own heartbeat
// options: given a timeout far shorter than the JobManager's interval
// (Flink's default, 10 s), it gives up on the ResourceManager before the
// first heartbeat request can arrive. (Every process of a cluster should
// be given the same heartbeat options; this one is not, to show that the
// TaskManager reads its own.)
func TestTheTaskManagerReadsItsHeartbeatOptions(t *testing.T) {
	var jmLogs, tmLogs logbuf.Buffer
	jm := startSession(t, &jmLogs)
	tm := NewTaskManagerRunner(TaskManagerConfig{
		JobManagerAddress: jm.RPCAddress(),
		BlobServerAddress: jm.BlobServerAddress(),
		RPCAddress:        "127.0.0.1:0",
		WorkingDir:        t.TempDir(),
		Configuration:     map[string]string{KeyHeartbeatInterval: "100", KeyHeartbeatTimeout: "300"},
		Logger:            slog.New(slog.NewJSONHandler(&tmLogs, nil)),
	})
	require.NoError(t, tm.Start())
	t.Cleanup(func() { assert.NoError(t, tm.Close()) })

	deadline := time.Now().Add(testTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for len(tmLogs.Messages("The heartbeat of ResourceManager with id ")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the TaskManager did not time out the ResourceManager within %v:\n%s", testTimeout,
				strings.Join(tmLogs.Messages(""), "\n"))
		}
		<-tick.C
	}
	assert.Regexp(t, `^The heartbeat of ResourceManager with id \S+ timed out\.$`, tmLogs.Messages("The heartbeat of ResourceManager with id ")[0])
}

func TestRequirementCheckDelayOption(t *testing.T) {
	for value, want := range map[string]time.Duration{
		"":      0, // not set: the ResourceManager's default, 50 ms
		"10":    10 * time.Millisecond,
		"1 µs":  time.Microsecond,
		"0":     time.Nanosecond, // no delay
		"0 ms":  time.Nanosecond,
		"100ms": 100 * time.Millisecond,
	} {
		conf := map[string]string{}
		if value != "" {
			conf[KeyRequirementCheckDelay] = value
		}
		e := NewStandaloneSessionClusterEntrypoint(Config{Configuration: conf})
		require.NoError(t, e.readConfiguration(), value)
		assert.Equal(t, want, e.componentConfig.RequirementCheckDelay, "%q", value)
	}
}

func TestRPCTimeoutAndRegistrationOptions(t *testing.T) {
	tests := []struct {
		name        string
		conf        map[string]string
		wantTimeout time.Duration
		want        registration.Config
	}{
		{"none: Flink's defaults", nil, 10 * time.Second, registration.DefaultConfig()},
		{"as Flink writes them", map[string]string{
			KeyAskTimeout:                 "2 s",
			KeyRegistrationInitialTimeout: "50",
			KeyRegistrationMaxTimeout:     "1000",
			KeyRegistrationErrorDelay:     "300",
			KeyRegistrationRefusedDelay:   "1 s",
		}, 2 * time.Second, registration.Config{
			InitialTimeout: 50 * time.Millisecond, MaxTimeout: time.Second,
			ErrorDelay: 300 * time.Millisecond, RefusedDelay: time.Second,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timeout, err := askTimeout(tt.conf)
			require.NoError(t, err)
			assert.Equal(t, tt.wantTimeout, timeout)
			retries, err := registrationConfig(tt.conf)
			require.NoError(t, err)
			assert.Equal(t, tt.want, retries)
		})
	}

	_, err := askTimeout(map[string]string{KeyAskTimeout: "0"})
	assert.ErrorContains(t, err, "Could not parse value '0' for key 'pekko.ask.timeout'.")
	_, err = registrationConfig(map[string]string{KeyRegistrationMaxTimeout: "never"})
	assert.ErrorContains(t, err, "Could not parse value 'never' for key 'cluster.registration.max-timeout'.")
}

// Every JobMaster is created with the JobManager's RPC timeout and its
// registration options, as the MiniCluster's are with its own (both
// through component.Create), and the ResourceManager with the same
// RPC timeout (one component.Config gives both theirs).
func TestJobMastersGetTheRPCTimeoutAndRegistrationOptions(t *testing.T) {
	e := NewStandaloneSessionClusterEntrypoint(Config{Configuration: map[string]string{
		KeyAskTimeout:                 "3 s",
		KeyRegistrationInitialTimeout: "20",
		KeyHeartbeatInterval:          "200",
		KeyHeartbeatTimeout:           "1000",
		"restart-strategy.type":       "fixed-delay",
	}})
	require.NoError(t, e.readConfiguration())

	got := e.componentConfig
	assert.Equal(t, 3*time.Second, got.RPCTimeout)
	assert.Equal(t, 20*time.Millisecond, got.Registration.InitialTimeout)
	assert.Equal(t, registration.DefaultConfig().MaxTimeout, got.Registration.MaxTimeout)
	assert.Equal(t, 200*time.Millisecond, got.Heartbeat.Interval)
	assert.Equal(t, failover.TypeFixedDelay, got.RestartStrategy.Type)
	assert.Same(t, e.cfg.Logger, got.Logger)
}

// slot.request.timeout reaches every JobMaster, and is the
// ResourceManager's start-up period too, as in a Flink cluster that does
// not set resourcemanager.standalone.start-up-time.
func TestSlotRequestTimeoutOption(t *testing.T) {
	for value, want := range map[string]time.Duration{
		"":      5 * time.Minute, // not set: Flink's default
		"30000": 30 * time.Second,
		"10 s":  10 * time.Second,
		"2m":    2 * time.Minute,
	} {
		conf := map[string]string{}
		if value != "" {
			conf[KeySlotRequestTimeout] = value
		}
		e := NewStandaloneSessionClusterEntrypoint(Config{Configuration: conf})
		require.NoError(t, e.readConfiguration(), value)
		assert.Equal(t, want, e.componentConfig.SlotRequestTimeout, "%q", value)
		assert.Equal(t, want, e.componentConfig.StartUpPeriod, "the start-up period falls back to slot.request.timeout: %q", value)
	}
	for _, value := range []string{"soon", "0", "-1"} {
		e := NewStandaloneSessionClusterEntrypoint(Config{Configuration: map[string]string{KeySlotRequestTimeout: value}})
		assert.ErrorContains(t, e.readConfiguration(), "Could not parse value '"+value+"' for key 'slot.request.timeout'.")
	}
}

// resourcemanager.standalone.start-up-time sets the start-up period on its
// own; -1, Flink's default, means slot.request.timeout.
func TestStandaloneStartUpTimeOption(t *testing.T) {
	for value, want := range map[string]time.Duration{
		"-1":   30 * time.Second,
		"2000": 2 * time.Second,
		"1 s":  time.Second,
	} {
		e := NewStandaloneSessionClusterEntrypoint(Config{Configuration: map[string]string{
			KeySlotRequestTimeout: "30000", KeyStandaloneStartUpTime: value}})
		require.NoError(t, e.readConfiguration(), value)
		assert.Equal(t, want, e.componentConfig.StartUpPeriod, "%q", value)
		assert.Equal(t, 30*time.Second, e.componentConfig.SlotRequestTimeout, "%q leaves the slot request timeout alone", value)
	}
	e := NewStandaloneSessionClusterEntrypoint(Config{Configuration: map[string]string{KeyStandaloneStartUpTime: "0"}})
	assert.ErrorContains(t, e.readConfiguration(), "Could not parse value '0' for key 'resourcemanager.standalone.start-up-time'.")
}
