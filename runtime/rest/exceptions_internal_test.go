package rest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExceptionName: a failure is named by the exception its text starts
// with, fully qualified when Flink's is well known.
func TestExceptionName(t *testing.T) {
	tests := []struct{ text, want string }{
		{"JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy", "org.apache.flink.runtime.JobException"},
		{"NoResourceAvailableException: Could not acquire the minimum required resources.",
			"org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException"},
		{"TimeoutException: Heartbeat of TaskManager with id tm-1 timed out.", "java.util.concurrent.TimeoutException"},
		{"JobSubmissionException: Failed to submit job.", "org.apache.flink.runtime.client.JobSubmissionException"},
		{"JobInitializationException: Could not start the JobMaster.: JobSubmissionException: The vertex v has no invokable class.",
			"org.apache.flink.runtime.client.JobInitializationException"}, // the outermost name
		{"RuntimeException: open() threw", "java.lang.RuntimeException"},
		// Not in the table: the name as it is.
		{"PartitionNotFoundException: Partition p not found.", "PartitionNotFoundException"},
		{"OutOfMemoryError: Java heap space", "OutOfMemoryError"},
		{"org.apache.flink.util.FlinkRuntimeException: boom", "org.apache.flink.util.FlinkRuntimeException"},
		{"JobException", "org.apache.flink.runtime.JobException"}, // a Throwable without a message
		// No exception name: a Go error, named as such.
		{"could not assign a slot to Map (1/2)#0: the slot pool is closed", "error"},
		{"Failed to fetch BLOB j/k: IOException: gone", "error"},
		{"jobException: lower case", "error"},
		{"Job Exception: two words", "error"},
		{"Exception: nothing before the suffix", "error"},
		{"", "error"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, exceptionName(tt.text), tt.text)
	}
}

// TestSplitLikeJava: Flink's parameters split with Java's String.split,
// which drops trailing empty strings.
func TestSplitLikeJava(t *testing.T) {
	tests := []struct {
		s    string
		want []string
	}{
		{"a:b", []string{"a", "b"}},
		{"a:b:", []string{"a", "b"}},
		{"a::", []string{"a"}},
		{":b", []string{"", "b"}},
		{"a", []string{"a"}},
		{"", []string{""}},
		{":", []string{}},
		{"a::b", []string{"a", "", "b"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, splitLikeJava(tt.s, ":"), "%q", tt.s)
	}
}
