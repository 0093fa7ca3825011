package configuration

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// MemorySize is a number of bytes, never negative. It mirrors Flink's
// org.apache.flink.configuration.MemorySize: the same parsing, the same two
// ways of printing, and the same arithmetic, so that every number the
// memory model derives is the number Flink derives, to the byte.
//
// Use Add, Subtract and Multiply rather than + and *: they check for
// overflow as Flink's Math.addExact and BigDecimal arithmetic do, and
// Multiply rounds as Flink does.
type MemorySize int64

// MaxMemorySize is Flink's MemorySize.MAX_VALUE (Long.MAX_VALUE bytes). The
// default of taskmanager.memory.network.max has been MaxMemorySize since
// Flink 1.17: network memory is then bounded by its fraction alone.
const MaxMemorySize = MemorySize(math.MaxInt64)

// ErrArithmetic is Flink's java.lang.ArithmeticException, thrown by
// MemorySize arithmetic when a result does not fit in 64 bits ("long
// overflow"). Add, Subtract and Multiply return a single value, as Flink's
// do, so they panic with an error that wraps ErrArithmetic; whoever derives
// sizes from a user's configuration recovers it (see clusterframework).
var ErrArithmetic = errors.New("ArithmeticException")

// memoryUnit is Flink's MemorySize.MemoryUnit: the spellings a unit may be
// written in (the second one is the one Flink prints) and its multiplier.
type memoryUnit struct {
	units      []string
	multiplier int64
}

var (
	unitBytes     = memoryUnit{[]string{"b", "bytes"}, 1}
	unitKiloBytes = memoryUnit{[]string{"k", "kb", "kibibytes"}, 1 << 10}
	unitMegaBytes = memoryUnit{[]string{"m", "mb", "mebibytes"}, 1 << 20}
	unitGigaBytes = memoryUnit{[]string{"g", "gb", "gibibytes"}, 1 << 30}
	unitTeraBytes = memoryUnit{[]string{"t", "tb", "tebibytes"}, 1 << 40}

	// orderedUnits is Flink's ORDERED_UNITS, smallest first.
	orderedUnits = []memoryUnit{unitBytes, unitKiloBytes, unitMegaBytes, unitGigaBytes, unitTeraBytes}
)

// printedName is the spelling Flink prints: "bytes", "kb", "mb", "gb", "tb".
func (u memoryUnit) printedName() string { return u.units[1] }

// OfMebiBytes returns n mebibytes (Flink: MemorySize.ofMebiBytes).
func OfMebiBytes(n int64) MemorySize { return MemorySize(n << 20) }

// Bytes returns the size in bytes (Flink: getBytes).
func (m MemorySize) Bytes() int64 { return int64(m) }

// KibiBytes returns the size in whole kibibytes, rounded down (Flink:
// getKibiBytes).
func (m MemorySize) KibiBytes() int64 { return int64(m) >> 10 }

// MebiBytes returns the size in whole mebibytes, rounded down (Flink:
// getMebiBytes; Flink returns an int, which Go does not need).
func (m MemorySize) MebiBytes() int64 { return int64(m) >> 20 }

