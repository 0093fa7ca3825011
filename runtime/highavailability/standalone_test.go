package highavailability_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
)

const (
	rmAddress         = "pekko.tcp://flink@localhost:6123/user/rpc/resourcemanager_0"
	dispatcherAddress = "pekko.tcp://flink@localhost:6123/user/rpc/dispatcher_0"
	jobMasterAddress  = "pekko.tcp://flink@localhost:6123/user/rpc/jobmanager_3"
)

func TestDefaultLeaderIDIsFixedAndNotZero(t *testing.T) {
	assert.Equal(t, "00000000000000000000000000000001", highavailability.DefaultLeaderID.String())
	assert.False(t, highavailability.DefaultLeaderID.IsZero(), "the zero ID means no leader in this runtime")
}

func TestStandaloneElectionsGrantTheDefaultLeaderIDAtOnce(t *testing.T) {
	ha := highavailability.NewStandaloneHaServices(rmAddress, dispatcherAddress)
	elections := map[string]highavailability.LeaderElection{
		"ResourceManager": ha.ResourceManagerLeaderElection(),
		"Dispatcher":      ha.DispatcherLeaderElection(),
		"JobManager":      ha.JobManagerLeaderElection(api.NewJobID()),
	}
	for name, election := range elections {
		t.Run(name, func(t *testing.T) {
			contender := &fakeContender{}
			require.NoError(t, election.StartLeaderElection(contender))

			got, want := contender.grants(), []api.LeaderSessionID{highavailability.DefaultLeaderID}
			assert.Equal(t, want, got, "granted at once, with the default leader ID")
			assert.True(t, election.HasLeadership(highavailability.DefaultLeaderID))
			assert.False(t, election.HasLeadership(api.NewLeaderSessionID()))
			assert.Error(t, election.StartLeaderElection(&fakeContender{}), "one contender per election")

			require.NoError(t, election.Close())
			assert.Equal(t, 1, contender.revoked(), "leaving the election revokes the leadership")
			assert.False(t, election.HasLeadership(highavailability.DefaultLeaderID))
			require.NoError(t, election.Close())
			assert.Equal(t, 1, contender.revoked(), "closing twice revokes once")
		})
	}
}

func TestStandaloneElectionClosedBeforeItStartedGrantsNothing(t *testing.T) {
	ha := highavailability.NewStandaloneHaServices(rmAddress, dispatcherAddress)
	election := ha.ResourceManagerLeaderElection()
	require.NoError(t, election.Close())
	contender := &fakeContender{}
	assert.Error(t, election.StartLeaderElection(contender))
	assert.Empty(t, contender.grants())
}

func TestStandaloneRetrieversAnnounceTheFixedAddresses(t *testing.T) {
	ha := highavailability.NewStandaloneHaServices(rmAddress, dispatcherAddress)

	rm, dispatcher := &fakeListener{}, &fakeListener{}
	rmRetrieval := ha.ResourceManagerLeaderRetriever()
	require.NoError(t, rmRetrieval.Start(rm))
	require.NoError(t, ha.DispatcherLeaderRetriever().Start(dispatcher))

	// Nobody has to be elected first: the address is known in advance.
	assert.Equal(t, []leader{{rmAddress, highavailability.DefaultLeaderID}}, rm.notifications())
	assert.Equal(t, []leader{{dispatcherAddress, highavailability.DefaultLeaderID}}, dispatcher.notifications())
	assert.Error(t, rmRetrieval.Start(&fakeListener{}))
	assert.NoError(t, rmRetrieval.Stop())
}

// In the JobManager process: the JobManagerRunner confirms its leadership
// with its JobMaster's address, and that is what the job's retrievers
// announce, until the runner leaves the election.
func TestStandaloneJobManagerAddressIsWhatTheRunnerConfirmed(t *testing.T) {
	ha := highavailability.NewStandaloneHaServices(rmAddress, dispatcherAddress)
	jobID := api.NewJobID()
	early := &fakeListener{}
	require.NoError(t, ha.JobManagerLeaderRetriever(jobID).Start(early))

	runner := &fakeContender{}
	election := ha.JobManagerLeaderElection(jobID)
	require.NoError(t, election.StartLeaderElection(runner))
	assert.Empty(t, early.notifications(), "granted but not confirmed: no address yet")

	election.ConfirmLeadership(api.NewLeaderSessionID(), "pekko.tcp://flink@localhost:6123/user/rpc/stale")
	assert.Empty(t, early.notifications(), "a session that is not the default one confirms nothing")

	election.ConfirmLeadership(highavailability.DefaultLeaderID, jobMasterAddress)
	assert.Equal(t, []leader{{jobMasterAddress, highavailability.DefaultLeaderID}}, early.notifications())

	late := &fakeListener{}
	require.NoError(t, ha.JobManagerLeaderRetriever(jobID).Start(late))
	assert.Equal(t, []leader{{jobMasterAddress, highavailability.DefaultLeaderID}}, late.notifications())

	other := &fakeListener{}
	require.NoError(t, ha.JobManagerLeaderRetriever(api.NewJobID()).Start(other))
	assert.Empty(t, other.notifications(), "another job has no JobMaster yet")

	require.NoError(t, election.Close())
	assert.Equal(t, []leader{{jobMasterAddress, highavailability.DefaultLeaderID}, noLeader}, early.notifications(),
		"the runner left: the job has no leader")
	assert.Equal(t, 1, runner.revoked())
}

// In a TaskManager process: the JobMaster address arrives with a slot
// request, and the TaskExecutor's retriever announces it.
func TestStandaloneJobManagerAddressPublishedInATaskManager(t *testing.T) {
	ha := highavailability.NewStandaloneHaServices(rmAddress, dispatcherAddress)
	jobID := api.NewJobID()
	ha.PublishJobManagerAddress(jobID, jobMasterAddress)

	listener := &fakeListener{}
	retrieval := ha.JobManagerLeaderRetriever(jobID)
	require.NoError(t, retrieval.Start(listener))
	assert.Equal(t, []leader{{jobMasterAddress, highavailability.DefaultLeaderID}}, listener.notifications())

	ha.PublishJobManagerAddress(jobID, jobMasterAddress)
	assert.Len(t, listener.notifications(), 1, "every slot request of the job carries the same address: announced once")

	const restarted = "pekko.tcp://flink@localhost:6123/user/rpc/jobmanager_4"
	ha.PublishJobManagerAddress(jobID, restarted)
	assert.Equal(t, []leader{
		{jobMasterAddress, highavailability.DefaultLeaderID},
		{restarted, highavailability.DefaultLeaderID},
	}, listener.notifications())

	require.NoError(t, retrieval.Stop())
	ha.PublishJobManagerAddress(jobID, jobMasterAddress)
	assert.Len(t, listener.notifications(), 2, "a stopped retrieval hears nothing")
}
