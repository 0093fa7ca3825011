package configuration

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Configuration is Flink's Configuration, as far as the memory model needs
// it: each key and its value as text, the way a line of the Flink
// configuration file or a "-D key=value" argument gives them.
type Configuration map[string]string

// ConfigOption is Flink's ConfigOption<T>: a key, the default value used
// when the key is not set (some options have none), and the deprecated
// keys that are read when the key itself is not set.
//
// Build options only in this package, as Flink declares them in
// TaskManagerOptions; read them with Configuration.Contains and Get.
type ConfigOption[T any] struct {
	key            string
	defaultValue   T
	hasDefault     bool
	deprecatedKeys []string

	// parse turns a value's text into a T (Flink:
	// ConfigurationUtils#convertValue).
	parse func(text string) (T, error)
	// format prints a default value as Java's toString does, for String.
	format func(value T) string
}

// Key returns the option's key, e.g. "taskmanager.memory.process.size".
func (o ConfigOption[T]) Key() string { return o.key }

// HasDefaultValue reports whether the option has a default value.
func (o ConfigOption[T]) HasDefaultValue() bool { return o.hasDefault }

// DefaultValue returns the option's default value, the zero T if it has
// none (Flink returns null).
func (o ConfigOption[T]) DefaultValue() T { return o.defaultValue }

// DeprecatedKeys returns the keys read, in order, when the option's key is
// not set. Flink calls them fallback keys.
func (o ConfigOption[T]) DeprecatedKeys() []string {
	return append([]string(nil), o.deprecatedKeys...)
}

// String prints the option as Flink's ConfigOption#toString does. Flink's
// error messages print options this way, so ours must too:
//
//	Key: 'taskmanager.memory.flink.size' , default: null (fallback keys: [])
//	Key: 'taskmanager.memory.network.fraction' , default: 0.1 (fallback keys: [{key=taskmanager.network.memory.fraction, isDeprecated=true}])
func (o ConfigOption[T]) String() string {
	def := "null"
	if o.hasDefault {
		def = o.format(o.defaultValue)
	}
	fallbacks := make([]string, len(o.deprecatedKeys))
	for i, k := range o.deprecatedKeys {
		fallbacks[i] = "{key=" + k + ", isDeprecated=true}"
	}
	return fmt.Sprintf("Key: '%s' , default: %s (fallback keys: [%s])", o.key, def, strings.Join(fallbacks, ", "))
}

// withDefault returns o with a default value (Flink: defaultValue(v)).
func (o ConfigOption[T]) withDefault(v T) ConfigOption[T] {
	o.defaultValue, o.hasDefault = v, true
	return o
}

// withDeprecatedKeys returns o with deprecated keys (Flink:
// withDeprecatedKeys(keys...)).
func (o ConfigOption[T]) withDeprecatedKeys(keys ...string) ConfigOption[T] {
	o.deprecatedKeys = keys
	return o
}

// memoryOption starts a MemorySize option (Flink: key(k).memoryType()).
func memoryOption(key string) ConfigOption[MemorySize] {
	return ConfigOption[MemorySize]{key: key, parse: ParseMemorySize, format: MemorySize.String}
}

// floatOption starts a Float option (Flink: key(k).floatType()). The value
// is a Java float, held widened to a float64 as Flink widens it to a
// double: "0.4" becomes 0.4000000059604645, not 0.4. Keeping the float's
// error is what makes Go's sizes equal Flink's to the byte.
func floatOption(key string) ConfigOption[float64] {
	return ConfigOption[float64]{
		key:    key,
		parse:  parseJavaFloat,
		format: func(v float64) string { return formatJava(v, 32) },
	}
}

// doubleOption starts a Double option (Flink: key(k).doubleType()).
func doubleOption(key string) ConfigOption[float64] {
	return ConfigOption[float64]{
		key:    key,
		parse:  parseJavaDouble,
		format: FormatJavaDouble,
	}
}

// intOption starts an Integer option (Flink: key(k).intType()).
func intOption(key string) ConfigOption[int] {
	return ConfigOption[int]{key: key, parse: parseJavaInt, format: strconv.Itoa}
}

// Option is any ConfigOption, whatever the type of its value.
type Option interface {
	Key() string
	DeprecatedKeys() []string
}

