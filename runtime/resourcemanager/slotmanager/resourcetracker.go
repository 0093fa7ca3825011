package slotmanager

import (
	"slices"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// resourceTracker remembers what each job declared it needs and where its
// JobMaster is (Flink's DefaultResourceTracker plus the SlotManager's
// jobMasterTargetAddresses). Each declaration replaces the previous one.
//
// Jobs keep the order of their first declaration, so the strategy serves
// them first come, first served, and every run of a test sees the same
// order (a Go map would not give one).
type resourceTracker struct {
	jobs  map[api.JobID]*jobRequirements
	order []api.JobID
}

type jobRequirements struct {
	targetAddress string
	requirements  []gateway.ResourceRequirement
}

func newResourceTracker() *resourceTracker {
	t := &resourceTracker{}
	t.clear()
	return t
}

func (t *resourceTracker) clear() {
	t.jobs = make(map[api.JobID]*jobRequirements)
	t.order = nil
}

// isRequirementEmpty reports whether the job currently needs nothing.
func (t *resourceTracker) isRequirementEmpty(jobID api.JobID) bool {
	_, ok := t.jobs[jobID]
	return !ok
}

// notifyResourceRequirements replaces the job's requirements. An empty set
// forgets the job.
func (t *resourceTracker) notifyResourceRequirements(req gateway.ResourceRequirements) {
	var kept []gateway.ResourceRequirement
	for _, r := range req.Requirements {
		if r.NumberOfRequiredSlots > 0 {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		t.remove(req.JobID)
		return
	}
	if _, known := t.jobs[req.JobID]; !known {
		t.order = append(t.order, req.JobID)
	}
	t.jobs[req.JobID] = &jobRequirements{targetAddress: req.TargetAddress, requirements: kept}
}

func (t *resourceTracker) remove(jobID api.JobID) {
	if _, ok := t.jobs[jobID]; !ok {
		return
	}
	delete(t.jobs, jobID)
	t.order = slices.DeleteFunc(t.order, func(id api.JobID) bool { return id == jobID })
}

// targetAddress returns the address of the job's JobMaster.
func (t *resourceTracker) targetAddress(jobID api.JobID) string {
	if j, ok := t.jobs[jobID]; ok {
		return j.targetAddress
	}
	return ""
}

// missingResources returns, job by job in declaration order, what each job
// still lacks once the slots it already holds (acquired) are subtracted.
// Jobs that lack nothing are left out.
func (t *resourceTracker) missingResources(acquired func(api.JobID) []api.ResourceProfile) []JobRequirements {
	var missing []JobRequirements
	for _, jobID := range t.order {
		left := MissingRequirements(t.jobs[jobID].requirements, acquired(jobID))
		if len(left) > 0 {
			missing = append(missing, JobRequirements{JobID: jobID, Requirements: left})
		}
	}
	return missing
}
