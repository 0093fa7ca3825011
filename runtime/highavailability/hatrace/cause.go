package hatrace

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Kind names what ended a leadership, or what it survived.
type Kind string

// The kinds of cause Explain tells apart.
const (
	// LeaderKilled: the leader's log stops, with no word of losing the
	// leadership; another JobManager was granted it once the dead one's
	// ZooKeeper session expired.
	LeaderKilled Kind = "leader-killed"
	// LeaderPaused: the leader learned that it had lost the leadership
	// only after another JobManager had been granted it: it was not
	// running in between (SIGSTOP, a long garbage collection, a frozen
	// VM), and was fenced off when it resumed.
	LeaderPaused Kind = "leader-paused"
	// ConnectionSuspended: the leader's connection to ZooKeeper broke and,
	// as by default, the leadership ended at once, at SUSPENDED.
	ConnectionSuspended Kind = "connection-suspended"
	// SessionExpired: the leader's connection broke, it kept leading
	// (tolerate-suspended-connections), and the leadership ended when its
	// session was LOST.
	SessionExpired Kind = "session-expired"
	// SuspensionTolerated: the leader's connection broke and came back
	// within the session timeout, and it kept leading.
	SuspensionTolerated Kind = "suspension-tolerated"
	// ZooKeeperDown: every process lost ZooKeeper at the same time, the
	// TaskManagers too: ZooKeeper itself was down or out of reach.
	ZooKeeperDown Kind = "zookeeper-down"
	// LeaderStopped: the leader was shut down before the next grant; its
	// closed session took its latch node with it.
	LeaderStopped Kind = "leader-stopped"
)

// Line is one record of one process's log, quoted as proof. A Context
// line places the others in time but does not tell this cause from
// another: the next leader's grant (every failover has one), or the last
// line a leader wrote before it went silent.
type Line struct {
	Process string
	Record
	Context bool
}

func (l Line) String() string {
	return fmt.Sprintf("%-20s %s %-5s %s - %s", l.Process, l.Time.Format("15:04:05.000"), l.Level, l.Logger, l.Message)
}

// Cause is what happened to a leader, as the logs tell it: the kind, the
// JobManager and leader session it happened to, what the logs show,
// Flink's outcome, where to look next, and the lines that prove it.
type Cause struct {
	Kind    Kind
	Process string
	Session string
	What    string
	Outcome string
	Where   string
	Proof   []Line
}

func (c Cause) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cause: %s — %s\n  outcome: %s\n  where to look: %s\n  the lines that show it:", c.Kind, c.What, c.Outcome, c.Where)
	for _, l := range c.Proof {
		fmt.Fprintf(&b, "\n    %s", l)
	}
	return b.String()
}

var (
	revoked   = regexp.MustCompile(`^DefaultDispatcherRunner was revoked the leadership with leader id (\w+)\.`)
	suspended = regexp.MustCompile(`^Connection to ZooKeeper suspended`)
	// A JobManager's leader election driver says it too, and is the one
	// that matters to its leadership.
	electionSuspended = regexp.MustCompile(`^Connection to ZooKeeper suspended, waiting for reconnection\.$`)
	lost              = regexp.MustCompile(`^Connection to ZooKeeper lost\.`)
	// Both drivers of a process say it when the connection is back.
	reconnected = regexp.MustCompile(`^Connection to ZooKeeper was reconnected\.`)
	shutdown    = regexp.MustCompile(`^Shutting \w+ down with application status`)
	closedPeer  = regexp.MustCompile(`^The connection to the RPC service at \S+ was closed by the peer\.$`)
)

// leadership is one grant of the Dispatcher's leadership in a JobManager's
// log, and its revocation, if the log has it.
type leadership struct {
	log     *Log
	session string
	granted Record
	revoked *Record
}

// leaderships returns every grant of the Dispatcher's leadership in the
// logs, in the order of the grants.
func leaderships(logs []Log) []leadership {
	var all []leadership
	for i := range logs {
		l := &logs[i]
		for _, r := range l.Records {
			if m := granted.FindStringSubmatch(r.Message); m != nil {
				all = append(all, leadership{log: l, session: m[1], granted: r})
			} else if m := revoked.FindStringSubmatch(r.Message); m != nil {
				for j := len(all) - 1; j >= 0; j-- {
					if all[j].log == l && all[j].session == m[1] && all[j].revoked == nil {
						all[j].revoked = &r
						break
					}
				}
			}
		}
	}
	slices.SortStableFunc(all, func(a, b leadership) int { return a.granted.Time.Compare(b.granted.Time) })
	return all
}

