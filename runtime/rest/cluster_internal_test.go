package rest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The web UI may offer to rescale jobs as Flink's RestHandlerConfiguration
// allows it: on the AdaptiveScheduler, not in reactive mode, unless
// web.rescale.enable is false (Flink's RestHandlerConfigurationTest).
func TestWebRescaleEnabled(t *testing.T) {
	tests := []struct {
		conf map[string]string
		want bool
	}{
		{conf: nil, want: false},
		{conf: map[string]string{"jobmanager.scheduler": "default"}, want: false},
		{conf: map[string]string{"jobmanager.scheduler": "adaptive"}, want: true},
		{conf: map[string]string{"jobmanager.scheduler": "Adaptive", "web.rescale.enable": "true"}, want: true},
		{conf: map[string]string{"jobmanager.scheduler": "adaptive", "web.rescale.enable": "false"}, want: false},
		{conf: map[string]string{"jobmanager.scheduler": "adaptive", "scheduler-mode": "reactive"}, want: false},
		{conf: map[string]string{"jobmanager.scheduler": "default", "scheduler-mode": "REACTIVE"}, want: false},
		{conf: map[string]string{"web.rescale.enable": "true"}, want: false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, webRescaleEnabled(tt.conf), "%v", tt.conf)
	}
}
