package taskexecutor

import (
	"context"
	"errors"
	"fmt"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/heartbeat"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
)

// jobTableEntry is one job the TaskExecutor holds slots or blocking
// partitions for (Flink's JobTable.Job). It exists from the job's first
// slot request until its last slot is freed and none of its blocking
// partitions is kept here any more.
type jobTableEntry struct {
	id               api.JobID
	jobMasterAddress string // as the ResourceManager named it; leader retrieval has the final word
	// connection is set while we are registered at the job's leader
	// (Flink's JobTable.Connection).
	connection *jobManagerConnection
}

// jobManagerConnection is an established connection to a job's JobMaster.
// The connection itself (its pointer) is the rpc.AskInOrder lane on which
// the task states sent to that JobMaster travel.
type jobManagerConnection struct {
	jobID       api.JobID
	jobMasterID api.JobMasterID
	gateway     jobMasterGateway
	address     string
	resourceID  api.ResourceID // the JobMaster's, from its registration answer; its heartbeat target ID
}

// jobMasterGateway is a JobMaster as the TaskExecutor sees it: its gateway
// and its heartbeat RPCs.
type jobMasterGateway interface {
	gateway.JobMasterGateway
	gateway.JobMasterHeartbeatGateway
}

// The jobLeaderListener side of the TaskExecutor.

func (te *TaskExecutor) jobManagerGainedLeadership(jobID api.JobID, jobMaster jobMasterGateway,
	jobMasterID api.JobMasterID, address string, success gateway.JMTMRegistrationSuccess) {
	job := te.jobTable[jobID]
	if job == nil {
		return
	}
	te.establishJobManagerConnection(job, &jobManagerConnection{
		jobID: jobID, jobMasterID: jobMasterID, gateway: jobMaster, address: address,
		resourceID: success.JobManagerResourceID,
	})
}

func (te *TaskExecutor) jobManagerLostLeadership(jobID api.JobID, jobMasterID api.JobMasterID) {
	te.logger.Info(fmt.Sprintf("JobManager for job %s with leader id %s lost leadership.", jobID, jobMasterID))
	if job := te.jobTable[jobID]; job != nil && job.connection != nil {
		te.disconnectJobManagerConnection(job, fmt.Errorf("Job leader for job id %s lost leadership.", jobID))
	}
}

func (te *TaskExecutor) jobManagerRejectedRegistration(jobID api.JobID, address string, err error) {
	te.logger.Info(fmt.Sprintf("The JobManager under %s rejected the registration for job %s: %v. Releasing all job related resources.",
		address, jobID, err))
	te.releaseJobResources(jobID, fmt.Errorf("JobManager %s has rejected the registration.", jobID))
}

// establishJobManagerConnection makes a registered JobMaster the job's
// connection, starts watching its heartbeat, and offers it the job's
// reserved slots.
func (te *TaskExecutor) establishJobManagerConnection(job *jobTableEntry, conn *jobManagerConnection) {
	if old := job.connection; old != nil {
		if old.jobMasterID == conn.jobMasterID {
			te.logger.Debug(fmt.Sprintf("Ignore JobManager gained leadership message for %s because we are already connected to it.", conn.jobMasterID))
			return
		}
		te.disconnectJobManagerConnection(job, fmt.Errorf("Found new job leader for job id %s.", job.id))
	}
	te.logger.Info(fmt.Sprintf("Establish JobManager connection for job %s.", job.id))
	job.connection = conn
	// From now on the JobMaster asks for our heartbeat every
	// heartbeat.interval; if it stops asking, it is gone.
	te.jobManagerHeartbeatManager.MonitorTarget(conn.resourceID,
		heartbeat.HeartbeatReceiver[gateway.TaskExecutorToJobManagerHeartbeatPayload](conn.gateway.HeartbeatFromTaskManager))
	te.internalOfferSlotsToJobManager(job)
}

// disconnectJobManagerConnection ends the job's connection (see
// closeJobManagerConnection) and tells the JobMaster.
func (te *TaskExecutor) disconnectJobManagerConnection(job *jobTableEntry, cause error) {
	conn := te.closeJobManagerConnection(job, cause)
	to := jobLeader{job.id, conn.jobMasterID}
	te.jobLeaderService.disconnectSent(to)
	te.askAck(func(ctx context.Context) error {
		return conn.gateway.DisconnectTaskManager(ctx, conn.jobMasterID, te.cfg.ResourceID, cause)
	}, func(error) { te.jobLeaderService.disconnectAnswered(to) })
}

