package heartbeat

import (
	"context"
	"errors"
	"time"

	"flinklab/runtime/api"
)

// HeartbeatTarget is the other side of a heartbeat, as seen by the manager
// that monitors it (Flink: HeartbeatTarget). P is the payload this side
// sends to it, so a HeartbeatManager[I, O] monitors HeartbeatTarget[O]s.
//
// Components implement it with the peer's gateway: the JobMaster's target
// for a TaskExecutor calls TaskExecutorGateway.heartbeatFromJobManager for
// RequestHeartbeat, and the TaskExecutor's target for its JobMaster calls
// JobMasterGateway.heartbeatFromTaskManager for ReceiveHeartbeat. Both
// methods are RPCs: they run off the owner's main thread, ctx ends after the
// heartbeat interval, and an error that wraps rpc.ErrRecipientUnreachable
// counts towards heartbeat.rpc-failure-threshold.
type HeartbeatTarget[P any] interface {
	// ReceiveHeartbeat delivers a heartbeat, the answer to a request, from
	// the manager identified by from.
	ReceiveHeartbeat(ctx context.Context, from api.ResourceID, payload P) error
	// RequestHeartbeat asks the target for a heartbeat: it answers with
	// ReceiveHeartbeat on its own target for from.
	RequestHeartbeat(ctx context.Context, from api.ResourceID, payload P) error
}

// HeartbeatListener is the owner's side of a HeartbeatManager (Flink:
// HeartbeatListener). I is the payload that comes in with heartbeats, O the
// one that goes out. Every method is called on the owner's main thread, so
// it may read and change the owner's fields.
type HeartbeatListener[I, O any] interface {
	// NotifyHeartbeatTimeout: no heartbeat came from id for the heartbeat
	// timeout. Called once per monitored target; the owner is expected to
	// disconnect it, which unmonitors it.
	NotifyHeartbeatTimeout(id api.ResourceID)
	// NotifyTargetUnreachable: heartbeat.rpc-failure-threshold heartbeat
	// RPCs to id failed in a row because it could not be reached. Called
	// once per monitored target, like NotifyHeartbeatTimeout, and never
	// both for the same target.
	NotifyTargetUnreachable(id api.ResourceID)
	// ReportPayload hands over the payload of a heartbeat (or heartbeat
	// request) from the monitored target id.
	ReportPayload(id api.ResourceID, payload I)
	// RetrievePayload returns the payload for the next heartbeat (or
	// heartbeat request) to id.
	RetrievePayload(id api.ResourceID) O
}

// MainThreadExecutor is the owner's mailbox: the part of rpc.Endpoint a
// HeartbeatManager uses (Flink hands it the endpoint's
// ComponentMainThreadExecutor). *rpc.Endpoint satisfies it.
type MainThreadExecutor interface {
	// RunAsync runs fn on the main thread; false means the owner has
	// stopped and fn will not run.
	RunAsync(fn func()) bool
	// ScheduleRunAsync runs fn on the main thread after delay, unless the
	// returned cancel is called first (on the main thread).
	ScheduleRunAsync(fn func(), delay time.Duration) (cancel func())
	// Context ends when the owner stops; heartbeat RPCs derive their ctx
	// from it, so none outlives the owner.
	Context() context.Context
}

// HeartbeatSender is the target of a sender-side manager (Flink:
// HeartbeatSender): the only RPC it makes is the request. The JobMaster
// monitors each TaskExecutor with one, and the ResourceManager each
// TaskExecutor and JobMaster:
//
//	heartbeat.HeartbeatSender[SlotReport](func(ctx context.Context, from api.ResourceID, r SlotReport) error {
//		return tm.HeartbeatFromJobManager(ctx, from, r)
//	})
//
// ReceiveHeartbeat is not supported: a sender never answers requests.
type HeartbeatSender[P any] func(ctx context.Context, from api.ResourceID, payload P) error

// RequestHeartbeat calls f.
func (f HeartbeatSender[P]) RequestHeartbeat(ctx context.Context, from api.ResourceID, payload P) error {
	return f(ctx, from, payload)
}

// ReceiveHeartbeat fails with errors.ErrUnsupported.
func (f HeartbeatSender[P]) ReceiveHeartbeat(context.Context, api.ResourceID, P) error {
	return errors.ErrUnsupported
}

// HeartbeatReceiver is the target of a receiver-side manager (Flink:
// HeartbeatReceiver): the only RPC it makes is the answer. The
// TaskExecutor monitors its JobMasters and its ResourceManager with one,
// and the JobMaster its ResourceManager.
//
// RequestHeartbeat is not supported: a receiver never asks.
type HeartbeatReceiver[P any] func(ctx context.Context, from api.ResourceID, payload P) error

// ReceiveHeartbeat calls f.
func (f HeartbeatReceiver[P]) ReceiveHeartbeat(ctx context.Context, from api.ResourceID, payload P) error {
	return f(ctx, from, payload)
}

// RequestHeartbeat fails with errors.ErrUnsupported.
func (f HeartbeatReceiver[P]) RequestHeartbeat(context.Context, api.ResourceID, P) error {
	return errors.ErrUnsupported
}
