package tracediff

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Canonical returns a trace in the order `learn check` compares and shows
// it: an order that depends on what the program guarantees, not on how its
// goroutines happened to interleave in one run.
//
// A cluster runs many things at once. The three tasks of a job are
// deployed, fetch their jar and report RUNNING side by side, so one run
// logs "m9 Source, m9 Map, m10 Source" where the next logs "m9 Map,
// m10 Map, m9 Source". Laid row by row next to a reference, the same wrong
// answer would then show its first difference at row 6 in one run and at
// row 11 in the next. What the program does guarantee is
//
//   - the order of the steps of one task attempt: "Map: square (1/2)#0" is
//     deployed (m9), then fetches its jar (m10), then runs (m11);
//   - the order of one step's events between the same two parties: the
//     ResourceManager refuses a registration (m5 ✗) before it accepts the
//     next one (m5 →), and the SlotManager asks TaskExecutor
//     taskexecutor-0 for a slot (m7) after it was refused one;
//   - which steps happen, with their sender and receiver, and how often;
//   - the order of the jobs, which a test submits one after the other.
//
// So Canonical cuts each job's events into chains whose order is
// guaranteed, and merges the chains back into one list. A chain is
//
//   - a task attempt's steps m9, m10 and m11, when their messages name it;
//   - a step's events with one TaskExecutor, for m7 and m8 when their
//     messages name it;
//   - a step's other events.
//
// The merge always takes next the chain whose next event has the lowest
// step number, and among those the chain named first: task attempts and
// TaskExecutors by name, then the step's own chain (a deployment refused
// without naming its task, m9 ✗, comes after the deployments that went
// through). Within a chain the order of the trace is kept, so a task that
// reports RUNNING before it fetches its jar still shows so, and a learner's
// trace that breaks a guarantee still differs from the reference. Jobs
// come one after the other, in the order of their first event; events of
// no job come first.
//
// One count is not guaranteed either: a TaskExecutor offers the JobMaster
// the slots it holds when it offers (m8), and offers again those not yet
// confirmed, so two slots requested at once are offered in one call or in
// two or three, as its goroutines run. A TaskExecutor's offers that went
// through one after the other count as one, which says "all offered
// slots accepted" when the JobMaster took every slot offered, and adds up
// the slots otherwise.
//
// The events come back without job IDs, and with the parts of their
// messages that change from run to run (IDs, times, temporary
// directories) written the same way every run (see StableMessage). Two
// runs of the same code thus give the same canonical trace, however their
// goroutines interleaved, and the same wrong answer gives the same table
// and the same first difference every run.
func Canonical(events []Event) []Event {
	var jobs []string
	chainsOf := map[string]map[chainKey]*chain{}
	for _, e := range events {
		chains, ok := chainsOf[e.JobID]
		if !ok {
			chains = map[chainKey]*chain{}
			chainsOf[e.JobID] = chains
			jobs = append(jobs, e.JobID)
		}
		key := chainOf(e)
		c, ok := chains[key]
		if !ok {
			c = &chain{key: key}
			chains[key] = c
		}
		c.events = append(c.events, e)
	}
	// Events of no job (an upload refused before there was a job) first;
	// the jobs in the order of their first event.
	slices.SortStableFunc(jobs, func(a, b string) int {
		return cmp.Compare(min(len(a), 1), min(len(b), 1))
	})

	canonical := make([]Event, 0, len(events))
	for _, job := range jobs {
		for _, c := range chainsOf[job] {
			c.events = coalesceOffers(c.events)
		}
		for _, e := range merge(chainsOf[job]) {
			e.JobID = ""
			e.Message = StableMessage(e.Message)
			canonical = append(canonical, e)
		}
	}
	return canonical
}

// chainKey names a chain of events whose order the program guarantees.
type chainKey struct {
	step    string // the step, for all but a task attempt's chain
	subject string // the task attempt ("Map: square (1/2)#0") or the TaskExecutor ("taskexecutor-0"); "" for a step's own chain
}

// chain is the events of one chainKey of one job, in the trace's order.
type chain struct {
	key    chainKey
	events []Event
}

// chainOf returns the chain an event belongs to (see Canonical).
func chainOf(e Event) chainKey {
	step := canonical(e.Step)
	switch step {
	case "m9", "m10", "m11":
		if task := taskAttempt(e.Message); task != "" {
			return chainKey{subject: task}
		}
	case "m7", "m8":
		if m := taskExecutorName.FindStringSubmatch(e.Message); m != nil {
			return chainKey{step: step, subject: m[1]}
		}
	}
	return chainKey{step: step}
}

// merge lays a job's chains end to end into one list, taking next, each
// time, the chain whose next event has the lowest step number; among
// equals, the chains of a task attempt or a TaskExecutor by name, then
// the step's own chain.
func merge(chains map[chainKey]*chain) []Event {
	total := 0
	heads := make([]*chain, 0, len(chains))
	for _, c := range chains {
		heads = append(heads, c)
		total += len(c.events)
	}
	// A fixed order to break ties in (the map gives none).
	slices.SortFunc(heads, func(a, b *chain) int {
		return cmp.Or(
			cmp.Compare(min(len(b.key.subject), 1), min(len(a.key.subject), 1)), // named chains first
			cmp.Compare(a.key.subject, b.key.subject),
			compareSteps(a.key.step, b.key.step))
	})
	next := make([]int, len(heads)) // the index of each chain's next event
	merged := make([]Event, 0, total)
	for range total {
		pick := -1
		for i, c := range heads {
			if next[i] == len(c.events) {
				continue
			}
			if pick < 0 || compareSteps(c.events[next[i]].Step, heads[pick].events[next[pick]].Step) < 0 {
				pick = i
			}
		}
		merged = append(merged, heads[pick].events[next[pick]])
		next[pick]++
	}
	return merged
}

