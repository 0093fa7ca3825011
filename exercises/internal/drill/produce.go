package drill

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"flinklab/exercises/internal/scenario"
	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/entrypoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/fault"
	"flinklab/runtime/logging"
	"flinklab/runtime/minicluster"
	"flinklab/runtime/rest"
	_ "flinklab/runtime/streaming/tasks" // the streaming runtime, on the TaskExecutors' "class path"
)

// How long the drill follows the job: it ends when the job does, and at
// the latest after jobDeadline of the drill's clock; then the cluster
// runs on for settle, so that what the job's end sets off is logged too.
const (
	jobDeadline = 2 * time.Minute
	settle      = 2 * time.Second
)

// Produce runs spec's drill in a synctest bubble and writes its files to
// dir (see the package doc). Call it from a test, outside a bubble.
func Produce(t *testing.T, spec Spec, dir string) {
	spec, faults, err := spec.withDefaults()
	require.NoError(t, err)
	schedulerType, adaptiveSettings, err := spec.scheduler()
	require.NoError(t, err)
	checkpointing, err := spec.checkpointing()
	require.NoError(t, err)
	synctest.Test(t, func(t *testing.T) {
		logs := newProcessLogs()
		workDir, uploadDir := t.TempDir(), t.TempDir()
		cluster, err := minicluster.New(minicluster.Config{
			NumTaskManagers:        spec.TaskManagers,
			NumSlotsPerTaskManager: spec.Slots,
			WorkingDir:             workDir,
			Logger:                 slog.New(logs.jobManager),
			TaskManagerLogger:      logs.taskManager,
			SchedulerType:          schedulerType,
			AdaptiveScheduler:      adaptiveSettings,
			Checkpointing:          checkpointing,
		}.WithQuickRecovery()) // the demo's timings (`make run`)
		require.NoError(t, err)
		require.NoError(t, cluster.Start())
		defer func() { require.NoError(t, cluster.Close()) }()
		// The cluster's directories read as a JobManager's would, not as a
		// test's, and each injected failure as its cause.
		words := []string{workDir, "/opt/flink/work", uploadDir, "/tmp/flink-web"}
		for i, f := range faults {
			require.NoError(t, cluster.Faults().Inject(f))
			cause := usualCauses[f.Kind]
			if i == 0 {
				cause = spec.Cause
			}
			if cause != "" {
				words = append(words, fault.Injected(f.Step, f.Kind).Error(), cause)
			}
		}
		out := output{dir: dir, start: spec.start(), reword: strings.NewReplacer(words...)}

		endpoint := &endpoint{handler: scenario.InProcessREST(t, cluster, uploadDir, slog.New(logs.jobManager)), start: out.start}
		var told bytes.Buffer // what the client was told
		wordcount.Results.Clear()
		ticker.Results.Clear()
		endpoint.submitJob(t, spec, &told)
		time.Sleep(settle)
		synctest.Wait()

		require.NoError(t, out.writeLogs(logs))
		require.NoError(t, out.write("client.txt", told.String()))
	})
}

// processLogs keeps each process's log: the JobManager's, and one per
// TaskManager, as if each ran in a process of its own.
type processLogs struct {
	jobManager *fault.LogCapture

	mu           sync.Mutex
	taskManagers map[api.ResourceID]*fault.LogCapture
}

func newProcessLogs() *processLogs {
	return &processLogs{jobManager: fault.NewLogCapture(slog.LevelInfo), taskManagers: map[api.ResourceID]*fault.LogCapture{}}
}

// taskManager is minicluster.Config.TaskManagerLogger: TaskManager id's
// own log.
func (p *processLogs) taskManager(id api.ResourceID) *slog.Logger {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := fault.NewLogCapture(slog.LevelInfo)
	p.taskManagers[id] = c
	return slog.New(c)
}

// endpoint is the cluster's REST endpoint, served in-process: a goroutine
// waiting on a socket would hold the bubble's clock still. Its answers
// give times on the drill's clock, which begins at start.
type endpoint struct {
	handler http.Handler
	start   time.Time
}

