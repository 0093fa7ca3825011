package zookeeper_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/highavailability"
	"flinklab/runtime/highavailability/zookeeper"
	"flinklab/runtime/highavailability/zookeeper/zookeepertest"
)

// startProcess is one JobManager process's part in the election.
func startProcess(t *testing.T, address string) *zookeeper.LeaderElectionService {
	t.Helper()
	service, err := zookeeper.NewLeaderElectionService(connect(t, address), false, quietLogger())
	require.NoError(t, err)
	t.Cleanup(service.Close)
	return service
}

// contend enters a contender for component into the process's election.
func contend(t *testing.T, service *zookeeper.LeaderElectionService, component string) (highavailability.LeaderElection, *recordingContender) {
	t.Helper()
	contender := newRecordingContender()
	election := service.NewLeaderElection(component)
	require.NoError(t, election.StartLeaderElection(contender))
	return election, contender
}

// The process that leads grants every one of its components the same new
// leader session; each confirms with its address, and only then does a
// retriever in another process learn of it. When that process leaves the
// election, the standby's components are granted a new session, and a
// confirmation under the old one is ignored.
func TestTheLeadingProcessGrantsEveryComponentOneSessionAndPublishesWhatTheyConfirm(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	leader := startProcess(t, server.Address())
	leaderDispatcher, dispatcherGrants := contend(t, leader, zookeeper.ComponentDispatcher)
	session := dispatcherGrants.await(t, "the leading process's Dispatcher is granted")
	require.False(t, session.IsZero())
	_, rmGrants := contend(t, leader, zookeeper.ComponentResourceManager)
	assert.Equal(t, session, rmGrants.await(t, "a contender that registers while the process leads is granted at once"),
		"one session for every component of the process")
	assert.True(t, leaderDispatcher.HasLeadership(session))

	standby := startProcess(t, server.Address())
	standbyDispatcher, standbyGrants := contend(t, standby, zookeeper.ComponentDispatcher)

	retrieverClient := connect(t, server.Address())
	retriever := zookeeper.NewLeaderRetriever(retrieverClient, zookeeper.ComponentDispatcher, false, quietLogger())
	heard := newRecordingRetrievalListener()
	require.NoError(t, retriever.Start(heard))
	t.Cleanup(func() { _ = retriever.Stop() })

	first := zookeeper.LeaderInformation{Address: "pekko://flink@jobmanager-1:6123/user/rpc/dispatcher_0", SessionID: session}
	leaderDispatcher.ConfirmLeadership(session, first.Address)
	heard.awaitLeader(t, first)
	data, stat, err := retrieverClient.Conn().Get(retrieverClient.Path("leader/dispatcher/connection_info"))
	require.NoError(t, err)
	assert.NotZero(t, stat.EphemeralOwner, "the leader information goes with the leader's session")
	var published zookeeper.LeaderInformation
	require.NoError(t, json.Unmarshal(data, &published))
	assert.Equal(t, first, published)

	leader.Close() // the leading process leaves the election
	next := standbyGrants.await(t, "the standby's Dispatcher is granted")
	require.False(t, next.IsZero())
	assert.NotEqual(t, session, next, "a new leadership, a new session: a new fencing token")
	assert.False(t, leaderDispatcher.HasLeadership(session))

	leaderDispatcher.ConfirmLeadership(session, first.Address) // too late: ignored
	second := zookeeper.LeaderInformation{Address: "pekko://flink@jobmanager-2:6123/user/rpc/dispatcher_0", SessionID: next}
	standbyDispatcher.ConfirmLeadership(next, second.Address)
	heard.awaitLeader(t, second)
}

// A process whose leadership ends (its connection SUSPENDED) revokes
// every component; a retriever that loses its connection forgets the
// leader, and reads it again once reconnected.
func TestASuspendedProcessRevokesEveryComponent(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	proxy := zookeepertest.NewProxy(t, server.Address())
	leader := startProcess(t, proxy.Address())
	_, dispatcher := contend(t, leader, zookeeper.ComponentDispatcher)
	_, resourceManager := contend(t, leader, zookeeper.ComponentResourceManager)
	session := dispatcher.await(t, "granted")
	require.Equal(t, session, resourceManager.await(t, "granted"))

	proxy.Block()
	assert.True(t, dispatcher.await(t, "revoked").IsZero(), "the Dispatcher is revoked")
	assert.True(t, resourceManager.await(t, "revoked").IsZero(), "and so is the ResourceManager")
}

// A retriever whose connection is SUSPENDED cannot tell who leads: it
// forgets the leader at once, and reads it again once reconnected.
func TestARetrieverForgetsTheLeaderWhileSuspended(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	leader := startProcess(t, server.Address())
	election, grants := contend(t, leader, zookeeper.ComponentResourceManager)
	session := grants.await(t, "granted")
	info := zookeeper.LeaderInformation{Address: "pekko://flink@jobmanager-1:6123/user/rpc/resourcemanager_0", SessionID: session}
	election.ConfirmLeadership(session, info.Address)

	proxy := zookeepertest.NewProxy(t, server.Address())
	retrieverClient := connect(t, proxy.Address())
	retriever := zookeeper.NewLeaderRetriever(retrieverClient, zookeeper.ComponentResourceManager, false, quietLogger())
	heard := newRecordingRetrievalListener()
	require.NoError(t, retriever.Start(heard))
	t.Cleanup(func() { _ = retriever.Stop() })
	heard.awaitLeader(t, info)

	proxy.Block()
	heard.awaitLeader(t, zookeeper.LeaderInformation{}) // no leader known
	proxy.Unblock()
	heard.awaitLeader(t, info)
}

// A JobManager process's services enter the election once its first
// component contends; a TaskManager process's only retrieve, and never
// put a node in the latch.
func TestATaskManagerRetrievesLeadersWithoutEnteringTheElection(t *testing.T) {
	t.Parallel()
	server := zookeepertest.Shared(t)
	cfg := configFor(t, server.Address())
	storage := t.TempDir()
	jobManager, err := zookeeper.NewHaServices(cfg, storage, quietLogger())
	require.NoError(t, err)
	t.Cleanup(jobManager.Close)
	taskManager, err := zookeeper.NewHaServices(cfg, storage, quietLogger())
	require.NoError(t, err)
	t.Cleanup(taskManager.Close)

	heard := newRecordingRetrievalListener()
	retriever := taskManager.ResourceManagerLeaderRetriever()
	require.NoError(t, retriever.Start(heard))
	t.Cleanup(func() { _ = retriever.Stop() })

	contender := newRecordingContender()
	election := jobManager.ResourceManagerLeaderElection()
	require.NoError(t, election.StartLeaderElection(contender))
	session := contender.await(t, "the only JobManager leads")
	election.ConfirmLeadership(session, "pekko://flink@jobmanager:6123/user/rpc/resourcemanager_0")
	heard.awaitLeader(t, zookeeper.LeaderInformation{Address: "pekko://flink@jobmanager:6123/user/rpc/resourcemanager_0", SessionID: session})

	latch, _, err := taskManager.Client().Conn().Children(taskManager.Client().Path("leader/latch"))
	require.NoError(t, err)
	assert.Len(t, latch, 1, "only the JobManager's latch node")
	assert.DirExists(t, filepath.Join(storage, "job-result-store", strings.Trim(cfg.ClusterID, "/")))
	_, err = zookeeper.NewHaServices(cfg, "", quietLogger())
	assert.EqualError(t, err, "Configuration is missing the mandatory parameter: high-availability.storageDir")
}
