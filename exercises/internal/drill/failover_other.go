//go:build !unix

package drill

import "testing"

// ProduceFailover needs POSIX signals (SIGKILL, SIGSTOP, SIGCONT) and the
// process helpers of tools/flink/flinktest, which are for unix only.
func ProduceFailover(t *testing.T, _ Spec, _ string) {
	t.Skip("a failover drill runs real processes and signals them: unix only")
}
