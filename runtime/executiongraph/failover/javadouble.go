package failover

import (
	"math"
	"strconv"
	"strings"
)

// javaDouble formats f as Java's Double.toString does, so that String()
// matches Flink's toString(): 1.5 → "1.5", 2 → "2.0", 0 → "0.0", and
// scientific notation outside [10⁻³, 10⁷): 1e7 → "1.0E7", 1e-4 → "1.0E-4".
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		return withPoint(strconv.FormatFloat(f, 'f', -1, 64))
	}
	mantissa, exponent, _ := strings.Cut(strconv.FormatFloat(f, 'E', -1, 64), "E")
	e, _ := strconv.Atoi(exponent) // "+07" → 7
	return withPoint(mantissa) + "E" + strconv.Itoa(e)
}

func withPoint(s string) string {
	if strings.Contains(s, ".") {
		return s
	}
	return s + ".0"
}
