package fault_test

import (
	"bytes"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/fault"
	"flinklab/runtime/logging"
	"flinklab/runtime/trace"
)

func TestEveryKindOfFaultHasEvidence(t *testing.T) {
	for _, step := range append(fault.Steps(), fault.CheckpointSteps()...) {
		for _, kind := range fault.Kinds(step) {
			e, ok := fault.EvidenceFor(step, kind)
			require.True(t, ok, "%s:%s", step, kind)
			assert.Equal(t, step, e.Step)
			assert.Equal(t, kind, e.Kind)
			assertEvidence(t, e)
		}
		_, ok := fault.EvidenceFor(step, "no-such-kind")
		assert.False(t, ok)
	}
	_, ok := fault.EvidenceFor(trace.M9, fault.JarCorrupted)
	assert.False(t, ok, "a kind of another step")

	anyKind, ok := fault.EvidenceFor(trace.M8, "")
	require.True(t, ok, "m8's kinds can leave the same lines")
	assert.Equal(t, fault.Kind(""), anyKind.Kind)
	assertEvidence(t, anyKind)
	_, ok = fault.EvidenceFor(trace.M10, "")
	assert.False(t, ok, "the log always tells m10's kinds apart")
}

// assertEvidence checks what a diagnosis prints of e: a cause, where to
// look, and three to five lines of Flink's, never the injector's own.
func assertEvidence(t *testing.T, e fault.Evidence) {
	t.Helper()
	assert.NotEmpty(t, e.Cause)
	assert.NotEmpty(t, e.WhereToLook)
	required := 0
	for _, c := range e.Clues {
		assert.NotEmpty(t, c.Logger)
		assert.NotEqual(t, "FaultInjector", c.Logger, "a real cluster does not write the injector's lines")
		if !c.Optional {
			required++
		}
	}
	assert.GreaterOrEqual(t, required, 1, "%s:%s proves its cause with a line every log of it has", e.Step, e.Kind)
	assert.GreaterOrEqual(t, len(e.Clues), 3, "%s:%s quotes at least three lines", e.Step, e.Kind)
	assert.LessOrEqual(t, len(e.Clues), 5, "%s:%s quotes at most five lines", e.Step, e.Kind)
}

