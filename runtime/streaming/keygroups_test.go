package streaming

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestKeyGroupOfHello derives the key group of "hello" for max parallelism
// 128 step by step, from Java's String.hashCode and Flink's
// MathUtils.murmurHash, with int64 arithmetic masked to 32 bits (a
// different route than the uint32 code under test). The intermediate
// values were also checked with a separate Python script.
func TestKeyGroupOfHello(t *testing.T) {
	// String.hashCode: h = 31*h + c for each char.
	h := int64(0)
	for _, step := range []struct {
		c    rune
		want int64
	}{{'h', 104}, {'e', 3325}, {'l', 103183}, {'l', 3198781}, {'o', 99162322}} {
		h = 31*h + int64(step.c)
		if h != step.want {
			t.Fatalf("hash after %q = %d, want %d", step.c, h, step.want)
		}
	}
	if got := HashCode("hello"); int64(got) != h {
		t.Fatalf(`HashCode("hello") = %d, want %d`, got, h)
	}

	// MathUtils.murmurHash(99162322), one line of Flink's code per step.
	mask := func(x int64) int64 { return x & 0xffffffff }
	rotl := func(x int64, r uint) int64 { return mask(x<<r | x>>(32-r)) }
	signed := func(x int64) int64 { return int64(int32(uint32(x))) }
	c := mask(h)
	steps := []struct {
		name string
		do   func(int64) int64
		want int64 // as a Java int
	}{
		{"code *= 0xcc9e2d51", func(c int64) int64 { return mask(c * 0xcc9e2d51) }, -2118531982},
		{"rotateLeft(code, 15)", func(c int64) int64 { return rotl(c, 15) }, -499564324},
		{"code *= 0x1b873593", func(c int64) int64 { return mask(c * 0x1b873593) }, 693226068},
		{"rotateLeft(code, 13)", func(c int64) int64 { return rotl(c, 13) }, 961185066},
		{"code = code*5 + 0xe6546b64", func(c int64) int64 { return mask(c*5 + 0xe6546b64) }, 80282934},
		{"code ^= 4", func(c int64) int64 { return c ^ 4 }, 80282930},
		{"code ^= code >>> 16", func(c int64) int64 { return c ^ c>>16 }, 80282107},
		{"code *= 0x85ebca6b", func(c int64) int64 { return mask(c * 0x85ebca6b) }, -738401815},
		{"code ^= code >>> 13", func(c int64) int64 { return c ^ c>>13 }, -738558450},
		{"code *= 0xc2b2ae35", func(c int64) int64 { return mask(c * 0xc2b2ae35) }, 1715838182},
		{"code ^= code >>> 16", func(c int64) int64 { return c ^ c>>16 }, 1715862179},
	}
	for _, step := range steps {
		c = step.do(c)
		if got := signed(c); got != step.want {
			t.Fatalf("after %s: %d, want %d", step.name, got, step.want)
		}
	}
	// 1715862179 is non-negative, so murmurHash returns it as it is.
	const murmur = 1715862179
	if got := MurmurHash(int32(h)); got != murmur {
		t.Fatalf("MurmurHash(%d) = %d, want %d", h, got, murmur)
	}

	// Key group: 1715862179 % 128 = 35. Subtask at parallelism 4: 35*4/128 = 1.
	if got, want := AssignToKeyGroup("hello", 128), murmur%128; got != want || want != 35 {
		t.Fatalf(`AssignToKeyGroup("hello", 128) = %d, want %d (35)`, got, want)
	}
	if got := AssignKeyToParallelOperator("hello", 128, 4); got != 1 {
		t.Fatalf(`AssignKeyToParallelOperator("hello", 128, 4) = %d, want 1`, got)
	}
}

// javaMurmurHash is MathUtils.murmurHash written again with int64
// arithmetic, to check MurmurHash on many inputs.
func javaMurmurHash(code int32) int32 {
	mask := func(x int64) int64 { return x & 0xffffffff }
	rotl := func(x int64, r uint) int64 { return mask(x<<r | x>>(32-r)) }
	c := mask(int64(code))
	c = rotl(mask(c*0xcc9e2d51), 15)
	c = rotl(mask(c*0x1b873593), 13)
	c = mask(c*5+0xe6546b64) ^ 4
	c ^= c >> 16
	c = mask(c * 0x85ebca6b)
	c ^= c >> 13
	c = mask(c * 0xc2b2ae35)
	c ^= c >> 16
	v := int64(int32(uint32(c)))
	switch {
	case v >= 0:
		return int32(v)
	case v != math.MinInt32:
		return int32(-v)
	default:
		return 0
	}
}

func TestMurmurHashMatchesJavaArithmetic(t *testing.T) {
	for _, code := range []int32{0, 1, -1, 42, 99162322, math.MaxInt32, math.MinInt32, 123456789, -987654321} {
		if got, want := MurmurHash(code), javaMurmurHash(code); got != want {
			t.Errorf("MurmurHash(%d) = %d, want %d", code, got, want)
		}
	}
	for code := int32(-5000); code < 5000; code += 7 {
		if got, want := MurmurHash(code), javaMurmurHash(code); got != want {
			t.Fatalf("MurmurHash(%d) = %d, want %d", code, got, want)
		}
		if got := MurmurHash(code); got < 0 {
			t.Fatalf("MurmurHash(%d) = %d, want a non-negative value", code, got)
		}
	}
}

