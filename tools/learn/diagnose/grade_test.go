package diagnose_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
	"flinklab/tools/learn/diagnose"
)

var (
	jarCorruptedKey    = diagnose.Key{Step: trace.M10, Kind: fault.JarCorrupted, Component: diagnose.Blob}
	declarationLostKey = diagnose.Key{Step: trace.M6, Kind: fault.ResourceDeclarationLost, Component: diagnose.JobMaster}
)

func TestGradeTheStep(t *testing.T) {
	logs := loadDrill(t, jarCorrupted())
	tests := []struct {
		step      trace.Step
		right     bool
		contains  []string
		otherwise []string // what the message must not say
	}{
		{step: "m10", right: true},
		{step: "", contains: []string{"Name the step, m1–m11"}},
		{step: "m9", contains: []string{"At m9 the TaskExecutor receives the tasks", "do not show that as the first thing that went wrong",
			"not where the job finally gave up"}},
		{step: "m11", contains: []string{"At m11 the task goes INITIALIZING", "a restart or a FAILED job is a consequence"}},
		{step: "m12", contains: []string{`"m12" is not a step`}},
	}
	for _, tt := range tests {
		v := diagnose.Grade(jarCorruptedKey, logs, diagnose.Answer{Step: tt.step})
		require.NoError(t, v.Err)
		assert.Equal(t, tt.right, v.Step.Right, "%q", tt.step)
		for _, s := range tt.contains {
			assert.Contains(t, v.Step.Message, s, "%q", tt.step)
		}
		assert.NotContains(t, v.Step.Message, "m10", "a wrong step's message never names the right one")
	}
}

// No wrong step's message gives away a phrase of a line that proves the
// answer: no five words in a row of a proving line are in it.
func TestAWrongStepsMessageQuotesNoProvingLine(t *testing.T) {
	steps := append(fault.Steps(), trace.K1, trace.K2, trace.K3, trace.K4, trace.K5, trace.K6, trace.K7)
	for _, d := range []struct {
		key  diagnose.Key
		logs map[string][]string
	}{
		{jarCorruptedKey, jarCorrupted()}, {declarationLostKey, declarationLost()},
		{barrierLostKey, expiredCheckpoint(2, 0)}, {checkpointExpiredKey, expiredCheckpoint(0, 0)},
	} {
		logs := loadDrill(t, d.logs)
		e, err := d.key.Evidence()
		require.NoError(t, err)
		lines, complete := logs.Find(e)
		require.True(t, complete)
		proof := make([]string, 0, len(lines))
		for _, r := range lines {
			proof = append(proof, r.Text())
		}
		for _, r := range d.key.ProvingRows(logs) {
			proof = append(proof, r.Text)
		}
		for _, step := range steps {
			if step == d.key.Step {
				continue
			}
			msg := diagnose.Grade(d.key, logs, diagnose.Answer{Step: step}).Step.Message
			require.NotEmpty(t, msg)
			for _, text := range proof {
				words := strings.Fields(text)
				for i := 0; i+5 <= len(words); i++ {
					phrase := strings.Join(words[i:i+5], " ")
					assert.NotContains(t, msg, phrase, "%s's message for a drill of %s", step, d.key.Step)
				}
			}
		}
	}
}

func TestGradeTheComponent(t *testing.T) {
	jar := loadDrill(t, jarCorrupted())
	declaration := loadDrill(t, declarationLost())
	tests := []struct {
		name      string
		key       diagnose.Key
		logs      diagnose.Logs
		component string
		right     bool
		contains  string
	}{
		{"canonical", jarCorruptedKey, jar, "BlobServer/BlobCache", true, ""},
		{"the class that logs", jarCorruptedKey, jar, "BlobClient", true, ""},
		{"lower case with spaces", jarCorruptedKey, jar, "permanent blob cache", true, ""},
		{"the slot pool at m6", declarationLostKey, declaration, "SlotPool", true, ""},
		{"the runner at m6", declarationLostKey, declaration, "JobManagerRunner", true, ""},
		{"empty", jarCorruptedKey, jar, "", false,
			"Name the component to open: choose one of REST, Dispatcher, JobMaster, ResourceManager/SlotManager, TaskExecutor, Task, BlobServer/BlobCache."},
		{"none of them", jarCorruptedKey, jar, "Netty", false, `"Netty" is none of the components: choose one of REST,`},
		{"the wrong one, proof in a TaskManager's log", jarCorruptedKey, jar, "TaskExecutor", false,
			`"TaskExecutor" is not the component to open. The lines that prove the failure are in the TaskManager's log (` + tm0 + `)`},
		{"the wrong one, proof in the JobManager's log", declarationLostKey, declaration, "SlotManager", false,
			"are in the JobManager's log (" + diagnose.JobManagerLogFile + "); open the component that writes the proving line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := diagnose.Grade(tt.key, tt.logs, diagnose.Answer{Component: tt.component})
			require.NoError(t, v.Err)
			assert.Equal(t, tt.right, v.Component.Right)
			assert.Contains(t, v.Component.Message, tt.contains)
			if !tt.right && !strings.Contains(v.Component.Message, "choose one of") {
				assert.NotContains(t, v.Component.Message, tt.key.Component+" ", "never names the right component")
				assert.NotContains(t, v.Component.Message, tt.key.Component+".", "never names the right component")
			}
		})
	}
}

