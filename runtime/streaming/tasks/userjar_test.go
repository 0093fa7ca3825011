package tasks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/streaming"
)

func TestLoadUserProgram(t *testing.T) {
	config := func(program string, args ...string) *streaming.StreamConfig {
		return &streaming.StreamConfig{ProgramName: program, ProgramArgs: args, ProgramParallelism: 1, ChainedNodeIDs: []int{1}}
	}
	notAJar := filepath.Join(t.TempDir(), "broken.jar")
	require.NoError(t, os.WriteFile(notAJar, []byte("not a zip"), 0o600))

	tests := []struct {
		name      string
		jars      []string
		config    *streaming.StreamConfig
		wantIs    []error
		wantLines []string
	}{
		{"the jar holds the program", []string{writeJar(t, chainProgram, nil)}, config(chainProgram, "1"), nil, nil},
		{"no jar", nil, config(chainProgram, "1"), []error{ErrNoUserJar}, nil},
		{"not a jar", []string{notAJar}, config(chainProgram, "1"), nil,
			[]string{"Library cache could not register the user code libraries: '" + notAJar + "' is not a valid jar file"}},
		{"the jar names another program: the class is not in the jar",
			[]string{writeJar(t, wordCountProgram, nil)}, config(chainProgram, "1"),
			[]error{ErrCannotLoadUserClass, streaming.ErrClassNotFound},
			[]string{
				"Cannot load user class: ClassNotFoundException: tasks-test.chain",
				"ClassLoader info: URL ClassLoader:",
				"(valid JAR, Program-Class: tasks-test.wordcount)",
				"Class not resolvable through given classloader.",
			}},
		{"no such program in this process",
			[]string{writeJar(t, "tasks-test.no-such-program", nil)}, config("tasks-test.no-such-program"),
			[]error{ErrCannotLoadUserClass, streaming.ErrClassNotFound},
			[]string{
				"Cannot load user class: ClassNotFoundException: tasks-test.no-such-program",
				"registered programs: [",
				"Class not resolvable through given classloader.",
			}},
		{"the program fails when planned", []string{writeJar(t, chainProgram, nil)}, config(chainProgram, "one"),
			[]error{ErrCannotInstantiateUserFunction},
			[]string{`Cannot instantiate user function. Caused by: The main method caused an error: strconv.Atoi: parsing "one"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			graph, jar, err := loadUserProgram(tt.jars, tt.config)
			if tt.wantIs == nil && tt.wantLines == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.config.ProgramName, jar.ProgramClass())
				assert.NotNil(t, graph.StreamNode(1))
				return
			}
			require.Error(t, err)
			for _, target := range tt.wantIs {
				assert.ErrorIs(t, err, target)
			}
			for _, line := range tt.wantLines {
				assert.Contains(t, err.Error(), line)
			}
		})
	}
}
