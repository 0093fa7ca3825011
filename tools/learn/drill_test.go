package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/diagnose"
	"flinklab/tools/learn/exercise"
)

// A drill as a learner meets it: start makes the logs and says where they
// are; the answers people really write when they read the first alarming
// line, or blame the component that reports a failure, are each told what
// is wrong without the answer; the right one passes and is kept.
func TestADrillIsGradedAsALearnerAnswersIt(t *testing.T) {
	d := startDrillAsALearner(t, "d03") // the SlotManager matches no free slot to the job (m7)
	d.refuses(t, []wrongAnswer{
		{"the template as it is", ""},
		{"the restart, the first line that looks alarming", "step: m9\ncomponent: JobMaster\nline: " + d.lineOf("switched from state RUNNING to RESTARTING")},
		{"the component that reports the failure", "step: m7\ncomponent: JobMaster\nline: " + d.firstLine(d.proof[len(d.proof)-1])},
		{"a line that is in no log", "step: m7\ncomponent: SlotManager\nline: Could not allocate the required slot within slot request timeout."},
	}, "m7", "SlotManager", "ResourceManager", "FineGrainedSlotManager", "Could not acquire", "Could not fulfill")
	d.accepts(t, "step: m7\ncomponent: ResourceManager\nline: "+d.lineOf("Could not acquire the minimum required resources"))
}

// The drills of the scheduler types: an AdaptiveScheduler job that waits
// for slots until it gives up, and a region restart that takes finished
// producers along. The answers people write there blame the scheduler
// that reported the end, or the consequence that came last. Each drill
// runs a cluster of its own that mostly waits, so they run side by side.
func TestTheSchedulerDrillsAreGradedAsALearnerAnswersThem(t *testing.T) {
	t.Run("d21", func(t *testing.T) {
		t.Parallel()
		d := startDrillAsALearner(t, "d21") // the SlotManager never cuts a slot for an AdaptiveScheduler job (m7)
		d.refuses(t, []wrongAnswer{
			{"the exception the owner saw", "step: m4\ncomponent: JobMaster\nline: " + d.lineOf("Failed to go from CreatingExecutionGraph to Executing")},
			{"the scheduler that waited", "step: m6\ncomponent: JobMaster\nline: " + d.lineOf("Starting scheduling of job")},
			{"the Dispatcher, which reported FAILED", "step: m3\ncomponent: Dispatcher\nline: " + d.lineOf("reached terminal state FAILED")},
			{"the right line, the scheduler blamed", "step: m7\ncomponent: AdaptiveScheduler\nline: " + d.lineOf("Could not fulfill resource requirements")},
		}, "m7", "SlotManager", "ResourceManager", "Could not fulfill", "Matching resource requirements")
		d.accepts(t, "step: m7\ncomponent: SlotManager\nline: "+d.lineOf("Could not fulfill resource requirements"))
	})
	t.Run("d22", func(t *testing.T) {
		t.Parallel()
		d := startDrillAsALearner(t, "d22") // a TaskManager is lost while a BATCH job's counters deploy (m9)
		wrong := []wrongAnswer{
			{"the failover strategy's line", "step: m4\ncomponent: JobMaster\nline: " + d.lineOf("tasks should be restarted to recover")},
			{"the right line, the JobMaster blamed", "step: m9\ncomponent: JobMaster\nline: " + d.lineOf("switched from DEPLOYING to FAILED")},
			{"the TaskManager's heartbeat, seen by the ResourceManager", "step: m7\ncomponent: ResourceManager\nline: " + d.lineOf("The heartbeat of TaskManager with id")},
		}
		if d.has("not found.") { // in runs where the JobMaster heard of the lost TaskManager late
			wrong = append(wrong, wrongAnswer{"the consequence that came last: a partition not found",
				"step: m11\ncomponent: Task\nline: " + d.lineOf("not found.")})
		}
		d.refuses(t, wrong, "m9", "TaskExecutor", "not responding", "DEPLOYING to FAILED")
		d.accepts(t, "step: m9\ncomponent: TaskManager\nline: "+d.lineOf("switched from DEPLOYING to FAILED"))
	})
}

