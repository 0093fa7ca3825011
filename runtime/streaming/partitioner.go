package streaming

import "math/rand/v2"

// StreamPartitioner decides, for every record a subtask emits on a network
// edge, which channel (which consumer subtask among those this producer is
// connected to) receives it. It mirrors Flink's
// org.apache.flink.streaming.runtime.partitioner.StreamPartitioner, and its
// String is the name Flink prints in plans and the web UI.
//
//	partitioner                 String       JobEdge pattern   channel of each record
//	ForwardPartitioner          FORWARD      POINTWISE         0: the one consumer this producer feeds
//	RescalePartitioner          RESCALE      POINTWISE         round robin over the few consumers this producer feeds
//	RebalancePartitioner        REBALANCE    ALL_TO_ALL        round robin over all consumers
//	ShufflePartitioner          SHUFFLE      ALL_TO_ALL        a consumer picked at random
//	KeyGroupStreamPartitioner   HASH         ALL_TO_ALL        the subtask owning the key's key group
//	BroadcastPartitioner        BROADCAST    ALL_TO_ALL        every consumer
//
// The partitioner on a StreamEdge is a prototype shared by all producer
// subtasks; the runtime calls Copy once per producing subtask and output,
// because the round-robin partitioners keep a position (in Flink each task
// deserializes its own instance). SelectChannel is pure apart from that
// position: no clock, no I/O, and the shuffle's randomness is seeded.
type StreamPartitioner interface {
	// SelectChannel returns the channel in [0, numberOfChannels) for
	// record. BroadcastPartitioner panics: use SelectChannels.
	SelectChannel(record any, numberOfChannels int) int
	// IsBroadcast reports whether every record goes to every channel.
	IsBroadcast() bool
	// IsPointwise reports whether the JobEdge between the chains is
	// POINTWISE (each producer feeds a few consumers) rather than ALL_TO_ALL.
	IsPointwise() bool
	// Copy returns a partitioner with fresh state for one producing subtask.
	Copy() StreamPartitioner
	// String returns Flink's name for the partitioner, e.g. "HASH".
	String() string
}

// ForwardPartitioner sends each record to the consumer subtask with the
// same index. Only a forward edge between operators of equal parallelism
// can be chained; an unchained forward edge is POINTWISE with one channel
// per producer. It mirrors Flink's ForwardPartitioner.
type ForwardPartitioner struct{}

// SelectChannel always returns 0: a forward producer has one channel.
func (*ForwardPartitioner) SelectChannel(any, int) int { return 0 }

// IsBroadcast reports false.
func (*ForwardPartitioner) IsBroadcast() bool { return false }

// IsPointwise reports true.
func (*ForwardPartitioner) IsPointwise() bool { return true }

// Copy returns a new ForwardPartitioner.
func (*ForwardPartitioner) Copy() StreamPartitioner { return &ForwardPartitioner{} }

// String returns "FORWARD".
func (*ForwardPartitioner) String() string { return "FORWARD" }

// RebalancePartitioner sends records round robin over all consumer
// subtasks, evening out skew. It mirrors Flink's RebalancePartitioner: the
// position is advanced before each record, so the first record goes to
// channel NextChannelToSendTo+1.
//
// Flink starts each producer at a random channel
// (ThreadLocalRandom.nextInt(numberOfChannels) in setup), so that all
// producers do not hit channel 1 first. Randomness is an input here: the
// runtime sets NextChannelToSendTo on its copy before the first record
// (to a random channel, or to the subtask index for reproducible runs);
// the zero value starts at channel 1.
type RebalancePartitioner struct {
	// NextChannelToSendTo is the channel the previous record went to.
	NextChannelToSendTo int
}

// SelectChannel advances the position and returns it.
func (p *RebalancePartitioner) SelectChannel(_ any, numberOfChannels int) int {
	p.NextChannelToSendTo = (p.NextChannelToSendTo + 1) % numberOfChannels
	return p.NextChannelToSendTo
}

// IsBroadcast reports false.
func (*RebalancePartitioner) IsBroadcast() bool { return false }

// IsPointwise reports false: every producer reaches every consumer.
func (*RebalancePartitioner) IsPointwise() bool { return false }

// Copy returns a RebalancePartitioner at position 0.
func (*RebalancePartitioner) Copy() StreamPartitioner { return &RebalancePartitioner{} }

// String returns "REBALANCE".
func (*RebalancePartitioner) String() string { return "REBALANCE" }

// RescalePartitioner sends records round robin, but only over the consumer
// subtasks this producer is connected to. The JobEdge is POINTWISE, so the
// ExecutionGraph connects each producer to a contiguous range of consumers
// (2 producers, 4 consumers: producer 0 feeds 0–1, producer 1 feeds 2–3) and
// numberOfChannels is the size of that range. Rescaling moves less data
// than rebalancing, and needs no all-to-all connections. It mirrors Flink's
// RescalePartitioner, which starts at channel 0.
type RescalePartitioner struct {
	// nextChannelToSendTo is the channel of the next record. Flink keeps
	// the previous one, starting at -1; the sequence is the same.
	nextChannelToSendTo int
}

