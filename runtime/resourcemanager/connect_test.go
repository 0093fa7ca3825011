package resourcemanager

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/gateway"
	"flinklab/runtime/rpc"
)

// slowService is a LocalService whose connections to the addresses in slow
// take until release is closed, as a dial to a far process might.
type slowService struct {
	*rpc.LocalService
	mu      sync.Mutex
	slow    map[string]bool
	release chan struct{}
}

func (s *slowService) Connect(ctx context.Context, address string) (any, error) {
	s.mu.Lock()
	slow := s.slow[address]
	s.mu.Unlock()
	if slow {
		<-s.release
	}
	return s.LocalService.Connect(ctx, address)
}

// Connecting back to a registering TaskExecutor or JobMaster may dial
// another process. Meanwhile the ResourceManager's main thread must go on
// answering everyone else (and sending heartbeat requests).
func TestConnectingBackToARegisteringPeerDoesNotHoldTheMainThread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := &slowService{LocalService: rpc.NewLocalService(), slow: map[string]bool{}, release: make(chan struct{})}
		c := startClusterOn(t, Config{}, svc)
		defer c.rm.Close()

		teAddress := svc.Address("taskmanager_far")
		require.NoError(t, svc.Register(teAddress, c.requests.gateway()))
		jm := c.newJobMaster("jobmanager_far")
		svc.mu.Lock()
		svc.slow[teAddress], svc.slow[jm.address] = true, true
		svc.mu.Unlock()

		registered := make(chan error, 2)
		go func() {
			_, err := c.rm.RegisterTaskExecutor(c.ctx, c.rmID, gateway.TaskExecutorRegistration{
				ResourceID: "far", TaskExecutorAddress: teAddress, NumberOfSlots: 1,
				TotalResourceProfile: defaultTaskManagerResources(1),
			})
			registered <- err
		}()
		go func() { registered <- c.registerJobMaster(jm) }()
		synctest.Wait() // both registrations wait for their connections

		free, err := c.rm.NumberOfFreeSlots(c.ctx)
		require.NoError(t, err, "the main thread must answer while connections are being made")
		assert.Equal(t, 0, free)

		close(svc.release)
		require.NoError(t, <-registered)
		require.NoError(t, <-registered)
		require.NoError(t, c.declare(jm, 1), "the JobMaster is registered once its connection is there")
		assert.Contains(t, c.logs.String(), "Registering TaskManager with ResourceID far")
	})
}