// compareSteps orders steps by number, m2 before m10; a step that is not
// of the form mN comes after them all, by name.
func compareSteps(a, b string) int {
	na, aOK := stepNumber(a)
	nb, bOK := stepNumber(b)
	switch {
	case aOK && bOK:
		return cmp.Compare(na, nb)
	case aOK:
		return -1
	case bOK:
		return 1
	}
	return cmp.Compare(canonical(a), canonical(b))
}

// stepNumber returns N of step mN.
func stepNumber(step string) (int, bool) {
	digits, ok := strings.CutPrefix(canonical(step), "m")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// subtaskIndex is how Flink names a subtask in a task's name: its index
// and the parallelism, "(1/2)", then the attempt, "#0".
var subtaskIndex = regexp.MustCompile(`\(\d+/\d+\)(?:#\d+)?`)

// taskAttempt returns the task attempt a message of step m9, m10 or m11
// names, "Map: square (1/2)#0", or "" if it names none. The runtime writes
// it after "task " ("Received task Map: square (1/2)#0 (…), deploy into
// slot …", "Fetched … for task Map: square (1/2)#0 (…)") or at the start
// ("Map: square (1/2)#0 (…) switched from INITIALIZING to RUNNING.").
func taskAttempt(message string) string {
	at := subtaskIndex.FindStringIndex(message)
	if at == nil {
		return ""
	}
	name := message[:at[0]]
	if i := strings.LastIndex(name, "task "); i >= 0 {
		name = name[i+len("task "):]
	}
	return strings.TrimSpace(name) + " " + message[at[0]:at[1]]
}

// taskExecutorName finds the TaskExecutor a message of step m7 or m8
// names: "requestSlot: slot taskexecutor-0_1 of TaskExecutor
// taskexecutor-0 for job …", "offerSlots from taskexecutor-0: 2 offered,
// 2 accepted".
var taskExecutorName = regexp.MustCompile(`(?:of TaskExecutor|offerSlots from) ([^\s:]+)`)

// offered reads the slots of an offer that went through.
var offered = regexp.MustCompile(`^(offerSlots from [^\s:]+): (\d+) offered, (\d+) accepted$`)

// coalesceOffers folds the offers (m8) of one TaskExecutor that went
// through one after the other into one (see Canonical). Other events are
// left as they are.
func coalesceOffers(events []Event) []Event {
	var out []Event
	for _, e := range events {
		if len(out) > 0 && canonical(e.Step) == "m8" && !e.Failed {
			last := &out[len(out)-1]
			a, b := offered.FindStringSubmatch(last.Message), offered.FindStringSubmatch(e.Message)
			if Same(*last, e) && a != nil && b != nil && a[1] == b[1] {
				last.Message = fmt.Sprintf("%s: %d offered, %d accepted", a[1], atoi(a[2])+atoi(b[2]), atoi(a[3])+atoi(b[3]))
				continue
			}
		}
		out = append(out, e)
	}
	for i, e := range out {
		if m := offered.FindStringSubmatch(e.Message); m != nil && !e.Failed && m[2] == m[3] {
			out[i].Message = m[1] + ": all offered slots accepted"
		}
	}
	return out
}

func atoi(digits string) int {
	n, _ := strconv.Atoi(digits)
	return n
}

// volatile are the parts of a trace message that change from run to run,
// and what StableMessage writes instead.
var volatile = []struct {
	pattern *regexp.Regexp
	with    string
}{
	// A test's temporary directory, "/tmp/TestName1234/001".
	{regexp.MustCompile(`[^\s\[\]"'()]*?/Test[^\s/]*?\d+/\d{3}`), "<tmp>"},
	// An execution attempt: graph, vertex, subtask and attempt.
	{regexp.MustCompile(`\b[0-9a-f]{32}_[0-9a-f]{32}_\d+_\d+\b`), "<id>"},
	// A jar's name on the BlobServer or in the jar directory.
	{regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<id>"},
	// JobIDs, leader IDs, allocation IDs (32 hex digits), BLOB keys (64).
	{regexp.MustCompile(`\b[0-9a-f]{32,}\b`), "<id>"},
	// A time of day, "05:05:10.881".
	{regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b`), "<time>"},
}

// StableMessage returns a trace message with what changes from one run to
// the next (IDs, times of day, a test's temporary directory) written
// "<id>", "<time>" and "<tmp>":
//
//	registerJobMaster: job manager 06ce2fbe01b2e010cdcfde52549fc52b@pekko://flink/user/rpc/jobmanager_0 registered for job baf1df8e700d15d76b6b80bb1f7e9c48
//	registerJobMaster: job manager <id>@pekko://flink/user/rpc/jobmanager_0 registered for job <id>
func StableMessage(message string) string {
	for _, v := range volatile {
		message = v.pattern.ReplaceAllString(message, v.with)
	}
	return message
}
