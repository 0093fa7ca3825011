package network

import (
	"context"
	"fmt"
	"sync"

	"flinklab/runtime/api"
)

// ResultPartitionManager is the registry of the result partitions produced
// in one process: producers register here, consumers look their partitions
// up here. It mirrors Flink's ResultPartitionManager.
//
// In Flink each TaskExecutor has its own, and a consumer on another
// TaskExecutor reaches it through the Netty server. In flinklab's embedded
// cluster every TaskExecutor shares one, so every exchange is local; a
// TaskExecutor in a process of its own has its own, and a
// PartitionRequestServer serves its partitions to the other processes.
//
// All methods are safe for concurrent use.
type ResultPartitionManager struct {
	mu                   sync.Mutex
	registeredPartitions map[api.ResultPartitionID]*ResultPartition
	// pendingRequests holds, per partition not yet registered, the
	// consumers waiting for it.
	pendingRequests map[api.ResultPartitionID]*pendingRequest
}

// pendingRequest is the consumers waiting for one partition to register.
type pendingRequest struct {
	registered chan struct{} // closed when the partition registers
	waiting    int           // consumers waiting; the entry goes when it reaches 0
}

// NewResultPartitionManager returns an empty registry.
func NewResultPartitionManager() *ResultPartitionManager {
	return &ResultPartitionManager{
		registeredPartitions: make(map[api.ResultPartitionID]*ResultPartition),
		pendingRequests:      make(map[api.ResultPartitionID]*pendingRequest),
	}
}

// registerResultPartition makes a partition available to consumers and
// wakes those already waiting for it.
func (m *ResultPartitionManager) registerResultPartition(p *ResultPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.registeredPartitions[p.id]; ok {
		return fmt.Errorf("register partition %s: %w", p.id, ErrDuplicatePartition)
	}
	m.registeredPartitions[p.id] = p
	if pending, ok := m.pendingRequests[p.id]; ok {
		close(pending.registered)
		delete(m.pendingRequests, p.id)
	}
	return nil
}

// unregisterResultPartition forgets a released partition.
func (m *ResultPartitionManager) unregisterResultPartition(p *ResultPartition) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.registeredPartitions[p.id] == p {
		delete(m.registeredPartitions, p.id)
	}
}

// createSubpartitionView attaches a reader to one subpartition of a
// partition, waiting until the partition is registered or ctx ends.
//
// Consumers and producers are deployed at the same time, so a consumer may
// well ask before its producer has registered. Differs from Flink: Flink
// answers with a PartitionNotFoundException and the consumer retries with
// backoff (taskmanager.network.request-backoff.initial/max) before it gives
// up and fails; here the request simply waits, and ctx bounds the wait.
func (m *ResultPartitionManager) createSubpartitionView(ctx context.Context, id api.ResultPartitionID,
	subpartitionIndex int, listener bufferAvailabilityListener) (resultSubpartitionView, error) {
	partition, err := m.waitForPartition(ctx, id)
	if err != nil {
		return nil, err
	}
	return partition.createSubpartitionView(subpartitionIndex, listener)
}

// createSubpartitionViewIfRegistered attaches a reader to one subpartition
// of a registered partition, and fails at once with an error wrapping
// ErrPartitionNotFound if the partition is not registered. The
// PartitionRequestServer asks this for remote consumers: it must never
// wait, and the consumer retries with backoff, as in Flink's
// ResultPartitionManager.createSubpartitionView.
func (m *ResultPartitionManager) createSubpartitionViewIfRegistered(id api.ResultPartitionID,
	subpartitionIndex int, listener bufferAvailabilityListener) (resultSubpartitionView, error) {
	m.mu.Lock()
	partition, ok := m.registeredPartitions[id]
	m.mu.Unlock()
	if !ok {
		return nil, partitionNotFound(id)
	}
	return partition.createSubpartitionView(subpartitionIndex, listener)
}

// waitForPartition returns the registered partition, waiting for it to
// register if need be.
func (m *ResultPartitionManager) waitForPartition(ctx context.Context, id api.ResultPartitionID) (*ResultPartition, error) {
	m.mu.Lock()
	if partition, ok := m.registeredPartitions[id]; ok {
		m.mu.Unlock()
		return partition, nil
	}
	pending, ok := m.pendingRequests[id]
	if !ok {
		pending = &pendingRequest{registered: make(chan struct{})}
		m.pendingRequests[id] = pending
	}
	pending.waiting++
	m.mu.Unlock()

	select {
	case <-pending.registered:
		return m.waitForPartition(ctx, id) // look it up again: it may be released already
	case <-ctx.Done():
		m.mu.Lock()
		pending.waiting--
		if pending.waiting == 0 && m.pendingRequests[id] == pending {
			delete(m.pendingRequests, id)
		}
		m.mu.Unlock()
		return nil, fmt.Errorf("partition %s was not registered: %w", id, ctx.Err())
	}
}

// releasePartition releases a registered partition, if there is one.
func (m *ResultPartitionManager) releasePartition(id api.ResultPartitionID) {
	m.mu.Lock()
	partition := m.registeredPartitions[id]
	m.mu.Unlock()
	if partition != nil {
		partition.Release()
	}
}

// numberOfRegisteredPartitions returns how many partitions are registered;
// tests use it to prove partitions are not leaked.
func (m *ResultPartitionManager) numberOfRegisteredPartitions() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.registeredPartitions)
}

// numberOfPendingRequests returns for how many partitions consumers are
// waiting; tests use it to prove abandoned waits are forgotten.
func (m *ResultPartitionManager) numberOfPendingRequests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pendingRequests)
}

// isRegistered reports whether a partition is registered.
func (m *ResultPartitionManager) isRegistered(id api.ResultPartitionID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.registeredPartitions[id]
	return ok
}
