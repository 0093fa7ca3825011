package highavailability_test

import (
	"runtime"
	"sync"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
)

// fakeContender records what the election tells it.
type fakeContender struct {
	mu       sync.Mutex
	sessions []api.LeaderSessionID // one per grant
	revokes  int
}

var _ highavailability.LeaderContender = (*fakeContender)(nil)

func (c *fakeContender) GrantLeadership(session api.LeaderSessionID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sessions = append(c.sessions, session)
}

func (c *fakeContender) RevokeLeadership() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.revokes++
}

func (c *fakeContender) grants() []api.LeaderSessionID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]api.LeaderSessionID(nil), c.sessions...)
}

func (c *fakeContender) revoked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revokes
}

// leader is one notification a retrieval listener received.
type leader struct {
	address string
	session api.LeaderSessionID
}

// fakeListener records every leader it is told about.
type fakeListener struct {
	mu      sync.Mutex
	leaders []leader
}

var _ highavailability.LeaderRetrievalListener = (*fakeListener)(nil)

func (l *fakeListener) NotifyLeaderAddress(address string, session api.LeaderSessionID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leaders = append(l.leaders, leader{address, session})
}

func (l *fakeListener) notifications() []leader {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]leader(nil), l.leaders...)
}

// noLeader is what listeners hear when the leader leaves.
var noLeader = leader{}

func TestFirstContenderLeadsAndOthersWait(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	first, second := &fakeContender{}, &fakeContender{}
	firstElection, secondElection := service.NewLeaderElection(), service.NewLeaderElection()

	require.NoError(t, firstElection.StartLeaderElection(first))
	require.NoError(t, secondElection.StartLeaderElection(second))

	grants := first.grants()
	require.Len(t, grants, 1)
	session := grants[0]
	assert.False(t, session.IsZero(), "a leader session must not be the zero ID")
	assert.True(t, firstElection.HasLeadership(session))
	assert.False(t, firstElection.HasLeadership(api.NewLeaderSessionID()))

	assert.Empty(t, second.grants(), "the second contender is a standby")
	assert.False(t, secondElection.HasLeadership(session))
}

func TestStartingAnElectionTwiceFails(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	election := service.NewLeaderElection()
	require.NoError(t, election.StartLeaderElection(&fakeContender{}))
	assert.Error(t, election.StartLeaderElection(&fakeContender{}))

	retrieval := service.NewLeaderRetrieval()
	require.NoError(t, retrieval.Start(&fakeListener{}))
	assert.Error(t, retrieval.Start(&fakeListener{}))
}

func TestListenersLearnTheLeaderOnlyAfterConfirmation(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	listener := &fakeListener{}
	require.NoError(t, service.NewLeaderRetrieval().Start(listener))

	contender := &fakeContender{}
	election := service.NewLeaderElection()
	require.NoError(t, election.StartLeaderElection(contender))
	session := contender.grants()[0]
	assert.Empty(t, listener.notifications(), "granted but not yet confirmed: nobody may know the leader")

	election.ConfirmLeadership(session, "pekko://flink/user/rpc/jobmanager_1")
	got, want := listener.notifications(), []leader{{"pekko://flink/user/rpc/jobmanager_1", session}}
	assert.Equal(t, want, got)
}

func TestStaleConfirmationIsIgnored(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	listener := &fakeListener{}
	require.NoError(t, service.NewLeaderRetrieval().Start(listener))
	first, second := &fakeContender{}, &fakeContender{}
	firstElection, secondElection := service.NewLeaderElection(), service.NewLeaderElection()
	require.NoError(t, firstElection.StartLeaderElection(first))
	require.NoError(t, secondElection.StartLeaderElection(second))
	oldSession := first.grants()[0]

	// A session that was never granted.
	firstElection.ConfirmLeadership(api.NewLeaderSessionID(), "wrong-session")
	assert.Empty(t, listener.notifications())

	// A standby cannot confirm the leader's session.
	secondElection.ConfirmLeadership(oldSession, "standby")
	assert.Empty(t, listener.notifications())

	// The leader leaves; the standby takes over with a new session.
	require.NoError(t, firstElection.Close())
	require.Len(t, second.grants(), 1)
	newSession := second.grants()[0]
	assert.NotEqual(t, oldSession, newSession)

	// The old leader's late confirmation and a confirmation of the old
	// session by the new leader are both ignored.
	firstElection.ConfirmLeadership(oldSession, "old-leader")
	secondElection.ConfirmLeadership(oldSession, "new-leader-old-session")
	got, want := listener.notifications(), []leader{noLeader}
	assert.Equal(t, want, got)

	secondElection.ConfirmLeadership(newSession, "new-leader")
	got, want = listener.notifications(), []leader{noLeader, {"new-leader", newSession}}
	assert.Equal(t, want, got)
}

