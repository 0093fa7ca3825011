package logging

import (
	"bytes"
	"errors"
	"log/slog"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHandlerPrintsFlinkStyleLines(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(NewHandler(&buf, slog.LevelInfo))
	dispatcher := logger.With("logger", "StandaloneDispatcher")

	dispatcher.Info("Received JobGraph submission 'numbers' (abc).")
	dispatcher.Debug("not printed below INFO")
	dispatcher.Warn("Failed to submit job abc.", "cause", errors.New("disk full").Error())
	logger.Info("no component", "k", 1)

	lines := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} `).ReplaceAllString(buf.String(), "")
	assert.Equal(t, "INFO  StandaloneDispatcher [] - Received JobGraph submission 'numbers' (abc).\n"+
		"WARN  StandaloneDispatcher [] - Failed to submit job abc.\ndisk full\n"+
		"INFO  flinklab [] - no component k=1\n", lines)
}
