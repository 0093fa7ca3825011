package scheduler

import (
	"fmt"
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmaster/slotpool"
)

// sharedSlot is one physical slot the scheduler asked the pool for, on
// behalf of an executionSlotSharingGroup, and the executions placed in it
// (Flink's SharedSlot, whose executions hold logical slots in it). It lives
// while an execution holds it: a region scheduled while another region of
// its group runs joins the slot that is there, and the slot goes back to
// the pool when its last execution has reached a terminal state.
type sharedSlot struct {
	group   *executionSlotSharingGroup
	request slotpool.SlotRequestID
	// physical is the slot once the pool handed it over, nil before.
	physical *slotpool.PhysicalSlot
	// logical holds the executions that run, or will run, in the slot, in
	// the order they were placed: at most one subtask per JobVertex.
	logical []*executiongraph.Execution
	// waiting are the deployment rounds that wait for the slot to arrive.
	waiting []*deploymentRound
	// released: the slot was given back, failed or lost; it is not in the
	// scheduler's sharedSlots any more.
	released bool
}

// deploymentRound is one allocateSlotsAndDeploy: the executions of one
// pipelined region (or of a restart), deployed together once all their
// shared slots have arrived (Flink: DefaultExecutionDeployer waits for all
// the slot futures of one call, then deploys).
type deploymentRound struct {
	executions []*executiongraph.Execution
	slots      []*sharedSlot // each once, in the order first needed
	unresolved int           // slots that have neither arrived nor failed
	deployed   bool
}

// allocateSlotsAndDeploy is Flink's DefaultExecutionDeployer for one
// region: each execution moves to SCHEDULED and gets a logical slot in its
// shared slot (Flink's SlotSharingExecutionSlotAllocator), whose physical
// slot is requested from the pool if the group holds none; the region is
// deployed when every one of its shared slots has arrived.
func (s *DefaultScheduler) allocateSlotsAndDeploy(vertices []*executiongraph.ExecutionVertex) {
	round := &deploymentRound{}
	var requests []*sharedSlot
	for _, ev := range vertices {
		e := ev.CurrentExecution()
		if err := e.TransitionState(api.ExecutionScheduled); err != nil {
			panic(fmt.Sprintf("BUG: trying to schedule a region which is not in CREATED state: %v", err))
		}
		group := s.slotSharing.groupOf[ev.ID()]
		shared := s.sharedSlots[group]
		if shared == nil {
			s.nextRequestID++
			shared = &sharedSlot{group: group, request: s.nextRequestID}
			s.sharedSlots[group] = shared
			requests = append(requests, shared)
		}
		shared.logical = append(shared.logical, e)
		s.logicalSlots[e] = shared
		round.executions = append(round.executions, e)
		if !round.needs(shared) {
			round.slots = append(round.slots, shared)
			if shared.physical == nil {
				round.unresolved++
				shared.waiting = append(shared.waiting, round)
			}
		}
	}
	// Every shared slot of the round is counted before the first request
	// goes out: the pool may answer one at once from a slot it holds, and
	// the round must not look complete before all are asked for.
	for _, shared := range requests {
		id := shared.request
		request := s.deps.SlotPool.RequestNewAllocatedSlot
		if s.deps.JobGraph.JobType == jobgraph.Batch {
			// Flink: slotWillBeOccupiedIndefinitely is false for a BATCH job.
			request = s.deps.SlotPool.RequestNewAllocatedBatchSlot
		}
		request(id, s.sharedSlotProfile(shared.group), func(slot slotpool.PhysicalSlot) {
			s.slotArrived(shared, id, slot)
		}, func(cause error) {
			s.slotRequestFailed(shared, cause)
		})
	}
	// The requests of this round are one bulk: if they cannot all be
	// fulfilled within slot.request.timeout, they fail (Flink:
	// SlotSharingExecutionSlotAllocator#allocateSlotsFor hands the bulk to
	// the PhysicalSlotRequestBulkChecker).
	if round.unresolved > 0 {
		s.bulkChecker.SchedulePendingRequestBulkTimeoutCheck(&sharingPhysicalSlotRequestBulk{scheduler: s, round: round}, s.cfg.SlotRequestTimeout)
	}
	s.maybeDeploy(round)
}

func (r *deploymentRound) needs(shared *sharedSlot) bool { return slices.Contains(r.slots, shared) }

