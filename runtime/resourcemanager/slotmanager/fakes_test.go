package slotmanager

import (
	"context"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway/gatewaytest"
)

// slotRequest is one RequestSlot call a fake TaskExecutor received.
type slotRequest struct {
	SlotID           api.SlotID
	JobID            api.JobID
	AllocationID     api.AllocationID
	Profile          api.ResourceProfile
	JobMasterAddress string
	RMID             api.ResourceManagerID
}

// slotRequests records the RequestSlot calls of any number of fake
// TaskExecutors, in the order they arrive. Requests sent by one check run
// concurrently (one rpc.Ask each), so their order is not determined.
type slotRequests struct {
	mu   sync.Mutex
	list []slotRequest
}

// gateway returns a fake TaskExecutor that records each request and then
// answers it with answer (nil: accept).
func (r *slotRequests) gateway(answer func(ctx context.Context, req slotRequest) error) *gatewaytest.TaskExecutorGateway {
	return &gatewaytest.TaskExecutorGateway{
		RequestSlotFunc: func(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
			profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
			req := slotRequest{slotID, jobID, allocationID, profile, jobMasterAddress, rmID}
			r.mu.Lock()
			r.list = append(r.list, req)
			r.mu.Unlock()
			if answer != nil {
				return answer(ctx, req)
			}
			return nil
		},
	}
}

func (r *slotRequests) all() []slotRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slotRequest(nil), r.list...)
}

// resourceIDs returns the TaskExecutor each request went to, in the order
// the requests arrived.
func (r *slotRequests) resourceIDs() []api.ResourceID {
	var ids []api.ResourceID
	for _, req := range r.all() {
		ids = append(ids, req.SlotID.ResourceID)
	}
	return ids
}

// profiles returns the profile each request asked for, in the order the
// requests arrived.
func (r *slotRequests) profiles() []api.ResourceProfile {
	var profiles []api.ResourceProfile
	for _, req := range r.all() {
		profiles = append(profiles, req.Profile)
	}
	return profiles
}
