package diagnose_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/diagnose"
)

// The IDs of the synthetic drills' job, as a real run prints them.
const (
	job     = "48d541a3a8411844cdea0d0bd7a4c97b"
	blobKey = "p-f91a551baf4ba99226fba2606c4527d3215529fc0696b990cc6799c4a28f1808"
	attempt = "a49e9ec831b3d47be79859e45193bbba_2612910530efae67cdc7466bff7c91bd_0_0"
	leader  = "00000000000000000000000000000000"
	source  = "Source: file-input -> tokenizer (1/2)#0 (" + attempt + ")"
	fetch   = "Failed to fetch BLOB " + job + "/" + blobKey + " from in-process and store it under " +
		"/tmp/flinklab-drill-3/cluster/taskexecutor-0/blobcache/job_" + job + "/blob_" + blobKey
)

// tm0 is TaskManager 0's log file.
var tm0 = diagnose.TaskManagerLogFile(0)

// startLines are the JobManager's lines of a run up to the deployment, as
// every drill after m4 has them: the JobMaster registers at the
// ResourceManager in the same few milliseconds, as in a run that goes well.
var startLines = []string{
	"2026-11-30 10:16:00,101 INFO  DispatcherRestEndpoint [] - Rest endpoint listening at localhost:8081",
	"2026-11-30 10:16:00,102 INFO  DispatcherRestEndpoint [] - Web frontend listening at http://localhost:8081. jarDir=/tmp/flinklab-drill-3/web-upload",
	"2026-11-30 10:16:00,120 INFO  StandaloneResourceManager [] - Starting the resource manager.",
	"2026-11-30 10:16:00,400 INFO  DispatcherRestEndpoint [] - Uploaded jar /tmp/flinklab-drill-3/web-upload/1f0c2a_wordcount.jar",
	"2026-11-30 10:16:00,512 INFO  StandaloneDispatcher [] - Received JobGraph submission 'WordCount' (" + job + ").",
	"2026-11-30 10:16:00,513 INFO  StandaloneDispatcher [] - Submitting job 'WordCount' (" + job + ").",
	"2026-11-30 10:16:00,530 INFO  JobMasterServiceLeadershipRunner [] - JobMasterServiceLeadershipRunner for job " + job +
		" was granted leadership with leader id " + leader + ". Creating new JobMasterServiceProcess.",
	"2026-11-30 10:16:00,540 INFO  JobMaster [] - Created execution graph 9f1c0e3b2a5d4c6e8f7a1b2c3d4e5f60 for job " + job + ".",
	"2026-11-30 10:16:00,545 INFO  JobMaster [] - Connecting to ResourceManager pekko://flink/user/rpc/resourcemanager_0(" + leader + ")",
	resolved,
	"2026-11-30 10:16:00,550 INFO  StandaloneResourceManager [] - Registering job manager " + leader + "@pekko://flink/user/rpc/jobmanager_2 for job " + job + ".",
	"2026-11-30 10:16:00,552 INFO  JobMaster [] - JobManager successfully registered at ResourceManager, leader id: " + leader + ".",
}

// resolved is the JobMaster's line that begins its registration.
const resolved = "2026-11-30 10:16:00,547 INFO  JobMaster [] - Resolved ResourceManager address, beginning registration"

