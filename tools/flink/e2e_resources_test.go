//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/sharing"
	"flinklab/runtime/rest"
	"flinklab/tools/flink/flinktest"
)

// flink start-cluster --taskmanagers 1 --slots 2, then GET
// /taskmanagers/{taskmanagerid}: the TaskManager process reports its
// memory as Flink computes it, to the byte, for the distribution's default
// (taskmanager.memory.process.size: 1728m) and for -D
// taskmanager.memory.process.size=4g; its resources in whole MiB, rounded
// down, one core per slot. Its log starts with the Preconfiguration block
// a Flink TaskManager's does.
func TestTaskManagerMemoryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	tests := []struct {
		name       string
		properties []string
		want       string // the answer, without id, path, hardware and metrics
		jvmParams  string
	}{
		{
			name: "the distribution's 1728m",
			want: `{"dataPort": -1, "jmxPort": -1, "slotsNumber": 2, "freeSlots": 2,
				"totalResource": {"cpuCores": 2, "taskHeapMemory": 383, "taskOffHeapMemory": 0, "managedMemory": 512, "networkMemory": 128, "extendedResources": {}},
				"freeResource":  {"cpuCores": 2, "taskHeapMemory": 383, "taskOffHeapMemory": 0, "managedMemory": 512, "networkMemory": 128, "extendedResources": {}},
				"memoryConfiguration": {"frameworkHeap": 134217728, "taskHeap": 402653174, "frameworkOffHeap": 134217728, "taskOffHeap": 0,
					"networkMemory": 134217730, "managedMemory": 536870920, "jvmMetaspace": 268435456, "jvmOverhead": 201326592,
					"totalFlinkMemory": 1342177280, "totalProcessMemory": 1811939328},
				"blocked": false, "allocatedSlots": []}`,
			jvmParams: "jvm_params: -Xmx536870902 -Xms536870902 -XX:MaxDirectMemorySize=268435458 -XX:MaxMetaspaceSize=268435456",
		},
		{
			name:       "-D taskmanager.memory.process.size=4g",
			properties: []string{"-D", "taskmanager.memory.process.size=4g"},
			want: `{"dataPort": -1, "jmxPort": -1, "slotsNumber": 2, "freeSlots": 2,
				"totalResource": {"cpuCores": 2, "taskHeapMemory": 1459, "taskOffHeapMemory": 0, "managedMemory": 1372, "networkMemory": 343, "extendedResources": {}},
				"freeResource":  {"cpuCores": 2, "taskHeapMemory": 1459, "taskOffHeapMemory": 0, "managedMemory": 1372, "networkMemory": 343, "extendedResources": {}},
				"memoryConfiguration": {"frameworkHeap": 134217728, "taskHeap": 1530082070, "frameworkOffHeap": 134217728, "taskOffHeap": 0,
					"networkMemory": 359703515, "managedMemory": 1438814063, "jvmMetaspace": 268435456, "jvmOverhead": 429496736,
					"totalFlinkMemory": 3597035104, "totalProcessMemory": 4294967296},
				"blocked": false, "allocatedSlots": []}`,
			jvmParams: "jvm_params: -Xmx1664299798 -Xms1664299798 -XX:MaxDirectMemorySize=493921243 -XX:MaxMetaspaceSize=268435456",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logDir := t.TempDir()
			c := startClusterProcess(t, bin, append([]string{"start-cluster", "--taskmanagers", "1", "--slots", "2",
				"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir}, tt.properties...)...)
			restAddress := c.awaitLine(t, regexp.MustCompile(`REST endpoint http://(\S+),`))[1]
			resourceID := c.awaitLine(t, regexp.MustCompile(`Starting taskexecutor daemon .*: ResourceID (\S+),`))[1]
			c.awaitLine(t, regexp.MustCompile(`The cluster runs in the foreground`))
			rc := client.NewRestClusterClient(restAddress)
			awaitReportedSlots(t, rc, resourceID, 2)

			var details map[string]json.RawMessage
			require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/taskmanagers/"+resourceID, &details))
			assert.JSONEq(t, `"`+resourceID+`"`, string(details["id"]))
			var hardware struct {
				CPUCores      int   `json:"cpuCores"`
				FreeMemory    int64 `json:"freeMemory"`
				ManagedMemory int64 `json:"managedMemory"`
			}
			require.NoError(t, json.Unmarshal(details["hardware"], &hardware))
			assert.Positive(t, hardware.CPUCores)
			for _, field := range []string{"id", "path", "hardware", "metrics"} {
				delete(details, field)
			}
			got, err := json.Marshal(details)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))

			var list rest.TaskManagersInfo
			require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/taskmanagers", &list))
			require.Len(t, list.TaskManagers, 1)
			assert.Equal(t, hardware.ManagedMemory, list.TaskManagers[0].MemoryConfiguration.ManagedMemory)

			require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
			c.awaitExit(t)
			tmLog := readLog(t, logDir, entrypoint.DaemonTaskExecutor, 0)
			assert.Regexp(t, `INFO  TaskManagerRunner \[\] -  Preconfiguration: \n`+
				`\S+ \S+ INFO  TaskManagerRunner \[\] - \n\n\nRESOURCE_PARAMS extraction logs:\n`+
				regexp.QuoteMeta(tt.jvmParams)+`\ndynamic_configs: -D taskmanager.memory.network.min=`, tmLog)
			assert.Contains(t, tmLog, "\nlogs: INFO  [] - Final TaskExecutor Memory configuration:\n")
		})
	}
}

