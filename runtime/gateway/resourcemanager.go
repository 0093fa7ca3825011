package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"flinklab/runtime/api"
	"flinklab/runtime/clusterframework"
)

// ResourceManagerGateway is what JobMasters, TaskExecutors and the REST
// endpoint may ask of the ResourceManager (Flink's ResourceManagerGateway).
// The methods JobMasters and TaskExecutors call are fenced by the
// ResourceManager's api.ResourceManagerID, which callers learn from leader
// retrieval; the heartbeats and the REST endpoint's questions are not.
type ResourceManagerGateway interface {
	// RegisterJobMaster connects a job's JobMaster (step m5). Only a
	// registered JobMaster may declare resource requirements.
	RegisterJobMaster(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
		jobManagerResourceID api.ResourceID, jobMasterAddress string, jobID api.JobID) (JobMasterRegistrationSuccess, error)
	// DeclareRequiredResources replaces the job's resource requirements
	// (step m6). The SlotManager then matches them to free slots.
	DeclareRequiredResources(ctx context.Context, rmID api.ResourceManagerID, jobMasterID api.JobMasterID,
		requirements ResourceRequirements) error
	// DisconnectJobManager tells the ResourceManager that a job's JobMaster
	// is done; its requirements are cleared.
	DisconnectJobManager(ctx context.Context, rmID api.ResourceManagerID, jobID api.JobID,
		jobStatus api.JobStatus, cause error) error

	// RegisterTaskExecutor connects a TaskExecutor. It then reports its
	// slots with SendSlotReport.
	RegisterTaskExecutor(ctx context.Context, rmID api.ResourceManagerID,
		registration TaskExecutorRegistration) (TaskExecutorRegistrationSuccess, error)
	// SendSlotReport tells the SlotManager which slots the TaskExecutor has
	// and which of them are allocated.
	SendSlotReport(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
		instanceID api.InstanceID, report SlotReport) error
	// NotifySlotAvailable tells the SlotManager that a slot became free.
	NotifySlotAvailable(ctx context.Context, rmID api.ResourceManagerID, instanceID api.InstanceID,
		slotID api.SlotID, allocationID api.AllocationID) error
	// DisconnectTaskManager tells the ResourceManager that a TaskExecutor
	// is shutting down; its slots are gone.
	DisconnectTaskManager(ctx context.Context, rmID api.ResourceManagerID, taskManager api.ResourceID,
		cause error) error

	// HeartbeatFromTaskManager is a TaskExecutor's answer to the
	// ResourceManager's heartbeat request; it restarts the TaskExecutor's
	// heartbeat timeout at the ResourceManager. Not fenced: a heartbeat
	// from a TaskExecutor the current leader does not monitor is ignored.
	HeartbeatFromTaskManager(ctx context.Context, resourceID api.ResourceID, payload TaskExecutorHeartbeatPayload) error
	// HeartbeatFromJobManager is a JobMaster's answer to the
	// ResourceManager's heartbeat request. Not fenced, like
	// HeartbeatFromTaskManager.
	HeartbeatFromJobManager(ctx context.Context, resourceID api.ResourceID) error

	// RequestResourceOverview counts the registered TaskManagers, their
	// slots and the free ones, for the REST endpoint's GET /overview. Not
	// fenced.
	RequestResourceOverview(ctx context.Context) (ResourceOverview, error)
	// RequestTaskManagerInfo describes every registered TaskManager,
	// ordered by ResourceID, for the REST endpoint's GET /taskmanagers.
	// Not fenced.
	RequestTaskManagerInfo(ctx context.Context) ([]TaskManagerInfo, error)
}

// Errors the ResourceManager's gateway methods wrap, each with Flink's
// message (Flink throws a ResourceManagerException with that message).
// They may cross processes (errors.go).
var (
	// ErrUnknownJobManager: the job has no registered JobMaster.
	ErrUnknownJobManager = errors.New("unknown job manager")
	// ErrJobLeaderIDMismatch: the caller is not the job's registered
	// JobMaster (a stale leader, or a new one that has not registered yet).
	ErrJobLeaderIDMismatch = errors.New("job leader id mismatch")
	// ErrUnknownTaskManager: the TaskExecutor registration named in the call
	// is not the current one.
	ErrUnknownTaskManager = errors.New("unknown task manager")
)

