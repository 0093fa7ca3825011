package heartbeat

import (
	"time"

	"flinklab/runtime/api"
)

// NoOpHeartbeatManager does nothing (Flink: NoOpHeartbeatManager): no
// timeouts, no requests, no answers, no payloads. A component configured
// without heartbeats uses it in place of a real manager, so its code need
// not ask whether heartbeats are on:
//
//	var tms heartbeat.HeartbeatManager[TMPayload, SlotReport] = heartbeat.NoOpHeartbeatManager[TMPayload, SlotReport]{}
type NoOpHeartbeatManager[I, O any] struct{}

// MonitorTarget does nothing.
func (NoOpHeartbeatManager[I, O]) MonitorTarget(api.ResourceID, HeartbeatTarget[O]) {}

// UnmonitorTarget does nothing.
func (NoOpHeartbeatManager[I, O]) UnmonitorTarget(api.ResourceID) {}

// ReceiveHeartbeat does nothing.
func (NoOpHeartbeatManager[I, O]) ReceiveHeartbeat(api.ResourceID, I) {}

// RequestHeartbeat does nothing: no answer is sent.
func (NoOpHeartbeatManager[I, O]) RequestHeartbeat(api.ResourceID, I) {}

// LastHeartbeatFrom returns the zero time.
func (NoOpHeartbeatManager[I, O]) LastHeartbeatFrom(api.ResourceID) time.Time { return time.Time{} }

// Stop does nothing.
func (NoOpHeartbeatManager[I, O]) Stop() {}
