package hatrace

import (
	"fmt"
	"strings"
)

// Diagnosis names the first step of a failover that the logs do not show:
// the component to open, what did not happen, and where to look. A
// complete failover has Step "".
type Diagnosis struct {
	Step      Step
	Component string
	What      string
	Where     string
}

func (d Diagnosis) String() string {
	if d.Step == "" {
		return "diagnosis: " + d.What
	}
	return fmt.Sprintf("diagnosis: step %s — %s: %s\n  where to look: %s", d.Step, d.Component, d.What, d.Where)
}

// Diagnose reads the trace of the last leader session in logs and names
// the first step that is missing: no process was granted the leadership
// (h1), the leader did not recover the jobs (h4), a TaskManager did not
// find the new leader (h3) or did not register there (h5). A TaskManager
// is a log whose process name begins with "taskexecutor".
func Diagnose(logs []Log) Diagnosis {
	events, session := Trace(logs)
	if session == "" {
		return Diagnosis{Step: H1, Component: "LeaderLatch (ZooKeeperLeaderElectionDriver)",
			What: "no JobManager was granted the leadership",
			Where: "each JobManager's log: \"Connection to ZooKeeper suspended\" or \"lost\" (can it reach high-availability.zookeeper.quorum?); " +
				"is a standby running at all? A killed leader's latch node goes only when its session expires " +
				"(high-availability.zookeeper.client.session-timeout)"}
	}
	leader := events[0].Process
	if !has(events, H4, leader) {
		return Diagnosis{Step: H4, Component: "SessionDispatcherLeaderProcess",
			What: fmt.Sprintf("%s was granted the leadership (session %s) but did not recover the jobs", leader, session),
			Where: fmt.Sprintf("%s's log after \"Recover all persisted job graphs that are not finished, yet.\": "+
				"\"Could not recover job with job id\" (can it read high-availability.storageDir?)", leader)}
	}
	for _, l := range logs {
		if !strings.HasPrefix(l.Process, "taskexecutor") {
			continue
		}
		if !has(events, H3, l.Process) {
			return Diagnosis{Step: H3, Component: "leader retrieval (ZooKeeperLeaderRetrievalDriver) of " + l.Process,
				What: fmt.Sprintf("%s did not find the ResourceManager of session %s", l.Process, session),
				Where: l.Process + "'s log: \"Can no longer retrieve the leader from ZooKeeper\" " +
					"(its ZooKeeper connection), or no line at all (is it alive?)"}
		}
		if !has(events, H5, l.Process) {
			return Diagnosis{Step: H5, Component: "TaskExecutor " + l.Process,
				What: fmt.Sprintf("%s found the new ResourceManager but did not register there", l.Process),
				Where: l.Process + "'s log after \"Connecting to ResourceManager\": \"Registration at ResourceManager\" " +
					"failures, a \"Fencing token\" mismatch"}
		}
	}
	return Diagnosis{What: fmt.Sprintf("the failover is complete: %s leads under session %s, recovered the jobs, and every TaskManager registered there", leader, session)}
}