// A TaskManager memory configuration that does not add up: start-cluster
// says why, with Flink's message, and starts nothing; flink taskmanager
// does not start either.
func TestAnIllegalTaskManagerMemoryConfigurationStartsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	const flinks = "TaskManager memory configuration failed: Sum of configured Framework Heap Memory " +
		"(128.000mb (134217728 bytes)), Framework Off-Heap Memory (128.000mb (134217728 bytes)), Task Off-Heap Memory " +
		"(0 bytes), Managed Memory (100.800mb (105696462 bytes)) and Network Memory (64.000mb (67108864 bytes)) " +
		"exceed configured Total Flink Memory (252.000mb (264241152 bytes))."

	stdout, stderr, code := flinktest.RunCode(t, bin, "start-cluster", "--rpc-port", "0", "--rest-port", "0", "--blob-port", "0",
		"--log-dir", t.TempDir(), "-D", "taskmanager.memory.process.size=700m")
	assert.Equal(t, 1, code)
	assert.Equal(t, "flink: the TaskManagers cannot start: "+flinks+"\n", stderr)
	assert.NotContains(t, stdout, "daemon", "no process was started")

	_, stderr, code = flinktest.RunCode(t, bin, "taskmanager", "-m", "localhost:6123", "--log-dir", "",
		"-D", "taskmanager.memory.process.size=700m")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "flink: could not start the TaskManager: "+flinks+"\n")
	assert.Contains(t, stderr, "ERROR TaskManagerRunner [] - Could not start the TaskManager.\n"+flinks+"\n")
	assert.False(t, strings.Contains(stderr, "Preconfiguration"), "no memory, no Preconfiguration")
}

// awaitReportedSlots asks GET /taskmanagers until the TaskManager
// resourceID has registered and reported its slots.
func awaitReportedSlots(t testing.TB, rc *client.RestClusterClient, resourceID string, slots int) {
	t.Helper()
	awaitTaskManagersInfo(t, rc, fmt.Sprintf("TaskManager %s with %d slots", resourceID, slots), func(info rest.TaskManagersInfo) bool {
		return slices.ContainsFunc(info.TaskManagers, func(tm rest.TaskManagerInfo) bool {
			return string(tm.ID) == resourceID && tm.SlotsNumber == slots
		})
	})
}

