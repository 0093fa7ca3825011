// Package gatewaytest provides fakes of the runtime gateways for tests:
// TaskExecutorGateway, JobMasterGateway (which also fakes
// JobMasterHeartbeatGateway), ResourceManagerGateway and
// DispatcherGateway.
// It mirrors Flink's TestingTaskExecutorGateway, TestingJobMasterGateway,
// TestingResourceManagerGateway and TestingDispatcherGateway.
//
// Each fake has one exported function field per gateway method, named for
// the method with a Func suffix (RequestSlot → RequestSlotFunc). A method
// calls its field when it is set; when it is nil, the method succeeds with
// a safe default, documented on the method: usually nil or a zero value.
// So a test sets only the fields it cares about:
//
//	var freed []api.AllocationID
//	te := &gatewaytest.TaskExecutorGateway{
//		FreeSlotFunc: func(_ context.Context, id api.AllocationID, _ error) error {
//			freed = append(freed, id) // guard with a mutex if calls may overlap
//			return nil
//		},
//	}
//
// The fakes record nothing: what a test wants to see of the calls, it
// collects in its own function fields.
//
// # Heartbeats
//
// A fake does not answer heartbeat requests unless its Func does: a
// JobMaster or ResourceManager that monitors a fake TaskExecutor (or a
// ResourceManager that monitors a fake JobMaster) times it out after
// heartbeat.timeout, 50 s by default. A test that lets more fake time
// pass, and wants the fake kept, answers in the Func:
//
//	te.HeartbeatFromJobManagerFunc = func(ctx context.Context, from api.ResourceID, _ gateway.AllocatedSlotReport) error {
//		return jm.HeartbeatFromTaskManager(ctx, "tm-1", gateway.TaskExecutorToJobManagerHeartbeatPayload{})
//	}
//
// # Concurrency
//
// A fake keeps no state of its own, so its methods may be called from any
// goroutine at once. Set the fields before the fake is first used and do
// not change them afterwards; the function fields must themselves be safe
// for the calls they will see.
package gatewaytest
