package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rest"
)

// TestDashboardConfig: the web UI learns how often to poll, the time zone,
// the version, and that it may submit and cancel but not rescale.
func TestDashboardConfig(t *testing.T) {
	h := newHarness(t)
	for _, prefix := range []string{"", "/v1"} {
		r := h.get(prefix + "/config")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var got rest.DashboardConfiguration
		decode(t, r, &got)
		zone, offset := time.Now().Zone()
		assert.Equal(t, rest.DashboardConfiguration{
			RefreshInterval: 3000,
			TimezoneName:    zone,
			TimezoneOffset:  offset * 1000,
			FlinkVersion:    rest.FlinkVersion,
			FlinkRevision:   "unknown revision", // a test binary has no VCS information
			Features:        rest.DashboardFeatures{WebSubmit: true, WebCancel: true},
		}, got)
	}
}

// TestClusterOverview counts the ResourceManager's TaskManagers and slots
// and the Dispatcher's jobs per state: every state that is not FINISHED,
// CANCELED or FAILED counts as running.
func TestClusterOverview(t *testing.T) {
	h := newHarness(t)
	statuses := map[api.JobID]api.JobStatus{
		api.NewJobID(): api.JobRunning, api.NewJobID(): api.JobRestarting, api.NewJobID(): api.JobInitializing,
		api.NewJobID(): api.JobFinished, api.NewJobID(): api.JobCanceled, api.NewJobID(): api.JobFailed, api.NewJobID(): api.JobFailed,
	}
	gone := api.NewJobID() // listed, then forgotten before its status was asked
	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) {
		ids := []api.JobID{gone}
		for id := range statuses {
			ids = append(ids, id)
		}
		return ids, nil
	}
	h.dispatcher.RequestJobStatusFunc = func(_ context.Context, id api.JobID) (api.JobStatus, error) {
		if s, ok := statuses[id]; ok {
			return s, nil
		}
		return 0, gateway.ErrJobNotFound
	}

	for _, prefix := range []string{"", "/v1"} {
		r := h.get(prefix + "/overview")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var got rest.ClusterOverviewWithVersion
		decode(t, r, &got)
		assert.Equal(t, rest.ClusterOverviewWithVersion{
			TaskManagers: 2, SlotsTotal: 4, SlotsAvailable: 3,
			JobsRunning: 3, JobsFinished: 1, JobsCancelled: 1, JobsFailed: 2,
			FlinkVersion: rest.FlinkVersion, FlinkCommit: "DecafC0ffeeD0d0F00d",
		}, got)
	}
}

// TestClusterConfig lists the options the cluster was started with and the
// endpoint's own, sorted by key, as a JSON array of {key, value}.
func TestClusterConfig(t *testing.T) {
	logDir := t.TempDir()
	h := newHarness(t, func(c *rest.Config) { c.LogDir = logDir; c.MaxUploadSize = 4096 })
	_, port, err := net.SplitHostPort(h.server.Address())
	require.NoError(t, err)

	for _, prefix := range []string{"", "/v1"} {
		r := h.get(prefix + "/jobmanager/config")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var got []rest.ConfigurationInfoEntry
		decode(t, r, &got)
		assert.Equal(t, []rest.ConfigurationInfoEntry{
			{Key: "env.log.dir", Value: logDir},
			{Key: "rest.address", Value: "127.0.0.1"},
			{Key: "rest.bind-address", Value: "127.0.0.1"},
			{Key: "rest.port", Value: port},
			{Key: "rest.server.idleness-timeout", Value: "30s"},
			{Key: "rest.server.max-connections", Value: "128"},
			{Key: "rest.server.max-content-length", Value: "4096"},
			{Key: "rest.server.read-timeout", Value: "30s"},
			{Key: "taskmanager.numberOfTaskSlots", Value: "2"}, // from Deps.Configuration
			{Key: "web.access-control-allow-origin", Value: "*"},
			{Key: "web.upload.dir", Value: h.uploadDir},
		}, got)
	}
}

