package logpredict_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/tools/learn/logpredict"
)

// The lines and processes of the tests: a small exercise of the h05 kind.
var (
	lines = []string{
		"Successfully recovered 1 persisted job graphs.",
		"Job … reached terminal state SUSPENDED.",
		"Connecting to ResourceManager …",
	}
	processes = []logpredict.Process{
		{Name: "old-leader"},
		{Name: "new-leader"},
		{Name: "taskmanagers"},
	}
)

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    logpredict.Prediction
		wantErr string
	}{
		{name: "answers, comments, blank lines and lines not answered yet",
			file: "# my prediction\n\nSuccessfully recovered 1 persisted job graphs. = new-leader\n" +
				"Job … reached terminal state SUSPENDED. =\nConnecting to ResourceManager … = new-leader, taskmanagers\n",
			want: logpredict.Prediction{
				"Successfully recovered 1 persisted job graphs.": {"new-leader"},
				"Connecting to ResourceManager …":                {"new-leader", "taskmanagers"},
			}},
		{name: "none",
			file: "Job … reached terminal state SUSPENDED. = none\n",
			want: logpredict.Prediction{"Job … reached terminal state SUSPENDED.": {}}},
		{name: "white space as an editor leaves it",
			file: "  Job …   reached terminal state SUSPENDED.=old-leader ,new-leader\r\n",
			want: logpredict.Prediction{"Job … reached terminal state SUSPENDED.": {"old-leader", "new-leader"}}},
		{name: "no =", file: "Connecting to ResourceManager … new-leader\n",
			wantErr: `line 1: "Connecting to ResourceManager … new-leader": write the log line, " = ", and the processes whose logs have it`},
		{name: "a line of another list", file: "Job … reached terminal state FAILED. = none\n",
			wantErr: `line 1: "Job … reached terminal state FAILED." is none of the log lines of the exercise: keep each line as the template writes it`},
		{name: "a line twice", file: "Connecting to ResourceManager … = none\nConnecting to ResourceManager … = taskmanagers\n",
			wantErr: `line 2: "Connecting to ResourceManager …" is answered twice`},
		{name: "no such process", file: "Connecting to ResourceManager … = standby\n",
			wantErr: `line 1: "standby" is none of the processes: write old-leader, new-leader, taskmanagers, separated by commas, or none`},
		{name: "none and a process", file: "Connecting to ResourceManager … = none, taskmanagers\n",
			wantErr: `line 1: "none, taskmanagers": none stands alone, for a line that no process writes`},
		{name: "a process twice", file: "Connecting to ResourceManager … = taskmanagers, taskmanagers\n",
			wantErr: `line 1: taskmanagers is written twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := logpredict.Read(strings.NewReader(tt.file), lines, processes)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPatternStandsAnyTextForEachEllipsis(t *testing.T) {
	tests := []struct {
		line, message string
		want          bool
	}{
		{"Job … reached terminal state SUSPENDED.", "Job 4f2a reached terminal state SUSPENDED.", true},
		{"Job … reached terminal state SUSPENDED.", "Job  reached terminal state SUSPENDED.", false}, // "…" is never nothing
		{"Job … reached terminal state SUSPENDED.", "Job 4f2a reached terminal state FAILED.", false},
		{"Job … reached terminal state SUSPENDED.", "The Job 4f2a reached terminal state SUSPENDED.", false},
		{"Connecting to ResourceManager …", "Connecting to ResourceManager pekko.tcp://flink@localhost:1/user/rpc/resourcemanager_0(8d31).", true},
		{"Connecting to ResourceManager …", "Connecting to ResourceManager", false},
		{"Job (…) switched.", "Job (a.b) switched.", true},
		{"Job (…) switched.", "Job (a.b) switched!", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, logpredict.Pattern(tt.line).MatchString(tt.message), "%q ~ %q", tt.line, tt.message)
	}
}

// record prints a log record as the runtime's log files have it.
func record(logger, message string) string {
	return "2026-12-02 06:32:43,187 INFO  " + logger + " [] - " + message + "\n"
}

// The logs of a small failover: the old leader wrote nothing more, the
// new one recovered the job and connected to its ResourceManager, both
// TaskManagers connected there too (one with the cause of the reconnection
// on the line under it).
var failover = logpredict.Logs{
	"old-leader": {""},
	"new-leader": {
		record("SessionDispatcherLeaderProcess", "Successfully recovered 1 persisted job graphs.") +
			record("JobMaster", "Connecting to ResourceManager pekko.tcp://flink@localhost:2/user/rpc/resourcemanager_0"),
	},
	"taskmanagers": {
		record("TaskExecutor", "Connecting to ResourceManager pekko.tcp://flink@localhost:2/user/rpc/resourcemanager_0(14f5).") +
			"ResourceManager leader changed to new address (00000000000000000000000000000000)\n",
		record("TaskExecutor", "Connecting to ResourceManager pekko.tcp://flink@localhost:2/user/rpc/resourcemanager_0(14f5)."),
	},
}

func TestWhereIsEveryProcessOfAKind(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"Successfully recovered 1 persisted job graphs.", []string{"new-leader"}},
		{"Job … reached terminal state SUSPENDED.", nil},
		{"Connecting to ResourceManager …", []string{"new-leader", "taskmanagers"}},
		{"Connecting to ResourceManager …(…).", []string{"taskmanagers"}},
		{"ResourceManager leader changed to new address (…)", nil}, // a cause is not a record of its own
	} {
		got, err := logpredict.Where(tt.line, failover, processes)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.line)
	}
}

// A line that one TaskManager wrote and the other did not cannot be
// predicted for "the TaskManagers": Where says that the run does not
// tell, and the exercise's scenario must be made so that this never
// happens.
func TestWhereRefusesALineOnlySomeProcessesOfAKindWrote(t *testing.T) {
	logs := logpredict.Logs{"taskmanagers": {record("Task", "Source (1/2) switched from RUNNING to FAILED."), ""}}
	_, err := logpredict.Where("… switched from RUNNING to FAILED.", logs, processes)
	assert.EqualError(t, err, `"… switched from RUNNING to FAILED." is in 1 of the 2 logs of taskmanagers: the run does not say whether it is there`)
}

func TestWhereRefusesALogThatIsNotOne(t *testing.T) {
	_, err := logpredict.Where("Job … reached terminal state SUSPENDED.", logpredict.Logs{"old-leader": {"not a record\n"}}, processes)
	assert.ErrorContains(t, err, "old-leader: ")
	assert.ErrorContains(t, err, `not a log record: "not a record"`)
}

func TestGradeSaysWhatIsWrongNeverWhatIsRight(t *testing.T) {
	tests := []struct {
		name   string
		answer logpredict.Prediction
		want   []string
	}{
		{name: "right",
			answer: logpredict.Prediction{
				lines[0]: {"new-leader"},
				lines[1]: {},
				lines[2]: {"taskmanagers", "new-leader"},
			}},
		{name: "nothing answered",
			answer: logpredict.Prediction{},
			want: []string{
				`"Successfully recovered 1 persisted job graphs.": not predicted yet`,
				`"Job … reached terminal state SUSPENDED.": not predicted yet`,
				`"Connecting to ResourceManager …": not predicted yet`,
			}},
		{name: "a process that does not write it, and one left out",
			answer: logpredict.Prediction{
				lines[0]: {"old-leader"},
				lines[1]: {"old-leader", "new-leader"},
				lines[2]: {"taskmanagers"},
			},
			want: []string{
				`"Successfully recovered 1 persisted job graphs.": your answer names a process whose log has no such line`,
				`"Successfully recovered 1 persisted job graphs.": your answer leaves out a process whose log has this line`,
				`"Job … reached terminal state SUSPENDED.": your answer names 2 processes whose logs have no such line`,
				`"Connecting to ResourceManager …": your answer leaves out a process whose log has this line`,
			}},
		{name: "none, for lines some process writes",
			answer: logpredict.Prediction{lines[0]: {}, lines[1]: {}, lines[2]: {}},
			want: []string{
				`"Successfully recovered 1 persisted job graphs.": some process's log has this line`,
				`"Connecting to ResourceManager …": some process's log has this line`,
			}},
		{name: "two left out",
			answer: logpredict.Prediction{lines[0]: {"new-leader"}, lines[1]: {}, lines[2]: {"old-leader"}},
			want: []string{
				`"Connecting to ResourceManager …": your answer names a process whose log has no such line`,
				`"Connecting to ResourceManager …": your answer leaves out 2 of the processes whose logs have this line`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := logpredict.Grade(tt.answer, lines, failover, processes)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			for _, mistake := range got {
				for _, proc := range processes {
					assert.NotContains(t, mistake, proc.Name, "a mistake names no process")
				}
			}
		})
	}
}
