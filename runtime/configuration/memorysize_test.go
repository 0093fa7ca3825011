package configuration

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The parse cases are Flink's MemorySizeTest (testParseBytes,
// testParseKibiBytes ... testUpperCase, testTrimBeforeParse), plus the
// spellings of Flink's configuration files.
func TestParseMemorySize(t *testing.T) {
	tests := []struct {
		text string
		want MemorySize
	}{
		{"1234", 1234},
		{"1234b", 1234},
		{"1234 b", 1234},
		{"1234bytes", 1234},
		{"1234 bytes", 1234},
		{"64 kb", 64 << 10},
		{"667766k", 667766 << 10},
		{"667766 kibibytes", 667766 << 10},
		{"128mb", 128 << 20},
		{"1728m", 1728 << 20},
		{"1728 mb", 1728 << 20},
		{"7657623 mebibytes", 7657623 << 20},
		{"4g", 4 << 30},
		{"4 gb", 4 << 30},
		{"987654gibibytes", 987654 << 30},
		{"1 tb", 1 << 40},
		{"1234567 tebibytes", 1234567 << 40},
		// Units are case-insensitive.
		{"1 B", 1},
		{"1 K", 1 << 10},
		{"1 M", 1 << 20},
		{"1 G", 1 << 30},
		{"1 T", 1 << 40},
		{"4 GB", 4 << 30},
		// Spaces around the whole text and between number and unit.
		{"      155      ", 155},
		{"      155      bytes   ", 155},
		{"0", 0},
		{"9223372036854775807", MaxMemorySize},
	}
	for _, tt := range tests {
		got, err := ParseMemorySize(tt.text)
		require.NoError(t, err, tt.text)
		assert.Equal(t, tt.want, got, "ParseMemorySize(%q)", tt.text)
	}
}

// Flink's MemorySizeTest#testParseInvalid, testParseNumberOverflow and
// testParseNumberTimeUnitOverflow, with the messages of Flink's
// MemorySize#parseBytes.
func TestParseMemorySizeErrors(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"", "argument is an empty- or whitespace-only string"},
		{"     ", "argument is an empty- or whitespace-only string"},
		{"foobar or fubar or foo bazz", "text does not start with a number"},
		{"mb", "text does not start with a number"},
		{"-100 bytes", "text does not start with a number"},
		{"16 gjah", "Memory size unit 'gjah' does not match any of the recognized units: " +
			"(b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / (t | tb | tebibytes)"},
		// A second number is part of the unit for Flink.
		{"16 16 17 18 bytes", "Memory size unit '16 17 18 bytes' does not match any of the recognized units: " +
			"(b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / (t | tb | tebibytes)"},
		// Decimals are not accepted: the number ends at the point.
		{"1.5g", "Memory size unit '.5g' does not match any of the recognized units: " +
			"(b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / (t | tb | tebibytes)"},
		{"100000000000000000000000000000000 bytes",
			"The value '100000000000000000000000000000000' cannot be re represented as 64bit number (numeric overflow)."},
		{"100000000000000 tb",
			"The value '100000000000000 tb' cannot be re represented as 64bit number of bytes (numeric overflow)."},
	}
	for _, tt := range tests {
		_, err := ParseMemorySize(tt.text)
		require.Error(t, err, tt.text)
		assert.Equal(t, tt.want, err.Error(), "ParseMemorySize(%q)", tt.text)
	}
}

// MemorySize#toString: the largest unit that divides the size exactly.
func TestMemorySizeString(t *testing.T) {
	tests := []struct {
		size MemorySize
		want string
	}{
		{0, "0 bytes"},
		{1, "1 bytes"},
		{1024, "1 kb"},
		{1025, "1025 bytes"},
		{128 << 20, "128 mb"},
		{1728 << 20, "1728 mb"},
		{4 << 30, "4 gb"},
		{402653174, "402653174 bytes"}, // the default task heap: not a whole number of anything
		{3 << 40, "3298534883328 bytes"},
		// Flink's quirk: every unit divides a whole number of tebibytes, so
		// Flink finds no unit that does not and falls back to bytes.
		{1 << 40, "1099511627776 bytes"},
		{MaxMemorySize, "9223372036854775807 bytes"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.size.String(), "MemorySize(%d).String()", int64(tt.size))
	}
}

