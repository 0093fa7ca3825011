package exercise

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadDrill loads drill x01 from its exercise.yaml and its run,
// solutions/x01/drill.yaml.
func loadDrill(t *testing.T, yaml, drill string) (*Exercise, error) {
	t.Helper()
	root := t.TempDir()
	for rel, content := range map[string]string{"exercises/x01/exercise.yaml": yaml, DrillFile("x01"): drill} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	return LoadFile(root, filepath.Join(root, "exercises", "x01", "exercise.yaml"))
}

const drillYAML = "id: x01\ntitle: t\nkind: diagnose\nlesson: lessons/a.md#causes\nhints: [a, b, c]\n"

func TestLoadFileReadsAFailoverDrill(t *testing.T) {
	e, err := loadDrill(t, drillYAML+"diagnosis: {of: failover, answer: answer.txt}\n",
		"spec: {failover: leader-killed, seed: 5}\nkey: {cause: leader-killed, process: standalonesession-0}\n")
	require.NoError(t, err)
	assert.True(t, e.Diagnosis.Failover())
	assert.Equal(t, "leader-killed", e.Drill.Failover())
	assert.Equal(t, &FailoverKey{Cause: "leader-killed", Process: "standalonesession-0"}, e.Drill.Key)

	e, err = loadDrill(t, drillYAML+"diagnosis: {answer: answer.txt}\n", "spec: {fault: m7}\n")
	require.NoError(t, err)
	assert.False(t, e.Diagnosis.Failover(), "a drill asks about the steps unless it says otherwise")
	assert.False(t, e.Drill.Checkpointed())
}

// A drill of a checkpoint's step checkpoints its job: its spec sets
// Flink's checkpointing options.
func TestLoadFileReadsACheckpointDrill(t *testing.T) {
	e, err := loadDrill(t, drillYAML+"diagnosis: {answer: answer.txt}\n",
		"spec:\n  fault: \"k4,after=8\"\n  job: ticker\n  checkpointing:\n    execution.checkpointing.interval: \"5 s\"\n")
	require.NoError(t, err)
	assert.Equal(t, "k4,after=8", e.Drill.Fault())
	assert.True(t, e.Drill.Checkpointed())
}

func TestLoadFileRefusesADrillThatDoesNotSayItsAnswer(t *testing.T) {
	for _, tt := range []struct {
		name, diagnosis, drill, want string
	}{
		{"a failover drill without its incident", "{of: failover, answer: answer.txt}",
			"key: {cause: leader-killed, process: standalonesession-0}\n", "spec.failover is required"},
		{"a failover drill without its key", "{of: failover, answer: answer.txt}",
			"spec: {failover: leader-paused}\n", "key.cause and key.process are required"},
		{"a failover drill that breaks a step too", "{of: failover, answer: answer.txt}",
			"spec: {failover: leader-killed, fault: m7}\nkey: {cause: leader-killed, process: standalonesession-0}\n", "a failover drill breaks a leader, not a step"},
		{"a drill of the steps with a key", "{answer: answer.txt}",
			"spec: {fault: m7}\nkey: {cause: leader-killed, process: standalonesession-0}\n", "key is a failover drill's"},
		{"a drill of something else", "{of: metrics, answer: answer.txt}",
			"spec: {fault: m7}\n", `diagnosis.of "metrics": want "steps" or "failover"`},
		{"a key with a field it has not", "{of: failover, answer: answer.txt}",
			"spec: {failover: leader-killed}\nkey: {cause: leader-killed, leader: standalonesession-0}\n", "field leader not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadDrill(t, drillYAML+"diagnosis: "+tt.diagnosis+"\n", tt.drill)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