// Explain says what happened to the leader before the last grant of the
// leadership, or, when there was only one grant, what its leadership
// survived. It returns false when the logs show none of the causes: one
// leader, never disturbed, or an order of lines it does not know.
func Explain(logs []Log) (Cause, bool) {
	all := leaderships(logs)
	switch {
	case len(all) == 0:
		return Cause{}, false
	case len(all) == 1:
		return survived(logs, all[0])
	}
	old, next := all[len(all)-2], all[len(all)-1]
	line := func(l *Log, r Record) Line { return Line{Process: l.Process, Record: r} }
	grantedNext := line(next.log, next.granted)
	grantedNext.Context = true

	if s, ok := first(*old.log, shutdown, old.granted.Time, next.granted.Time); ok {
		return stopped(old, line(old.log, s), grantedNext), true
	}
	// The old leader's connection broke before the next grant and was
	// still broken when it stopped leading: one of the ZooKeeper causes.
	if old.revoked != nil {
		for _, o := range outages(*old.log, electionSuspended) {
			if o.from.Time.Before(next.granted.Time) && !o.from.Time.After(old.revoked.Time) && o.until.After(old.revoked.Time) {
				return connectionCause(logs, old, o, grantedNext), true
			}
		}
	}
	switch {
	case old.revoked != nil && old.revoked.Time.After(next.granted.Time) && old.log != next.log:
		return paused(old, grantedNext), true
	case old.revoked == nil && !hasAfter(*old.log, next.granted.Time):
		return killed(logs, old, grantedNext), true
	}
	return Cause{}, false
}

// connectionCause tells apart the causes of a leadership that ended after
// the leader's connection to ZooKeeper went down.
func connectionCause(logs []Log, old leadership, down outage, grantedNext Line) Cause {
	s := down.from
	proof := []Line{{Process: old.log.Process, Record: s}}
	others, othersProof := alsoDown(logs, old.log.Process, down)
	proof = append(proof, othersProof...)
	lostAt, expired := first(*old.log, lost, s.Time, old.revoked.Time.Add(time.Millisecond))
	if expired {
		proof = append(proof, Line{Process: old.log.Process, Record: lostAt})
	}
	proof = append(proof, Line{Process: old.log.Process, Record: *old.revoked}, grantedNext)
	slices.SortStableFunc(proof, func(a, b Line) int { return a.Time.Compare(b.Time) })
	c := Cause{Process: old.log.Process, Session: old.session, Proof: proof}
	endedAt := "at SUSPENDED, at once, as by default (high-availability.zookeeper.client.tolerate-suspended-connections: false)"
	if expired {
		endedAt = "only when the session was LOST, a session timeout later (tolerate-suspended-connections: true)"
	}
	if len(others) > 0 {
		c.Kind = ZooKeeperDown
		c.What = fmt.Sprintf("%s lost their connection to ZooKeeper at the same time: ZooKeeper itself was down or out of reach of the whole cluster; %s's leadership ended %s",
			enumerate(append([]string{old.log.Process}, others...)), old.log.Process, endedAt)
		c.Outcome = "the leader's jobs were SUSPENDED, not failed; the TaskManagers could not retrieve the leaders while it lasted; " +
			"once ZooKeeper was back, the JobManagers entered the election again, and the one granted the leadership, " + grantedNext.Process + ", recovered the jobs"
		c.Where = "ZooKeeper's own log and the network between the cluster and high-availability.zookeeper.quorum; a LOST session means the outage outlasted high-availability.zookeeper.client.session-timeout"
		return c
	}
	if expired {
		c.Kind = SessionExpired
		c.What = fmt.Sprintf("%s alone lost its connection to ZooKeeper; it kept leading while SUSPENDED, and its leadership ended %s", old.log.Process, endedAt)
	} else {
		c.Kind = ConnectionSuspended
		c.What = fmt.Sprintf("%s alone lost its connection to ZooKeeper, and its leadership ended %s", old.log.Process, endedAt)
	}
	c.Outcome = "its jobs were SUSPENDED, not failed, and stayed in the JobGraphStore; " + grantedNext.Process +
		" was granted the leadership next, once the old leader's latch node was gone, and recovered them"
	c.Where = "the network between " + old.log.Process + " and ZooKeeper (the other processes reached it); " +
		"the ZooKeeperLeaderElectionDriver's lines in its log"
	return c
}