func TestClosingTheLeaderRevokesAndGrantsTheNext(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	listener := &fakeListener{}
	require.NoError(t, service.NewLeaderRetrieval().Start(listener))
	first, second, third := &fakeContender{}, &fakeContender{}, &fakeContender{}
	elections := []highavailability.LeaderElection{
		service.NewLeaderElection(), service.NewLeaderElection(), service.NewLeaderElection(),
	}
	for i, c := range []*fakeContender{first, second, third} {
		require.NoError(t, elections[i].StartLeaderElection(c))
	}
	firstSession := first.grants()[0]
	elections[0].ConfirmLeadership(firstSession, "first")

	require.NoError(t, elections[0].Close())

	assert.Equal(t, 1, first.revoked())
	assert.False(t, elections[0].HasLeadership(firstSession))
	require.Len(t, second.grants(), 1, "the next contender in line takes over")
	secondSession := second.grants()[0]
	assert.False(t, secondSession.IsZero())
	assert.NotEqual(t, firstSession, secondSession)
	assert.True(t, elections[1].HasLeadership(secondSession))
	assert.Empty(t, third.grants(), "the third contender still waits")
	got, want := listener.notifications(), []leader{{"first", firstSession}, noLeader}
	assert.Equal(t, want, got)

	// Closing again, or closing a standby, changes nothing for the leader.
	require.NoError(t, elections[0].Close())
	require.NoError(t, elections[2].Close())
	assert.Equal(t, 1, first.revoked())
	assert.Zero(t, second.revoked())
	assert.Zero(t, third.revoked())
	assert.True(t, elections[1].HasLeadership(secondSession))
	assert.Len(t, listener.notifications(), 2)

	// The last contender leaves: nobody leads.
	require.NoError(t, elections[1].Close())
	assert.Equal(t, 1, second.revoked())
	assert.Empty(t, third.grants(), "a contender that left is never granted")
}

func TestClosingAnUnstartedElectionIsANoOp(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	leaderContender := &fakeContender{}
	election := service.NewLeaderElection()
	require.NoError(t, election.StartLeaderElection(leaderContender))

	assert.NoError(t, service.NewLeaderElection().Close())
	assert.Zero(t, leaderContender.revoked())
	assert.True(t, election.HasLeadership(leaderContender.grants()[0]))
}

// A contender that left the election is no longer the service's: the
// service lives as long as the cluster, and a JobMaster's runner, the
// contender of its job's election, holds the whole job (its JobMaster,
// ExecutionGraph and final graph). Once the runner has closed its
// election, nothing of the service may keep it reachable.
func TestAContenderThatLeftIsNotHeldByTheService(t *testing.T) {
	tests := []struct {
		name         string
		anotherLeads bool // the one that leaves is a standby
	}{
		{"the leader, the only contender, leaves", false},
		{"a standby leaves", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			service := highavailability.NewEmbeddedLeaderService()
			if tt.anotherLeads {
				stays := &fakeContender{}
				require.NoError(t, service.NewLeaderElection().StartLeaderElection(stays))
				defer runtime.KeepAlive(stays)
			}
			leaves := enterAndLeave(t, service)

			assert.True(t, collected(leaves), "the service still holds the contender that left")
			runtime.KeepAlive(service)
		})
	}
}

// enterAndLeave enters a contender into the election, closes its
// election and returns a weak pointer to it: the caller holds nothing
// else of it.
func enterAndLeave(t *testing.T, service *highavailability.EmbeddedLeaderService) weak.Pointer[fakeContender] {
	t.Helper()
	contender := &fakeContender{}
	election := service.NewLeaderElection()
	require.NoError(t, election.StartLeaderElection(contender))
	require.NoError(t, election.Close())
	return weak.Make(contender)
}

// collected reports whether the garbage collector has freed what p
// points to, after a few collections: an unreachable object is freed by
// the first one.
func collected[T any](p weak.Pointer[T]) bool {
	for range 5 {
		runtime.GC()
		if p.Value() == nil {
			return true
		}
	}
	return false
}

