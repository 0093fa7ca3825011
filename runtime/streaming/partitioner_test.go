package streaming

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// selectN asks p for the channels of n records.
func selectN(p StreamPartitioner, records []any, numberOfChannels int) []int {
	channels := make([]int, len(records))
	for i, r := range records {
		channels[i] = p.SelectChannel(r, numberOfChannels)
	}
	return channels
}

// records returns n placeholder records.
func records(n int) []any { return make([]any, n) }

func TestPartitionerNamesAndPatterns(t *testing.T) {
	tests := []struct {
		p         StreamPartitioner
		name      string
		pointwise bool
		broadcast bool
	}{
		{&ForwardPartitioner{}, "FORWARD", true, false},
		{&RescalePartitioner{}, "RESCALE", true, false},
		{&RebalancePartitioner{}, "REBALANCE", false, false},
		{&ShufflePartitioner{}, "SHUFFLE", false, false},
		{&KeyGroupStreamPartitioner{}, "HASH", false, false},
		{&BroadcastPartitioner{}, "BROADCAST", false, true},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.name {
			t.Errorf("%T.String() = %q, want %q", tt.p, got, tt.name)
		}
		if got := tt.p.IsPointwise(); got != tt.pointwise {
			t.Errorf("%s IsPointwise = %v, want %v", tt.name, got, tt.pointwise)
		}
		if got := tt.p.IsBroadcast(); got != tt.broadcast {
			t.Errorf("%s IsBroadcast = %v, want %v", tt.name, got, tt.broadcast)
		}
		if got := tt.p.Copy().String(); got != tt.name {
			t.Errorf("%s Copy().String() = %q", tt.name, got)
		}
	}
}

func TestForwardPartitionerAlwaysChannelZero(t *testing.T) {
	if got, want := selectN(&ForwardPartitioner{}, records(3), 1), []int{0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("channels = %v, want %v", got, want)
	}
}

// A shuffle reaches every channel, each about as often as the others, and
// two copies draw the same channels: a run can be repeated.
func TestShuffleSpreadsRecordsAtRandom(t *testing.T) {
	const n, channels = 4000, 4
	got := selectN((&ShufflePartitioner{}).Copy(), records(n), channels)
	counts := make([]int, channels)
	for _, c := range got {
		counts[c]++ // panics outside [0, channels)
	}
	for c, count := range counts {
		if count < n/channels*8/10 || count > n/channels*12/10 {
			t.Errorf("channel %d got %d of %d records, want about %d: %v", c, count, n, n/channels, counts)
		}
	}
	if slices.Equal(got[:20], []int{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}) {
		t.Errorf("channels go round robin, not at random: %v", got[:20])
	}
	if again := selectN((&ShufflePartitioner{}).Copy(), records(n), channels); !slices.Equal(got, again) {
		t.Error("two copies drew different channels")
	}
}

// TestRebalanceRoundRobin: the position advances before each record, so a
// producer starting at position s sends its first record to s+1.
func TestRebalanceRoundRobin(t *testing.T) {
	tests := []struct {
		name  string
		start int
		want  []int
	}{
		{"zero value starts at channel 1", 0, []int{1, 2, 3, 0, 1, 2}},
		{"start 2 (Flink: a random start)", 2, []int{3, 0, 1, 2, 3, 0}},
		{"start 3 wraps at once", 3, []int{0, 1, 2, 3, 0, 1}},
	}
	for _, tt := range tests {
		p := &RebalancePartitioner{NextChannelToSendTo: tt.start}
		if got := selectN(p, records(6), 4); !slices.Equal(got, tt.want) {
			t.Errorf("%s: channels = %v, want %v", tt.name, got, tt.want)
		}
	}

	// Copy starts afresh: the copies of one edge do not share a position.
	prototype := &RebalancePartitioner{}
	a, b := prototype.Copy(), prototype.Copy()
	a.SelectChannel(nil, 4)
	if got := b.SelectChannel(nil, 4); got != 1 {
		t.Errorf("second copy's first channel = %d, want 1 (copies share state)", got)
	}
}

