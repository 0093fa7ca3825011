//go:build race

package main

// raceEnabled says that the tests run with the race detector, so that the
// end-to-end test builds the command with it too.
const raceEnabled = true