// SelectChannel returns 0, 1, …, numberOfChannels-1, 0, 1, … in turn.
func (p *RescalePartitioner) SelectChannel(_ any, numberOfChannels int) int {
	if p.nextChannelToSendTo >= numberOfChannels {
		p.nextChannelToSendTo = 0
	}
	channel := p.nextChannelToSendTo
	p.nextChannelToSendTo++
	return channel
}

// IsBroadcast reports false.
func (*RescalePartitioner) IsBroadcast() bool { return false }

// IsPointwise reports true.
func (*RescalePartitioner) IsPointwise() bool { return true }

// Copy returns a RescalePartitioner that starts again at channel 0.
func (*RescalePartitioner) Copy() StreamPartitioner { return &RescalePartitioner{} }

// String returns "RESCALE".
func (*RescalePartitioner) String() string { return "RESCALE" }

// KeyGroupStreamPartitioner sends each record to the subtask that owns its
// key's key group, so that all records with one key meet in one subtask
// (and its keyed state). KeyBy creates it. It mirrors Flink's
// KeyGroupStreamPartitioner: SelectChannel is
// AssignKeyToParallelOperator(KeySelector(record), MaxParallelism, numberOfChannels).
type KeyGroupStreamPartitioner struct {
	// KeySelector extracts the key from a record (the KeyBy function).
	KeySelector func(record any) any
	// MaxParallelism is the number of key groups: the max parallelism of
	// the consuming operator. The StreamGraph sets it for each edge.
	MaxParallelism int
}

// SelectChannel returns the subtask owning the record's key group.
func (p *KeyGroupStreamPartitioner) SelectChannel(record any, numberOfChannels int) int {
	return AssignKeyToParallelOperator(p.KeySelector(record), p.MaxParallelism, numberOfChannels)
}

// IsBroadcast reports false.
func (*KeyGroupStreamPartitioner) IsBroadcast() bool { return false }

// IsPointwise reports false.
func (*KeyGroupStreamPartitioner) IsPointwise() bool { return false }

// Copy returns a partitioner with the same key selector and max parallelism.
func (p *KeyGroupStreamPartitioner) Copy() StreamPartitioner {
	c := *p
	return &c
}

// String returns "HASH".
func (*KeyGroupStreamPartitioner) String() string { return "HASH" }

// BroadcastPartitioner sends every record to every consumer subtask. It
// mirrors Flink's BroadcastPartitioner, whose selectChannel throws.
type BroadcastPartitioner struct{}

// SelectChannel panics with Flink's message: a broadcast record has no
// single channel. Callers check IsBroadcast and use SelectChannels.
func (*BroadcastPartitioner) SelectChannel(any, int) int {
	panic("streaming: Broadcast partitioner does not support select channels.")
}

// SelectChannels returns every channel, 0 to numberOfChannels-1.
func (*BroadcastPartitioner) SelectChannels(numberOfChannels int) []int {
	channels := make([]int, numberOfChannels)
	for i := range channels {
		channels[i] = i
	}
	return channels
}

// IsBroadcast reports true.
func (*BroadcastPartitioner) IsBroadcast() bool { return true }

// IsPointwise reports false.
func (*BroadcastPartitioner) IsPointwise() bool { return false }

// Copy returns a new BroadcastPartitioner.
func (*BroadcastPartitioner) Copy() StreamPartitioner { return &BroadcastPartitioner{} }

// String returns "BROADCAST".
func (*BroadcastPartitioner) String() string { return "BROADCAST" }

// ShufflePartitioner sends each record to a consumer subtask picked at
// random, uniformly. It mirrors Flink's ShufflePartitioner. Differs from
// Flink: each copy draws from a generator with the same fixed seed (Flink
// uses an unseeded java.util.Random), so that a run can be repeated.
type ShufflePartitioner struct {
	random *rand.Rand
}

// SelectChannel returns a channel in [0, numberOfChannels) at random.
func (p *ShufflePartitioner) SelectChannel(_ any, numberOfChannels int) int {
	if p.random == nil {
		p.random = newShuffleRandom()
	}
	return p.random.IntN(numberOfChannels)
}

// newShuffleRandom is the generator of one ShufflePartitioner copy.
func newShuffleRandom() *rand.Rand { return rand.New(rand.NewPCG(0x5348554646, 0x4c45)) }

// IsBroadcast reports false.
func (*ShufflePartitioner) IsBroadcast() bool { return false }

// IsPointwise reports false.
func (*ShufflePartitioner) IsPointwise() bool { return false }

// Copy returns a ShufflePartitioner that draws its channels afresh.
func (*ShufflePartitioner) Copy() StreamPartitioner {
	return &ShufflePartitioner{random: newShuffleRandom()}
}

// String returns "SHUFFLE".
func (*ShufflePartitioner) String() string { return "SHUFFLE" }

// Compile-time checks that every partitioner is a StreamPartitioner.
var (
	_ StreamPartitioner = (*ForwardPartitioner)(nil)
	_ StreamPartitioner = (*RebalancePartitioner)(nil)
	_ StreamPartitioner = (*ShufflePartitioner)(nil)
	_ StreamPartitioner = (*RescalePartitioner)(nil)
	_ StreamPartitioner = (*KeyGroupStreamPartitioner)(nil)
	_ StreamPartitioner = (*BroadcastPartitioner)(nil)
)