// do sends one request and returns the answer's status and body.
func (e *endpoint) do(method, path, contentType string, body []byte) (int, []byte) {
	req := httptest.NewRequestWithContext(context.Background(), method, path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec.Code, onDrillClock(bytes.TrimSpace(rec.Body.Bytes()), e.start)
}

// epochMillis matches what may be a time in ms since the epoch, as REST
// answers give times ("start-time": 946684800000).
var epochMillis = regexp.MustCompile(`\b\d{12,13}\b`)

// onDrillClock moves the times of a REST answer from the bubble's clock to
// the drill's, which begins at start: a number is a time when it falls on
// the bubble's first day (a duration is far smaller).
func onDrillClock(answer []byte, start time.Time) []byte {
	from, to := bubbleEpoch.UnixMilli(), bubbleEpoch.Add(24*time.Hour).UnixMilli()
	return epochMillis.ReplaceAllFunc(answer, func(number []byte) []byte {
		ms, err := strconv.ParseInt(string(number), 10, 64)
		if err != nil || ms < from || ms >= to {
			return number
		}
		return strconv.AppendInt(nil, start.UnixMilli()+ms-from, 10)
	})
}

// submitJob acts as `flink run` in attached mode does: it uploads the
// job's jar, runs it and follows the job until it ends, writing each REST
// answer to told. Then it looks as an engineer on call would: the jobs'
// overview and the job's exceptions, as the web dashboard shows them, the
// job's checkpoints if it has any, and `flink list -a`.
func (e *endpoint) submitJob(t *testing.T, spec Spec, told *bytes.Buffer) {
	jobID, submitted := e.runJob(t, spec, told)
	if submitted {
		e.awaitTermination(jobID)
	}
	overview := e.get(told, "/jobs/overview")
	if submitted {
		e.get(told, "/jobs/"+jobID.String()+"/exceptions")
		if len(spec.Checkpointing) > 0 {
			e.showCheckpoints(t, jobID, told)
		}
	}
	var jobs client.JobsOverview
	require.NoError(t, json.Unmarshal(overview, &jobs))
	fmt.Fprintf(told, "$ ./bin/flink list -a\nWaiting for response...\n")
	client.JobList{Running: true, Scheduled: true, Terminated: true}.Print(told, jobs.Jobs, time.UTC)
}

// runJob uploads the job's jar and runs it with the spec's parallelism
// and arguments; submitted is false when either was refused.
func (e *endpoint) runJob(t *testing.T, spec Spec, told *bytes.Buffer) (jobID api.JobID, submitted bool) {
	name, jar, err := spec.jar()
	require.NoError(t, err)
	contentType, body := scenario.Multipart(t, scenario.Part{Field: "jarfile", FileName: name, Content: jar})
	status, answer := e.do(http.MethodPost, "/jars/upload", contentType, body)
	fmt.Fprintf(told, "POST /jars/upload (%s)\n%d %s\n\n", name, status, answer)
	if status != http.StatusOK {
		return api.JobID{}, false
	}
	var uploaded rest.JarUploadResponseBody
	require.NoError(t, json.Unmarshal(answer, &uploaded))
	jarID := filepath.Base(uploaded.Filename)

	request, err := json.Marshal(client.JarRunRequest{Parallelism: spec.Parallelism, ProgramArgsList: spec.programArgs()})
	require.NoError(t, err)
	status, answer = e.do(http.MethodPost, "/jars/"+jarID+"/run", "application/json", request)
	fmt.Fprintf(told, "POST /jars/%s/run %s\n%d %s\n\n", jarID, request, status, answer)
	if status != http.StatusOK {
		return api.JobID{}, false
	}
	var run rest.JarRunResponseBody
	require.NoError(t, json.Unmarshal(answer, &run))
	return run.JobID, true
}

// awaitTermination polls the job's status until it is globally terminal,
// for jobDeadline at most.
func (e *endpoint) awaitTermination(jobID api.JobID) {
	deadline := time.Now().Add(jobDeadline)
	for {
		synctest.Wait()
		status, answer := e.do(http.MethodGet, "/jobs/"+jobID.String()+"/status", "", nil)
		var s struct {
			Status api.JobStatus `json:"status"`
		}
		if status == http.StatusOK && json.Unmarshal(answer, &s) == nil && s.Status.IsGloballyTerminalState() || time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// get sends GET path, writes the answer to told, its JSON indented as a
// reader would have it printed, and returns the answer.
func (e *endpoint) get(told *bytes.Buffer, path string) []byte {
	status, answer := e.do(http.MethodGet, path, "", nil)
	var indented bytes.Buffer
	if json.Indent(&indented, answer, "", "  ") == nil {
		answer = indented.Bytes()
	}
	fmt.Fprintf(told, "GET %s\n%d %s\n\n", path, status, answer)
	return answer
}

// output writes a drill's files, each line as the cluster's log prints it
// on a clock that begins at start, with reword's replacements made: the
// test's directories, and each injected failure's own words ("fault
// injected at step m7 (no-matching-slot)") by the cause a real cluster
// would give.
type output struct {
	dir    string
	start  time.Time
	reword *strings.Replacer
}

// The bubble's clock begins at midnight, 1 January 2000 UTC.
var bubbleEpoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

func (o output) writeLogs(logs *processLogs) error {
	if err := o.write(logFile(entrypoint.DaemonStandaloneSession, 0), o.print(logs.jobManager.Records())); err != nil {
		return err
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	ids := slices.Sorted(func(yield func(api.ResourceID) bool) {
		for id := range logs.taskManagers {
			if !yield(id) {
				return
			}
		}
	})
	for i, id := range ids {
		if err := o.write(logFile(entrypoint.DaemonTaskExecutor, i), o.print(logs.taskManagers[id].Records())); err != nil {
			return err
		}
	}
	return nil
}

// logFile is where a drill keeps the log of the index-th daemon of a
// kind, named as Flink's scripts name it (entrypoint.LogFileBase) for a
// user called flinklab on a host called localhost:
// log/flink-flinklab-taskexecutor-0-localhost.log.
func logFile(daemon string, index int) string {
	return filepath.Join("log", fmt.Sprintf("flink-flinklab-%s-%d-localhost.log", daemon, index))
}

// print prints records as runtime/logging does, leaving out the fault
// injector's own lines; a time in a line's text (ms since the epoch, as
// the CheckpointCoordinator prints a checkpoint's timestamp) is on the
// drill's clock too.
func (o output) print(records []fault.LogRecord) string {
	var b strings.Builder
	for _, r := range records {
		if r.Logger == "FaultInjector" {
			continue
		}
		at := o.start.Add(r.Time.Sub(bubbleEpoch))
		text := onDrillClock([]byte(o.reword.Replace(r.Text())), o.start) // "Triggering checkpoint 3 (…) @ <ms> …"
		fmt.Fprintf(&b, "%s %-5s %s [] - %s\n", at.Format(logging.TimeLayout), logging.LevelName(r.Level), r.Logger, text)
	}
	return b.String()
}

func (o output) write(name, content string) error {
	path := filepath.Join(o.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(o.reword.Replace(content)), 0o644)
}