// A capture keeps what the log prints: each record's String is its printed
// line without the date, and its Process names the log it belongs to.
func TestALogCaptureKeepsTheRecordsAsTheLogPrintsThem(t *testing.T) {
	var printed bytes.Buffer
	captured := fault.NewLogCapture(slog.LevelInfo)
	logger := slog.New(slog.NewMultiHandler(logging.NewHandler(&printed, slog.LevelInfo), captured))

	logger.With("logger", "PermanentBlobCache").Error("Failed to fetch BLOB j/p-1 from in-process. Retrying...",
		"error", "Detected data corruption during transfer")
	logger.With("logger", "ExecutionGraph").Info("Source (1/2)#0 (a_b_0_0) switched from DEPLOYING to FAILED on tm-0.",
		"cause", errors.New("Failed to fetch BLOB j/p-1. No retries left.").Error())
	logger.With("logger", "StreamTask", "task", "Source (1/2)#0").Info("an operator's line")
	logger.With("logger", "TaskExecutor").Debug("not kept below INFO")

	records := captured.Records()
	require.Len(t, records, 3)
	lines := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d `).ReplaceAllString(printed.String(), "")
	var again strings.Builder
	for _, r := range records {
		again.WriteString(r.String() + "\n")
	}
	assert.Equal(t, lines, again.String())
	assert.Equal(t, "Detected data corruption during transfer", records[0].Attrs[0].Value.String())
	assert.Equal(t, []fault.Process{fault.TaskManagerLog, fault.JobManagerLog, fault.TaskManagerLog},
		[]fault.Process{records[0].Process(), records[1].Process(), records[2].Process()},
		"the BLOB cache and a task's operators write to the TaskManager's log")
}

func TestALogCaptureIsSafeForConcurrentUse(t *testing.T) {
	captured := fault.NewLogCapture(slog.LevelInfo)
	logger := slog.New(captured).With("logger", "Task")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				logger.Info("switched from CREATED to DEPLOYING.")
			}
		})
	}
	wg.Wait()
	assert.Len(t, captured.Records(), 400)
}

// record is a log record at second s of a run.
func record(s int, level slog.Level, logger, message string, attrs ...slog.Attr) fault.LogRecord {
	return fault.LogRecord{Time: time.Date(2026, 12, 1, 10, 0, s, 0, time.UTC), Level: level,
		Logger: logger, Message: message, Attrs: attrs}
}

func TestFindPicksEachClueItsEarliestLineAndReturnsThemInLogOrder(t *testing.T) {
	e := fault.Evidence{Clues: []fault.Clue{
		{Logger: "TaskSlotTableImpl", Pattern: regexp.MustCompile(`^Activate slot `)},
		{Logger: "TaskExecutor", Pattern: regexp.MustCompile(`^Offer reserved slots `)},
		{Logger: "TaskExecutor", Pattern: regexp.MustCompile(`^Offer reserved slots `)},
		{Logger: "TaskExecutor", Pattern: regexp.MustCompile(`did not finish in time`), Optional: true},
	}}
	records := []fault.LogRecord{
		record(0, slog.LevelInfo, "JobMaster", "Offer reserved slots to the leader of job j."), // another logger
		record(1, slog.LevelInfo, "TaskExecutor", "Offer reserved slots to the leader of job j."),
		record(2, slog.LevelInfo, "TaskExecutor", "Offer reserved slots to the leader of job j."),
		record(3, slog.LevelInfo, "TaskSlotTableImpl", "Activate slot a."),
		record(4, slog.LevelInfo, "TaskExecutor", "Offer reserved slots to the leader of job j."),
	}
	lines, ok := e.Find(records)
	require.True(t, ok, "the optional line may be missing")
	var indexes []int
	for _, l := range lines {
		indexes = append(indexes, l.Index)
	}
	assert.Equal(t, []int{1, 2, 3}, indexes, "two offers, the first two, and the activation, in log order")

	_, ok = e.Find(records[:3])
	assert.False(t, ok, "without the activation the evidence is incomplete")
}

// A ResourceManager that answers a registration late writes the lines of
// one that answers at once, only later: its evidence is the time between.
func TestALateRegistrationIsToldByItsTiming(t *testing.T) {
	e, ok := fault.EvidenceFor(trace.M5, fault.ResourceManagerUnreachable)
	require.True(t, ok)
	registration := func(late time.Duration) []fault.LogRecord {
		at := func(r fault.LogRecord, d time.Duration) fault.LogRecord { r.Time = r.Time.Add(d); return r }
		return []fault.LogRecord{
			record(0, slog.LevelInfo, "JobMaster", "Connecting to ResourceManager pekko://flink/user/rpc/resourcemanager_0"),
			record(0, slog.LevelInfo, "JobMaster", "Resolved ResourceManager address, beginning registration"),
			at(record(0, slog.LevelInfo, "StandaloneResourceManager", "Registering job manager 5f1d@pekko://flink/user/rpc/jobmanager_0 for job j."), late),
			at(record(0, slog.LevelInfo, "JobMaster", "JobManager successfully registered at ResourceManager, leader id: 9a0b."), late),
		}
	}
	_, ok = e.Find(registration(0))
	assert.False(t, ok, "a registration answered at once proves nothing")
	_, ok = e.Find(registration(99 * time.Millisecond))
	assert.False(t, ok, "a registration answered within the first attempt's timeout proves nothing")
	lines, ok := e.Find(registration(300 * time.Millisecond))
	require.True(t, ok, "a registration answered after the first attempt timed out")
	assert.Len(t, lines, 4)
}

// The lines of a real run of m10:jar-corrupted, shortened.
func jarCorruptedLog() []fault.LogRecord {
	const job, key = "48d541a3a8411844cdea0d0bd7a4c97b", "p-f91a551baf4ba99226fba2606c4527d3215529fc0696b990cc6799c4a28f1808"
	const attempt = "a49e9ec831b3d47be79859e45193bbba_2612910530efae67cdc7466bff7c91bd_0_0"
	fetch := "Failed to fetch BLOB " + job + "/" + key + " from in-process and store it under " +
		"/tmp/flinklab-demo-1/cluster/taskexecutor-0/blobcache/job_" + job + "/blob_" + key
	return []fault.LogRecord{
		record(1, slog.LevelWarn, "FaultInjector", "Injecting fault jar-corrupted at step m10 for job "+job+"."),
		record(1, slog.LevelError, "BlobClient", fetch+" Retrying..."),
		record(1, slog.LevelInfo, "BlobClient", "Downloading "+job+"/"+key+" from in-process (retry 1)"),
		record(1, slog.LevelError, "BlobClient", fetch+" No retries left.", slog.String("cause",
			"Detected data corruption during transfer (SHA-256): expected "+key+", actual p-d317117342f34ae7498797d76616239f94f70e2c590462dacc9ab93377cd2b7d")),
		record(1, slog.LevelWarn, "Task", "Source: file-input -> tokenizer (1/2)#0 ("+attempt+") switched from DEPLOYING to FAILED with failure cause: "+fetch+" No retries left."),
		record(1, slog.LevelInfo, "ExecutionGraph", "Source: file-input -> tokenizer (1/2)#0 ("+attempt+") switched from DEPLOYING to FAILED on taskexecutor-0 @ pekko://flink/user/rpc/taskmanager_taskexecutor-0.",
			slog.String("cause", fetch+" No retries left.")),
		record(1, slog.LevelInfo, "DefaultScheduler", "4 tasks will be restarted to recover the failed task "+attempt+"."),
	}
}

func TestExplainNamesTheKindOfFailureTheLogShows(t *testing.T) {
	d, ok := fault.Diagnose([]trace.Event{{Step: trace.M10, From: "TaskExecutor", To: "BlobServer", Message: "Failed to fetch BLOB p-1", Failed: true}})
	require.True(t, ok)
	assert.Empty(t, d.Kind, "the trace alone does not tell")

	log := jarCorruptedLog()
	explained := fault.Explain(d, log)
	assert.Equal(t, fault.JarCorrupted, explained.Kind)
	assert.Contains(t, explained.Cause, `"Detected data corruption during transfer", as in Flink`)
	require.Len(t, explained.Proof, 5)
	assert.Contains(t, explained.Proof[0].String(), "(retry 1)")
	assert.Equal(t, 2, explained.Proof[0].Index, "the injector's line proves nothing, nor a Retrying... without its cause")
	assert.Contains(t, explained.Proof[1].String(), "No retries left.\n")
	assert.Contains(t, explained.Proof[1].String(), "Detected data corruption during transfer")

	// The same run, but the file was missing.
	missing := strings.NewReplacer("Detected data corruption during transfer (SHA-256): expected", "GET operation failed: Local file for BLOB",
		", actual", " does not exist and failed to copy from blob store:")
	log[3].Attrs = []slog.Attr{slog.String("cause", missing.Replace(log[3].Attrs[0].Value.String()))}
	explained = fault.Explain(d, log)
	assert.Equal(t, fault.BlobUnavailable, explained.Kind)
	assert.Contains(t, explained.Cause, "does not exist")

	unexplained := fault.Explain(d, log[:1])
	assert.Equal(t, d, unexplained, "a log that proves no kind leaves the diagnosis as it was")
}

func TestExplainSaysWhatTheLogShowsWhenItCannotTellTheKindsApart(t *testing.T) {
	d, ok := fault.Diagnose([]trace.Event{{Step: trace.M8, From: "TaskExecutor", To: "JobMaster", Message: "offerSlots", Failed: true}})
	require.True(t, ok)
	superseded := []fault.LogRecord{
		record(1, slog.LevelInfo, "TaskExecutor", "Offer reserved slots to the leader of job j."),
		record(1, slog.LevelInfo, "TaskExecutor", "Offer reserved slots to the leader of job j."),
		record(1, slog.LevelInfo, "TaskSlotTableImpl", "Activate slot a."),
	}
	explained := fault.Explain(d, superseded)
	assert.Empty(t, explained.Kind, "a rejection and no answer look alike once a newer offer replaced the first")
	anyKind, _ := fault.EvidenceFor(trace.M8, "")
	assert.Equal(t, anyKind.Cause, explained.Cause)
	assert.Len(t, explained.Proof, 3)

	rejected := append(superseded[:1:1],
		record(1, slog.LevelInfo, "TaskSlotTableImpl", "Free slot TaskSlot(index:1, state:ALLOCATED, resource profile: ResourceProfile{UNKNOWN}, allocationId: a, jobId: j)."),
		record(1, slog.LevelInfo, "DefaultSlotStatusSyncer", "Freeing slot a."))
	assert.Equal(t, fault.SlotOfferRejected, fault.Explain(d, rejected).Kind)
}

// Every slot request that no TaskManager fulfils ends with the lines of
// no-matching-slot. When the log also shows why, a requirement larger than
// any TaskManager, Explain names that kind; without it, no-matching-slot.
func TestExplainPrefersTheKindWhoseLinesSayWhy(t *testing.T) {
	d, ok := fault.Diagnose([]trace.Event{{Step: trace.M7, From: "SlotManager", To: "TaskExecutor", Message: "no slot", Failed: true}})
	require.True(t, ok)
	const (
		tooLarge = "ResourceRequirement{resourceProfile=ResourceProfile{cpuCores=16, taskHeapMemory=256.000mb (268435456 bytes), " +
			"taskOffHeapMemory=0 bytes, managedMemory=128.000mb (134217728 bytes), networkMemory=0 bytes}, numberOfRequiredSlots=2}"
		unknown   = "ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=2}"
		available = "ResourceProfile{cpuCores=2, taskHeapMemory=384.000mb (402653174 bytes), taskOffHeapMemory=0 bytes, " +
			"managedMemory=512.000mb (536870920 bytes), networkMemory=128.000mb (134217730 bytes)}"
	)
	log := func(requirement string) []fault.LogRecord {
		return []fault.LogRecord{
			record(1, slog.LevelInfo, "FineGrainedSlotManager", "Received resource requirements from job j: ["+requirement+"]"),
			record(1, slog.LevelInfo, "FineGrainedSlotManager", "Matching resource requirements against available resources.\n"+
				"Missing resources:\n\t Job j\n\t\t"+requirement+"\nCurrent resources:\n\tTaskManager taskexecutor-0\n"+
				"\t\tAvailable: "+available+"\n\t\tTotal:     "+available),
			record(2, slog.LevelWarn, "FineGrainedSlotManager", "Could not fulfill resource requirements of job j."),
			record(2, slog.LevelWarn, "DeclarativeSlotPoolBridge", "Could not acquire the minimum required resources, failing slot requests. "+
				"Acquired: 0 slot(s). Current slot pool status: 0 slot(s) held, 2 request(s) waiting."),
			record(2, slog.LevelInfo, "ExecutionGraph", "Source: file-input -> tokenizer (1/2) (a) switched from SCHEDULED to FAILED on [unassigned resource].",
				slog.String("cause", "NoResourceAvailableException: Could not acquire the minimum required resources.")),
		}
	}

	noMatchingSlot, _ := fault.EvidenceFor(trace.M7, fault.NoMatchingSlot)
	_, complete := noMatchingSlot.Find(log(tooLarge))
	require.True(t, complete, "the general kind's lines are there too")
	explained := fault.Explain(d, log(tooLarge))
	assert.Equal(t, fault.SlotSharingGroupTooLarge, explained.Kind)
	assert.Len(t, explained.Proof, 5)

	assert.Equal(t, fault.NoMatchingSlot, fault.Explain(d, log(unknown)).Kind, "a requirement any slot fulfils is no larger than a TaskManager")
}

// A quoted line is shortened, but never inside an ID, never losing what
// the clue matched, and never adding a word the log does not have.
func TestAProvingLineIsShortenedButKeepsItsIDsAndWhatItProves(t *testing.T) {
	log := jarCorruptedLog()
	e, _ := fault.EvidenceFor(trace.M10, fault.JarCorrupted)
	lines, ok := e.Find(log)
	require.True(t, ok)
	for _, line := range lines {
		printed := line.String()
		t.Log(printed)
		header, quoted, _ := strings.Cut(printed, " [] - ")
		assert.Regexp(t, `^(JobManager |TaskManager) +10:00:01,000 [A-Z]+ +`+line.Record.Logger+`$`, header)
		for i, q := range strings.Split(quoted, "\n") {
			assert.LessOrEqual(t, len([]rune(strings.TrimSpace(q))), 222, "line %d of %s", i, printed)
			for _, fragment := range strings.Split(q, "…") {
				assert.Contains(t, line.Record.Text(), strings.TrimSpace(fragment))
			}
		}
		assert.NotContains(t, printed, "/tmp/", "a deep path keeps its last element only")
		for _, id := range regexp.MustCompile(`[0-9a-f]{20,}`).FindAllString(printed, -1) {
			assert.Regexp(t, `(^|[^0-9a-f])`+id+`([^0-9a-f]|$)`, line.Record.Text(), "an ID is quoted whole")
		}
	}
	assert.Contains(t, lines[0].String(), "(retry 1)")
	assert.Contains(t, lines[1].String(), "Failed to fetch BLOB 48d541a3a8411844cdea0d0bd7a4c97b/p-f91a551baf4ba99226fba2606c4527d3215529fc0696b990cc6799c4a28f1808 ")
	assert.Contains(t, lines[1].String(), "No retries left.\n             Detected data corruption during transfer", "the matched cause follows on its own line")
	assert.Contains(t, lines[2].String(), "switched from DEPLOYING to FAILED with failure cause: Failed to fetch BLOB")
	assert.Contains(t, lines[2].String(), "No retries left.")
	assert.Contains(t, lines[3].String(), "\n             Failed to fetch BLOB ", "the matched cause follows on its own line")
	assert.Equal(t, "JobManager   10:00:01,000 INFO  DefaultScheduler [] - 4 tasks will be restarted to recover the failed task "+
		"a49e9ec831b3d47be79859e45193bbba_2612910530efae67cdc7466bff7c91bd_0_0.", lines[4].String(), "a short line is quoted whole")
}

// The lines of a real run of k5:storage-write-fails, shortened: a
// source's asynchronous part cannot write its state, the source declines,
// the decline counts, and the job fails over.
func storageWriteFailsLog() []fault.LogRecord {
	const job, attempt = "a84a64e52cf7fdfa1e360577243eaa31", "7ca7578ad7c1377e65c8a376145c7592_b014ae4c5e90cf4c459b4cb4916aee75_1_0"
	write := "Could not flush to file and close the file system output stream to /tmp/flinklab/checkpoints/" + job +
		"/chk-2/96c9449f8e6af71c7641b96751a2b91f in order to obtain the stream state handle: fault injected at step k5 (storage-write-fails)"
	materialize := "Could not materialize checkpoint 2 for operator Source: sensor-events (2/2)#0. Caused by: " + write
	return []fault.LogRecord{
		record(1, slog.LevelInfo, "CheckpointCoordinator", "Triggering checkpoint 2 (type=CheckpointType{name='Checkpoint', sharingFilesStrategy=FORWARD_BACKWARD}) @ 946684800367 for job "+job+"."),
		record(1, slog.LevelWarn, "FaultInjector", "Injecting fault storage-write-fails at step k5 for job "+job+"."),
		record(1, slog.LevelInfo, "AsyncCheckpointRunnable", "Source: sensor-events (2/2)#0 - asynchronous part of checkpoint 2 could not be completed.",
			slog.String("task", "Source: sensor-events (2/2)#0"), slog.String("cause", write)),
		record(1, slog.LevelInfo, "CheckpointCoordinator", "Decline checkpoint 2 by task "+attempt+" of job "+job+" at taskexecutor-0 @ pekko://flink/user/rpc/taskmanager_taskexecutor-0.",
			slog.String("cause", materialize)),
		record(1, slog.LevelWarn, "CheckpointFailureManager", "Failed to trigger or complete checkpoint 2 for job "+job+". (0 consecutive failed attempts so far)",
			slog.String("cause", "org.apache.flink.runtime.checkpoint.CheckpointException: Asynchronous task checkpoint failed. Caused by: "+materialize)),
		record(1, slog.LevelInfo, "DefaultScheduler", "Trying to recover from a global failure.", slog.String("cause",
			"Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to Asynchronous task checkpoint failed., "+
				"view the Checkpoint History tab or the Job Manager log to find out why continuous checkpoints failed.")),
		record(1, slog.LevelInfo, "DefaultScheduler", "4 tasks will be restarted to recover from a global failure."),
	}
}

// Step k5 breaks in two places: a task's asynchronous part, whose
// component is the checkpoint storage, and its TaskExecutor, which dies.
// Explain tells them apart by their lines and names the component of the
// kind the log shows.
func TestExplainNamesTheComponentOfTheKindOfCheckpointFailure(t *testing.T) {
	d, ok := fault.Diagnose([]trace.Event{{Step: trace.K5, From: "Source: sensor-events (2/2)#0", To: "CheckpointCoordinator",
		Message: "Decline checkpoint 2 by task …", Failed: true}})
	require.True(t, ok)
	assert.Equal(t, "AsyncCheckpointRunnable/CheckpointStorage", d.Component)

	explained := fault.Explain(d, storageWriteFailsLog())
	assert.Equal(t, fault.StorageWriteFails, explained.Kind)
	assert.Equal(t, "AsyncCheckpointRunnable/CheckpointStorage", explained.Component)
	require.Len(t, explained.Proof, 5)
	assert.Equal(t, fault.TaskManagerLog, explained.Proof[0].Record.Process(), "the task's line is in its TaskManager's log")
	assert.Contains(t, explained.Proof[0].String(), "asynchronous part of checkpoint 2 could not be completed.")
	assert.Contains(t, explained.Proof[0].String(), "Could not flush to file and close the file system output stream to …/96c9449f8e6af71c7641b96751a2b91f")

	const job, tm = "efc3b30647457b623a85fbc42b0d5842", "taskexecutor-0"
	died := []fault.LogRecord{
		record(2, slog.LevelInfo, "StandaloneResourceManager", "The heartbeat of TaskManager with id "+tm+" timed out."),
		record(2, slog.LevelInfo, "JobMaster", "Heartbeat of TaskManager with id "+tm+" timed out."),
		record(2, slog.LevelInfo, "ExecutionGraph", "Source: sensor-events (1/2) (a_b_0_0) switched from RUNNING to FAILED on "+tm+" @ pekko://flink/user/rpc/taskmanager_"+tm+".",
			slog.String("cause", "Heartbeat of TaskManager with id "+tm+" timed out.")),
		record(2, slog.LevelInfo, "DefaultScheduler", "4 tasks will be restarted to recover the failed task a_b_0_0."),
		record(2, slog.LevelWarn, "CheckpointFailureManager", "Failed to trigger or complete checkpoint 2 for job "+job+". (0 consecutive failed attempts so far)",
			slog.String("cause", "org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint Coordinator is suspending.")),
	}
	explained = fault.Explain(d, died)
	assert.Equal(t, fault.TaskExecutorDiesDuringCheckpoint, explained.Kind)
	assert.Equal(t, "TaskExecutor", explained.Component, "the lost TaskManager is where to dig, not the storage")
	assert.Len(t, explained.Proof, 5)
}

// The expiry of a checkpoint reads the same in the log whether its
// triggers were lost (k1) or an alignment hung (k4): the step the trace
// names tells the two apart, and each explains the same lines in its own
// words.
func TestAnExpiredCheckpointIsExplainedByTheStepThatBroke(t *testing.T) {
	const job = "2b0ac774eed25f422e22c84218b30712"
	expired := []fault.LogRecord{
		record(1, slog.LevelInfo, "CheckpointCoordinator", "Checkpoint 2 of job "+job+" expired before completing."),
		record(1, slog.LevelWarn, "CheckpointFailureManager", "Failed to trigger or complete checkpoint 2 for job "+job+". (0 consecutive failed attempts so far)",
			slog.String("cause", "org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing.")),
		record(1, slog.LevelInfo, "DefaultScheduler", "Trying to recover from a global failure.", slog.String("cause",
			"Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to Checkpoint expired before completing., "+
				"view the Checkpoint History tab or the Job Manager log to find out why continuous checkpoints failed.")),
		record(1, slog.LevelInfo, "DefaultScheduler", "4 tasks will be restarted to recover from a global failure."),
		record(1, slog.LevelInfo, "ExecutionGraph", "Job Ticker ("+job+") switched from state RUNNING to RESTARTING."),
	}
	for step, want := range map[trace.Step]fault.Kind{trace.K1: fault.CheckpointExpired, trace.K4: fault.BarrierLost} {
		d, ok := fault.Diagnose([]trace.Event{
			{Step: step, Failed: true, Message: "lost: fault injected at step " + string(step)},
			{Step: trace.K6, Failed: true, Message: "Checkpoint 2 of job " + job + " expired before completing."},
		})
		require.True(t, ok)
		assert.Equal(t, step, d.Step, "the first step that broke, not the expiry it led to")
		d = fault.Explain(d, expired)
		assert.Equal(t, want, d.Kind)
		assert.Len(t, d.Proof, 5)
		e, _ := fault.EvidenceFor(step, want)
		assert.Equal(t, e.Cause, d.Cause)
	}
}