// ParseMemorySize parses text as Flink's MemorySize.parse does: a whole
// number, optionally followed by a unit, with any spaces around and between
// them. The units are case-insensitive and each has three spellings:
//
//	b | bytes
//	k | kb | kibibytes   (1024 bytes)
//	m | mb | mebibytes   (1024 kibibytes)
//	g | gb | gibibytes   (1024 mebibytes)
//	t | tb | tebibytes   (1024 gibibytes)
//
// A number without a unit is bytes: "1728m", "1728 mb", "4g", "64 KB" and
// "1024" all parse. The errors carry Flink's messages ("text does not start
// with a number", "Memory size unit 'x' does not match any of the
// recognized units: ...").
func ParseMemorySize(text string) (MemorySize, error) {
	trimmed := javaTrim(text)
	if trimmed == "" {
		return 0, errors.New("argument is an empty- or whitespace-only string")
	}

	// The number is the leading run of ASCII digits; the rest, trimmed and
	// lower-cased, is the unit.
	pos := 0
	for pos < len(trimmed) && trimmed[pos] >= '0' && trimmed[pos] <= '9' {
		pos++
	}
	number := trimmed[:pos]
	unit := strings.ToLower(javaTrim(trimmed[pos:]))

	if number == "" {
		return 0, errors.New("text does not start with a number")
	}
	value, err := strconv.ParseInt(number, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("The value '%s' cannot be re represented as 64bit number (numeric overflow).", number)
	}

	multiplier := int64(1)
	if unit != "" {
		u, ok := parseUnit(unit)
		if !ok {
			return 0, fmt.Errorf("Memory size unit '%s' does not match any of the recognized units: %s", unit, allUnits())
		}
		multiplier = u.multiplier
	}

	// Flink multiplies in wrapping 64-bit arithmetic and checks that
	// dividing back gives the number again; so do we.
	result := value * multiplier
	if result/multiplier != value {
		return 0, fmt.Errorf("The value '%s' cannot be re represented as 64bit number of bytes (numeric overflow).", text)
	}
	if result < 0 {
		return 0, errors.New("bytes must be >= 0")
	}
	return MemorySize(result), nil
}

// MustParseMemorySize is ParseMemorySize for sizes written in the code, such
// as the options' defaults. It panics if text does not parse.
func MustParseMemorySize(text string) MemorySize {
	m, err := ParseMemorySize(text)
	if err != nil {
		panic(fmt.Sprintf("configuration: MustParseMemorySize(%q): %v", text, err))
	}
	return m
}

func parseUnit(unit string) (memoryUnit, bool) {
	for _, u := range orderedUnits {
		for _, spelling := range u.units {
			if spelling == unit {
				return u, true
			}
		}
	}
	return memoryUnit{}, false
}

// allUnits is Flink's MemoryUnit.getAllUnits():
// "(b | bytes) / (k | kb | kibibytes) / ... / (t | tb | tebibytes)".
func allUnits() string {
	groups := make([]string, len(orderedUnits))
	for i, u := range orderedUnits {
		groups[i] = "(" + strings.Join(u.units, " | ") + ")"
	}
	return strings.Join(groups, " / ")
}

// javaTrim is Java's String.trim: it removes the characters up to and
// including the space (U+0000..U+0020) from both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// String prints the size as Flink's MemorySize#toString does: in the
// largest unit that divides it exactly, e.g. "128 mb", "1728 mb",
// "402653174 bytes", "0 bytes".
//
// Flink's rule has a quirk that we keep: a size that every unit divides,
// a whole number of tebibytes, is printed in bytes ("1 tb" prints as
// "1099511627776 bytes"), because Flink looks for the first unit that does
// not divide the size and, finding none, falls back to bytes.
func (m MemorySize) String() string {
	bytes := int64(m)
	unit := unitBytes
	for i, u := range orderedUnits {
		if bytes%u.multiplier != 0 {
			if i > 0 {
				unit = orderedUnits[i-1]
			}
			break
		}
	}
	return fmt.Sprintf("%d %s", bytes/unit.multiplier, unit.printedName())
}

// ToHumanReadableString prints the size as Flink's toHumanReadableString
// does, the form of Flink's memory log lines and error messages: the
// largest unit the size is strictly greater than, with three decimals, and
// the exact bytes, e.g. "1.688gb (1811939328 bytes)",
// "384.000mb (402653174 bytes)". A size of at most 1024 bytes is printed
// as "<n> bytes": "0 bytes", "1024 bytes".
func (m MemorySize) ToHumanReadableString() string {
	bytes := int64(m)
	unit := unitBytes
	for _, u := range orderedUnits {
		if bytes > u.multiplier {
			unit = u
		}
	}
	if unit.multiplier == 1 {
		return fmt.Sprintf("%d %s", bytes, unitBytes.printedName())
	}
	approximate := 1.0 * float64(bytes) / float64(unit.multiplier)
	return fmt.Sprintf("%s%s (%d bytes)", formatJavaFixed3(approximate), unit.printedName(), bytes)
}