func TestGradeTheLine(t *testing.T) {
	logs := loadDrill(t, jarCorrupted())
	lookFor := "Look for a line of the TaskManager's log (" + tm0 + ")"
	tests := []struct {
		name     string
		line     string
		right    bool
		contains string
	}{
		{name: "the whole printed line", right: true,
			line: "2026-11-30 10:16:02,475 ERROR BlobClient [] - " + fetch + " No retries left."},
		{name: "the text after the prefix, with its cause", right: true,
			line: fetch + " No retries left.\nDetected data corruption during transfer (SHA-256): expected " + blobKey},
		{name: "a part of the cause", right: true, line: "  Detected data corruption during transfer  "},
		{name: "a proving line as the diagnosis quotes it", right: true,
			line: "TaskManager  10:16:02,477 WARN  Task [] - " + source + " switched from DEPLOYING to FAILED"},
		{name: "a grep's file and line", right: true,
			line: diagnose.JobManagerLogFile + ":18:2026-11-30 10:16:02,481 INFO  DefaultScheduler [] - 4 tasks will be restarted to recover"},
		{name: "the text of three lines", line: fetch + " No retries left.",
			contains: "is in several lines of the logs: paste more of the one you mean"},
		{name: "not in the logs", line: "Could not fulfill resource requirements of job " + job,
			contains: `"Could not fulfill resource requirements of job 48d541a3a8411844cdea0d0bd7a4c97b" is not in the logs shown`},
		{name: "the right text at another time",
			line:     "2026-11-30 10:16:09,475 ERROR BlobClient [] - " + fetch + " No retries left.",
			contains: "is not in the logs shown"},
		{name: "too short", line: "No retries", contains: `"No retries" is too short to tell one line from another`},
		{name: "a prefix and nothing else", line: "2026-11-30 10:16:02,475 ERROR BlobClient [] - ",
			contains: "is too short"},
		{name: "in the logs but unrelated", line: "Starting the resource manager.",
			contains: "That line is in the logs (" + diagnose.JobManagerLogFile + ":3), but it does not prove the failure. " + lookFor},
		{name: "an earlier attempt that carries no cause", line: "2026-11-30 10:16:00,710 ERROR BlobClient [] - " + fetch,
			contains: "A consequence (a restart, a FAILED job, a cancelled task) is not the proof."},
		{name: "empty", line: "", contains: "Paste the log line that proves the failure: a line of the TaskManager's log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := diagnose.Grade(jarCorruptedKey, logs, diagnose.Answer{Line: tt.line})
			require.NoError(t, v.Err)
			assert.Equal(t, tt.right, v.Line.Right, v.Line.Message)
			assert.Contains(t, v.Line.Message, tt.contains)
			if !tt.right {
				assert.NotContains(t, v.Line.Message, "Detected data corruption", "never quotes the proving line")
				if !strings.Contains(tt.line, "Failed to fetch") {
					assert.NotContains(t, v.Line.Message, "Failed to fetch")
				}
			}
		})
	}
}

func TestGradeAWholeAnswer(t *testing.T) {
	logs := loadDrill(t, jarCorrupted())
	a, err := diagnose.ParseAnswer([]byte("step: 10\ncomponent: blob cache\nline: Detected data corruption during transfer (SHA-256)\n"))
	require.NoError(t, err)
	v := diagnose.Grade(jarCorruptedKey, logs, a)
	assert.True(t, v.Passed(), v.String())
	assert.Equal(t, "step:      right\ncomponent: right\nline:      right\n", v.String())

	a.Step = "m9"
	v = diagnose.Grade(jarCorruptedKey, logs, a)
	assert.False(t, v.Passed())
	assert.True(t, v.Component.Right && v.Line.Right, "each part is graded on its own")
	assert.Contains(t, v.String(), "step:      not yet: At m9")

	// A key without a component names the step's.
	v = diagnose.Grade(diagnose.Key{Step: trace.M10, Kind: fault.JarCorrupted}, logs, diagnose.Answer{Step: "m10", Component: "BlobServer", Line: a.Line})
	assert.True(t, v.Passed(), v.String())
}

func TestGradeABrokenKeyIsTheCallersError(t *testing.T) {
	logs := loadDrill(t, jarCorrupted())
	v := diagnose.Grade(diagnose.Key{Step: trace.M10, Kind: fault.SlotOfferRejected}, logs, diagnose.Answer{Step: "m10"})
	assert.ErrorIs(t, v.Err, diagnose.ErrNoEvidence)
	assert.False(t, v.Passed())
	assert.Contains(t, v.String(), "cannot grade: ")

	v = diagnose.Grade(diagnose.Key{Step: trace.M10, Kind: fault.JarCorrupted, Component: "Netty"}, logs, diagnose.Answer{})
	assert.ErrorContains(t, v.Err, `names no component: "Netty"`)
}

// A line shorter than 20 characters may be pasted whole. The key of m8's
// any-kind evidence (Kind "") grades as any other.
func TestGradeAShortLinePastedWhole(t *testing.T) {
	logs := loadDrill(t, map[string][]string{tm0: {
		"2026-11-30 10:16:00,600 INFO  TaskExecutor [] - Offer reserved slots to the leader of job " + job + ".",
		"2026-11-30 10:16:00,620 INFO  TaskExecutor [] - Offer reserved slots to the leader of job " + job + ".",
		"2026-11-30 10:16:00,650 INFO  TaskSlotTableImpl [] - Activate slot a.",
	}})
	key := diagnose.Key{Step: trace.M8, Component: diagnose.TaskExecutor}
	for line, right := range map[string]bool{
		"Activate slot a.": true,
		"Activate slot":    false,
		"2026-11-30 10:16:00,620 INFO  TaskExecutor [] - Offer reserved slots to the leader of job " + job + ".": true,
	} {
		v := diagnose.Grade(key, logs, diagnose.Answer{Line: line})
		require.NoError(t, v.Err)
		assert.Equal(t, right, v.Line.Right, "%q: %s", line, v.Line.Message)
	}
}