// JobMasterRegistrationSuccess answers a successful RegisterJobMaster.
type JobMasterRegistrationSuccess struct {
	ResourceManagerID         api.ResourceManagerID `json:"resourceManagerId"`
	ResourceManagerResourceID api.ResourceID        `json:"resourceManagerResourceId"`
}

// TaskExecutorRegistration is what a TaskExecutor tells the ResourceManager
// about itself when it registers (Flink's TaskExecutorRegistration).
type TaskExecutorRegistration struct {
	ResourceID          api.ResourceID `json:"resourceId"`
	TaskExecutorAddress string         `json:"taskExecutorAddress"`
	NumberOfSlots       int            `json:"numberSlots"`
	// DefaultSlotResourceProfile is the profile of each static slot: an
	// equal share of TotalResourceProfile.
	DefaultSlotResourceProfile api.ResourceProfile `json:"defaultSlotResourceProfile"`
	// TotalResourceProfile is everything the TaskExecutor's slots share:
	// its CPU cores and its task heap, task off-heap, managed and network
	// memory. Each static slot takes an equal share of it.
	TotalResourceProfile api.ResourceProfile `json:"totalResourceProfile"`
	// MemoryConfiguration is the size of each part of the TaskManager's
	// memory.
	MemoryConfiguration clusterframework.TaskExecutorMemoryConfiguration `json:"memoryConfiguration"`
	// HardwareDescription describes the machine it runs on.
	HardwareDescription HardwareDescription `json:"hardwareDescription"`
}

// HardwareDescription is Flink's HardwareDescription: the machine a
// TaskManager runs on, as it reports it when it registers. In Flink,
// FreeMemory is the JVM's maximum heap (-Xmx) and ManagedMemory the
// TaskManager's managed memory. PhysicalMemory is -1 where the TaskManager
// cannot tell.
type HardwareDescription struct {
	CPUCores       int   `json:"cpuCores"`
	PhysicalMemory int64 `json:"physicalMemory"`
	FreeMemory     int64 `json:"freeMemory"`
	ManagedMemory  int64 `json:"managedMemory"`
}

// TaskExecutorRegistrationSuccess answers a successful RegisterTaskExecutor
// with the registration's InstanceID, and tells the TaskExecutor where the
// JobManager's BlobServer is.
type TaskExecutorRegistrationSuccess struct {
	RegistrationID            api.InstanceID     `json:"registrationId"`
	ResourceManagerResourceID api.ResourceID     `json:"resourceManagerResourceId"`
	ClusterInformation        ClusterInformation `json:"clusterInformation"`
}

// ClusterInformation is Flink's ClusterInformation: where the BlobServer
// of the ResourceManager's JobManager listens. A TaskExecutor downloads the
// jobs' jars from there (step m10); under high availability it learns it
// anew from each ResourceManager leader it registers at. Zero when the
// BlobServer does not listen (the MiniCluster's, in the same process).
type ClusterInformation struct {
	BlobServerHostname string `json:"blobServerHostname"`
	BlobServerPort     int    `json:"blobServerPort"`
}

// BlobServerAddress returns "host:port", or "" for a zero
// ClusterInformation.
func (c ClusterInformation) BlobServerAddress() string {
	if c.BlobServerHostname == "" {
		return ""
	}
	return net.JoinHostPort(c.BlobServerHostname, strconv.Itoa(c.BlobServerPort))
}

// SlotReport lists the slots of one TaskExecutor.
type SlotReport []SlotStatus

// SlotStatus is one slot in a SlotReport. AllocationID and JobID are zero
// when the slot is free.
type SlotStatus struct {
	SlotID          api.SlotID          `json:"slotID"`
	ResourceProfile api.ResourceProfile `json:"resourceProfile"`
	AllocationID    api.AllocationID    `json:"allocationID"`
	JobID           api.JobID           `json:"jobID"`
}

