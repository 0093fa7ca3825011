package minicluster

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
	"flinklab/runtime/examples/numbers"
	"flinklab/runtime/gateway"
	"flinklab/runtime/rest"
)

// flinks1728m is what a TaskManager with the distribution's default
// (taskmanager.memory.process.size: 1728m) reports, Flink's numbers to the
// byte.
var flinks1728m = clusterframework.TaskExecutorMemoryConfiguration{
	FrameworkHeap:      134217728,
	TaskHeap:           402653174,
	FrameworkOffHeap:   134217728,
	TaskOffHeap:        0,
	NetworkMemory:      134217730,
	ManagedMemory:      536870920,
	JVMMetaspace:       268435456,
	JVMOverhead:        201326592,
	TotalFlinkMemory:   1342177280,
	TotalProcessMemory: 1811939328,
}

// taskManagerInfo asks the ResourceManager about the cluster's only
// TaskManager.
func taskManagerInfo(t *testing.T, cluster *MiniCluster) gateway.TaskManagerInfo {
	t.Helper()
	infos, err := cluster.ResourceManager().RequestTaskManagerInfo(context.Background())
	require.NoError(t, err)
	require.Len(t, infos, 1)
	return infos[0]
}

// With nothing configured, each TaskManager is a default 1728m one, with
// one core per slot; its memory and resources reach the ResourceManager
// as Flink computes them.
func TestTaskManagersAreFlinksDefault1728m(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t, 1, 2)
		info := taskManagerInfo(t, cluster)

		assert.Equal(t, flinks1728m, info.MemoryConfiguration)
		total := api.ResourceProfile{CPUCores: 2, TaskHeapMemory: 402653174, ManagedMemory: 536870920, NetworkMemory: 134217730}
		assert.Equal(t, total, info.TotalResource)
		assert.Equal(t, total, info.FreeResource)
		assert.Empty(t, info.AllocatedSlots)
		assert.Equal(t, int64(536870902), info.Hardware.FreeMemory, "the JVM heap Flink would give it (-Xmx)")
		assert.Equal(t, int64(536870920), info.Hardware.ManagedMemory)
	})
}

// -D taskmanager.memory.process.size=4g, and Flink's numbers for 4g.
func TestTaskManagersOf4g(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startClusterWith(t, Config{
			NumTaskManagers: 1, NumSlotsPerTaskManager: 1,
			Configuration: map[string]string{"taskmanager.memory.process.size": "4g"},
		})
		info := taskManagerInfo(t, cluster)

		assert.Equal(t, clusterframework.TaskExecutorMemoryConfiguration{
			FrameworkHeap: 134217728, TaskHeap: 1530082070, FrameworkOffHeap: 134217728, TaskOffHeap: 0,
			NetworkMemory: 359703515, ManagedMemory: 1438814063, JVMMetaspace: 268435456, JVMOverhead: 429496736,
			TotalFlinkMemory: 3597035104, TotalProcessMemory: 4294967296,
		}, info.MemoryConfiguration)
		assert.Equal(t, api.ResourceProfile{CPUCores: 1, TaskHeapMemory: 1530082070, ManagedMemory: 1438814063, NetworkMemory: 359703515},
			info.TotalResource)
	})
}

// A job that holds one of a TaskManager's two slots takes one slot's
// share of its resources, half of each, rounded down to the byte; the
// slot names the job. When the job is gone, so is the allocation.
func TestAJobsSlotTakesItsShareOfTheTaskManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster, _ := startCluster(t, 1, 2)
		total := taskManagerInfo(t, cluster).TotalResource

		// The numbers job at parallelism 1: its three subtasks share one slot.
		job := numbersJob(t, cluster, numbers.Config{Parallelism: 1, Unbounded: true, Collector: numbers.NewCollector()})
		jobID, err := cluster.SubmitJob(context.Background(), job)
		require.NoError(t, err)
		time.Sleep(time.Second) // fake time: the job runs
		synctest.Wait()

		info := taskManagerInfo(t, cluster)
		half := api.ResourceProfile{CPUCores: 1, TaskHeapMemory: 201326587, ManagedMemory: 268435460, NetworkMemory: 67108865}
		assert.Equal(t, 1, info.NumberFreeSlots)
		assert.Equal(t, []gateway.SlotInfo{{JobID: jobID, ResourceProfile: half}}, info.AllocatedSlots)
		assert.Equal(t, half, info.FreeResource)
		assert.Equal(t, total, info.TotalResource)

		require.NoError(t, cluster.CancelJob(context.Background(), jobID))
		_, err = cluster.RequestJobResult(context.Background(), jobID)
		require.NoError(t, err)
		synctest.Wait()
		info = taskManagerInfo(t, cluster)
		assert.Empty(t, info.AllocatedSlots)
		assert.Equal(t, total, info.FreeResource)
	})
}

