package tasks

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
)

const openPanicProgram = "tasks-test.open-panic"

func init() { streaming.RegisterProgram(openPanicProgram, openPanicMain) }

// The open-panic job: a text source chained to a sink. The sink opens
// first (tail first), then the source, whose open reads the jar.
func openPanicMain(env *streaming.StreamExecutionEnvironment, _ []string) error {
	env.ReadTextFile("story.txt").AddSink(func(string) error { return nil })
	return env.Execute("open panic")
}

// panickingJar is a job jar whose resources cannot be read without a
// panic, standing in for user code that panics in open.
type panickingJar struct{ programClass string }

func (j panickingJar) ProgramClass() string { return j.programClass }

func (j panickingJar) Resource(name string) ([]byte, error) {
	panic(fmt.Sprintf("reading %s", name))
}

// An operator whose open panics during Restore: the panic goes on to the
// Task, and the operators opened before it (the sink behind the source)
// are closed first, as after a panic in Invoke.
func TestAPanicInOpenClosesTheOperatorsOpenedBeforeIt(t *testing.T) {
	previous := openUserJar
	openUserJar = func(string) (userJar, error) { return panickingJar{openPanicProgram}, nil }
	t.Cleanup(func() { openUserJar = previous })

	jg := planJobGraph(t, openPanicProgram, nil, 1)
	require.Equal(t, 1, jg.NumberOfVertices(), "source and sink form one chain")
	job := deployLocally(t, jg, "job.jar", network.Config{})
	task := job.tasks[0].invokable.(*SourceStreamTask)

	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_ = task.Restore(context.Background())
	}()

	assert.Equal(t, "reading story.txt", recovered, "the panic goes on to the Task")
	require.NotNil(t, task.chain)
	assert.Equal(t, 1, task.chain.opened, "the sink opened before the source panicked")
	assert.True(t, task.chain.closed, "the opened sink is closed again")
}

// Only the flusher's cancel of the wait context is idle: any other error
// of a wait for input is the input's and fails the task, even when the
// flusher has cancelled the wait by then.
func TestOnlyTheFlushersCancelEndsAWaitForInputAsIdle(t *testing.T) {
	alive := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	producerFailed := fmt.Errorf("input channel 0: %w", network.ErrProducerFailed)

	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"the flusher cancelled the wait", alive, context.Canceled, true},
		{"the producer failed", alive, producerFailed, false},
		{"the gate was closed", alive, network.ErrInputGateClosed, false},
		{"a wrapped cancel of a request for partitions", alive, fmt.Errorf("partition was not registered: %w", context.Canceled), true},
		{"the task was cancelled", cancelled, context.Canceled, false},
		{"another error", alive, errors.New("disk full"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := flusherEndedWait(tt.ctx, tt.err)
			assert.Equal(t, tt.want, got)
		})
	}
}