// formatJavaFixed3 formats v ≥ 0 as Java's String.format("%.3f", v) does.
// Java rounds the shortest decimal that identifies the double (the digits
// Double.toString would print) half up, where Go's %.3f rounds the exact
// binary value half to even. The two differ on ties such as 1.0625, which
// Java prints as "1.063" and Go as "1.062".
func formatJavaFixed3(v float64) string {
	shortest, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'e', -1, 64))
	if !ok {
		panic(fmt.Sprintf("configuration: cannot format %v", v))
	}
	// thousandths = floor(v*1000 + 1/2), that is v rounded half up.
	shortest.Mul(shortest, big.NewRat(1000, 1))
	shortest.Add(shortest, big.NewRat(1, 2))
	thousandths := new(big.Int).Quo(shortest.Num(), shortest.Denom()).String()
	for len(thousandths) < 4 {
		thousandths = "0" + thousandths
	}
	cut := len(thousandths) - 3
	return thousandths[:cut] + "." + thousandths[cut:]
}

// Add returns m + that (Flink: add, with Math.addExact). It panics with an
// error wrapping ErrArithmetic ("long overflow") if the sum does not fit in
// 64 bits.
func (m MemorySize) Add(that MemorySize) MemorySize {
	sum := int64(m) + int64(that) // sizes are never negative: overflow wraps below m
	if sum < int64(m) {
		panic(arithmeticException("long overflow"))
	}
	return MemorySize(sum)
}

// Subtract returns m - that (Flink: subtract). A negative result is a
// broken invariant, as in Flink, whose MemorySize constructor rejects it
// ("bytes must be >= 0"): every caller checks the sizes first.
func (m MemorySize) Subtract(that MemorySize) MemorySize {
	if that > m {
		panic(fmt.Sprintf("configuration: %d - %d: bytes must be >= 0", m, that))
	}
	return MemorySize(int64(m) - int64(that))
}

// Multiply returns m times multiplier, rounded toward zero, exactly as
// Flink's MemorySize#multiply computes it:
//
//	BigDecimal.valueOf(bytes).multiply(BigDecimal.valueOf(multiplier)).longValue()
//
// BigDecimal.valueOf(double) takes the double's shortest decimal form, the
// digits Double.toString prints, and multiplies by that decimal exactly.
// This is why fractions in Flink's memory model give sizes a few bytes off
// round numbers: the default managed fraction is the float 0.4f, which as a
// double prints as 0.4000000059604645, so 1280 MiB × 0.4f is 536870920
// bytes, not 536870912.
//
// It panics if multiplier is negative or not finite (a broken invariant:
// RangeFraction rejects such fractions first), and with an error wrapping
// ErrArithmetic ("long overflow") if the product exceeds MaxMemorySize.
func (m MemorySize) Multiply(multiplier float64) MemorySize {
	if !(multiplier >= 0) || math.IsInf(multiplier, 0) {
		panic(fmt.Sprintf("configuration: multiplier must be >= 0 and finite, got %v", multiplier))
	}
	decimal, _ := new(big.Rat).SetString(strconv.FormatFloat(multiplier, 'e', -1, 64))
	product := decimal.Mul(decimal, new(big.Rat).SetInt64(int64(m)))
	truncated := new(big.Int).Quo(product.Num(), product.Denom())
	if !truncated.IsInt64() {
		panic(arithmeticException("long overflow"))
	}
	return MemorySize(truncated.Int64())
}

func arithmeticException(msg string) error {
	return &exception{kind: ErrArithmetic, msg: msg}
}
