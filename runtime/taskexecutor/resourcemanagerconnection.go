package taskexecutor

import (
	"context"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
)

// resourceManagerAddress is the ResourceManager leader as leader retrieval
// announced it (Flink's ResourceManagerAddress).
type resourceManagerAddress struct {
	address string
	rmID    api.ResourceManagerID
}

func (a resourceManagerAddress) String() string { return fmt.Sprintf("%s(%s)", a.address, a.rmID) }

// resourceManagerConnection is the TaskExecutor's link to one
// ResourceManager leader: first a registration in progress, then, once it
// succeeded, an established connection (Flink's
// TaskExecutorToResourceManagerConnection and
// EstablishedResourceManagerConnection in one).
type resourceManagerConnection struct {
	resourceManagerAddress
	registration *registration.RetryingRegistration[gateway.ResourceManagerGateway, gateway.TaskExecutorRegistrationSuccess]

	// Set when the registration succeeded.
	established               bool
	gateway                   gateway.ResourceManagerGateway
	registrationID            api.InstanceID
	resourceManagerResourceID api.ResourceID
}

// notifyOfNewResourceManagerLeader handles leader retrieval's news: a new
// ResourceManager leader, or none (an empty address). Either way the old
// connection goes and, if there is a leader, a new one starts.
func (te *TaskExecutor) notifyOfNewResourceManagerLeader(address string, rmID api.ResourceManagerID) {
	if te.stopping {
		return
	}
	// Step h5: the TaskManager reconnects: it leaves the old
	// ResourceManager and registers at the new leader, whose session it
	// carries as the ResourceManagerID; its slots are offered again to the
	// jobs' new JobMasters, which the JobLeaderService finds the same way.
	if address == "" {
		te.resourceManagerAddress = nil
	} else {
		te.resourceManagerAddress = &resourceManagerAddress{address: address, rmID: rmID}
	}
	te.reconnectToResourceManager(fmt.Errorf("ResourceManager leader changed to new address %s(%s)", address, rmID))
}

// reconnectToResourceManager closes the connection to the ResourceManager
// and registers at the leader we know, if any: on a leader change, when the
// ResourceManager's heartbeat timed out, and when the first slot report
// failed.
//
// The new registration starts only once the ResourceManager has answered
// the DisconnectTaskManager of the old connection (or did not answer within
// the RPC timeout). Both go out on goroutines of their own, and a
// disconnect that overtook the new registration would make the
// ResourceManager forget the new one instead of the old one.
func (te *TaskExecutor) reconnectToResourceManager(cause error) {
	te.closeResourceManagerConnection(cause, func() {
		if te.resourceManagerConnection == nil && !te.stopping { // nobody has connected meanwhile
			te.tryConnectToResourceManager()
		}
	})
}

func (te *TaskExecutor) tryConnectToResourceManager() {
	if te.resourceManagerAddress != nil {
		te.connectToResourceManager()
	}
}

// connectToResourceManager starts registering at the known leader: resolve
// its address, then RegisterTaskExecutor with retries.
func (te *TaskExecutor) connectToResourceManager() {
	leader := *te.resourceManagerAddress
	te.logger.Info(fmt.Sprintf("Connecting to ResourceManager %s.", leader))

	taskExecutorRegistration := gateway.TaskExecutorRegistration{
		ResourceID:                 te.cfg.ResourceID,
		TaskExecutorAddress:        te.address,
		NumberOfSlots:              te.cfg.NumberOfSlots,
		DefaultSlotResourceProfile: te.cfg.DefaultSlotProfile,
		TotalResourceProfile:       te.cfg.TotalResourceProfile,
		MemoryConfiguration:        te.cfg.MemoryConfiguration,
		HardwareDescription:        te.cfg.Hardware,
	}
	conn := &resourceManagerConnection{resourceManagerAddress: leader}
	conn.registration = &registration.RetryingRegistration[gateway.ResourceManagerGateway, gateway.TaskExecutorRegistrationSuccess]{
		Owner:          te.Endpoint,
		Logger:         te.logger,
		TargetName:     "ResourceManager",
		TargetAddress:  leader.address,
		Config:         te.cfg.Registration,
		ResolveTimeout: te.cfg.RPCTimeout,
		Resolve: func(ctx context.Context) (gateway.ResourceManagerGateway, error) {
			return rpc.Connect[gateway.ResourceManagerGateway](ctx, te.deps.RPC, leader.address)
		},
		Invoke: func(ctx context.Context, rm gateway.ResourceManagerGateway) (gateway.TaskExecutorRegistrationSuccess, error) {
			return rm.RegisterTaskExecutor(ctx, leader.rmID, taskExecutorRegistration)
		},
		OnSuccess: func(rm gateway.ResourceManagerGateway, success gateway.TaskExecutorRegistrationSuccess) {
			te.onResourceManagerRegistrationSuccess(conn, rm, success)
		},
		OnRejection: func(err error) {
			// Flink treats this as a fatal error of the TaskExecutor.
			te.logger.Error(fmt.Sprintf("The TaskExecutor's registration at the ResourceManager %s has been rejected: %v",
				leader.address, err))
		},
	}
	te.resourceManagerConnection = conn
	conn.registration.Start()
}

