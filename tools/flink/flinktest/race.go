//go:build race

package flinktest

// raceEnabled says that the tests run with the race detector, so that
// Build builds the command with it too.
const raceEnabled = true
