package dispatcher

import (
	"container/list"
	"time"

	"flinklab/runtime/api"
)

// unbounded is an expiringCache's maximumCapacity for "no bound".
const unbounded = -1

// expiringCache is the part of Guava's Cache that both job stores are
// built on. Flink's stores make theirs with
//
//	CacheBuilder.newBuilder()
//	        .expireAfterWrite(expirationTime)
//	        .maximumSize(maximumCapacity)
//	        .removalListener(…)
//
// Entries are kept in the order they were written. One written
// expirationTime ago or earlier has expired; with more than
// maximumCapacity entries, the oldest goes. Every entry that goes, for
// either reason or in removeAll, is handed to onRemoval.
//
// Expired entries go when the cache is next used, or in cleanUp. Like the
// stores, the cache is used from one goroutine only.
//
// Differs from Flink: Guava's maximumSize evicts the entry used least
// recently; here it is the oldest, which is also the next to expire, so
// that a learner can tell which job a full store forgets.
type expiringCache[V any] struct {
	expirationTime  time.Duration // ≤ 0: entries never expire
	maximumCapacity int           // unbounded, or how many entries are kept
	onRemoval       func(api.JobID, V)

	entries map[api.JobID]*list.Element
	order   *list.List // of *expiringEntry[V], oldest first
}

type expiringEntry[V any] struct {
	jobID   api.JobID
	value   V
	written time.Time
}

func newExpiringCache[V any](expirationTime time.Duration, maximumCapacity int, onRemoval func(api.JobID, V)) *expiringCache[V] {
	if onRemoval == nil {
		onRemoval = func(api.JobID, V) {}
	}
	return &expiringCache[V]{
		expirationTime:  expirationTime,
		maximumCapacity: maximumCapacity,
		onRemoval:       onRemoval,
		entries:         make(map[api.JobID]*list.Element),
		order:           list.New(),
	}
}

// put adds an entry as the newest, replacing the job's earlier one
// without a removal, and then evicts the oldest while there are too
// many: with maximumCapacity 0, the new entry itself.
func (c *expiringCache[V]) put(jobID api.JobID, value V) {
	if e, ok := c.entries[jobID]; ok {
		c.order.Remove(e)
	}
	c.entries[jobID] = c.order.PushBack(&expiringEntry[V]{jobID: jobID, value: value, written: time.Now()})
	c.cleanUp()
	for c.maximumCapacity != unbounded && c.order.Len() > c.maximumCapacity {
		c.remove(c.order.Front())
	}
}

// get returns the entry of a job, unless it has expired.
func (c *expiringCache[V]) get(jobID api.JobID) (V, bool) {
	c.cleanUp()
	if e, ok := c.entries[jobID]; ok {
		return e.Value.(*expiringEntry[V]).value, true
	}
	var zero V
	return zero, false
}

// values returns the entries that have not expired, oldest first.
func (c *expiringCache[V]) values() []V {
	c.cleanUp()
	out := make([]V, 0, c.order.Len())
	for e := c.order.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*expiringEntry[V]).value)
	}
	return out
}

// len is the number of entries that have not expired.
func (c *expiringCache[V]) len() int {
	c.cleanUp()
	return c.order.Len()
}

// cleanUp removes the expired entries. They are the oldest, so it looks
// from the front until it finds one that has not expired.
func (c *expiringCache[V]) cleanUp() {
	if c.expirationTime <= 0 {
		return
	}
	now := time.Now()
	for e := c.order.Front(); e != nil && now.Sub(e.Value.(*expiringEntry[V]).written) >= c.expirationTime; e = c.order.Front() {
		c.remove(e)
	}
}

// removeAll removes every entry (Guava's invalidateAll).
func (c *expiringCache[V]) removeAll() {
	for e := c.order.Front(); e != nil; e = c.order.Front() {
		c.remove(e)
	}
}

func (c *expiringCache[V]) remove(e *list.Element) {
	entry := c.order.Remove(e).(*expiringEntry[V])
	delete(c.entries, entry.jobID)
	c.onRemoval(entry.jobID, entry.value)
}