func TestLateRetrievalGetsTheCurrentLeader(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	contender := &fakeContender{}
	election := service.NewLeaderElection()
	require.NoError(t, election.StartLeaderElection(contender))
	session := contender.grants()[0]
	election.ConfirmLeadership(session, "leader-address")

	late := &fakeListener{}
	require.NoError(t, service.NewLeaderRetrieval().Start(late))
	got, want := late.notifications(), []leader{{"leader-address", session}}
	assert.Equal(t, want, got)

	// A retrieval started while nobody is confirmed hears nothing yet.
	require.NoError(t, election.Close())
	later := &fakeListener{}
	require.NoError(t, service.NewLeaderRetrieval().Start(later))
	assert.Empty(t, later.notifications())
}

func TestStoppedRetrievalHearsNothing(t *testing.T) {
	service := highavailability.NewEmbeddedLeaderService()
	listener := &fakeListener{}
	retrieval := service.NewLeaderRetrieval()
	require.NoError(t, retrieval.Start(listener))
	require.NoError(t, retrieval.Stop())

	contender := &fakeContender{}
	election := service.NewLeaderElection()
	require.NoError(t, election.StartLeaderElection(contender))
	election.ConfirmLeadership(contender.grants()[0], "leader-address")
	assert.Empty(t, listener.notifications())
}

func TestEmbeddedHaServicesHaveOneElectionPerJob(t *testing.T) {
	ha := highavailability.NewEmbeddedHaServices()
	jobA, jobB := api.NewJobID(), api.NewJobID()

	leaderA, standbyA, leaderB := &fakeContender{}, &fakeContender{}, &fakeContender{}
	electionA := ha.JobManagerLeaderElection(jobA)
	require.NoError(t, electionA.StartLeaderElection(leaderA))
	require.NoError(t, ha.JobManagerLeaderElection(jobA).StartLeaderElection(standbyA))
	electionB := ha.JobManagerLeaderElection(jobB)
	require.NoError(t, electionB.StartLeaderElection(leaderB))

	assert.Len(t, leaderA.grants(), 1)
	assert.Empty(t, standbyA.grants(), "the same job has one election: the second contender waits")
	assert.Len(t, leaderB.grants(), 1, "another job has an election of its own")

	listenerA, listenerB := &fakeListener{}, &fakeListener{}
	require.NoError(t, ha.JobManagerLeaderRetriever(jobA).Start(listenerA))
	require.NoError(t, ha.JobManagerLeaderRetriever(jobB).Start(listenerB))
	electionA.ConfirmLeadership(leaderA.grants()[0], "jobmaster-a")
	electionB.ConfirmLeadership(leaderB.grants()[0], "jobmaster-b")
	assert.Equal(t, []leader{{"jobmaster-a", leaderA.grants()[0]}}, listenerA.notifications())
	assert.Equal(t, []leader{{"jobmaster-b", leaderB.grants()[0]}}, listenerB.notifications())
}

func TestEmbeddedHaServicesSeparateTheComponents(t *testing.T) {
	ha := highavailability.NewEmbeddedHaServices()
	rm, dispatcher := &fakeContender{}, &fakeContender{}
	rmElection := ha.ResourceManagerLeaderElection()
	dispatcherElection := ha.DispatcherLeaderElection()
	require.NoError(t, rmElection.StartLeaderElection(rm))
	require.NoError(t, dispatcherElection.StartLeaderElection(dispatcher))
	require.Len(t, rm.grants(), 1)
	require.Len(t, dispatcher.grants(), 1, "the Dispatcher does not wait for the ResourceManager")

	rmListener, dispatcherListener := &fakeListener{}, &fakeListener{}
	require.NoError(t, ha.ResourceManagerLeaderRetriever().Start(rmListener))
	require.NoError(t, ha.DispatcherLeaderRetriever().Start(dispatcherListener))
	rmElection.ConfirmLeadership(rm.grants()[0], "resourcemanager")
	dispatcherElection.ConfirmLeadership(dispatcher.grants()[0], "dispatcher")
	assert.Equal(t, []leader{{"resourcemanager", rm.grants()[0]}}, rmListener.notifications())
	assert.Equal(t, []leader{{"dispatcher", dispatcher.grants()[0]}}, dispatcherListener.notifications())

	assert.Same(t, ha.JobResultStore(), ha.JobResultStore(), "one JobResultStore per cluster")
}
