//go:build !race

package flinktest

const raceEnabled = false
