package diagnose_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/diagnose"
)

func TestParseAnswer(t *testing.T) {
	const printed = "2026-11-30 10:16:02,475 ERROR BlobClient [] - Failed to fetch BLOB x No retries left."
	tests := []struct {
		name    string
		file    string
		want    diagnose.Answer
		wantErr string
	}{
		{name: "all three",
			file: "step: m10\ncomponent: BlobCache\nline: Detected data corruption during transfer\n",
			want: diagnose.Answer{Step: "m10", Component: "BlobCache", Line: "Detected data corruption during transfer"}},
		{name: "keys in any case, comments and blank lines",
			file: "# my answer\n\nSTEP: 7\n  # the SlotManager, I think\nComponent:  SlotManager  \nLine:\n",
			want: diagnose.Answer{Step: "m7", Component: "SlotManager"}},
		{name: "M7", file: "step: M7", want: diagnose.Answer{Step: "m7"}},
		{name: "m07", file: "step: m07", want: diagnose.Answer{Step: "m7"}},
		{name: "a step of a checkpoint", file: "step: K4\ncomponent: CheckpointBarrierHandler\n",
			want: diagnose.Answer{Step: "k4", Component: "CheckpointBarrierHandler"}},
		{name: "not a step of a checkpoint", file: "step: k8\n", wantErr: `answer line 1: step "k8": want one of m1 … m11, or k1 … k7`},
		{name: "missing keys are empty", file: "component: Task\n", want: diagnose.Answer{Component: "Task"}},
		{name: "empty file", file: "", want: diagnose.Answer{}},
		{name: "a whole printed line, its colons kept",
			file: "line: " + printed + "\r\nstep: m10\r\n",
			want: diagnose.Answer{Step: "m10", Line: printed}},
		{name: "a pasted cause continues the line",
			file: "line: " + printed + "\nDetected data corruption during transfer (SHA-256): expected p-1\n\nstep: m10\n",
			want: diagnose.Answer{Step: "m10", Line: printed + "\nDetected data corruption during transfer (SHA-256): expected p-1"}},
		{name: "the line on the line after its key",
			file: "line:\n  Starting the resource manager.\n",
			want: diagnose.Answer{Line: "Starting the resource manager."}},
		{name: "not a step", file: "step: m12\n", wantErr: `answer line 1: step "m12": want one of m1 … m11`},
		{name: "unknown key", file: "stepp: m7\n", wantErr: `answer line 1: unknown key "stepp"`},
		{name: "no key", file: "m7\n", wantErr: `answer line 1: want "key: value", got "m7"`},
		{name: "a key twice", file: "step: m7\nstep: m8\n", wantErr: "answer line 2: step given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := diagnose.ParseAnswer([]byte(tt.file))
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
