package gateway

import (
	"context"

	"flinklab/runtime/api"
)

// JobMasterHeartbeatGateway holds the JobMaster's heartbeat RPCs (Flink:
// JobMasterGateway#heartbeatFromTaskManager and #heartbeatFromResourceManager).
// The JobMaster implements it next to JobMasterGateway; a TaskExecutor
// and the ResourceManager connect to a JobMaster as both.
//
// Differs from Flink: an interface of its own rather than two more methods
// of JobMasterGateway, which the JobManagerRunner also uses to hold its
// JobMaster (jobmanager.JobMasterService) and which has no use for
// heartbeats there. Flink's JobMasterGateway is itself a composition of
// several gateways.
type JobMasterHeartbeatGateway interface {
	// HeartbeatFromTaskManager is a TaskExecutor's answer to the
	// JobMaster's heartbeat request; it restarts that TaskExecutor's
	// heartbeat timeout at the JobMaster.
	HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID, payload TaskExecutorToJobManagerHeartbeatPayload) error
	// HeartbeatFromResourceManager is the ResourceManager's heartbeat
	// request; the JobMaster answers with ResourceManagerGateway.HeartbeatFromJobManager.
	HeartbeatFromResourceManager(ctx context.Context, resourceID api.ResourceID) error
}

// The heartbeat payloads. A heartbeat is also how two connected components
// compare their views of shared state, so in Flink three of the six
// heartbeat messages carry one. Here all three are empty: each side learns
// of the other's changes from the regular messages only (FreeSlot,
// NotifySlotAvailable, UpdateTaskExecutionState, ...).
//
// Why not send them anyway? A report is only correct if it arrives in the
// order it was taken, relative to the other messages between the same two
// components. Flink gets that order from Pekko, which delivers the messages
// of one actor to another in the order they were sent. Here every heartbeat
// RPC runs on a goroutine of its own (package heartbeat), so a slot report
// taken before a slot was freed could arrive after the NotifySlotAvailable
// that followed it, and make the freed slot look allocated again until the
// next heartbeat; or one taken before a RequestSlot could free a slot that
// was just allocated. So the types are kept, with Flink's names and in
// Flink's method signatures, and nothing in them.
type (
	// AllocatedSlotReport is what the JobMaster sends a TaskExecutor with
	// each heartbeat request. In Flink it lists the slots the job holds
	// there, and the TaskExecutor frees the slots of the job that the
	// JobMaster no longer knows (syncSlotsWithSnapshotFromJobMaster).
	// Empty here.
	AllocatedSlotReport struct{}
	// TaskExecutorToJobManagerHeartbeatPayload is a TaskExecutor's answer
	// to its JobMaster. In Flink it carries the accumulators and the
	// executions deployed there, which the JobMaster reconciles with its
	// ExecutionGraph. Empty here.
	TaskExecutorToJobManagerHeartbeatPayload struct{}
	// TaskExecutorHeartbeatPayload is a TaskExecutor's answer to the
	// ResourceManager. In Flink it carries the TaskExecutor's SlotReport,
	// which corrects the SlotManager's view of free and allocated slots,
	// and its ClusterPartitionReport. Empty here; the SlotManager learns
	// the slots from SendSlotReport and NotifySlotAvailable.
	TaskExecutorHeartbeatPayload struct{}
)

// TimeoutException is the cause a component gives when it closes the
// connection to a peer whose heartbeat timed out (Flink: a
// java.util.concurrent.TimeoutException with the heartbeat listener's
// message, such as "Heartbeat of TaskManager with id tm-1 timed out.").
// Use errors.As to tell it from other causes; that works across processes
// too, as the type is registered for the wire (errors.go).
//
// Error returns the message alone, as Flink's log lines print a cause:
// "Disconnect TaskExecutor tm-1 because: Heartbeat of TaskManager with id
// tm-1 timed out."
type TimeoutException struct {
	Message string
}

func (e *TimeoutException) Error() string { return e.Message }
