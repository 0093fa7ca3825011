package scenario

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/gateway/gatewaytest"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/resourcemanager"
	"flinklab/runtime/rpc"
	"flinklab/runtime/trace"
)

// ResourceManager is a ResourceManager on its own, as the steps between a
// JobMaster and the ResourceManager (m5, m6) see it: an in-process RPC
// service, embedded leader election, and fake JobMasters and TaskExecutors
// served in the same RPC service (fakes from runtime/gateway/gatewaytest).
type ResourceManager struct {
	*resourcemanager.ResourceManager
	// ID is the fencing token of its leadership, as leader retrieval
	// announced it: every call to it must carry this ID.
	ID    api.ResourceManagerID
	RPC   *rpc.LocalService
	HA    *highavailability.EmbeddedHaServices
	Trace *trace.Recorder
	// Logs holds its log lines, debug level included.
	Logs *Logs
}

// StartResourceManager starts a ResourceManager with cfg inside the test's
// synctest bubble (call it from synctest.Test) and waits, as a JobMaster or
// TaskExecutor would, until leader retrieval names it the leader. It is
// closed when the test ends, and its trace goes to the test's log (see
// LogTrace).
func StartResourceManager(t *testing.T, cfg resourcemanager.Config) *ResourceManager {
	t.Helper()
	r := &ResourceManager{
		RPC:   rpc.NewLocalService(),
		HA:    highavailability.NewEmbeddedHaServices(),
		Trace: trace.NewRecorder(),
		Logs:  &Logs{},
	}
	if cfg.ResourceID == "" {
		cfg.ResourceID = "resourcemanager-test"
	}
	cfg.Logger = slog.New(slog.NewTextHandler(r.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rm, err := resourcemanager.New(cfg, resourcemanager.Deps{RPC: r.RPC, HA: r.HA, Trace: r.Trace})
	require.NoError(t, err)
	r.ResourceManager = rm

	leader := make(chan api.LeaderSessionID, 1)
	retrieval := r.HA.ResourceManagerLeaderRetriever()
	require.NoError(t, retrieval.Start(firstLeader(leader)))
	require.NoError(t, rm.Start())
	r.ID = api.ResourceManagerID(<-leader)
	require.NoError(t, retrieval.Stop())
	t.Cleanup(func() {
		LogTrace(t, r.Trace.Events())
		rm.Close()
	})
	return r
}

// firstLeader hands the first leader it hears of to its channel.
type firstLeader chan api.LeaderSessionID

func (l firstLeader) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	if address == "" {
		return
	}
	select {
	case l <- session:
	default:
	}
}

// FakeJobMaster is a fake JobMaster of a job of its own, served in the
// ResourceManager's RPC service.
type FakeJobMaster struct {
	JobID api.JobID
	// ID is its JobMasterID, the fencing token of its leadership over the
	// job.
	ID api.JobMasterID
	// ResourceID names its process; the ResourceManager watches its
	// heartbeat under this ID.
	ResourceID api.ResourceID
	Address    string
}

// AddJobMaster serves gw as the JobMaster of a new job, under name (for
// example "jobmanager_1").
func (r *ResourceManager) AddJobMaster(t *testing.T, name string, gw *gatewaytest.JobMasterGateway) FakeJobMaster {
	t.Helper()
	jm := FakeJobMaster{
		JobID:      api.NewJobID(),
		ID:         api.NewJobMasterID(),
		ResourceID: api.ResourceID(name),
		Address:    r.RPC.Address(name),
	}
	require.NoError(t, r.RPC.Register(jm.Address, gw))
	return jm
}

// NewLeader returns another JobMaster of the same job: a new leadership
// (a new JobMasterID), served with gw under name.
func (r *ResourceManager) NewLeader(t *testing.T, of FakeJobMaster, name string, gw *gatewaytest.JobMasterGateway) FakeJobMaster {
	t.Helper()
	jm := r.AddJobMaster(t, name, gw)
	jm.JobID = of.JobID
	return jm
}

// Register registers jm at the ResourceManager (step m5), as its
// ResourceManagerConnection would.
func (r *ResourceManager) Register(jm FakeJobMaster) (gateway.JobMasterRegistrationSuccess, error) {
	return r.RegisterJobMaster(context.Background(), r.ID, jm.ID, jm.ResourceID, jm.Address, jm.JobID)
}

// Declare declares, as jm, that jm's job needs the given number of slots
// of any profile (step m6); zero declares that it needs nothing. The
// declaration carries jm's address as its target address.
func (r *ResourceManager) Declare(jm FakeJobMaster, slots int) error {
	return r.DeclareRequiredResources(context.Background(), r.ID, jm.ID, RequirementsOf(jm, slots))
}

// RequirementsOf returns jm's declaration of the given number of slots.
func RequirementsOf(jm FakeJobMaster, slots int) gateway.ResourceRequirements {
	req := gateway.ResourceRequirements{JobID: jm.JobID, TargetAddress: jm.Address}
	if slots > 0 {
		req.Requirements = []gateway.ResourceRequirement{{NumberOfRequiredSlots: slots}}
	}
	return req
}

// RequestedSlot is one requestSlot a fake TaskExecutor received (step m7).
type RequestedSlot struct {
	SlotID           api.SlotID
	JobID            api.JobID
	JobMasterAddress string
}

// String prints the request as the call it was, for the failures of
// tests: requestSlot(tm-1_0, job 5f3c…, pekko://flink/user/rpc/jobmanager_1).
func (r RequestedSlot) String() string {
	return fmt.Sprintf("requestSlot(%s, job %s, %s)", r.SlotID, r.JobID, r.JobMasterAddress)
}

// GoString is String, for %#v.
func (r RequestedSlot) GoString() string { return r.String() }

// RequestedSlots records the slot requests of fake TaskExecutors; it is safe
// for concurrent use.
type RequestedSlots struct {
	mu   sync.Mutex
	list []RequestedSlot
}

// All returns the requests received so far, in order.
func (s *RequestedSlots) All() []RequestedSlot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RequestedSlot(nil), s.list...)
}