// closeJobManagerConnection ends the job's connection on this side and
// returns it: the JobMaster's heartbeat is no longer watched, the job's
// tasks fail, its blocking partitions are released (nobody will tell us
// when they are no longer needed), and its active slots become merely
// allocated (they may be offered to a new leader). Telling the JobMaster
// is the caller's business.
func (te *TaskExecutor) closeJobManagerConnection(job *jobTableEntry, cause error) *jobManagerConnection {
	conn := job.connection
	job.connection = nil
	te.logger.Info(fmt.Sprintf("Close JobManager connection for job %s.", job.id))
	te.jobManagerHeartbeatManager.UnmonitorTarget(conn.resourceID)

	failure := newException(nil, cause, "Disconnect from JobManager responsible for %s.", job.id)
	for _, task := range te.taskSlotTable.JobTasks(job.id) {
		task.FailExternally(failure)
	}
	te.partitionTracker.stopTrackingAndReleaseJobPartitionsFor(job.id)
	for _, allocationID := range te.taskSlotTable.ActiveSlots(job.id) {
		if inactive, err := te.taskSlotTable.MarkSlotInactive(allocationID); err == nil && !inactive {
			te.freeSlotInternal(allocationID, errors.New("Slot could not be marked inactive."))
		} else if err == nil {
			te.startSlotTimeout(allocationID) // offered to the next leader, or freed in time
		}
	}
	return conn
}

// disconnectJobManager closes the job's connection, tells the JobMaster,
// and frees the job's slots: what the TaskExecutor does when the JobMaster
// says it is gone (DisconnectJobManager) and when its heartbeat times out.
func (te *TaskExecutor) disconnectJobManager(job *jobTableEntry, cause error) {
	te.disconnectJobManagerConnection(job, cause)
	te.releaseJobResources(job.id, cause)
}

func (te *TaskExecutor) isJobManagerConnectionValid(jobID api.JobID, jobMasterID api.JobMasterID) bool {
	job := te.jobTable[jobID]
	return job != nil && job.connection != nil && job.connection.jobMasterID == jobMasterID
}

// internalOfferSlotsToJobManager offers the job's reserved (ALLOCATED, not
// yet ACTIVE) slots to its JobMaster.
func (te *TaskExecutor) internalOfferSlotsToJobManager(job *jobTableEntry) {
	reserved := te.taskSlotTable.AllocatedSlots(job.id)
	if len(reserved) == 0 {
		te.logger.Debug(fmt.Sprintf("There are no unassigned slots for the job %s.", job.id))
		return
	}
	conn := job.connection

	// Step m8: offer the slots to the JobMaster, whose SlotPool matches them
	// to its requirements (it records the step when the offer arrives).
	te.logger.Info(fmt.Sprintf("Offer reserved slots to the leader of job %s.", job.id))
	offers := make([]gateway.SlotOffer, len(reserved))
	for i, slot := range reserved {
		offers[i] = gateway.SlotOffer{AllocationID: slot.AllocationID, SlotIndex: slot.Index, ResourceProfile: slot.ResourceProfile}
		// An offered slot is spoken for: the JobMaster's answer decides
		// (accepted: ACTIVE; rejected: freed; no answer: offered again).
		te.stopSlotTimeout(slot.AllocationID)
	}
	te.slotOffers++
	offerID := te.slotOffers
	te.currentSlotOfferPerJob[job.id] = offerID

	rpc.Ask(te.Endpoint, te.cfg.RPCTimeout, func(ctx context.Context) ([]gateway.SlotOffer, error) {
		return conn.gateway.OfferSlots(ctx, conn.jobMasterID, te.cfg.ResourceID, offers)
	}, func(accepted []gateway.SlotOffer, err error) {
		te.handleAcceptedSlotOffers(conn, offers, offerID, accepted, err)
	})
}

// handleAcceptedSlotOffers acts on the JobMaster's answer: accepted slots
// become ACTIVE, rejected ones are freed and go back to the ResourceManager.
func (te *TaskExecutor) handleAcceptedSlotOffers(conn *jobManagerConnection, offered []gateway.SlotOffer,
	offerID uint64, accepted []gateway.SlotOffer, err error) {
	jobID := conn.jobID
	// Whatever the answer, an offered slot that is still merely allocated
	// afterwards (not accepted, not offered again) must not stay so for
	// ever: its timeout runs again.
	defer te.restartSlotTimeouts(jobID, offered)
	if te.currentSlotOfferPerJob[jobID] != offerID {
		te.logger.Debug(fmt.Sprintf("Discard slot offer response since there is a newer offer for the job %s.", jobID))
		return
	}
	if err != nil {
		if registration.Classify(err) == registration.TimedOut {
			te.logger.Info("Slot offering to JobManager did not finish in time. Retrying the slot offering.")
			if job := te.jobTable[jobID]; job != nil && job.connection != nil {
				te.internalOfferSlotsToJobManager(job)
			}
			return
		}
		te.logger.Warn("Slot offering to JobManager failed. Freeing the slots and returning them to the ResourceManager.",
			"cause", err.Error())
		for _, offer := range offered {
			te.freeSlotInternal(offer.AllocationID, err)
		}
		return
	}
	if !te.isJobManagerConnectionValid(jobID, conn.jobMasterID) {
		te.logger.Debug(fmt.Sprintf("Discard offer slot response since there is a new leader for the job %s.", jobID))
		return
	}

	isAccepted := make(map[api.AllocationID]bool, len(accepted))
	for _, offer := range accepted {
		isAccepted[offer.AllocationID] = true
		if active, err := te.taskSlotTable.MarkSlotActive(offer.AllocationID); err != nil || !active {
			// The slot is being freed meanwhile. Flink also tells the
			// JobMaster (failSlot), which our gateway does not have.
			te.logger.Debug(fmt.Sprintf("Could not mark slot %s active.", offer.AllocationID))
			continue
		}
		// An active slot is in use: its timeout must not free it, even one
		// an older, discarded offer's answer has started meanwhile (Flink's
		// TaskSlotTableImpl#markSlotActive unregisters the timeout too).
		te.stopSlotTimeout(offer.AllocationID)
	}
	rejected := errors.New("The slot was rejected by the JobManager.")
	for _, offer := range offered {
		if !isAccepted[offer.AllocationID] {
			te.freeSlotInternal(offer.AllocationID, rejected)
		}
	}
}