// A job whose slot sharing group asks for more than any TaskManager has:
// flink run the sharing program with --counting-cpu 8 on one TaskManager
// of 2 cores. The ResourceManager cuts the slot of the default group out
// of the TaskManager, and none for the counting group: its requirement
// waits in the SlotManager's "Missing resources" through the start-up
// period (resourcemanager.standalone.start-up-time, 3 s here: the job
// must reach the SlotManager within it, also on a busy machine), then the
// SlotManager gives up on the job and the JobMaster's slot pool fails the
// requests, with Flink's texts. No restart strategy is configured, so the
// job FAILS.
func TestASlotSharingGroupLargerThanAnyTaskManagerWaitsThenFailsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes: skipped with -short")
	}
	t.Parallel()
	bin := flinktest.Build(t)
	logDir := t.TempDir()
	c := startClusterProcess(t, bin, "start-cluster", "--taskmanagers", "1", "--slots", "2",
		"--rpc-port", "0", "--rest-port", "0", "--blob-port", "0", "--log-dir", logDir,
		"-D", "resourcemanager.standalone.start-up-time=3000")
	restAddress := c.awaitLine(t, regexp.MustCompile(`REST endpoint http://(\S+),`))[1]
	resourceID := c.awaitLine(t, regexp.MustCompile(`Starting taskexecutor daemon .*: ResourceID (\S+),`))[1]
	c.awaitLine(t, regexp.MustCompile(`The cluster runs in the foreground`))
	rc := client.NewRestClusterClient(restAddress)
	awaitReportedSlots(t, rc, resourceID, 2)

	jar := filepath.Join(t.TempDir(), "Sharing.jar")
	flinktest.Run(t, bin, "jar", sharing.ProgramClass, "-o", jar)
	jobID := flinktest.SubmittedJobID(t, flinktest.Run(t, bin, "run", "-d", "-m", restAddress, "-p", "1", jar, "--counting-cpu", "8"))
	flinktest.AwaitJob(t, rc, jobID, "FAILED", func(d rest.JobDetailsInfo) bool { return d.State == api.JobFailed })

	var exceptions rest.JobExceptionsInfoWithHistory
	require.NoError(t, rc.SendRequest(context.Background(), http.MethodGet, "/jobs/"+jobID.String()+"/exceptions", &exceptions))
	require.NotNil(t, exceptions.RootException)
	assert.Contains(t, *exceptions.RootException, "NoResourceAvailableException: Could not acquire the minimum required resources.")

	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.awaitExit(t)
	jmLog := readLog(t, logDir, entrypoint.DaemonStandaloneSession, 0)
	counting := "ResourceRequirement{resourceProfile=ResourceProfile{cpuCores=8, taskHeapMemory=64.000mb (67108864 bytes), " +
		"taskOffHeapMemory=0 bytes, managedMemory=32.000mb (33554432 bytes), networkMemory=0 bytes}, numberOfRequiredSlots=1}"
	assert.Contains(t, jmLog, "Received resource requirements from job "+jobID.String()+": [")
	assert.Regexp(t, `(?s)Matching resource requirements against available resources\.\nMissing resources:\n\t Job `+jobID.String()+
		`\n\t\t`+regexp.QuoteMeta(counting)+`\nCurrent resources:\n\tTaskManager `+regexp.QuoteMeta(resourceID)+
		`\n\t\tAvailable: ResourceProfile\{cpuCores=1, `, jmLog, "the default group's slot is cut, the counting group's is missing")
	assert.Contains(t, jmLog, "WARN  FineGrainedSlotManager [] - Could not fulfill resource requirements of job "+jobID.String()+".")
	assert.Contains(t, jmLog, "Could not acquire the minimum required resources, failing slot requests.")
	assert.Contains(t, jmLog, "switched from SCHEDULED to FAILED on [unassigned resource].\nNoResourceAvailableException: Could not acquire the minimum required resources.")
}
