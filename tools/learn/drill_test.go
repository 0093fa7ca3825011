package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
	c := testCourse(t)
	c.drills = t.TempDir()
	e, err := c.exercise("d03") // the SlotManager matches no free slot to the job (m7)
	require.NoError(t, err)
	// The test answers in the repository's answer file: a learner's own
	// answer is put back afterwards.
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
	assert.Contains(t, out.String(), "client.txt")

	logs, err := diagnose.LoadLogs(filepath.Join(c.drills, e.ID))
	require.NoError(t, err)
	key, err := drillKey(e)
	require.NoError(t, err)
	evidence, err := key.Evidence()
	require.NoError(t, err)
	proof, complete := logs.Find(evidence)
	require.True(t, complete)
	lineOf := func(pattern string) string {
		for _, r := range logs.All {
			if strings.Contains(r.Text(), pattern) {
				return strings.SplitN(r.Text(), "\n", 2)[0]
			}
		}
		t.Fatalf("no line with %q in the drill's logs", pattern)
		return ""
	}

	wrong := []struct {
		name, answer string
	}{
		{"the template as it is", ""},
		{"the restart, the first line that looks alarming", "step: m9\ncomponent: JobMaster\nline: " + lineOf("switched from state RUNNING to RESTARTING")},
		{"the component that reports the failure", "step: m7\ncomponent: JobMaster\nline: " + strings.SplitN(proof[len(proof)-1].Text(), "\n", 2)[0]},
		{"a line that is in no log", "step: m7\ncomponent: SlotManager\nline: Could not allocate the required slot within slot request timeout."},
	}
	for _, tt := range wrong {
		t.Run(tt.name, func(t *testing.T) {
			if tt.answer != "" {
				require.NoError(t, os.WriteFile(answer, []byte(tt.answer+"\n"), 0o644))
			}
			var out bytes.Buffer
			passed, err := c.check(context.Background(), e, &out)
			require.NoError(t, err)
			assert.False(t, passed, out.String())
			said := strings.SplitN(out.String(), "Hint 1 of 3", 2)[0]
			said = strings.ReplaceAll(said, strings.Join(diagnose.Components(), ", "), "the components") // naming all of them names none
			for _, giveaway := range []string{"m7", "SlotManager", "ResourceManager", "FineGrainedSlotManager", "Could not acquire", "Could not fulfill"} {
				if !strings.Contains(tt.answer, giveaway) {
					assert.NotContains(t, said, giveaway, "the checker says what is wrong, never what to write")
				}
			}
		})
	}

	right := "step: m7\ncomponent: ResourceManager\nline: " + lineOf("Could not acquire the minimum required resources")
	require.NoError(t, os.WriteFile(answer, []byte(right+"\n"), 0o644))
	out.Reset()
	passed, err := c.check(context.Background(), e, &out)
	require.NoError(t, err)
	assert.True(t, passed, out.String())
	assert.Contains(t, out.String(), "✓ d03")
	assert.Equal(t, done, c.state(e))
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