// freeSlotInternal frees a slot: its tasks fail with cause; once the slot
// is empty it is free, and the ResourceManager is told. A slot whose tasks
// are still stopping stays RELEASING and is freed when the last one is
// unregistered.
func (te *TaskExecutor) freeSlotInternal(allocationID api.AllocationID, cause error) {
	if te.stopping {
		return
	}
	te.logger.Debug(fmt.Sprintf("Free slot with allocation id %s because: %v", allocationID, cause))
	jobID, ok := te.taskSlotTable.OwningJob(allocationID)
	if !ok {
		te.logger.Debug(fmt.Sprintf("Could not free slot for allocation id %s.", allocationID))
		return
	}
	for _, task := range te.taskSlotTable.Tasks(allocationID) {
		task.FailExternally(cause)
	}
	index, err := te.taskSlotTable.FreeSlot(allocationID)
	if err != nil {
		return // RELEASING until its tasks have stopped
	}
	te.notifySlotAvailable(index, allocationID)
	te.closeJobManagerConnectionIfNoAllocatedResources(jobID)
}

// closeJobManagerConnectionIfNoAllocatedResources closes a job that has no
// slots left here, and no blocking partitions either: those may still be
// read, and the JobMaster must still be able to release them.
func (te *TaskExecutor) closeJobManagerConnectionIfNoAllocatedResources(jobID api.JobID) {
	if len(te.taskSlotTable.AllocationIDsPerJob(jobID)) > 0 || te.partitionTracker.isTrackingPartitionsFor(jobID) {
		return
	}
	if job := te.jobTable[jobID]; job != nil {
		te.closeJob(job, fmt.Errorf("TaskExecutor %s has no more allocated slots for job %s.", te.address, jobID))
	}
}

// releaseJobResources releases the job's blocking partitions, frees every
// slot of the job and stops talking to its JobManager. The job itself is
// closed when its last slot is free.
func (te *TaskExecutor) releaseJobResources(jobID api.JobID, cause error) {
	te.logger.Debug(fmt.Sprintf("Releasing job resources for job %s.", jobID), "cause", cause.Error())
	if te.partitionTracker.isTrackingPartitionsFor(jobID) {
		te.partitionTracker.stopTrackingAndReleaseJobPartitionsFor(jobID)
	}
	for _, allocationID := range te.taskSlotTable.AllocationIDsPerJob(jobID) {
		te.freeSlotInternal(allocationID, cause)
	}
	if job := te.jobTable[jobID]; job != nil {
		if job.connection != nil {
			te.disconnectJobManagerConnection(job, cause)
		}
		te.jobLeaderService.removeJob(jobID)
	}
}

// closeJob forgets a job: no connection, no leader watching, no cached jars.
func (te *TaskExecutor) closeJob(job *jobTableEntry, cause error) {
	if job.connection != nil {
		te.disconnectJobManagerConnection(job, cause)
	}
	te.jobLeaderService.removeJob(job.id)
	delete(te.jobTable, job.id)
	delete(te.currentSlotOfferPerJob, job.id)
	if te.deps.BlobCache != nil {
		if err := te.deps.BlobCache.ReleaseJob(job.id); err != nil {
			te.logger.Warn(fmt.Sprintf("Could not release the BLOBs of job %s.", job.id), "cause", err.Error())
		}
	}
}

// restartSlotTimeouts starts the timeout of every slot of offered that is
// still allocated to the job, not active, after an offer's answer. A newer
// offer carrying the same slot was sent before this answer came, so it is
// answered (or times out) before this timeout runs out.
func (te *TaskExecutor) restartSlotTimeouts(jobID api.JobID, offered []gateway.SlotOffer) {
	reserved := make(map[api.AllocationID]bool)
	for _, slot := range te.taskSlotTable.AllocatedSlots(jobID) {
		reserved[slot.AllocationID] = true
	}
	for _, offer := range offered {
		if _, running := te.slotTimeouts[offer.AllocationID]; reserved[offer.AllocationID] && !running {
			te.startSlotTimeout(offer.AllocationID)
		}
	}
}
