package diagnose_test

import (
	"fmt"
	"strings"

	"flinklab/runtime/fault"
	"flinklab/tools/learn/diagnose"
)

// A learner found the right line of a drill of m10:jar-corrupted but named
// the step where the job gave up, and the TaskManager as the component.
func ExampleGrade() {
	files := make(map[string][]fault.LogRecord)
	for name, lines := range jarCorrupted() {
		records, err := diagnose.ParseLog(strings.NewReader(strings.Join(lines, "\n")))
		if err != nil {
			panic(err)
		}
		files[name] = records
	}
	logs := diagnose.NewLogs(files)
	key, _ := diagnose.NewKey("m10", fault.JarCorrupted)

	answer, _ := diagnose.ParseAnswer([]byte(`
step: m11
component: TaskManager
line: Detected data corruption during transfer (SHA-256)
`))
	fmt.Print(diagnose.Grade(key, logs, answer))

	answer.Line = "Starting the resource manager."
	fmt.Print(diagnose.Grade(key, logs, answer).Line.Message)
	// Output:
	// step:      not yet: At m11 the task goes INITIALIZING and RUNNING and opens its operators; a failure there is the job's own code throwing while its task starts. This drill's logs do not show that as the first thing that went wrong. The step to name is where the first failure happened, not where the job finally gave up: a restart or a FAILED job is a consequence.
	// component: not yet: "TaskManager" is not the component to open. The lines that prove the failure are in the TaskManager's log (flink-flinklab-taskexecutor-0-localhost.log); open the component that writes the proving line, or that the line is about.
	// line:      right
	// That line is in the logs (flink-flinklab-standalonesession-0-localhost.log:3), but it does not prove the failure. Look for a line of the TaskManager's log (flink-flinklab-taskexecutor-0-localhost.log): the line that shows the first thing that went wrong. A consequence (a restart, a FAILED job, a cancelled task) is not the proof.
}