// The drills of a checkpoint that expired: the logs read alike, and only
// the checkpoint statistics in client.txt say where it stopped. The
// answers people write there blame the coordinator that gave up, paste
// the expiry, or read the statistics the wrong way round. The two drills
// run side by side, each on a cluster of its own.
func TestTheCheckpointDrillsAreGradedAsALearnerAnswersThem(t *testing.T) {
	t.Run("d25", func(t *testing.T) {
		t.Parallel()
		d := startDrillAsALearner(t, "d25") // the barriers never reach running-count: its alignment hangs (k4)
		d.refuses(t, []wrongAnswer{
			{"the expiry, where the coordinator gave up", "step: k6\ncomponent: CheckpointCoordinator\nline: " + d.lineOf("expired before completing")},
			{"the right step, the expiry pasted", "step: k4\ncomponent: Task\nline: " + d.lineOf("expired before completing")},
			{"the sources' row: they took it", "step: k1\ncomponent: JobMaster\nline: " + d.clientLine("Source: sensor-events 2/2")},
			{"the global failure", "step: k5\ncomponent: JobMaster\nline: " + d.lineOf("Trying to recover from a global failure")},
		}, "k4", "CheckpointBarrierHandler", "running-count")
		d.accepts(t, "step: K4\ncomponent: CheckpointBarrierHandler\nline: "+d.clientLine("running-count -> Sink: collect-sink 0/2"))
	})
	t.Run("d26", func(t *testing.T) {
		t.Parallel()
		d := startDrillAsALearner(t, "d26") // the triggers never reach the sources (k1)
		d.refuses(t, []wrongAnswer{
			{"the expiry, the right component", "step: k6\ncomponent: CheckpointCoordinator\nline: " + d.lineOf("expired before completing")},
			{"the sources that never took it, at their task", "step: k2\ncomponent: Task\nline: " + d.clientLine("Source: sensor-events 0/2")},
			{"the alignment, running-count's row", "step: k4\ncomponent: Task\nline: " + d.clientLine("running-count -> Sink: collect-sink 0/2")},
		}, "k1", "Source: sensor-events", "0/4")
		d.accepts(t, "step: k1\ncomponent: CheckpointCoordinator\nline: "+d.clientLine("Source: sensor-events 0/2"))
		d.accepts(t, "step: k1\ncomponent: JobMaster\nline: "+d.clientLine("FAILED 0/4"))
	})
}

// learnerDrill is a drill started as a learner starts it, in a test's
// directory, with the lines that prove its answer.
type learnerDrill struct {
	c     *course
	e     *exercise.Exercise
	logs  diagnose.Logs
	proof []diagnose.Record
}

// wrongAnswer is an answer a learner really writes; empty leaves the
// template as it is.
type wrongAnswer struct{ name, answer string }

// startDrillAsALearner runs `learn start id` and reads the drill's logs
// and the lines that prove its step. The test answers in the repository's
// answer file: a learner's own answer is put back afterwards.
func startDrillAsALearner(t *testing.T, id string) *learnerDrill {
	t.Helper()
	d := startAsALearner(t, id)
	assert.FileExists(t, filepath.Join(d.c.drills, id, "client.txt"))
	key, err := drillKey(d.e)
	require.NoError(t, err)
	evidence, err := key.Evidence()
	require.NoError(t, err)
	proof, complete := d.logs.Find(evidence)
	require.True(t, complete)
	d.proof = proof
	return d
}

// startAsALearner runs `learn start id` and reads the drill's logs.
func startAsALearner(t *testing.T, id string) *learnerDrill {
	t.Helper()
	c := testCourse(t)
	c.drills = t.TempDir()
	e, err := c.exercise(id)
	require.NoError(t, err)
	answer := c.path(answerFile(e))
	if learners, err := os.ReadFile(answer); err == nil {
		t.Cleanup(func() { _ = os.WriteFile(answer, learners, 0o644) })
	} else {
		t.Cleanup(func() { _ = os.Remove(answer) })
	}
	_ = os.Remove(answer)

	var out bytes.Buffer
	require.NoError(t, c.startDrill(context.Background(), e, &out))
	assert.Contains(t, out.String(), "log/flink-flinklab-standalonesession-0-localhost.log")
	assert.Contains(t, out.String(), "log/flink-flinklab-taskexecutor-0-localhost.log")

	logs, err := diagnose.LoadLogs(filepath.Join(c.drills, e.ID))
	require.NoError(t, err)
	return &learnerDrill{c: c, e: e, logs: logs}
}

// has reports whether a line of the drill's logs contains text.
func (d *learnerDrill) has(text string) bool {
	return slices.ContainsFunc(d.logs.All, func(r diagnose.Record) bool { return strings.Contains(r.Text(), text) })
}

