package taskmanager

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeToNilMap() error {
	var m map[string]int
	m["x"] = 1
	return nil
}

// A panic in the Task's own code becomes the task's failure cause, and the
// cause says where it happened, as a Java stack trace would.
func TestAPanicBecomesAFailureThatSaysWhere(t *testing.T) {
	err := catchPanic(writeToNilMap)
	require.Error(t, err)
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, "the task panicked: assignment to entry in nil map\n"), msg)
	assert.Contains(t, msg, "taskmanager.writeToNilMap(")
	assert.Contains(t, msg, "panic_internal_test.go:")
	assert.NotContains(t, msg, "runtime/debug.Stack", "the panic machinery is left out")

	assert.NoError(t, catchPanic(func() error { return nil }))
}
