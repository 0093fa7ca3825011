package api

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// JobID identifies a job for its whole life, across restarts and JobManager
// failovers. It is chosen by the client (or the Dispatcher) at submission.
type JobID struct{ abstractID }

// NewJobID returns a random JobID.
func NewJobID() JobID { return JobID{newAbstractID()} }

// ParseJobID parses the 32 hex characters Flink prints for a JobID.
func ParseJobID(s string) (JobID, error) {
	id, err := parseAbstractID("JobID", s)
	return JobID{id}, err
}

// UnmarshalText decodes a JobID from its 32 hex characters.
func (id *JobID) UnmarshalText(b []byte) error { return unmarshalID("JobID", &id.abstractID, b) }

// JobVertexID identifies a JobVertex (an operator chain) within a job.
type JobVertexID struct{ abstractID }

// NewJobVertexID returns a random JobVertexID.
func NewJobVertexID() JobVertexID { return JobVertexID{newAbstractID()} }

// UnmarshalText decodes a JobVertexID from its 32 hex characters.
func (id *JobVertexID) UnmarshalText(b []byte) error {
	return unmarshalID("JobVertexID", &id.abstractID, b)
}

// IntermediateDataSetID identifies the data set a JobVertex produces.
type IntermediateDataSetID struct{ abstractID }

// NewIntermediateDataSetID returns a random IntermediateDataSetID.
func NewIntermediateDataSetID() IntermediateDataSetID {
	return IntermediateDataSetID{newAbstractID()}
}

// UnmarshalText decodes an IntermediateDataSetID from its 32 hex characters.
func (id *IntermediateDataSetID) UnmarshalText(b []byte) error {
	return unmarshalID("IntermediateDataSetID", &id.abstractID, b)
}

// AllocationID names one allocation of a slot to a job. The SlotManager
// chooses it when it asks a TaskExecutor for a slot; the same ID then names
// the slot in the TaskSlotTable, in the slot offer and in every task deployed
// into it.
type AllocationID struct{ abstractID }

// NewAllocationID returns a random AllocationID.
func NewAllocationID() AllocationID { return AllocationID{newAbstractID()} }

// UnmarshalText decodes an AllocationID from its 32 hex characters.
func (id *AllocationID) UnmarshalText(b []byte) error {
	return unmarshalID("AllocationID", &id.abstractID, b)
}

// ExecutionGraphID distinguishes one ExecutionGraph of a job from the next
// (a JobMaster failover builds a new one).
type ExecutionGraphID struct{ abstractID }

// NewExecutionGraphID returns a random ExecutionGraphID.
func NewExecutionGraphID() ExecutionGraphID { return ExecutionGraphID{newAbstractID()} }

// InstanceID is what the ResourceManager hands a TaskExecutor when it
// registers: the registration's identity, new on every registration.
type InstanceID struct{ abstractID }

// NewInstanceID returns a random InstanceID.
func NewInstanceID() InstanceID { return InstanceID{newAbstractID()} }

// Fencing tokens. A leader stamps every message with the token of its
// leadership; the receiver drops messages whose token is not the current one,
// so a deposed leader cannot act any more (see rpc.FencedEndpoint).
type (
	// JobMasterID is the JobMaster's fencing token: the leader session of its
	// JobManagerRunner.
	JobMasterID struct{ abstractID }
	// ResourceManagerID is the ResourceManager's fencing token.
	ResourceManagerID struct{ abstractID }
	// DispatcherID is the Dispatcher's fencing token.
	DispatcherID struct{ abstractID }
)

// NewJobMasterID returns a random JobMasterID.
func NewJobMasterID() JobMasterID { return JobMasterID{newAbstractID()} }

// NewResourceManagerID returns a random ResourceManagerID.
func NewResourceManagerID() ResourceManagerID { return ResourceManagerID{newAbstractID()} }

// NewDispatcherID returns a random DispatcherID.
func NewDispatcherID() DispatcherID { return DispatcherID{newAbstractID()} }

// ResourceID names a process that offers or uses resources: a TaskExecutor,
// or the JobMaster when it registers at the ResourceManager. Unlike the
// others it is a free-form string, as in Flink.
type ResourceID string

// NewResourceID returns a random ResourceID with the given prefix, for
// example "taskexecutor-3f2a9c".
func NewResourceID(prefix string) ResourceID {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return ResourceID(prefix + "-" + hex.EncodeToString(b[:]))
}

// SlotID names a slot by its TaskExecutor and its index in that
// TaskExecutor's TaskSlotTable.
type SlotID struct {
	ResourceID ResourceID `json:"resourceId"`
	SlotNumber int        `json:"slotNumber"`
}

// DynamicSlotID names a slot of resourceID that does not exist yet: the
// TaskExecutor is to cut a new dynamic slot out of its free resources
// (Flink's SlotID#getDynamicSlotID, slot number -1). The SlotManager asks
// for every slot this way.
func DynamicSlotID(resourceID ResourceID) SlotID {
	return SlotID{ResourceID: resourceID, SlotNumber: -1}
}

// IsDynamic reports whether the SlotID asks for a new dynamic slot.
func (s SlotID) IsDynamic() bool { return s.SlotNumber < 0 }

// String prints the SlotID as Flink does: resource_slot, or
// resource_dynamic for a DynamicSlotID.
func (s SlotID) String() string {
	if s.IsDynamic() {
		return fmt.Sprintf("%s_dynamic", s.ResourceID)
	}
	return fmt.Sprintf("%s_%d", s.ResourceID, s.SlotNumber)
}

// GoString is String, for %#v and testify's messages.
func (s SlotID) GoString() string { return s.String() }