// pointwiseConsumers returns the consumer subtasks [start, end) a producer
// subtask feeds on a POINTWISE edge: Flink's rule, which
// executiongraph.connectPointwise implements.
func pointwiseConsumers(producer, producers, consumers int) (start, end int) {
	switch {
	case producers == consumers:
		return producer, producer + 1
	case producers > consumers:
		for c := range consumers {
			if producer >= c*producers/consumers && producer < (c+1)*producers/consumers {
				return c, c + 1
			}
		}
		panic("unreachable")
	default:
		return (producer*consumers + producers - 1) / producers, ((producer+1)*consumers + producers - 1) / producers
	}
}

// TestRescaleRanges: each producer round-robins, from channel 0, over the
// consumers its POINTWISE connection gives it, and reaches no other.
func TestRescaleRanges(t *testing.T) {
	tests := []struct {
		producers, consumers int
		want                 map[int][]int // producer → consumers of its first records
	}{
		{2, 4, map[int][]int{0: {0, 1, 0, 1}, 1: {2, 3, 2, 3}}},
		{3, 7, map[int][]int{0: {0, 1, 2, 0}, 1: {3, 4, 3, 4}, 2: {5, 6, 5, 6}}},
		{4, 2, map[int][]int{0: {0, 0}, 1: {0, 0}, 2: {1, 1}, 3: {1, 1}}},
		{3, 3, map[int][]int{0: {0, 0}, 1: {1, 1}, 2: {2, 2}}},
	}
	for _, tt := range tests {
		for producer, want := range tt.want {
			start, end := pointwiseConsumers(producer, tt.producers, tt.consumers)
			p := (&RescalePartitioner{}).Copy()
			var got []int
			for _, channel := range selectN(p, records(len(want)), end-start) {
				got = append(got, start+channel)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d → %d, producer %d: consumers = %v, want %v", tt.producers, tt.consumers, producer, got, want)
			}
		}
	}
}

// TestKeyGroupStreamPartitioner: the channel is the subtask owning the key
// group of the record's key, computed here from the formulas.
func TestKeyGroupStreamPartitioner(t *testing.T) {
	p := &KeyGroupStreamPartitioner{
		KeySelector:    func(record any) any { return record.(Tuple2[string, int]).F0 },
		MaxParallelism: 128,
	}
	for _, word := range []string{"hello", "world", "to", "be", "or", "not", "the", "question"} {
		keyGroup := int(javaMurmurHash(stringHashCodeByFormula(word))) % 128
		want := keyGroup * 4 / 128
		if got := p.SelectChannel(Tuple2Of(word, 1), 4); got != want {
			t.Errorf("channel of %q = %d, want %d (key group %d)", word, got, want, keyGroup)
		}
	}
	// Known value: "hello" is in key group 35, owned by subtask 1 of 4.
	if got := p.SelectChannel(Tuple2Of("hello", 7), 4); got != 1 {
		t.Errorf(`channel of "hello" = %d, want 1`, got)
	}
}

// stringHashCodeByFormula is s[0]*31^(n-1) + … + s[n-1] with int32
// overflow, for ASCII strings.
func stringHashCodeByFormula(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = h*31 + int32(s[i])
	}
	return h
}

func TestBroadcastPartitioner(t *testing.T) {
	p := &BroadcastPartitioner{}
	if diff := cmp.Diff([]int{0, 1, 2}, p.SelectChannels(3)); diff != "" {
		t.Errorf("SelectChannels(3) (-want +got):\n%s", diff)
	}
	defer func() {
		if r := recover(); r != "streaming: Broadcast partitioner does not support select channels." {
			t.Errorf("SelectChannel panicked with %v, want Flink's message", r)
		}
	}()
	p.SelectChannel("x", 3)
}