// sharedSlotProfile is the profile a shared slot is requested with.
func (s *DefaultScheduler) sharedSlotProfile(group *executionSlotSharingGroup) api.ResourceProfile {
	return sharedSlotProfile(s.deps.JobGraph, s.deps.Graph, group)
}

func (s *DefaultScheduler) slotArrived(shared *sharedSlot, id slotpool.SlotRequestID, slot slotpool.PhysicalSlot) {
	if shared.released || shared.request != id {
		return // given back meanwhile
	}
	shared.physical = &slot
	waiting := shared.waiting
	shared.waiting = nil
	for _, round := range waiting {
		round.unresolved--
		s.maybeDeploy(round)
	}
}

// slotRequestFailed fails the executions waiting for a shared slot that
// will not come (Flink: DefaultExecutionDeployer fails the execution when
// its slot future completes exceptionally). The first failure starts the
// failover, which cancels the others of their region.
func (s *DefaultScheduler) slotRequestFailed(shared *sharedSlot, cause error) {
	if shared.released {
		return
	}
	waiting := s.releaseSharedSlot(shared)
	for _, e := range slices.Clone(shared.logical) {
		if e.State() == api.ExecutionScheduled {
			s.markFailed(e, cause)
		}
	}
	for _, round := range waiting {
		s.maybeDeploy(round)
	}
}

// releaseSharedSlot gives a shared slot back to the pool (a slot that
// arrived becomes free there; a request is withdrawn) and forgets it. It
// returns the rounds that waited for it, each counting one slot less to
// wait for; the caller deploys them once it has failed the executions
// that needed the slot.
func (s *DefaultScheduler) releaseSharedSlot(shared *sharedSlot) []*deploymentRound {
	shared.released = true
	if s.sharedSlots[shared.group] == shared {
		delete(s.sharedSlots, shared.group)
	}
	s.deps.SlotPool.CancelSlotRequest(shared.request)
	waiting := shared.waiting
	shared.waiting = nil
	for _, round := range waiting {
		round.unresolved--
	}
	return waiting
}

// releaseLogicalSlot frees the logical slot of an execution that reached a
// terminal state (Flink: Execution#releaseAssignedResource); the shared
// slot goes back to the pool with its last logical slot.
func (s *DefaultScheduler) releaseLogicalSlot(e *executiongraph.Execution) {
	shared, ok := s.logicalSlots[e]
	if !ok {
		return
	}
	delete(s.logicalSlots, e)
	shared.logical = slices.DeleteFunc(shared.logical, func(other *executiongraph.Execution) bool { return other == e })
	if len(shared.logical) > 0 || shared.released {
		return
	}
	// An execution reaches a terminal state in the middle of something
	// else (a failover cancelling a region, a job being cancelled): the
	// rounds that waited for this slot are looked at on the next mailbox
	// turn, once that is done, not in the middle of it.
	for _, round := range s.releaseSharedSlot(shared) {
		s.deps.MainThread.RunAsync(func() { s.maybeDeploy(round) })
	}
}

// maybeDeploy deploys a round once all its shared slots are resolved: the
// executions still SCHEDULED get their slots, and then are deployed.
// Assigning every slot first lets each consumer's shuffle descriptors name
// where its producers run.
func (s *DefaultScheduler) maybeDeploy(round *deploymentRound) {
	if round.unresolved > 0 || round.deployed {
		return
	}
	round.deployed = true
	type deployment struct {
		e    *executiongraph.Execution
		slot slotpool.PhysicalSlot
	}
	var deployments []deployment
	for _, e := range round.executions {
		shared := s.logicalSlots[e]
		if e.State() != api.ExecutionScheduled || shared == nil || shared.physical == nil || shared.released {
			continue // failed or cancelled while the round waited, or its slot is lost
		}
		slot := shared.physical
		if err := e.TryAssignResource(executiongraph.AssignedSlot{
			AllocationID: slot.AllocationID,
			TaskManagerLocation: executiongraph.TaskManagerLocation{
				ResourceID:  slot.TaskManager.ResourceID,
				Address:     slot.TaskManager.Address,
				DataAddress: slot.TaskManager.DataAddress,
			},
		}); err != nil {
			s.failJob(fmt.Errorf("could not assign a slot to %s: %w", e, err))
			return
		}
		deployments = append(deployments, deployment{e, *slot})
	}
	for _, d := range deployments {
		s.deploy(d.e, d.slot)
	}
}