// TestTaskManagers lists the ResourceManager's TaskManagers by ID, and
// details one; an unknown one is Flink's 404. The resources are in whole
// MiB, rounded down, as Flink's ResourceProfileInfo shows them: the 1728m
// default's task heap, 402653174 bytes, is 383 MiB, and a slot's half of
// it, 201326587 bytes, 191.
func TestTaskManagers(t *testing.T) {
	h := newHarness(t)
	h.rm.taskManagers[0], h.rm.taskManagers[1] = h.rm.taskManagers[1], h.rm.taskManagers[0] // the handler sorts

	const (
		total       = `{"cpuCores": 2, "taskHeapMemory": 383, "taskOffHeapMemory": 0, "managedMemory": 512, "networkMemory": 128, "extendedResources": {}}`
		half        = `{"cpuCores": 1, "taskHeapMemory": 191, "taskOffHeapMemory": 0, "managedMemory": 256, "networkMemory": 64, "extendedResources": {}}`
		hardware    = `{"cpuCores": 8, "physicalMemory": 17179869184, "freeMemory": 536870902, "managedMemory": 536870920}`
		memory      = `{"frameworkHeap": 134217728, "taskHeap": 402653174, "frameworkOffHeap": 134217728, "taskOffHeap": 0, "networkMemory": 134217730, "managedMemory": 536870920, "jvmMetaspace": 268435456, "jvmOverhead": 201326592, "totalFlinkMemory": 1342177280, "totalProcessMemory": 1811939328}`
		taskManager = `{"id": "taskexecutor-%d", "path": "local://taskexecutor-%d", "dataPort": -1, "jmxPort": -1, "slotsNumber": 2, "freeSlots": %d,
			"totalResource": ` + total + `, "freeResource": %s, "hardware": ` + hardware + `, "memoryConfiguration": ` + memory + `, "blocked": false`
	)
	for _, prefix := range []string{"", "/v1"} {
		r := h.get(prefix + "/taskmanagers")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.JSONEq(t, `{"taskmanagers": [`+
			fmt.Sprintf(taskManager, 0, 0, 1, half)+`}, `+
			fmt.Sprintf(taskManager, 1, 1, 2, total)+`}]}`,
			string(r.body))

		r = h.get(prefix + "/taskmanagers/taskexecutor-0")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var details map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(r.body, &details))
		assert.JSONEq(t, `[{"resource": `+half+`, "jobId": "3e7a6a2b9c1d4f5e8a7b6c5d4e3f2a1b"}]`, string(details["allocatedSlots"]))
		assert.JSONEq(t, half, string(details["freeResource"]))
		assert.JSONEq(t, memory, string(details["memoryConfiguration"]))

		r = h.get(prefix + "/taskmanagers/taskexecutor-1")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var got rest.TaskManagerDetailsInfo
		decode(t, r, &got)
		assert.Equal(t, rest.TaskManagerInfo{ID: "taskexecutor-1", Path: "local://taskexecutor-1", DataPort: -1, JMXPort: -1,
			SlotsNumber: 2, FreeSlots: 2,
			TotalResource: rest.ResourceProfileInfo{CPUCores: 2, TaskHeapMemory: 383, ManagedMemory: 512, NetworkMemory: 128, ExtendedResources: map[string]float64{}},
			FreeResource:  rest.ResourceProfileInfo{CPUCores: 2, TaskHeapMemory: 383, ManagedMemory: 512, NetworkMemory: 128, ExtendedResources: map[string]float64{}},
			Hardware:      h.rm.taskManagers[0].Hardware, MemoryConfiguration: h.rm.taskManagers[0].MemoryConfiguration,
		}, got.TaskManagerInfo)
		assert.Equal(t, []rest.SlotInfo{}, got.AllocatedSlots, "no slot is allocated: [], not null")
		assert.Equal(t, rest.TaskManagerMetricsInfo{GarbageCollectors: []rest.GarbageCollectorInfo{}}, got.Metrics)

		r = h.get(prefix + "/taskmanagers/taskexecutor-9")
		assert.Equal(t, http.StatusNotFound, r.status)
		assert.Equal(t, []string{"Could not find TaskExecutor taskexecutor-9."}, r.errors)
	}
}

// TestClusterEndpointsWhenTheResourceManagerFails: its error is a 500, in
// Flink's shape.
func TestClusterEndpointsWhenTheResourceManagerFails(t *testing.T) {
	h := newHarness(t)
	h.rm.err = errors.New("rpc timeout: invocation at recipient [resourcemanager] timed out")
	for _, path := range []string{"/overview", "/taskmanagers", "/taskmanagers/taskexecutor-0"} {
		r := h.get(path)
		assert.Equal(t, http.StatusInternalServerError, r.status, path)
		require.Len(t, r.errors, 2, path)
		assert.Equal(t, "Internal server error.", r.errors[0], path)
		assert.True(t, strings.Contains(r.errors[1], "rpc timeout"), "%s: %s", path, r.errors[1])
	}
}

// While no Dispatcher leads (a failover), every request that needs one is
// answered 503 with Flink's words, and, as Flink's LeaderRetrievalHandler
// does, nothing is logged: the client is told to ask again.
func TestNoLeaderIsA503ThatLogsNothing(t *testing.T) {
	h := newHarness(t)
	h.dispatcher.ListJobsFunc = func(context.Context) ([]api.JobID, error) { return nil, gateway.ErrNoLeader }

	r := h.get("/jobs/overview")
	require.Equal(t, http.StatusServiceUnavailable, r.status, string(r.body))
	assert.JSONEq(t, `{"errors": ["Service temporarily unavailable due to an ongoing leader election. Please refresh."]}`, string(r.body))
	assert.NotContains(t, h.logs.String(), "level=ERROR", "a failover is not an error of the REST endpoint")
}
