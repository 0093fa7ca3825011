package streaming

import (
	"strings"
	"testing"
)

// SinkToTransactionalFiles adds a sink node that names its directory; a
// sink without a directory is a program error, reported by Execute.
func TestSinkToTransactionalFiles(t *testing.T) {
	env := NewStreamExecutionEnvironment()
	FromElements(env, "a", "b").SinkToTransactionalFiles("/data/out").Name("files")
	sg, err := env.GetStreamGraph("files")
	if err != nil {
		t.Fatal(err)
	}
	sink := sg.StreamNode(2)
	if got := sink.String(); got != "Sink: files-2" {
		t.Errorf("node = %s, want Sink: files-2", got)
	}
	if op := sink.Operator; op.Kind != TransactionalFileSink || op.Path != "/data/out" || !op.Kind.IsSink() || op.Kind.IsSource() {
		t.Errorf("operator = %v into %q, want a sink %v into /data/out", op.Kind, op.Path, TransactionalFileSink)
	}
	if got := TransactionalFileSink.String(); got != "TwoPhaseCommitSinkFunction" {
		t.Errorf("kind = %s, want Flink's TwoPhaseCommitSinkFunction", got)
	}

	env = NewStreamExecutionEnvironment()
	FromElements(env, 1).SinkToTransactionalFiles("")
	err = env.Execute("no directory")
	if err == nil || !strings.Contains(err.Error(), "File sink (id 2): the directory of the part files must not be empty") {
		t.Errorf("Execute = %v, want the missing directory", err)
	}
}