// stopped is the cause of a leadership whose leader was shut down before
// the next grant.
func stopped(old leadership, shutdown, grantedNext Line) Cause {
	proof := []Line{shutdown}
	if old.revoked != nil {
		proof = append(proof, Line{Process: old.log.Process, Record: *old.revoked})
	}
	return Cause{Kind: LeaderStopped, Process: old.log.Process, Session: old.session,
		What:    old.log.Process + " was shut down, and gave its leadership up on its way out",
		Outcome: "its latch node went with its closed session, so " + grantedNext.Process + " was granted the leadership at once and recovered the jobs: a JobManager stopped while its jobs run does not end them, they stay in the JobGraphStore",
		Where:   "who stopped it: the lines just before \"" + shutdown.Message + "\"",
		Proof:   append(proof, grantedNext)}
}

// paused is the cause of a leadership whose end its leader learned only
// after the next grant.
func paused(old leadership, grantedNext Line) Cause {
	proof := []Line{grantedNext}
	// What it noticed first when it ran again, then the revocation.
	if s, ok := first(*old.log, electionSuspended, grantedNext.Time, old.revoked.Time.Add(time.Millisecond)); ok {
		proof = append(proof, Line{Process: old.log.Process, Record: s})
	}
	proof = append(proof, Line{Process: old.log.Process, Record: *old.revoked})
	what := fmt.Sprintf("%s learned that it had lost the leadership %v after %s was granted it",
		old.log.Process, old.revoked.Time.Sub(grantedNext.Time).Round(time.Millisecond), grantedNext.Process)
	if before, after, ok := silence(*old.log, grantedNext.Time); ok {
		proof = append(proof, Line{Process: old.log.Process, Record: before, Context: true})
		what += fmt.Sprintf("; its log is silent for %v around that grant: the process was not running (SIGSTOP, a long garbage collection, a frozen VM)",
			after.Time.Sub(before.Time).Round(time.Millisecond))
	}
	slices.SortStableFunc(proof, func(a, b Line) int { return a.Time.Compare(b.Time) })
	return Cause{Kind: LeaderPaused, Process: old.log.Process, Session: old.session, What: what,
		Outcome: "fenced off: ZooKeeper expired the paused leader's session, so the standby led; when it resumed, it learned its session was gone, " +
			"stopped leading and SUSPENDED its jobs (nothing was written to the JobResultStore); whatever it sent with its old fencing token was refused (FencingTokenException, an answer to the sender, not a line in the receiver's log)",
		Where: "what paused " + old.log.Process + ": its garbage collection, the host, a SIGSTOP; the lines it wrote right after it resumed show what it still tried as a leader",
		Proof: proof}
}

// killed is the cause of a leadership whose leader's log stops before the
// next grant, with no word of losing it.
func killed(logs []Log, old leadership, grantedNext Line) Cause {
	last := old.log.Records[len(old.log.Records)-1]
	proof := []Line{{Process: old.log.Process, Record: last}}
	// Its peers saw their connections to it close at the moment it died:
	// that is what tells a death from a silence.
	for _, l := range logs {
		if c, ok := first(l, closedPeer, last.Time, grantedNext.Time); ok && l.Process != old.log.Process {
			proof = append(proof, Line{Process: l.Process, Record: c})
			proof[0].Context = true
		}
	}
	proof = append(proof, grantedNext)
	return Cause{Kind: LeaderKilled, Process: old.log.Process, Session: old.session,
		What: fmt.Sprintf("%s's log stops at %s with no word of losing the leadership, and %s was granted it %v later: the process died (SIGKILL, the OOM killer, a crash) or froze and never resumed",
			old.log.Process, last.Time.Format("15:04:05.000"), grantedNext.Process, grantedNext.Time.Sub(last.Time).Round(time.Millisecond)),
		Outcome: "the dead leader suspended nothing; its latch node stayed in ZooKeeper until its session expired (high-availability.zookeeper.client.session-timeout), " +
			"then " + grantedNext.Process + " was granted the leadership, recovered the jobs from the JobGraphStore and ran them again; " +
			"the TaskManagers failed the old JobMaster's tasks (\"Disconnect from JobManager\") and registered at the new leader",
		Where: "why the process ended: its .out file, the kernel's log (the OOM killer), whoever sent the signal; nothing in Flink's logs says",
		Proof: proof}
}