// A configuration whose memory does not add up starts no cluster, with
// Flink's IllegalConfigurationException and its text.
func TestNewRefusesAnIllegalTaskManagerMemoryConfiguration(t *testing.T) {
	_, err := New(Config{Configuration: map[string]string{"taskmanager.memory.process.size": "700m"}})
	require.ErrorIs(t, err, configuration.ErrIllegalConfiguration)
	assert.EqualError(t, err, "minicluster: TaskManager memory configuration failed: Sum of configured Framework Heap Memory "+
		"(128.000mb (134217728 bytes)), Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Off-Heap Memory "+
		"(0 bytes), Managed Memory (100.800mb (105696462 bytes)) and Network Memory (64.000mb (67108864 bytes)) "+
		"exceed configured Total Flink Memory (252.000mb (264241152 bytes)).")
}

// GET /taskmanagers/{taskmanagerid} of a MiniCluster with the default
// configuration: Flink's numbers for 1728m. The REST endpoint listens on a
// real socket, which testing/synctest cannot hold, so this test waits on
// real time for the TaskManager's registration, asking the endpoint until
// it knows it, bounded by restTimeout.
func TestRESTReportsTheTaskManagersMemory(t *testing.T) {
	cluster, err := New(Config{NumTaskManagers: 1, NumSlotsPerTaskManager: 2, WorkingDir: t.TempDir(), REST: &rest.Config{},
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, cluster.Start())
	defer func() { require.NoError(t, cluster.Close()) }()
	path := cluster.TaskExecutors()[0].Address()

	// Registered, and its two slots reported.
	body := awaitREST(t, "http://"+cluster.RESTAddress()+"/taskmanagers/taskexecutor-0", func(body []byte) bool {
		var info rest.TaskManagerInfo
		return json.Unmarshal(body, &info) == nil && info.SlotsNumber == 2
	})
	var details map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &details))
	var hardware gateway.HardwareDescription
	require.NoError(t, json.Unmarshal(details["hardware"], &hardware))
	assert.Equal(t, int64(536870902), hardware.FreeMemory)
	assert.Equal(t, int64(536870920), hardware.ManagedMemory)
	delete(details, "hardware") // the machine's: cpuCores and physicalMemory vary
	delete(details, "metrics")  // all zero
	withoutHardware, err := json.Marshal(details)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"id": "taskexecutor-0", "path": "`+path+`", "dataPort": -1, "jmxPort": -1,
		"slotsNumber": 2, "freeSlots": 2,
		"totalResource": {"cpuCores": 2, "taskHeapMemory": 383, "taskOffHeapMemory": 0, "managedMemory": 512, "networkMemory": 128, "extendedResources": {}},
		"freeResource":  {"cpuCores": 2, "taskHeapMemory": 383, "taskOffHeapMemory": 0, "managedMemory": 512, "networkMemory": 128, "extendedResources": {}},
		"memoryConfiguration": {"frameworkHeap": 134217728, "taskHeap": 402653174, "frameworkOffHeap": 134217728, "taskOffHeap": 0,
			"networkMemory": 134217730, "managedMemory": 536870920, "jvmMetaspace": 268435456, "jvmOverhead": 201326592,
			"totalFlinkMemory": 1342177280, "totalProcessMemory": 1811939328},
		"blocked": false,
		"allocatedSlots": []
	}`, string(withoutHardware))
}

// restTimeout bounds how long TestRESTReportsTheTaskManagersMemory waits
// for the TaskManager's registration, in real time.
const restTimeout = 20 * time.Second

// awaitREST asks url until it answers 200 with a body that is ready, and
// returns the body. The client keeps no connection open, so that no
// goroutine outlives the test.
func awaitREST(t *testing.T, url string, ready func(body []byte) bool) []byte {
	t.Helper()
	httpClient := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.NewTimer(restTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := httpClient.Get(url)
		if err == nil {
			body, readErr := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK && readErr == nil && ready(body) {
				return body
			}
		}
		select {
		case <-deadline.C:
			t.Fatalf("GET %s did not answer as awaited within %v", url, restTimeout)
		case <-tick.C:
		}
	}
}