// TestHashCode checks HashCode against values Java computes.
func TestHashCode(t *testing.T) {
	tests := []struct {
		key  any
		want int32
	}{
		{"", 0},
		{"hello", 99162322},
		{"Aa", 2112}, // the famous collision with "BB"
		{"BB", 2112},
		{"😀", 55357*31 + 56832}, // U+1F600 is the surrogate pair D83D DE00 in UTF-16
		{"é", 233},
		{42, 42},
		{-5, -5},
		{int32(7), 7},
		{int64(1) << 32, 1}, // Long.hashCode: high half xor low half
		{int64(-1), 0},
		{true, 1231},
		{false, 1237},
		{1.0, 1072693248}, // Double.hashCode(1.0)
		{float32(1.0), 1065353216},
		{Tuple2Of("a", 1), 31*97 + 1},
	}
	for _, tt := range tests {
		if got := HashCode(tt.key); got != tt.want {
			t.Errorf("HashCode(%#v) = %d, want %d", tt.key, got, tt.want)
		}
	}
}

func TestComputeOperatorIndexForKeyGroup(t *testing.T) {
	tests := []struct{ maxParallelism, parallelism, keyGroup, want int }{
		{128, 4, 0, 0},
		{128, 4, 31, 0},
		{128, 4, 32, 1},
		{128, 4, 35, 1},
		{128, 4, 127, 3},
		{128, 3, 42, 0}, // 126/128
		{128, 3, 43, 1}, // 129/128
		{10, 7, 9, 6},
	}
	for _, tt := range tests {
		if got := ComputeOperatorIndexForKeyGroup(tt.maxParallelism, tt.parallelism, tt.keyGroup); got != tt.want {
			t.Errorf("ComputeOperatorIndexForKeyGroup(%d, %d, %d) = %d, want %d",
				tt.maxParallelism, tt.parallelism, tt.keyGroup, got, tt.want)
		}
	}
}

// TestKeyGroupRangesPartitionTheKeyGroups checks that the ranges of the
// subtasks are contiguous, cover every key group once, and agree with
// ComputeOperatorIndexForKeyGroup.
func TestKeyGroupRangesPartitionTheKeyGroups(t *testing.T) {
	if got, want := ComputeKeyGroupRangeForOperatorIndex(128, 4, 1), (KeyGroupRange{StartKeyGroup: 32, EndKeyGroup: 63}); got != want {
		t.Fatalf("range of subtask 1 of 4 = %v, want %v", got, want)
	}
	for _, c := range []struct{ maxParallelism, parallelism int }{{128, 1}, {128, 3}, {128, 4}, {128, 128}, {10, 7}, {32768, 100}} {
		next := 0
		for index := range c.parallelism {
			r := ComputeKeyGroupRangeForOperatorIndex(c.maxParallelism, c.parallelism, index)
			if r.StartKeyGroup != next {
				t.Fatalf("%+v: range of subtask %d = %v, want it to start at %d", c, index, r, next)
			}
			for kg := r.StartKeyGroup; kg <= r.EndKeyGroup; kg++ {
				if got := ComputeOperatorIndexForKeyGroup(c.maxParallelism, c.parallelism, kg); got != index {
					t.Fatalf("%+v: key group %d is in the range of subtask %d but maps to %d", c, kg, index, got)
				}
			}
			next = r.EndKeyGroup + 1
		}
		if next != c.maxParallelism {
			t.Fatalf("%+v: the ranges end at %d, want %d", c, next-1, c.maxParallelism-1)
		}
	}
}

// keyWithAFloat brings its own hash but holds a float: keyed state cannot
// hold it either.
type keyWithAFloat struct {
	ID     int
	Weight [2]float32
}

func (k keyWithAFloat) HashCode() int32 { return int32(k.ID) }

// keyOfInts brings its own hash over fields that compare as they hash.
type keyOfInts struct{ X, Y int }

func (k keyOfInts) HashCode() int32 { return int32(31*k.X + k.Y) }

func TestCheckKeyType(t *testing.T) {
	type word string
	type point struct{ X, Y int }
	tests := []struct {
		name    string
		keyType reflect.Type
		wantErr string // "" for a valid key type
	}{
		{"string", reflect.TypeFor[string](), ""},
		{"int", reflect.TypeFor[int](), ""},
		{"Tuple2[string, int]", reflect.TypeFor[Tuple2[string, int]](), ""},
		{"struct with HashCode", reflect.TypeFor[keyOfInts](), ""},
		{"named string type", reflect.TypeFor[word](), "This type (streaming.word) cannot be used as key"},
		{"struct without HashCode", reflect.TypeFor[point](), "cannot be used as key"},
		{"Tuple2 with a struct field", reflect.TypeFor[Tuple2[string, point]](), "cannot be used as key"},
		{"interface", reflect.TypeFor[any](), "cannot be used as key"},
		// Go's == and Java's Double.equals disagree on floats: NaN != NaN
		// would make a state entry per record, and 0.0 == -0.0 would meet
		// in one entry from two key groups.
		{"float64", reflect.TypeFor[float64](), "This type (float64) cannot be used as key: it is a floating-point number"},
		{"float32", reflect.TypeFor[float32](), "This type (float32) cannot be used as key: it is a floating-point number"},
		{"Tuple2 with a float field", reflect.TypeFor[Tuple2[string, float64]](),
			"This type (streaming.Tuple2[string,float64]) cannot be used as key: its field F1 is a floating-point number (float64)"},
		{"Tuple2 inside a Tuple2", reflect.TypeFor[Tuple2[int, Tuple2[float32, string]]](),
			"its field F1.F0 is a floating-point number (float32)"},
		{"struct with HashCode and floats", reflect.TypeFor[keyWithAFloat](),
			"its field Weight[0] is a floating-point number (float32)"},
		{"complex", reflect.TypeFor[complex128](), "it is a floating-point number (complex128)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkKeyType(tt.keyType)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("checkKeyType(%v) = %v, want nil", tt.keyType, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("checkKeyType(%v) = %v, want an error containing %q", tt.keyType, err, tt.wantErr)
			}
		})
	}
}
