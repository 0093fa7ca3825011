package heartbeat_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/rpc"
)

func TestDefaultsAreFlinks(t *testing.T) {
	d := heartbeat.DefaultHeartbeatServices()
	assert.Equal(t, heartbeat.HeartbeatServices{Interval: 10 * time.Second, Timeout: 50 * time.Second, RPCFailureThreshold: 2}, d)
	assert.NoError(t, d.Validate())
	assert.Equal(t, d, heartbeat.HeartbeatServices{}.WithDefaults())
	kept := heartbeat.HeartbeatServices{Interval: time.Second, RPCFailureThreshold: -1}.WithDefaults()
	assert.Equal(t, heartbeat.HeartbeatServices{Interval: time.Second, Timeout: 50 * time.Second, RPCFailureThreshold: -1}, kept)
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		s       heartbeat.HeartbeatServices
		wantErr string
	}{
		{"defaults", heartbeat.DefaultHeartbeatServices(), ""},
		{"timeout equal to the interval", heartbeat.HeartbeatServices{Interval: time.Second, Timeout: time.Second, RPCFailureThreshold: 1}, ""},
		{"detection disabled", heartbeat.HeartbeatServices{Interval: time.Second, Timeout: time.Second, RPCFailureThreshold: -1}, ""},
		{"zero interval", heartbeat.HeartbeatServices{Timeout: time.Second, RPCFailureThreshold: 2},
			"The heartbeat interval must be larger than 0."},
		{"negative interval", heartbeat.HeartbeatServices{Interval: -time.Second, Timeout: time.Second, RPCFailureThreshold: 2},
			"The heartbeat interval must be larger than 0."},
		{"timeout below the interval", heartbeat.HeartbeatServices{Interval: 10 * time.Second, Timeout: 9 * time.Second, RPCFailureThreshold: 2},
			"The heartbeat timeout should be larger or equal than the heartbeat interval."},
		{"threshold 0", heartbeat.HeartbeatServices{Interval: time.Second, Timeout: time.Second},
			"The number of failed heartbeat RPC requests has to be larger than 0 or -1 (deactivated)."},
		{"threshold -2", heartbeat.HeartbeatServices{Interval: time.Second, Timeout: time.Second, RPCFailureThreshold: -2},
			"The number of failed heartbeat RPC requests has to be larger than 0 or -1 (deactivated)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestCreatingAManagerFromInvalidServicesPanics(t *testing.T) {
	e := rpc.NewEndpoint("owner")
	defer e.Close(nil)
	invalid := heartbeat.HeartbeatServices{Interval: 10 * time.Second, Timeout: time.Second, RPCFailureThreshold: 2}
	l := newListener[string, string](time.Now(), "payload")
	assert.PanicsWithError(t, "The heartbeat timeout should be larger or equal than the heartbeat interval.", func() {
		heartbeat.CreateHeartbeatManager[string, string](invalid, "owner", l, e, nil)
	})
	assert.PanicsWithError(t, "The heartbeat timeout should be larger or equal than the heartbeat interval.", func() {
		heartbeat.CreateHeartbeatManagerSender[string, string](invalid, "owner", l, e, nil)
	})
}

func TestNoOpHeartbeatManagerDoesNothing(t *testing.T) {
	var hm heartbeat.HeartbeatManager[string, string] = heartbeat.NoOpHeartbeatManager[string, string]{}
	target := heartbeat.HeartbeatSender[string](func(context.Context, api.ResourceID, string) error {
		t.Error("the no-op manager sent a heartbeat")
		return nil
	})
	hm.MonitorTarget(tmID, target)
	hm.RequestHeartbeat(tmID, "payload")
	hm.ReceiveHeartbeat(tmID, "payload")
	assert.True(t, hm.LastHeartbeatFrom(tmID).IsZero())
	hm.UnmonitorTarget(tmID)
	hm.Stop()
}

func TestSenderAndReceiverTargetsMakeOneRPCEach(t *testing.T) {
	var got []string
	send := func(_ context.Context, from api.ResourceID, payload string) error {
		got = append(got, string(from)+": "+payload)
		return nil
	}
	sender := heartbeat.HeartbeatSender[string](send)
	receiver := heartbeat.HeartbeatReceiver[string](send)

	require.NoError(t, sender.RequestHeartbeat(context.Background(), jmID, "slot report"))
	require.NoError(t, receiver.ReceiveHeartbeat(context.Background(), tmID, "tm report"))
	assert.True(t, errors.Is(sender.ReceiveHeartbeat(context.Background(), jmID, "x"), errors.ErrUnsupported))
	assert.True(t, errors.Is(receiver.RequestHeartbeat(context.Background(), tmID, "x"), errors.ErrUnsupported))
	assert.Equal(t, []string{"jm-1: slot report", "tm-1: tm report"}, got)
}