// survived is what the only leadership of the logs went through: a
// suspension it tolerated, or nothing.
func survived(logs []Log, only leadership) (Cause, bool) {
	if only.revoked != nil {
		return Cause{}, false
	}
	var down outage
	for _, o := range outages(*only.log, electionSuspended) {
		if !o.from.Time.Before(only.granted.Time) && o.until != farFuture {
			down = o // the last one it came back from
		}
	}
	if down.from.Message == "" {
		return Cause{}, false
	}
	proof := []Line{{Process: only.log.Process, Record: down.from}}
	everyone := ""
	if others, othersProof := alsoDown(logs, only.log.Process, down); len(others) > 0 {
		proof = append(proof, othersProof...)
		everyone = " (so did " + enumerate(others) + ": ZooKeeper was out of reach of the whole cluster)"
	}
	proof = append(proof, Line{Process: only.log.Process, Record: down.back})
	slices.SortStableFunc(proof, func(a, b Line) int { return a.Time.Compare(b.Time) })
	return Cause{Kind: SuspensionTolerated, Process: only.log.Process, Session: only.session,
		What: fmt.Sprintf("%s lost its connection to ZooKeeper%s and got it back %v later, within the session timeout, and kept leading",
			only.log.Process, everyone, down.until.Sub(down.from.Time).Round(time.Millisecond)),
		Outcome: "nothing moved: with high-availability.zookeeper.client.tolerate-suspended-connections: true a SUSPENDED connection does not end the leadership, only a LOST session does",
		Where:   "the network to ZooKeeper, if it happens often; without tolerate-suspended-connections each such moment would have suspended every job",
		Proof:   proof}, true
}

// outage is a time a process's connection to ZooKeeper was down: from a
// suspension to the reconnection after it (until is farFuture while the
// log does not say it is back).
type outage struct {
	from  Record
	back  Record // the reconnection; zero while down
	until time.Time
}

// outages returns the outages of l, each beginning with a line that
// matches down.
func outages(l Log, down *regexp.Regexp) []outage {
	var all []outage
	var current *outage
	for _, r := range l.Records {
		switch {
		case current == nil && down.MatchString(r.Message):
			current = &outage{from: r, until: farFuture}
		case current != nil && reconnected.MatchString(r.Message):
			current.back, current.until = r, r.Time
			all = append(all, *current)
			current = nil
		}
	}
	if current != nil {
		all = append(all, *current)
	}
	return all
}

// alsoDown returns the other processes whose connection was down while
// process's was: at the same time, not at another one. ZooKeeper itself
// was down then, or out of reach of them all.
func alsoDown(logs []Log, process string, down outage) (names []string, proof []Line) {
	for _, l := range logs {
		if l.Process == process {
			continue
		}
		for _, o := range outages(l, suspended) {
			if o.from.Time.Before(down.until) && down.from.Time.Before(o.until) {
				names = append(names, l.Process)
				proof = append(proof, Line{Process: l.Process, Record: o.from})
				break
			}
		}
	}
	return names, proof
}

// enumerate joins names as a sentence does: "a, b and c".
func enumerate(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// first returns the first record of l matching re in [from, until).
func first(l Log, re *regexp.Regexp, from, until time.Time) (Record, bool) {
	for _, r := range l.Records {
		if !r.Time.Before(from) && r.Time.Before(until) && re.MatchString(r.Message) {
			return r, true
		}
	}
	return Record{}, false
}

// hasAfter tells whether l has a record after t.
func hasAfter(l Log, t time.Time) bool {
	return len(l.Records) > 0 && l.Records[len(l.Records)-1].Time.After(t)
}

// silence returns the two records of l around t: the last before it and
// the first from it on.
func silence(l Log, t time.Time) (before, after Record, ok bool) {
	i := slices.IndexFunc(l.Records, func(r Record) bool { return !r.Time.Before(t) })
	if i <= 0 {
		return Record{}, Record{}, false
	}
	return l.Records[i-1], l.Records[i], true
}