// ResourceRequirements is everything a job needs right now: the complete
// set, not a delta. Declaring an empty set releases the job's claim.
type ResourceRequirements struct {
	JobID api.JobID `json:"jobId"`
	// TargetAddress is the JobMaster's address; TaskExecutors that get a
	// slot for this job offer it there.
	TargetAddress string                `json:"targetAddress"`
	Requirements  []ResourceRequirement `json:"resourceRequirements"`
}

// ResourceRequirement asks for a number of slots of one profile.
type ResourceRequirement struct {
	ResourceProfile       api.ResourceProfile `json:"resourceProfile"`
	NumberOfRequiredSlots int                 `json:"numberOfRequiredSlots"`
}

// String prints the requirement as Flink's ResourceRequirement#toString does.
func (r ResourceRequirement) String() string {
	return fmt.Sprintf("ResourceRequirement{resourceProfile=%s, numberOfRequiredSlots=%d}",
		r.ResourceProfile, r.NumberOfRequiredSlots)
}

// TotalSlots returns how many slots the requirements ask for in all.
func (r ResourceRequirements) TotalSlots() int {
	n := 0
	for _, req := range r.Requirements {
		n += req.NumberOfRequiredSlots
	}
	return n
}

// ResourceOverview counts the cluster's TaskManagers and slots (Flink's
// ResourceOverview, shown on the web UI's overview page).
type ResourceOverview struct {
	NumberTaskManagers    int `json:"taskmanagers"`
	NumberRegisteredSlots int `json:"slots-total"`
	NumberFreeSlots       int `json:"slots-available"`
}

// TaskManagerInfo describes one registered TaskExecutor (the part of
// Flink's TaskManagerInfo we have, and the allocated slots of Flink's
// TaskManagerInfoWithSlots; the REST endpoint adds the fields it has no
// value for). NumberSlots and NumberFreeSlots are 0 until its first slot
// report.
type TaskManagerInfo struct {
	ResourceID      api.ResourceID `json:"id"`
	Address         string         `json:"path"`
	InstanceID      api.InstanceID `json:"instanceId"`
	NumberSlots     int            `json:"slotsNumber"`
	NumberFreeSlots int            `json:"freeSlots"`
	// TotalResource is what the TaskExecutor registered with, and
	// FreeResource what is left of it once each allocated slot has taken
	// its share (TotalResource divided by the number of slots).
	TotalResource api.ResourceProfile `json:"totalResource"`
	FreeResource  api.ResourceProfile `json:"freeResource"`
	// Hardware and MemoryConfiguration are what the TaskExecutor
	// registered with.
	Hardware            HardwareDescription                              `json:"hardware"`
	MemoryConfiguration clusterframework.TaskExecutorMemoryConfiguration `json:"memoryConfiguration"`
	// AllocatedSlots has one entry per slot that is allocated to a job, or
	// being allocated, ordered by slot number.
	AllocatedSlots []SlotInfo `json:"allocatedSlots"`
}

// SlotInfo is one allocated slot of a TaskManager: the job it is
// allocated to and the resources it takes (Flink's SlotInfo, which the
// ResourceManager's TaskManagerInfoWithSlots lists).
type SlotInfo struct {
	JobID           api.JobID           `json:"jobId"`
	ResourceProfile api.ResourceProfile `json:"resource"`
}

// Registration outcomes other than success, as errors. A RetryingRegistration
// retries after a failure (after cluster.registration.refused-registration-delay)
// and gives up after a rejection. They may cross processes (errors.go).
var (
	// ErrRegistrationFailure: the receiver could not accept the
	// registration now (Flink's RegistrationResponse.Failure).
	ErrRegistrationFailure = errors.New("registration failure")
	// ErrRegistrationRejected: the receiver will never accept it (Flink's
	// RegistrationResponse.Rejection).
	ErrRegistrationRejected = errors.New("registration rejected")
)

// RegistrationFailure returns an error wrapping ErrRegistrationFailure.
func RegistrationFailure(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRegistrationFailure, fmt.Sprintf(format, args...))
}

// RegistrationRejected returns an error wrapping ErrRegistrationRejected.
func RegistrationRejected(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRegistrationRejected, fmt.Sprintf(format, args...))
}
