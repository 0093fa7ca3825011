package configuration

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// timeUnit is one unit of Flink's duration syntax and its labels (Flink:
// TimeUtils.TimeUnit).
type timeUnit struct {
	name   string
	unit   time.Duration
	labels []string
}

// timeUnits lists Flink's units in its order; a word label also has a
// plural with "s" ("second", "seconds").
var timeUnits = []timeUnit{
	{"DAYS", 24 * time.Hour, []string{"d", "day", "days"}},
	{"HOURS", time.Hour, []string{"h", "hour", "hours"}},
	{"MINUTES", time.Minute, []string{"min", "m", "minute", "minutes"}},
	{"SECONDS", time.Second, []string{"s", "sec", "secs", "second", "seconds"}},
	{"MILLISECONDS", time.Millisecond, []string{"ms", "milli", "millis", "millisecond", "milliseconds"}},
	{"MICROSECONDS", time.Microsecond, []string{"µs", "micro", "micros", "microsecond", "microseconds"}},
	{"NANOSECONDS", time.Nanosecond, []string{"ns", "nano", "nanos", "nanosecond", "nanoseconds"}},
}

// ParseDuration reads a duration option as Flink's TimeUtils.parseDuration
// does: a whole number, optional spaces and a unit label ("500 ms", "1 s",
// "1min", "2 hours"); a bare number is milliseconds; labels ignore case.
// What that does not read, Go's time.ParseDuration may ("1m30s", "1.5s").
// Negative durations are refused.
func ParseDuration(text string) (time.Duration, error) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return 0, errors.New("argument is an empty- or whitespace-only string")
	}
	digits := len(trimmed) - len(strings.TrimLeft(trimmed, "0123456789"))
	if digits == 0 {
		if d, err := time.ParseDuration(trimmed); err == nil && d >= 0 {
			return d, nil
		}
		return 0, errors.New("text does not start with a number")
	}
	number := trimmed[:digits]
	label := strings.ToLower(strings.TrimSpace(trimmed[digits:]))
	unit, ok := time.Millisecond, label == ""
	for _, u := range timeUnits {
		for _, l := range u.labels {
			if l == label {
				unit, ok = u.unit, true
			}
		}
	}
	if !ok {
		if d, err := time.ParseDuration(trimmed); err == nil {
			return d, nil
		}
		return 0, fmt.Errorf("Time interval unit label '%s' does not match any of the recognized units: %s", label, allTimeUnits())
	}
	value, err := strconv.ParseInt(number, 10, 64)
	if err != nil || value > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("The value '%s' cannot be represented as a time.Duration (numeric overflow).", number)
	}
	return time.Duration(value) * unit, nil
}

// allTimeUnits lists the labels as Flink's error message does:
// "DAYS: (d | day | days), HOURS: (h | hour | hours), ...".
func allTimeUnits() string {
	parts := make([]string, len(timeUnits))
	for i, u := range timeUnits {
		parts[i] = u.name + ": (" + strings.Join(u.labels, " | ") + ")"
	}
	return strings.Join(parts, ", ")
}