// ExecutionVertexID names one subtask of a JobVertex.
type ExecutionVertexID struct {
	JobVertexID  JobVertexID `json:"jobVertexId"`
	SubtaskIndex int         `json:"subtaskIndex"`
}

// String prints the ID as Flink does: vertex_subtask.
func (id ExecutionVertexID) String() string {
	return fmt.Sprintf("%s_%d", id.JobVertexID, id.SubtaskIndex)
}

// GoString is String, for %#v and testify's messages.
func (id ExecutionVertexID) GoString() string { return id.String() }

// ExecutionAttemptID names one attempt to run one subtask. As in Flink 1.16
// and later it is composite and readable: the ExecutionGraph, the subtask and
// the attempt number. A restart creates a new attempt with the next number.
type ExecutionAttemptID struct {
	ExecutionGraphID  ExecutionGraphID  `json:"executionGraphId"`
	ExecutionVertexID ExecutionVertexID `json:"executionVertexId"`
	AttemptNumber     int               `json:"attemptNumber"`
}

// String prints the ID as Flink does: graph_vertex_subtask_attempt.
func (id ExecutionAttemptID) String() string {
	return fmt.Sprintf("%s_%s_%d", id.ExecutionGraphID, id.ExecutionVertexID, id.AttemptNumber)
}

// GoString is String, for %#v and testify's messages.
func (id ExecutionAttemptID) GoString() string { return id.String() }

// IntermediateResultPartitionID names the partition one producer subtask
// writes of an IntermediateDataSet.
type IntermediateResultPartitionID struct {
	IntermediateDataSetID IntermediateDataSetID `json:"intermediateDataSetId"`
	PartitionNum          int                   `json:"partitionNum"`
}

// String prints the ID as Flink does: dataset#partition.
func (id IntermediateResultPartitionID) String() string {
	return fmt.Sprintf("%s#%d", id.IntermediateDataSetID, id.PartitionNum)
}

// GoString is String, for %#v and testify's messages.
func (id IntermediateResultPartitionID) GoString() string { return id.String() }

// ResultPartitionID names a partition at run time: which partition, written
// by which attempt. A restarted producer writes a new ResultPartitionID.
type ResultPartitionID struct {
	PartitionID IntermediateResultPartitionID `json:"partitionId"`
	ProducerID  ExecutionAttemptID            `json:"producerId"`
}

// String prints the ID as Flink does: partition@producer.
func (id ResultPartitionID) String() string {
	return fmt.Sprintf("%s@%s", id.PartitionID, id.ProducerID)
}

// GoString is String, for %#v and testify's messages.
func (id ResultPartitionID) GoString() string { return id.String() }

func unmarshalID(kind string, dst *abstractID, b []byte) error {
	id, err := parseAbstractID(kind, string(b))
	if err != nil {
		return err
	}
	*dst = id
	return nil
}

// The remaining AbstractID types decode the same way.

// UnmarshalText decodes an ExecutionGraphID from its 32 hex characters.
func (id *ExecutionGraphID) UnmarshalText(b []byte) error {
	return unmarshalID("ExecutionGraphID", &id.abstractID, b)
}

// UnmarshalText decodes an InstanceID from its 32 hex characters.
func (id *InstanceID) UnmarshalText(b []byte) error {
	return unmarshalID("InstanceID", &id.abstractID, b)
}

// UnmarshalText decodes a JobMasterID from its 32 hex characters.
func (id *JobMasterID) UnmarshalText(b []byte) error {
	return unmarshalID("JobMasterID", &id.abstractID, b)
}

// UnmarshalText decodes a ResourceManagerID from its 32 hex characters.
func (id *ResourceManagerID) UnmarshalText(b []byte) error {
	return unmarshalID("ResourceManagerID", &id.abstractID, b)
}

// UnmarshalText decodes a DispatcherID from its 32 hex characters.
func (id *DispatcherID) UnmarshalText(b []byte) error {
	return unmarshalID("DispatcherID", &id.abstractID, b)
}

// LeaderSessionID names one leadership term of a component. Leader
// election hands it out; the component turns it into its fencing token
// (api.JobMasterID(id), api.ResourceManagerID(id), api.DispatcherID(id)),
// which all share its representation.
type LeaderSessionID struct{ abstractID }

// NewLeaderSessionID returns a random LeaderSessionID.
func NewLeaderSessionID() LeaderSessionID { return LeaderSessionID{newAbstractID()} }

// UnmarshalText decodes a LeaderSessionID from its 32 hex characters.
func (id *LeaderSessionID) UnmarshalText(b []byte) error {
	return unmarshalID("LeaderSessionID", &id.abstractID, b)
}

// OperatorID identifies one operator of a job, inside its chain (Flink's
// OperatorID). Checkpoints keep state per OperatorID, so it must be the
// same each time the same program is turned into a JobGraph: the
// StreamingJobGraphGenerator derives it from the operator's StreamNode
// (see streaming.OperatorIDOf), never at random.
type OperatorID struct{ abstractID }

// OperatorIDFromBytes returns the OperatorID whose 16 bytes are b.
func OperatorIDFromBytes(b [16]byte) OperatorID {
	if b == [16]byte{} {
		return OperatorID{}
	}
	return OperatorID{abstractID(hex.EncodeToString(b[:]))}
}

// ParseOperatorID parses the 32 hex characters Flink prints for an OperatorID.
func ParseOperatorID(s string) (OperatorID, error) {
	id, err := parseAbstractID("OperatorID", s)
	return OperatorID{id}, err
}

// UnmarshalText decodes an OperatorID from its 32 hex characters.
func (id *OperatorID) UnmarshalText(b []byte) error {
	return unmarshalID("OperatorID", &id.abstractID, b)
}
