package api

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Comparing CPU cores as doubles is comparing them as the decimals Flink
// holds (BigDecimal.valueOf): the shortest decimals of doubles are in the
// doubles' order, for the amounts slots are cut into and for any others.
func TestCPUCoresCompareAsTheirDecimals(t *testing.T) {
	values := []float64{0, 0.1, 0.2, 0.25, 0.3, 1.0 / 3, 0.5, 2.0 / 3, 1, 1.5, 2, 16,
		0.30000000000000004, 0.1 + 0.2, math.Nextafter(0.5, 1), math.Nextafter(0.5, 0), 1e-9, 123456.789}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 60 {
		values = append(values, rng.Float64()*8, float64(rng.IntN(64))/float64(1+rng.IntN(16)))
	}
	for _, a := range values {
		for _, b := range values {
			if got, want := compareCPU(a, b), decimalOf(a).Cmp(decimalOf(b)); got != want {
				t.Fatalf("compareCPU(%v, %v) = %d, the decimals compare %d", a, b, got, want)
			}
		}
	}
}
