package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// syncBuffer is a bytes.Buffer the status line may write while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// counted returns a count of packages to compile that comes when release
// is closed, and counts how often it was asked.
func counted(packages int, release <-chan struct{}, asked *int) func(context.Context) (int, error) {
	return func(ctx context.Context) (int, error) {
		*asked++
		select {
		case <-release:
			return packages, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func released() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func TestAQuickCheckSaysNothingAndAsksGoListNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		asked := 0
		s := newStatus(&out, true, "m03", counted(5, released(), &asked), 2)
		time.Sleep(statusDelay - time.Millisecond)
		s.stop()
		assert.Empty(t, out.String())
		assert.Zero(t, asked, "go list runs only for a check that takes a while")
	})
}

// Elsewhere than a terminal (a pipe, a file) the status is a log: a line
// within the first second, and the estimate on a line of its own when go
// list has counted a long build.
func TestASlowCheckSaysWhatItDoesAndHowLongItTakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		release := make(chan struct{})
		asked := 0
		s := newStatus(&out, false, "m03", counted(134, release, &asked), 2)
		time.Sleep(statusDelay)
		synctest.Wait()
		building := "m03: go test is building the tests…\n"
		assert.Equal(t, building, out.String(), "a line within the first second")
		close(release)
		synctest.Wait()
		estimate := "m03: go test compiles 134 packages before the tests run: roughly 20 s on 2 cores " +
			"(the build cache was empty; later checks reuse this build)…\n"
		assert.Equal(t, building+estimate, out.String())
		s.testsRunning()
		time.Sleep(time.Minute)
		s.stop()
		assert.Equal(t, building+estimate, out.String(), "and nothing more")
		assert.Equal(t, 1, asked)
	})
}

// A build of a few packages, after an edit, is not worth a second line.
func TestAShortBuildIsOneLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		asked := 0
		s := newStatus(&out, false, "m03", counted(6, released(), &asked), 2)
		time.Sleep(statusDelay + 2*time.Second)
		s.stop()
		assert.Equal(t, "m03: go test is building the tests…\n", out.String())
	})
}

// On a terminal the line is redrawn with a spinner and the time so far,
// says when the tests run, and is rubbed out at the end, so that the
// verdict starts on a clean line.
func TestOnATerminalTheLineShowsItIsAliveAndGoesAway(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		asked := 0
		s := newStatus(&out, true, "m03", counted(134, released(), &asked), 2)
		time.Sleep(statusDelay + 3*time.Second)
		synctest.Wait()
		s.testsRunning()
		synctest.Wait()
		s.stop()

		frames := strings.Split(out.String(), "\r\x1b[K")
		assert.Empty(t, frames[0])
		assert.Empty(t, frames[len(frames)-1], "the line is rubbed out")
		assert.Contains(t, frames, "⠙ m03: compiling 134 packages, roughly 20 s… 0s")
		assert.Contains(t, frames, "⠋ m03: compiling 134 packages, roughly 20 s… 3s")
		assert.Equal(t, "m03: running the tests… 3s", frames[len(frames)-2][len("⠋ "):])
		for _, f := range frames {
			assert.Less(t, len([]rune(f)), 60, "a line that wraps would not be rubbed out whole: %q", f)
		}
	})
}

func TestBuildTime(t *testing.T) {
	tests := []struct {
		packages, cpus int
		want           string
	}{
		{1, 2, "a few seconds"},
		{6, 2, "a few seconds"},
		{40, 2, "roughly 10 s"},
		{134, 2, "roughly 20 s"},
		{300, 2, "roughly 50 s"},
		{300, 1, "roughly 2 min"},
		{134, 8, "roughly 10 s"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, buildTime(tt.packages, tt.cpus), "%d packages on %d cores", tt.packages, tt.cpus)
	}
}

// A check whose output is collected (a test's buffer) gets no status line.
func TestStatusGoesOnlyToTheProcesssOwnOutput(t *testing.T) {
	_, _, ok := statusOut(&bytes.Buffer{})
	assert.False(t, ok)
}