// Contains reports whether c sets the option, under its key or one of its
// deprecated keys (Flink: Configuration#contains). An option that is not
// set may still have a default value; Contains is how Flink tells "the
// user configured it" from "the default applies", and the memory model
// branches on exactly that.
func (c Configuration) Contains(o Option) bool {
	_, ok := c.rawValue(o)
	return ok
}

// rawValue returns the text set for the option: under its key, else under
// the first of its deprecated keys that is set. Flink also logs a warning
// when it reads a deprecated key; we do not log.
func (c Configuration) rawValue(o Option) (text string, ok bool) {
	if v, ok := c[o.Key()]; ok {
		return v, true
	}
	for _, k := range o.DeprecatedKeys() {
		if v, ok := c[k]; ok {
			return v, true
		}
	}
	return "", false
}

// Get returns the option's value in c, parsed, or its default value if c
// does not set it (the zero T if it has no default; Flink returns null).
// A value that does not parse is an error with Flink's message, "Could not
// parse value '<text>' for key '<key>'.", which wraps the parse error.
func Get[T any](c Configuration, o ConfigOption[T]) (T, error) {
	text, ok := c.rawValue(o)
	if !ok {
		return o.defaultValue, nil
	}
	v, err := o.parse(text)
	if err != nil {
		var zero T
		// Flink: IllegalArgumentException from Configuration#getOptional.
		return zero, &exception{
			msg:   fmt.Sprintf("Could not parse value '%s' for key '%s'.", text, o.key),
			cause: err,
		}
	}
	return v, nil
}

// parseJavaFloat parses text as Java's Float.parseFloat does and widens the
// float to a float64, as Java widens a float to a double.
func parseJavaFloat(text string) (float64, error) {
	trimmed := javaTrim(text)
	if trimmed == "" {
		return 0, errors.New("empty String")
	}
	f, err := strconv.ParseFloat(trimmed, 32)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // Java rounds out-of-range values to ±Infinity or 0
		return 0, fmt.Errorf("For input string: \"%s\"", text)
	}
	return float64(float32(f)), nil
}

// parseJavaDouble parses text as Java's Double.parseDouble does.
func parseJavaDouble(text string) (float64, error) {
	trimmed := javaTrim(text)
	if trimmed == "" {
		return 0, errors.New("empty String")
	}
	f, err := strconv.ParseFloat(trimmed, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("For input string: \"%s\"", text)
	}
	return f, nil
}

// parseJavaInt parses text as Flink's ConfigurationUtils#convertToInt does
// (Integer.parseInt of the trimmed text).
func parseJavaInt(text string) (int, error) {
	trimmed := javaTrim(text)
	n, err := strconv.ParseInt(trimmed, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("For input string: \"%s\"", trimmed)
	}
	return int(n), nil
}

// FormatJavaDouble prints v as Java's Double.toString does, the way Flink's
// messages print a double: "0.10000000149011612", "1.0", "-0.5",
// "1.0E-4", "NaN".
func FormatJavaDouble(v float64) string { return formatJava(v, 64) }

// formatJava prints v as Java's Double.toString (bitSize 64) or
// Float.toString (bitSize 32) does: the shortest digits that identify the
// value; plain notation with at least one decimal for magnitudes in
// [10⁻³, 10⁷), otherwise "d.dddE±n".
func formatJava(v float64, bitSize int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	sign := ""
	if math.Signbit(v) {
		sign, v = "-", -v
	}
	if v == 0 {
		return sign + "0.0"
	}

	// Shortest digits d.ddd and exponent, e.g. "1.0000000149011612e-01".
	mantissa, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, bitSize), "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	exponent, _ := strconv.Atoi(exp)

	if v >= 1e-3 && v < 1e7 {
		point := exponent + 1 // digits before the decimal point
		switch {
		case point <= 0:
			return sign + "0." + strings.Repeat("0", -point) + digits
		case point >= len(digits):
			return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
		default:
			return sign + digits[:point] + "." + digits[point:]
		}
	}
	fraction := digits[1:]
	if fraction == "" {
		fraction = "0"
	}
	return sign + digits[:1] + "." + fraction + "E" + strconv.Itoa(exponent)
}