func (te *TaskExecutor) onResourceManagerRegistrationSuccess(conn *resourceManagerConnection,
	rm gateway.ResourceManagerGateway, success gateway.TaskExecutorRegistrationSuccess) {
	if te.resourceManagerConnection != conn {
		return // a registration at a former leader
	}
	te.logger.Info(fmt.Sprintf("Successful registration at resource manager %s under registration id %s.",
		conn.address, success.RegistrationID))
	te.establishResourceManagerConnection(conn, rm, success)
}

// establishResourceManagerConnection makes the connection usable, starts
// watching the ResourceManager's heartbeat, and sends the initial slot
// report, from which the SlotManager learns our slots.
func (te *TaskExecutor) establishResourceManagerConnection(conn *resourceManagerConnection,
	rm gateway.ResourceManagerGateway, success gateway.TaskExecutorRegistrationSuccess) {
	conn.established = true
	conn.gateway = rm
	conn.registrationID = success.RegistrationID
	conn.resourceManagerResourceID = success.ResourceManagerResourceID
	te.resourceManagerHeartbeatManager.MonitorTarget(conn.resourceManagerResourceID,
		heartbeat.HeartbeatReceiver[gateway.TaskExecutorHeartbeatPayload](rm.HeartbeatFromTaskManager))

	// The jars of the jobs come from the BlobServer of the
	// ResourceManager's JobManager ("set the propagated blob server
	// address"): after a failover, the new leader's.
	if address := success.ClusterInformation.BlobServerAddress(); address != "" && te.deps.BlobCache != nil && !te.cfg.FixedBlobServer {
		te.deps.BlobCache.SetBlobServerAddress(address)
	}

	report := te.taskSlotTable.CreateSlotReport(te.cfg.ResourceID)
	te.askAck(func(ctx context.Context) error {
		return rm.SendSlotReport(ctx, conn.rmID, te.cfg.ResourceID, success.RegistrationID, report)
	}, func(err error) {
		if err != nil && te.resourceManagerConnection == conn {
			te.reconnectToResourceManager(fmt.Errorf("Failed to send initial slot report to ResourceManager. Caused by: %w", err))
		}
	})
}

// closeResourceManagerConnection ends the connection (or the registration
// still in progress) to the current ResourceManager, and then runs then on
// the main thread: at once, or, for an established connection, once the
// ResourceManager has answered our DisconnectTaskManager.
func (te *TaskExecutor) closeResourceManagerConnection(cause error, then func()) {
	conn := te.resourceManagerConnection
	if conn == nil {
		then()
		return
	}
	te.resourceManagerConnection = nil
	conn.registration.Cancel()
	if !conn.established {
		te.logger.Info(fmt.Sprintf("Terminating registration attempts towards ResourceManager %s.", conn.address))
		then()
		return
	}
	te.logger.Info(fmt.Sprintf("Close ResourceManager connection %s.", conn.resourceManagerResourceID), "cause", cause.Error())
	te.resourceManagerHeartbeatManager.UnmonitorTarget(conn.resourceManagerResourceID)
	te.askAck(func(ctx context.Context) error {
		return conn.gateway.DisconnectTaskManager(ctx, conn.rmID, te.cfg.ResourceID, cause)
	}, func(error) { then() })
}

// isConnectedToResourceManager reports whether rmID is the leader we are
// registered at.
func (te *TaskExecutor) isConnectedToResourceManager(rmID api.ResourceManagerID) bool {
	conn := te.resourceManagerConnection
	return conn != nil && conn.established && conn.rmID == rmID
}

// notifySlotAvailable tells the ResourceManager that a slot is free again,
// so the SlotManager may give it to another job.
func (te *TaskExecutor) notifySlotAvailable(index int, allocationID api.AllocationID) {
	conn := te.resourceManagerConnection
	if conn == nil || !conn.established {
		return
	}
	slotID := api.SlotID{ResourceID: te.cfg.ResourceID, SlotNumber: index}
	te.askAck(func(ctx context.Context) error {
		return conn.gateway.NotifySlotAvailable(ctx, conn.rmID, conn.registrationID, slotID, allocationID)
	}, func(err error) {
		if err != nil {
			te.logger.Debug(fmt.Sprintf("Could not notify the ResourceManager that slot %s is available.", slotID), "cause", err.Error())
		}
	})
}
