package checkpoint

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// One checkpoint's statistics travel in Flink's REST shape, to the REST
// API and between processes: each status with its own fields, and back
// unchanged.
func TestCheckpointStatisticsHaveFlinksRESTShapeAndComeBackUnchanged(t *testing.T) {
	tasks := map[string]TaskCheckpointStatistics{"bc764cd8": {ID: 3, Status: StatusCompleted, NumSubtasks: 2, NumAcknowledgedSubtasks: 2}}
	for _, tc := range []struct {
		name      string
		stats     CheckpointStatistics
		has, hasn []string
	}{
		{"completed", CheckpointStatistics{ID: 3, Status: StatusCompleted, LatestAckTimestamp: 1700000001000,
			CheckpointType: "CHECKPOINT", Tasks: tasks, ExternalPath: "/checkpoints/job/chk-3"},
			[]string{`"className":"completed"`, `"savepointFormat":null`, `"external_path":"/checkpoints/job/chk-3"`, `"discarded":false`, `"num_acknowledged_subtasks":2`},
			[]string{`failure_`}},
		{"a savepoint", CheckpointStatistics{ID: 4, Status: StatusCompleted, IsSavepoint: true, CheckpointType: "SAVEPOINT",
			ExternalPath: "/savepoints/savepoint-8d4f2a-0123456789ab"},
			[]string{`"className":"completed"`, `"savepointFormat":"CANONICAL"`, `"tasks":{}`},
			[]string{`failure_`}},
		{"failed", CheckpointStatistics{ID: 5, Status: StatusFailed, LatestAckTimestamp: -1,
			FailureTimestamp: 1700000003000, FailureMessage: "Checkpoint expired before completing."},
			[]string{`"className":"failed"`, `"failure_timestamp":1700000003000`, `"failure_message":"Checkpoint expired before completing."`},
			[]string{`external_path`, `discarded`}},
		{"in progress", CheckpointStatistics{ID: 6, Status: StatusInProgress, LatestAckTimestamp: -1},
			[]string{`"className":"in_progress"`, `"latest_ack_timestamp":-1`},
			[]string{`external_path`, `discarded`, `failure_`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.stats)
			if err != nil {
				t.Fatal(err)
			}
			for _, field := range tc.has {
				if !strings.Contains(string(data), field) {
					t.Errorf("no %s in %s", field, data)
				}
			}
			for _, field := range tc.hasn {
				if strings.Contains(string(data), field) {
					t.Errorf("%s in %s: not a field of a checkpoint %s", field, data, tc.name)
				}
			}
			var back CheckpointStatistics
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			want := tc.stats
			if want.Tasks == nil {
				want.Tasks = map[string]TaskCheckpointStatistics{}
			}
			if diff := cmp.Diff(want, back); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
}

// A className that does not go with the status is refused, not guessed.
func TestCheckpointStatisticsWithTheWrongClassNameAreRefused(t *testing.T) {
	var s CheckpointStatistics
	err := json.Unmarshal([]byte(`{"className":"failed","id":3,"status":"COMPLETED"}`), &s)
	if err == nil || !strings.Contains(err.Error(), `className "failed", want "completed"`) {
		t.Errorf("got %v", err)
	}
}