// jarCorrupted is a drill of m10:jar-corrupted: the jar reached
// TaskManager 0 damaged on every attempt, the task failed while DEPLOYING
// and the job restarted.
func jarCorrupted() map[string][]string {
	jm := append(append([]string(nil), startLines...),
		"2026-11-30 10:16:00,560 INFO  FineGrainedSlotManager [] - Received resource requirements from job "+job+
			": [ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=1}]",
		"2026-11-30 10:16:00,700 INFO  ExecutionGraph [] - "+source+" switched from SCHEDULED to DEPLOYING.",
		"2026-11-30 10:16:00,701 INFO  ExecutionGraph [] - Deploying "+source+" to taskexecutor-0 @ localhost (dataPort=-1)",
		"2026-11-30 10:16:02,480 INFO  ExecutionGraph [] - "+source+" switched from DEPLOYING to FAILED on taskexecutor-0 @ pekko://flink/user/rpc/taskmanager_taskexecutor-0.",
		fetch+" No retries left.",
		"2026-11-30 10:16:02,481 INFO  DefaultScheduler [] - 4 tasks will be restarted to recover the failed task "+attempt+".",
		"2026-11-30 10:16:02,482 INFO  ExecutionGraph [] - Job WordCount ("+job+") switched from state RUNNING to RESTARTING.",
	)
	tm := []string{
		"2026-11-30 10:16:00,150 INFO  TaskExecutor [] - Connecting to ResourceManager pekko://flink/user/rpc/resourcemanager_0(" + leader + ").",
		"2026-11-30 10:16:00,600 INFO  TaskExecutor [] - Offer reserved slots to the leader of job " + job + ".",
		"2026-11-30 10:16:00,650 INFO  TaskSlotTableImpl [] - Activate slot 3b7cd3b2c6e2d54a3f6e0f8f3f1b0f0a.",
		"2026-11-30 10:16:00,705 INFO  TaskExecutor [] - Received task " + source + ", deploy into slot with allocation id 3b7cd3b2c6e2d54a3f6e0f8f3f1b0f0a.",
		"2026-11-30 10:16:00,706 INFO  Task [] - " + source + " switched from CREATED to DEPLOYING.",
		"2026-11-30 10:16:00,710 ERROR BlobClient [] - " + fetch + " Retrying...",
		"2026-11-30 10:16:01,210 INFO  BlobClient [] - Downloading " + job + "/" + blobKey + " from in-process (retry 1)",
		"2026-11-30 10:16:02,475 ERROR BlobClient [] - " + fetch + " No retries left.",
		"Detected data corruption during transfer (SHA-256): expected " + blobKey + ", actual p-d317117342f34ae7498797d76616239f94f70e2c590462dacc9ab93377cd2b7d",
		"2026-11-30 10:16:02,477 WARN  Task [] - " + source + " switched from DEPLOYING to FAILED with failure cause: " + fetch + " No retries left.",
	}
	return map[string][]string{diagnose.JobManagerLogFile: jm, tm0: tm}
}

// declarationLost is a drill of m6:resource-declaration-lost: the
// JobMaster's first declaration timed out, and the SlotManager received
// the next one late; the job then ran.
func declarationLost() map[string][]string {
	jm := append(append([]string(nil), startLines...),
		"2026-11-30 10:16:01,553 WARN  JobMaster [] - Failed to declare resource requirements of job "+job+". Retrying.",
		"java.util.concurrent.TimeoutException: Invocation of [RemoteRpcInvocation(ResourceManagerGateway.declareRequiredResources(JobMasterId, ResourceRequirements, Duration))] "+
			"at recipient [pekko://flink/user/rpc/resourcemanager_0] timed out. This is usually caused by: 1) Pekko failed sending the message silently.",
		"2026-11-30 10:16:01,560 INFO  FineGrainedSlotManager [] - Received resource requirements from job "+job+
			": [ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=1}]",
		"2026-11-30 10:16:01,700 INFO  ExecutionGraph [] - "+source+" switched from SCHEDULED to DEPLOYING.",
		"2026-11-30 10:16:01,900 INFO  ExecutionGraph [] - Job WordCount ("+job+") switched from state RUNNING to FINISHED.",
	)
	tm := []string{
		"2026-11-30 10:16:01,600 INFO  TaskExecutor [] - Offer reserved slots to the leader of job " + job + ".",
		"2026-11-30 10:16:01,650 INFO  TaskSlotTableImpl [] - Activate slot 3b7cd3b2c6e2d54a3f6e0f8f3f1b0f0a.",
	}
	return map[string][]string{diagnose.JobManagerLogFile: jm, tm0: tm}
}

// writeDrill writes a drill's log files (and its ClientFile, if files has
// one) to a new directory, as the producer does, and returns the directory.
func writeDrill(t *testing.T, files map[string][]string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "log"), 0o755))
	for name, lines := range files {
		path := filepath.Join(dir, "log", name)
		if name == diagnose.ClientFile {
			path = filepath.Join(dir, name)
		}
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	}
	return dir
}

// loadDrill writes a drill and reads it back.
func loadDrill(t *testing.T, files map[string][]string) diagnose.Logs {
	t.Helper()
	if files == nil {
		return diagnose.NewLogs(nil) // no run to compare with
	}
	logs, err := diagnose.LoadLogs(writeDrill(t, files))
	require.NoError(t, err)
	return logs
}

// withLines returns a copy of files with lines added at the end of one.
func withLines(files map[string][]string, file string, lines ...string) map[string][]string {
	out := make(map[string][]string, len(files))
	for name, ls := range files {
		out[name] = append([]string(nil), ls...)
	}
	out[file] = append(out[file], lines...)
	return out
}

// without returns a copy of files without the lines of one that contain
// text (a record's continuation lines stay: they join the record before).
func without(files map[string][]string, file, text string) map[string][]string {
	out := withLines(files, file)
	out[file] = slices.DeleteFunc(out[file], func(l string) bool { return strings.Contains(l, text) })
	return out
}
