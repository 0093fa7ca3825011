package rest_test

import (
	"context"
	"errors"
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
			{Key: "rest.server.max-content-length", Value: "4096"},
			{Key: "taskmanager.numberOfTaskSlots", Value: "2"}, // from Deps.Configuration
			{Key: "web.upload.dir", Value: h.uploadDir},
		}, got)
	}
}

// TestTaskManagers lists the ResourceManager's TaskManagers by ID, and
// details one; an unknown one is Flink's 404.
func TestTaskManagers(t *testing.T) {
	h := newHarness(t)
	h.rm.taskManagers[0], h.rm.taskManagers[1] = h.rm.taskManagers[1], h.rm.taskManagers[0] // the handler sorts

	for _, prefix := range []string{"", "/v1"} {
		r := h.get(prefix + "/taskmanagers")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.JSONEq(t, `{"taskmanagers": [
			{"id": "taskexecutor-0", "path": "local://taskexecutor-0", "dataPort": -1, "jmxPort": -1, "slotsNumber": 2, "freeSlots": 1, "blocked": false},
			{"id": "taskexecutor-1", "path": "local://taskexecutor-1", "dataPort": -1, "jmxPort": -1, "slotsNumber": 2, "freeSlots": 2, "blocked": false}]}`,
			string(r.body))

		r = h.get(prefix + "/taskmanagers/taskexecutor-1")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var details rest.TaskManagerDetailsInfo
		decode(t, r, &details)
		assert.Equal(t, rest.TaskManagerDetailsInfo{
			TaskManagerInfo: rest.TaskManagerInfo{ID: "taskexecutor-1", Path: "local://taskexecutor-1", DataPort: -1, JMXPort: -1,
				SlotsNumber: 2, FreeSlots: 2},
			Metrics: rest.TaskManagerMetricsInfo{GarbageCollectors: []rest.GarbageCollectorInfo{}},
		}, details)

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