// AddTaskExecutor registers a fake TaskExecutor named name with n free
// slots and sends its first slot report. It accepts every slot request and
// records it.
func (r *ResourceManager) AddTaskExecutor(t *testing.T, name string, n int) *RequestedSlots {
	t.Helper()
	requests := &RequestedSlots{}
	te := &gatewaytest.TaskExecutorGateway{
		RequestSlotFunc: func(_ context.Context, slotID api.SlotID, jobID api.JobID, _ api.AllocationID,
			_ api.ResourceProfile, jobMasterAddress string, _ api.ResourceManagerID) error {
			requests.mu.Lock()
			defer requests.mu.Unlock()
			requests.list = append(requests.list, RequestedSlot{SlotID: slotID, JobID: jobID, JobMasterAddress: jobMasterAddress})
			return nil
		},
	}
	address := r.RPC.Address("taskmanager_" + name)
	require.NoError(t, r.RPC.Register(address, te))
	ctx := context.Background()
	success, err := r.RegisterTaskExecutor(ctx, r.ID, gateway.TaskExecutorRegistration{
		ResourceID: api.ResourceID(name), TaskExecutorAddress: address, NumberOfSlots: n,
		TotalResourceProfile: api.ResourceProfileFromResources(float64(n), 128*int64(n)),
	})
	require.NoError(t, err)
	var report gateway.SlotReport
	for i := range n {
		report = append(report, gateway.SlotStatus{SlotID: api.SlotID{ResourceID: api.ResourceID(name), SlotNumber: i}})
	}
	require.NoError(t, r.SendSlotReport(ctx, r.ID, api.ResourceID(name), success.RegistrationID, report))
	return requests
}