// The first cases are Flink's MemorySizeTest#testToHumanReadableString; the
// others are the sizes of a default TaskManager, as Flink logs them.
func TestMemorySizeToHumanReadableString(t *testing.T) {
	tests := []struct {
		size MemorySize
		want string
	}{
		{0, "0 bytes"},
		{1, "1 bytes"},
		{1024, "1024 bytes"}, // not greater than 1 kb, so in bytes
		{1025, "1.001kb (1025 bytes)"},
		{1536, "1.500kb (1536 bytes)"},
		{1_000_000, "976.563kb (1000000 bytes)"},
		{1_000_000_000, "953.674mb (1000000000 bytes)"},
		{1_000_000_000_000, "931.323gb (1000000000000 bytes)"},
		{1_000_000_000_000_000, "909.495tb (1000000000000000 bytes)"},

		{1811939328, "1.688gb (1811939328 bytes)"}, // 1728m is 1.6875gb: Java rounds the tie up
		{402653174, "384.000mb (402653174 bytes)"},
		{1 << 30, "1024.000mb (1073741824 bytes)"}, // 1g is not greater than 1g
		{MaxMemorySize, "8388608.000tb (9223372036854775807 bytes)"},
		// A tie that Go's %.3f would round to even ("1.062gb"); Java's
		// Formatter rounds half up.
		{1088 << 20, "1.063gb (1140850688 bytes)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.size.ToHumanReadableString(), "MemorySize(%d).ToHumanReadableString()", int64(tt.size))
	}
}

func TestMemorySizeUnits(t *testing.T) {
	// Flink's MemorySizeTest#testUnitConversion.
	teras := MemorySize(2<<40 + 10)
	assert.Equal(t, int64(2199023255562), teras.Bytes())
	assert.Equal(t, int64(2147483648), teras.KibiBytes())
	assert.Equal(t, int64(2097152), teras.MebiBytes())
	assert.Equal(t, MemorySize(128<<20), OfMebiBytes(128))
}

// Multiply computes as Flink's BigDecimal arithmetic does: the fraction is
// the Java float widened to a double, multiplied by its shortest decimal
// exactly, and the product truncated.
func TestMemorySizeMultiply(t *testing.T) {
	const mib = 1 << 20
	f01 := float64(float32(0.1)) // 0.10000000149011612
	f04 := float64(float32(0.4)) // 0.4000000059604645
	tests := []struct {
		name       string
		size       MemorySize
		multiplier float64
		want       MemorySize
	}{
		{"managed of the default 1280m", 1280 * mib, f04, 536870920},          // 536870912 + 8
		{"network of the default 1280m", 1280 * mib, f01, 134217730},          // 134217728 + 2
		{"overhead of the default 1728m", 1728 * mib, f01, 181193935},         // 181193932.8 + 2.7, truncated
		{"overhead of 2g", 2048 * mib, f01, 214748368},                        // 214748364.8 + 3.2
		{"inverse overhead fraction", 1536 * mib, f01 / (1 - f01), 178956973}, // (1280m + 256m) × 0.11111111295076065
		{"an exact double", 100, 0.5, 50},                                     //
		{"zero", 0, f04, 0},                                                   //
		{"the largest product", MaxMemorySize, 1, MaxMemorySize},              //
		{"truncated, not rounded", 3, 0.5, 1},                                 //
		{"the shortest decimal, not the binary value", 10, 0.3, 3},            // the double 0.3 is 0.29999999999999998890, which would give 2
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.size.Multiply(tt.multiplier), tt.name)
	}
}

func TestMemorySizeArithmeticOverflow(t *testing.T) {
	assertPanicsWithArithmetic := func(name string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			err, ok := r.(error)
			require.True(t, ok, "%s: recovered %v, want an error", name, r)
			assert.True(t, errors.Is(err, ErrArithmetic), name)
			assert.Equal(t, "long overflow", err.Error(), name)
		}()
		f()
	}
	assertPanicsWithArithmetic("Add", func() { MaxMemorySize.Add(1) })
	assertPanicsWithArithmetic("Multiply", func() { MaxMemorySize.Multiply(1.5) })

	assert.Equal(t, MaxMemorySize, (MaxMemorySize - 1).Add(1))
	assert.Equal(t, MemorySize(0), MaxMemorySize.Subtract(MaxMemorySize))
	assert.Panics(t, func() { MemorySize(1).Subtract(2) }, "a negative size is a broken invariant")
}