// lineOf is the first line of the first record that contains text, as a
// learner copies it.
func (d *learnerDrill) lineOf(text string) string {
	for _, r := range d.logs.All {
		if strings.Contains(r.Text(), text) {
			return d.firstLine(r)
		}
	}
	panic("no line with " + strconv.Quote(text) + " in the drill's logs")
}

// clientLine is the first line of client.txt that contains text (its
// columns apart by one space), as a learner copies it.
func (d *learnerDrill) clientLine(text string) string {
	for _, line := range strings.Split(d.logs.Client, "\n") {
		if strings.Contains(strings.Join(strings.Fields(line), " "), text) {
			return strings.TrimSpace(line)
		}
	}
	panic("no line with " + strconv.Quote(text) + " in the drill's client.txt")
}

func (d *learnerDrill) firstLine(r diagnose.Record) string {
	return strings.SplitN(r.Text(), "\n", 2)[0]
}

// refuses checks that each wrong answer fails, and that what the checker
// says names none of giveaways (the right step, component or line) that
// the answer did not name itself.
func (d *learnerDrill) refuses(t *testing.T, wrong []wrongAnswer, giveaways ...string) {
	t.Helper()
	for _, tt := range wrong {
		t.Run(tt.name, func(t *testing.T) {
			if tt.answer != "" {
				require.NoError(t, os.WriteFile(d.c.path(answerFile(d.e)), []byte(tt.answer+"\n"), 0o644))
			}
			var out bytes.Buffer
			passed, err := d.c.check(context.Background(), d.e, &out)
			require.NoError(t, err)
			assert.False(t, passed, out.String())
			said := strings.SplitN(out.String(), "Hint 1 of 3", 2)[0]
			said = strings.ReplaceAll(said, strings.Join(diagnose.Components(), ", "), "the components") // naming all of them names none
			said = strings.ReplaceAll(said, causeList(), "the causes")
			for _, giveaway := range giveaways {
				if !strings.Contains(tt.answer, giveaway) {
					assert.NotContains(t, said, giveaway, "the checker says what is wrong, never what to write")
				}
			}
		})
	}
}

// accepts checks that the right answer passes and marks the drill done.
func (d *learnerDrill) accepts(t *testing.T, right string) {
	t.Helper()
	require.NoError(t, os.WriteFile(d.c.path(answerFile(d.e)), []byte(right+"\n"), 0o644))
	var out bytes.Buffer
	passed, err := d.c.check(context.Background(), d.e, &out)
	require.NoError(t, err)
	assert.True(t, passed, out.String())
	assert.Contains(t, out.String(), "✓ "+d.e.ID)
	assert.Equal(t, done, d.c.state(d.e))
}

// `learn diagnose` picks a drill the learner has not done and runs it
// afresh: its logs are the same fault's on another clock, and a drill
// already done is not picked while another is left.
func TestDiagnosePicksADrillNotDoneOnAFreshRun(t *testing.T) {
	c := testCourse(t)
	c.drills = t.TempDir()
	var left *exercise.Exercise
	for _, e := range c.exercises {
		if e.Kind != exercise.Diagnose {
			continue
		}
		// Every drill's answer file is the learner's: put each back as it was.
		answer := c.path(answerFile(e))
		if learners, err := os.ReadFile(answer); err == nil {
			t.Cleanup(func() { _ = os.WriteFile(answer, learners, 0o644) })
		} else {
			t.Cleanup(func() { _ = os.Remove(answer) })
		}
		if left == nil {
			left = e
			continue
		}
		require.NoError(t, c.progress.update(e.ID, func(r *record) { r.state = "done" }))
	}
	require.NotNil(t, left)

	var out bytes.Buffer
	require.NoError(t, c.practiceDrill(context.Background(), &out))
	assert.Contains(t, out.String(), "A fresh run of "+left.ID+" (seed ")
	logs, err := diagnose.LoadLogs(filepath.Join(c.drills, left.ID))
	require.NoError(t, err)
	key, err := drillKey(left)
	require.NoError(t, err)
	evidence, err := key.Evidence()
	require.NoError(t, err)
	_, complete := logs.Find(evidence)
	assert.True(t, complete, "the fresh run proves the drill's fault as its own run does")
	assert.Equal(t, inProgress, c.state(left))
}
