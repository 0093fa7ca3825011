package fault

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"flinklab/runtime/logging"
	"flinklab/runtime/trace"
)

// Clue describes one log line that proves a failure: the component that
// writes it (its logger, and so the log it is in) and a pattern its text
// matches. The pattern is matched against LogRecord.Text, so it may reach
// into the attributes and the cause printed on the next line ((?s) lets
// "." cross it).
type Clue struct {
	Logger  string
	Pattern *regexp.Regexp
	// Optional marks a line that proves the failure when it is there but
	// whose absence proves nothing: it is written only in some runs (a
	// timeout that a newer message makes moot, a heartbeat that a faster
	// failure overtakes).
	Optional bool
	// Later, when set, asks the line to come at least that long after the
	// line of the clue before it: what a failure shows only by its timing
	// (a registration that took a timeout longer than it does in a run
	// that goes well, whose attempts Flink logs at DEBUG).
	Later time.Duration
}

// Process returns the log the line is in.
func (c Clue) Process() Process { return LogRecord{Logger: c.Logger}.Process() }

// Matches reports whether r is the line c describes.
func (c Clue) Matches(r LogRecord) bool {
	return r.Logger == c.Logger && c.Pattern.MatchString(r.Text())
}

// Evidence is what the logs show when a step breaks in one way (its Kind):
// the cause in Flink's words, where to look next, and the three to five
// lines that prove it.
type Evidence struct {
	Step trace.Step
	Kind Kind
	// Cause says what went wrong, quoting the log lines that show it.
	Cause string
	// WhereToLook says which log to open and what to check there.
	WhereToLook string
	// Clues describe the lines that prove the cause; Find returns them in
	// the order the log has them.
	Clues []Clue
	// Component, when set, is the component to dig into for this kind,
	// where it is not the step's (see Component): Explain names it.
	Component string
}

// EvidenceFor returns the evidence of a kind of failure at step in a job
// of the DefaultScheduler, or false for a kind the step does not have. The
// empty kind asks for what the log shows when it cannot tell the kinds of
// the step apart; only m8 has that.
func EvidenceFor(step trace.Step, kind Kind) (Evidence, bool) {
	return EvidenceUnder(DefaultScheduler, step, kind)
}

// The schedulers whose jobs can show a failure in different lines, as
// jobmanager.scheduler names them.
const (
	DefaultScheduler  = "Default"
	AdaptiveScheduler = "Adaptive"
)

// EvidenceUnder is EvidenceFor for a job of the given scheduler
// (jobmanager.scheduler, in any case; empty is Default): a kind whose
// lines differ under the AdaptiveScheduler has evidence of its own there
// (adaptiveEvidence); the others show the same lines under both.
func EvidenceUnder(scheduler string, step trace.Step, kind Kind) (Evidence, bool) {
	e, ok := evidence[kind]
	if !ok {
		e, ok = checkpointEvidence[kind]
	}
	if adaptive, differs := adaptiveEvidence[kind]; differs && strings.EqualFold(scheduler, AdaptiveScheduler) {
		e = adaptive
	}
	if kind == "" {
		e, ok = evidenceOfAnyKind[step]
	}
	if !ok || e.Step != step {
		return Evidence{}, false
	}
	e.Kind = kind
	e.Clues = slices.Clone(e.Clues)
	return e, true
}

// ProvingLine is one log line that proves a diagnosis: the record, where
// it is in the records it was found in, and the clue it matched.
type ProvingLine struct {
	Index  int
	Record LogRecord
	Clue   Clue
}

// Find picks the lines that prove e from a log's records: for each clue,
// in order, the earliest record it matches that no clue before it took
// (and that comes Clue.Later after the line found before it).
// It returns them in log order, and reports whether every clue that is not
// optional found its line. The records are one cluster's log, oldest
// first; a log of many jobs should be cut to the story of one.
func (e Evidence) Find(records []LogRecord) ([]ProvingLine, bool) {
	taken := make(map[int]bool)
	var lines []ProvingLine
	complete := true
	var previous *LogRecord // the line of the clue before, for Later
	for _, clue := range e.Clues {
		found := false
		for i, r := range records {
			if !taken[i] && clue.Matches(r) && (clue.Later == 0 || previous != nil && r.Time.Sub(previous.Time) >= clue.Later) {
				taken[i] = true
				lines = append(lines, ProvingLine{Index: i, Record: r, Clue: clue})
				previous = &records[i]
				found = true
				break
			}
		}
		if !found && !clue.Optional {
			complete = false
		}
	}
	slices.SortFunc(lines, func(a, b ProvingLine) int { return a.Index - b.Index })
	return lines, complete
}

// maxExcerpt is how long a quoted line may get, in characters, before
// words are left out of it.
const maxExcerpt = 220

// String prints the line as the log has it, labelled with the log it is
// in, shortened to be read at a glance: a deep file path keeps only its
// last element, and a line that is still too long loses whole words (never
// part of an ID) but keeps the text the clue's groups matched (the whole
// match for a pattern without groups), as much of its start as fits, and
// the words around the kept text. The lines after the first (a cause, the
// rest of a block) are quoted, each on a line of its own, when they hold
// kept text:
//
//	JobManager   10:16:01,887 INFO  ExecutionGraph [] - counter -> Sink: … switched from DEPLOYING to FAILED on taskexecutor-0 @ …
//	             Cannot deploy task counter -> Sink: collect-sink (1/2) (…) - TaskManager (…) not responding after a rpcTimeout of 1s: …
func (p ProvingLine) String() string {
	r := p.Record
	text := shortenPaths(r.Text())
	var keep [][2]int // the spans of text a shortened line keeps
	if loc := p.Clue.Pattern.FindStringSubmatchIndex(text); loc != nil {
		for g := 2; g+1 < len(loc); g += 2 {
			if loc[g] >= 0 {
				keep = append(keep, [2]int{loc[g], loc[g+1]})
			}
		}
		if len(keep) == 0 {
			keep = [][2]int{{loc[0], loc[1]}}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %s %-5s %s [] - ", r.Process(), r.Time.Format("15:04:05,000"), logging.LevelName(r.Level), r.Logger)
	start := 0
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		from := start + len(line) - len(trimmed)
		start += len(line) + 1
		var spans [][2]int // the kept spans on this line
		for _, k := range keep {
			if lo, hi := max(k[0], from), min(k[1], from+len(trimmed)); lo < hi {
				spans = append(spans, [2]int{lo - from, hi - from})
			}
		}
		switch {
		case i == 0:
			b.WriteString(excerpt(trimmed, spans, maxExcerpt))
		case len(spans) > 0:
			b.WriteString("\n" + strings.Repeat(" ", 13) + excerpt(trimmed, spans, maxExcerpt))
		}
	}
	return b.String()
}

// deepPath is an absolute file path four directories deep or more, as the
// temporary directories of a cluster are: only its last element says
// anything to a reader.
var deepPath = regexp.MustCompile(`(^|[\s\[(=])/(?:[^/\s\[\]()]+/){3,}([^/\s\[\]()]+)`)

func shortenPaths(s string) string { return deepPath.ReplaceAllString(s, "${1}…/${2}") }

// excerpt shortens line to about limit characters by leaving out whole
// words, each gap shown as "…". It keeps the words that overlap spans;
// then, while they fit, the words from the start of the line, the words
// after each kept span and the words before it.
func excerpt(line string, spans [][2]int, limit int) string {
	if utf8.RuneCountInString(line) <= limit {
		return line
	}
	words := strings.Split(line, " ")
	keep := make([]bool, len(words))
	budget := limit
	for i, pos := 0, 0; i < len(words); i++ {
		end := pos + len(words[i])
		for _, s := range spans {
			if end > s[0] && pos < s[1] {
				keep[i] = true
			}
		}
		if keep[i] {
			budget -= utf8.RuneCountInString(words[i]) + 1
		}
		pos = end + 1
	}
	// take keeps word i if it fits, and says whether to go on.
	take := func(i int) bool {
		if keep[i] {
			return true
		}
		n := utf8.RuneCountInString(words[i]) + 1
		if n > budget {
			return false
		}
		keep[i] = true
		budget -= n
		return true
	}
	var starts, ends []int // the first and last word of each run of kept words
	for i := range words {
		if keep[i] && (i == 0 || !keep[i-1]) {
			starts = append(starts, i)
		}
		if keep[i] && (i == len(words)-1 || !keep[i+1]) {
			ends = append(ends, i)
		}
	}
	for i := 0; i < len(words) && take(i); i++ {
	}
	for _, end := range ends {
		for i := end + 1; i < len(words) && take(i); i++ {
		}
	}
	for _, start := range starts {
		for i := start - 1; i >= 0 && take(i); i-- {
		}
	}
	var b strings.Builder
	gap := false
	for i, w := range words {
		if !keep[i] {
			gap = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if gap {
			b.WriteString("… ")
		}
		gap = false
		b.WriteString(w)
	}
	if gap {
		b.WriteString(" …")
	}
	return b.String()
}

// clue is a Clue whose pattern is compiled here.
func clue(logger, pattern string) Clue {
	return Clue{Logger: logger, Pattern: regexp.MustCompile(pattern)}
}

// later is c, to be found at least d after the line of the clue before.
func later(c Clue, d time.Duration) Clue {
	c.Later = d
	return c
}

// registrationInitialTimeout is Flink's cluster.registration.initial-timeout:
// a registration whose first attempt got no answer arrives at least that
// late.
const registrationInitialTimeout = 100 * time.Millisecond

// optional is a Clue that only some runs write.
func optional(logger, pattern string) Clue {
	c := clue(logger, pattern)
	c.Optional = true
	return c
}

// evidence is, for each kind of fault, what the cluster's logs show when it
// happens: the cause, where to look, and the lines that prove it, each a
// component's logger and a pattern of Flink's phrases; the groups of a
// pattern are what a shortened line keeps. The FaultInjector's own lines
// are never evidence: a real cluster does not write them. A log-detective
// drill asks the learner to find these lines.
var evidence = map[Kind]Evidence{
	UploadRejected: {
		Step: trace.M1,
		Cause: `the REST endpoint was up but could not move the uploaded jar into its upload directory ` +
			`("Could not move uploaded jar file … to …") and answered 500 Internal server error; ` +
			`no jar was stored and no job exists`,
		WhereToLook: `the JobManager log: the upload directory that "Web frontend listening at" names (jarDir, ` +
			`web.upload.dir): is it there, writable, not full? Then the cause after "Could not move uploaded jar file"`,
		Clues: []Clue{
			// The endpoint's start shows where it keeps uploads, but a log
			// that begins later (rotated, or a drill's) may not have it.
			optional("DispatcherRestEndpoint", `^Rest endpoint listening at `),
			optional("DispatcherRestEndpoint", `^Web frontend listening at `),
			clue("DispatcherRestEndpoint", `(?s)^(Unhandled exception\.) request=POST /jars/upload\n(Could not move uploaded jar file .*)`),
		},
	},
	MalformedRunRequest: {
		Step: trace.M2,
		Cause: `the run request's body did not parse, so JarRunHandler refused it with 400 Bad Request ` +
			`("Request did not match expected format JarRunRequestBody."); the jar was uploaded, but no job was ` +
			`created and the Dispatcher never heard of one`,
		WhereToLook: `the client that sent POST /jars/{jarid}/run: the errors of the 400 answer name what could not ` +
			`be parsed, and the JobManager log repeats them after "Exception occurred in REST handler:"`,
		Clues: []Clue{
			optional("DispatcherRestEndpoint", `^Rest endpoint listening at `),
			clue("DispatcherRestEndpoint", `^Uploaded jar `),
			clue("DispatcherRestEndpoint", `^Exception occurred in REST handler: Request did not match expected format `),
		},
	},
	InvalidJobGraph: {
		Step: trace.M3,
		Cause: `the Dispatcher received the JobGraph ("Received JobGraph submission") and refused it before ` +
			`"Submitting job": JobSubmissionException: The JobGraph is invalid.; nothing was persisted and no ` +
			`JobMaster was started`,
		WhereToLook: `the Dispatcher's checks in submitJob and the JobGraph the client built (its vertices, their ` +
			`parallelism and invokable classes); the REST answer carries the same JobSubmissionException`,
		Clues: []Clue{
			clue("DispatcherRestEndpoint", `^Uploaded jar `),
			clue("StandaloneDispatcher", `^Received JobGraph submission `),
			clue("DispatcherRestEndpoint", `^(Exception occurred in REST handler: Could not execute application\.) (.*JobSubmissionException: The JobGraph is invalid\..*)`),
		},
	},
	DuplicateJobID: {
		Step: trace.M3,
		Cause: `the Dispatcher received the JobGraph ("Received JobGraph submission") and refused it as a ` +
			`duplicate: DuplicateJobSubmissionException: Job has already been submitted. A job with this JobID ` +
			`is running, or its result is in the JobResultStore; nothing was persisted`,
		WhereToLook: `the JobID the client submitted: a client that sets a fixed JobID (application mode with HA ` +
			`does) or submits again after a timeout; then the Dispatcher's running jobs and the JobResultStore`,
		Clues: []Clue{
			clue("DispatcherRestEndpoint", `^Uploaded jar `),
			clue("StandaloneDispatcher", `^Received JobGraph submission `),
			clue("DispatcherRestEndpoint", `^(Exception occurred in REST handler: Could not execute application\.) (.*DuplicateJobSubmissionException: Job has already been submitted\..*)`),
		},
	},
	JobMasterStartFailure: {
		Step: trace.M4,
		Cause: `the JobMaster failed while it started, after its ExecutionGraph was built: ` +
			`JobInitializationException: Could not start the JobMaster.; the job went to FAILED during ` +
			`initialization, with no restart, although its submission had been acknowledged`,
		WhereToLook: `the JobManager log: the cause under the Dispatcher's "reached terminal state FAILED" and "Could not start the JobMaster", which is what the ` +
			`JobMaster could not build or start (in Flink often a class missing from the jar, a vertex without ` +
			`an invokable class, a bad restart-strategy option); read the cause, not the wrapper`,
		Clues: []Clue{
			clue("JobMasterServiceLeadershipRunner", `was granted leadership with leader id .*Creating new JobMasterServiceProcess\.`),
			clue("JobMaster", `^Created execution graph `),
			// Flink logs the JobMaster's failure itself at DEBUG only.
			clue("StandaloneDispatcher", `(?s)^(Job \S+ reached terminal state FAILED\.)\n(JobInitializationException: Could not start the JobMaster\..*)`),
		},
	},
	MaxParallelismExceeded: {
		Step: trace.M4,
		Cause: `the JobMaster could not build the job's ExecutionGraph: a vertex's parallelism is higher than ` +
			`its max parallelism ("Vertex …'s parallelism (N) is higher than the max parallelism (M). Please lower ` +
			`the parallelism or increase the max parallelism.", a JobException); the client and the Dispatcher had ` +
			`accepted the job, and it went to FAILED during initialization ("JobInitializationException: Could not ` +
			`start the JobMaster."), with no restart, before any ExecutionGraph existed`,
		WhereToLook: `the JobManager log: the cause under the Dispatcher's "reached terminal state FAILED" and ` +
			`"Could not start the JobMaster." names the vertex, its parallelism and its max parallelism. Compare ` +
			`the parallelism the job was submitted with (flink run -p, the run request's parallelism, ` +
			`parallelism.default) with the max parallelism its program sets (setMaxParallelism, ` +
			`pipeline.max-parallelism). Fix: lower the parallelism or raise the max parallelism, knowing that the ` +
			`max parallelism is the number of key groups a job's keyed state is split into: a job with keyed ` +
			`state that changes it loses the mapping of its state to key groups and cannot be restored from its ` +
			`savepoints`,
		Clues: []Clue{
			clue("JobMasterServiceLeadershipRunner", `was granted leadership with leader id .*Creating new JobMasterServiceProcess\.`),
			clue("JobMaster", `^Initializing job `),
			// No "Created execution graph" comes between them: the
			// JobMaster failed while it built it.
			clue("StandaloneDispatcher", `(?s)^(Job \S+ reached terminal state FAILED\.)\n(JobInitializationException: Could not start the JobMaster\.).*(Vertex .*'s parallelism \(\d+\) is higher than the max parallelism \(\d+\)\.)`),
		},
	},
	ResourceManagerUnreachable: {
		Step: trace.M5,
		Cause: `the JobMaster's first registerJobMaster call got no answer within the registration timeout ` +
			`(cluster.registration.initial-timeout, 100 ms): the ResourceManager logged "Registering job manager" ` +
			`only that much later, when the retrying registration tried again with double the timeout, and then ` +
			`"JobManager successfully registered at ResourceManager"`,
		WhereToLook: `the JobManager log between "Resolved ResourceManager address, beginning registration" and ` +
			`"Registering job manager": the attempts themselves are DEBUG lines ("Registration at ResourceManager ` +
			`attempt N"). If "successfully registered" never comes, check that the ResourceManager is up and is ` +
			`the leader the JobMaster's leader retrieval points at`,
		Clues: []Clue{
			clue("JobMaster", `^Connecting to ResourceManager `),
			clue("JobMaster", `^Resolved ResourceManager address, beginning registration`),
			later(clue("StandaloneResourceManager", `^Registering job manager \S+ for job `), registrationInitialTimeout),
			clue("JobMaster", `^JobManager successfully registered at ResourceManager`),
		},
	},
	RegistrationError: {
		Step: trace.M5,
		Cause: `the JobMaster's registerJobMaster call failed with an error, not a timeout ("Registration at ` +
			`ResourceManager failed due to an error", the cause under it): the retrying registration paused for ` +
			`cluster.registration.error-delay ("Pausing and re-attempting registration in … ms") and started ` +
			`over; until it succeeds, the job gets no slot`,
		WhereToLook: `the JobManager log: the cause under "Registration at ResourceManager failed due to an ` +
			`error" (the ResourceManager's address, its process, the network to it), then whether "JobManager ` +
			`successfully registered at ResourceManager" follows once the pause is over`,
		Clues: []Clue{
			clue("JobMaster", `^Connecting to ResourceManager `),
			clue("JobMaster", `(?s)^(Registration at ResourceManager failed due to an error)\n(.*)`),
			clue("JobMaster", `^(Pausing and re-attempting registration in \d+ ms)`),
			optional("JobMaster", `^JobManager successfully registered at ResourceManager`),
		},
	},
	ResourceDeclarationLost: {
		Step: trace.M6,
		Cause: `the JobMaster's declareRequiredResources got no answer within the RPC timeout ` +
			`("Failed to declare resource requirements of job …", an rpc timeout); its slot pool declared again, ` +
			`and the SlotManager "Received resource requirements" one RPC timeout late`,
		WhereToLook: `the JobManager log: the JobMaster's "Failed to declare resource requirements" warnings and ` +
			`their causes, then the SlotManager's "Received resource requirements from job". An answer "Could not ` +
			`find registered job manager for job" means the registration (m5) was lost; one about the job ` +
			`leader's id, a stale JobMaster`,
		Clues: []Clue{
			clue("JobMaster", `^JobManager successfully registered at ResourceManager`),
			clue("JobMaster", `(?s)^(Failed to declare resource requirements of job .*)`),
			clue("FineGrainedSlotManager", `^Received resource requirements from job `),
		},
	},
	NoMatchingSlot: {
		Step: trace.M7,
		Cause: `the SlotManager listed a TaskManager with free resources under "Current resources" ("Available: ` +
			`ResourceProfile{…}", not zero) but cut no slot out of them for the job's requirement; after the start-up period it gave up ("Could not ` +
			`fulfill resource requirements of job …"), and the JobMaster's slot pool failed its slot requests: ` +
			`NoResourceAvailableException: Could not acquire the minimum required resources.`,
		WhereToLook: `the SlotManager's "Matching resource requirements against available resources" block in the ` +
			`JobManager log: the job's ResourceRequirement under "Missing resources" against each TaskManager ` +
			`under "Current resources". Free resources left untaken mean the requirement fits none of them (its ` +
			`ResourceProfile larger than any TaskManager's "Available", a blocked TaskManager); nothing available at all, too few TaskManagers (in active ` +
			`mode: did the workers the ResourceManager asked for start?)`,
		Clues: []Clue{
			clue("FineGrainedSlotManager", `(?s)^(Matching resource requirements against available resources\.).*\n\s*(TaskManager \S+)\n\s*(Available: ResourceProfile\{cpuCores=(?:[1-9]|0\.\d*[1-9])[^}]*\})`),
			clue("FineGrainedSlotManager", `^Could not fulfill resource requirements of job `),
			clue("DeclarativeSlotPoolBridge", `^Could not acquire the minimum required resources, failing slot requests\.`),
			clue("ExecutionGraph", `(?s)(switched from SCHEDULED to FAILED on \[unassigned resource\]\.)\n(NoResourceAvailableException: Could not acquire the minimum required resources\.)`),
		},
	},
	SlotSharingGroupTooLarge: {
		Step: trace.M7,
		Cause: `the job asked for slots larger than any TaskManager: the SlotManager "Received resource ` +
			`requirements" whose ResourceProfile the program gave a slot sharing group ("ResourceRequirement{` +
			`resourceProfile=ResourceProfile{cpuCores=16, …}"), more than every TaskManager has "Available" (and in ` +
			`"Total") under "Current resources", so it cut no slot for them; after the start-up period it gave up ` +
			`("Could not fulfill resource requirements of job …"), and the JobMaster's slot pool failed its slot ` +
			`requests: NoResourceAvailableException: Could not acquire the minimum required resources. Each ` +
			`restart asks for the same slots and fails the same way, until the restart strategy gives up and the ` +
			`job is FAILED`,
		WhereToLook: `the SlotManager's "Matching resource requirements against available resources" block in the ` +
			`JobManager log: the ResourceRequirement under "Missing resources" against each TaskManager's ` +
			`"Available" and "Total" under "Current resources". A requirement larger than every TaskManager's ` +
			`"Total" in one dimension (CPU cores, task heap, managed memory) is never met, however long the job ` +
			`waits or restarts. It is the resources the program gave the slot sharing group ` +
			`(SlotSharingGroup.newBuilder(…).setCpuCores(…), setTaskHeapMemoryMB, setManagedMemoryMB): look for a ` +
			`typo or a wrong unit, or give the TaskManagers more (taskmanager.cpu.cores, taskmanager.memory.*)`,
		Clues: []Clue{
			// cpuCores=16 is what the fault gives the slot sharing group
			// (the JobMaster's graphToBuild): more than a TaskManager of the
			// demo or a drill has.
			clue("FineGrainedSlotManager", `^(Received resource requirements from job \S+): \[.*(ResourceRequirement\{resourceProfile=ResourceProfile\{cpuCores=16(?:\.0+)?,) [^}]*\}, numberOfRequiredSlots=\d+\}`),
			// A TaskManager has fewer than 16 cpuCores available: the
			// requirement exceeds it.
			clue("FineGrainedSlotManager", `(?s)^(Matching resource requirements against available resources\.)\nMissing resources:.*?(ResourceRequirement\{resourceProfile=ResourceProfile\{cpuCores=16(?:\.0+)?, [^}]*\}, numberOfRequiredSlots=\d+\}).*?\nCurrent resources:.*?\n\s*(TaskManager \S+)\n\s*(Available: ResourceProfile\{cpuCores=(?:1[0-5]|\d)(?:\.\d+)?, [^}]*\})`),
			clue("FineGrainedSlotManager", `^Could not fulfill resource requirements of job `),
			clue("DeclarativeSlotPoolBridge", `^Could not acquire the minimum required resources, failing slot requests\.`),
			clue("ExecutionGraph", `(?s)(switched from SCHEDULED to FAILED on \[unassigned resource\]\.)\n(NoResourceAvailableException: Could not acquire the minimum required resources\.)`),
		},
	},
	SlotOfferRejected: {
		Step: trace.M8,
		Cause: `the JobMaster accepted none of the slots the TaskExecutor offered ("Offer reserved slots to the ` +
			`leader of job …"): the TaskExecutor freed the rejected slot before it was ever ACTIVE ("Free slot ` +
			`TaskSlot(… state:ALLOCATED …)"), the ResourceManager saw it free again ("Freeing slot") and the ` +
			`SlotManager matched the job's requirements anew`,
		WhereToLook: `the TaskManager log for the offer and the freed slot, then the JobManager log: did the slot ` +
			`pool still need the slot, and what did the SlotManager's next "Matching resource requirements" block ` +
			`do? An "Unknown TaskManager" error means the TaskManager's registration at the JobMaster was lost`,
		Clues: []Clue{
			clue("TaskExecutor", `^Offer reserved slots to the leader of job `),
			clue("TaskSlotTableImpl", `^Free slot TaskSlot\(index:\d+, state:ALLOCATED,`),
			clue("DefaultSlotStatusSyncer", `^Freeing slot `),
		},
	},
	SlotOfferTimeout: {
		Step: trace.M8,
		Cause: `the JobMaster did not answer the TaskExecutor's offerSlots ("Offer reserved slots to the leader ` +
			`of job …"): after the RPC timeout the TaskExecutor logged "Slot offering to JobManager did not ` +
			`finish in time. Retrying the slot offering.", offered its reserved slots again, and the JobMaster ` +
			`took them ("Activate slot")`,
		WhereToLook: `the TaskManager log: repeated "Offer reserved slots" and "Retrying the slot offering" lines. ` +
			`Many of them point at a JobMaster whose main thread is too busy to answer, or at the network ` +
			`between the TaskManager and the JobManager`,
		Clues: []Clue{
			clue("TaskExecutor", `^Offer reserved slots to the leader of job `),
			clue("TaskExecutor", `^Slot offering to JobManager did not finish in time\. Retrying the slot offering\.`),
			clue("TaskExecutor", `^Offer reserved slots to the leader of job `),
			clue("TaskSlotTableImpl", `^Activate slot `),
		},
	},
	TaskExecutorDies: {
		Step: trace.M9,
		Cause: `the TaskManager was lost after offering its slots, while the JobMaster deployed tasks to it: their deployment ` +
			`"switched from DEPLOYING to FAILED", because submitTask got no answer ("Cannot deploy task … not ` +
			`responding after a rpcTimeout of …") or because the JobMaster stopped hearing from the TaskManager ` +
			`first ("Heartbeat of TaskManager with id … timed out."), as the ResourceManager did ("The heartbeat ` +
			`of TaskManager with id … timed out."); the job restarted the tasks the failover strategy chose ` +
			`("N tasks will be restarted"): under region failover the failed task's region, and the producers ` +
			`whose finished results were on the lost TaskManager`,
		WhereToLook: `the JobManager log: the cause under "switched from DEPLOYING to FAILED" and the heartbeat ` +
			`timeouts name the lost TaskManager. Then that TaskManager: its last log lines, the kernel's OOM ` +
			`killer, the exit reason of its pod or container. A task that fails later because a partition was ` +
			`not found asked for a result that was on the lost TaskManager: a consequence`,
		Clues: []Clue{
			clue("ExecutionGraph", `^(Deploying) .* (to \S+) @ `),
			optional("StandaloneResourceManager", `^The heartbeat of TaskManager with id \S+ timed out\.`),
			optional("JobMaster", `^Heartbeat of TaskManager with id \S+ timed out\.`),
			clue("ExecutionGraph", `(?s)(switched from DEPLOYING to FAILED on \S+) .*\n(?:(Cannot deploy task) .*(not responding after a rpcTimeout of \S+)|(.*Heartbeat of TaskManager with id \S+ timed out\.))`),
			clue("DefaultScheduler", `tasks will be restarted to recover the failed task `),
		},
	},
	BlobUnavailable: {
		Step: trace.M10,
		Cause: `the TaskManager's BLOB cache could not get the job's jar from the BlobServer: every download ` +
			`attempt failed ("Failed to fetch BLOB … Retrying...", then "Downloading … (retry N)"), and the last ` +
			`one ("No retries left.") logged why: "GET operation failed: Local file for BLOB … does not exist and ` +
			`failed to copy from blob store"; the task failed while DEPLOYING and the job restarted`,
		WhereToLook: `the TaskManager log: the cause under "Failed to fetch BLOB … No retries left." (at INFO the ` +
			`"Retrying..." lines carry none); then the BlobServer on the JobManager: its storage directory, and ` +
			`with HA the HA blob store it copies from; its port (blob.server.port) must be reachable from the ` +
			`TaskManagers`,
		Clues: []Clue{
			optional("BlobClient", `^(Downloading \S+ from \S+ \(retry \d+\))`),
			clue("BlobClient", `(?s)^(Failed to fetch BLOB) .* (No retries left\.)\n(GET operation failed): .*?(does not exist)`),
			clue("Task", `(?s)(switched from DEPLOYING to FAILED with failure cause: Failed to fetch BLOB) .*(No retries left\.)`),
			clue("ExecutionGraph", `(?s)(switched from DEPLOYING to FAILED on \S+) .*\n(Failed to fetch BLOB) .*(No retries left\.)`),
			clue("DefaultScheduler", `tasks will be restarted to recover the failed task `),
		},
	},
	JarCorrupted: {
		Step: trace.M10,
		Cause: `the jar reached the TaskManager damaged: on every download attempt ("Failed to fetch BLOB … ` +
			`Retrying...", then "Downloading … (retry N)") its bytes did not hash to its BLOB key, and the last ` +
			`attempt ("No retries left.") logged why: "Detected data corruption during transfer", as in Flink; ` +
			`the task failed while DEPLOYING and the job restarted`,
		WhereToLook: `the TaskManager log: the cause under "Failed to fetch BLOB … No retries left." (at INFO the ` +
			`"Retrying..." lines carry none). Data corruption detected on every attempt points at the bytes the ` +
			`BlobServer sends (its stored file, damaged on disk) or at something between it and the TaskManager, ` +
			`not at the job`,
		Clues: []Clue{
			optional("BlobClient", `^(Downloading \S+ from \S+ \(retry \d+\))`),
			clue("BlobClient", `(?s)^(Failed to fetch BLOB) .* (No retries left\.)\n(Detected data corruption during transfer)`),
			clue("Task", `(?s)(switched from DEPLOYING to FAILED with failure cause: Failed to fetch BLOB) .*(No retries left\.)`),
			clue("ExecutionGraph", `(?s)(switched from DEPLOYING to FAILED on \S+) .*\n(Failed to fetch BLOB) .*(No retries left\.)`),
			clue("DefaultScheduler", `tasks will be restarted to recover the failed task `),
		},
	},
	OperatorOpenThrows: {
		Step: trace.M11,
		Cause: `an operator's open() threw while its task was INITIALIZING: the task "switched from ` +
			`INITIALIZING to FAILED" with the operator's exception as its failure cause, the TaskExecutor ` +
			`reported it to the JobMaster, and the job restarted its tasks by its restart strategy`,
		WhereToLook: `the TaskManager log's "switched from INITIALIZING to FAILED with failure cause:" line: the ` +
			`cause is the operator's own exception; the JobManager's copy says which TaskManager ran the task. ` +
			`RUNNING → FAILED would mean user code failed later, while processing records`,
		Clues: []Clue{
			clue("Task", `(switched from INITIALIZING to FAILED with failure cause: .*)`),
			clue("TaskExecutor", `^Un-registering task and sending final execution state FAILED to JobManager for task `),
			clue("ExecutionGraph", `switched from INITIALIZING to FAILED on `),
			clue("DefaultScheduler", `tasks will be restarted to recover the failed task `),
			clue("ExecutionGraph", `^Job .* switched from state RUNNING to RESTARTING\.`),
		},
	},
}

// checkpointExpiredClues are the lines of a checkpoint that expired while
// execution.checkpointing.tolerable-failed-checkpoints is 0 (Flink's
// default): the expiry, the failure the CheckpointFailureManager counts,
// and the global failover it sets off. They say that the checkpoint did
// not complete in time, not where it stopped: the trace, and the
// checkpoint's statistics, tell that.
var checkpointExpiredClues = []Clue{
	clue("CheckpointCoordinator", `^(Checkpoint \d+ of job \S+ expired before completing\.)`),
	clue("CheckpointFailureManager", `(?s)^(Failed to trigger or complete checkpoint \d+ for job \S+\.) \(\d+ consecutive failed attempts so far\)\n.*(Checkpoint expired before completing\.)`),
	clue("DefaultScheduler", `(?s)^(Trying to recover from a global failure\.)\n(Exceeded checkpoint tolerable failure threshold\.) The latest checkpoint failed due to (Checkpoint expired before completing\.)`),
	clue("DefaultScheduler", `^\d+ tasks will be restarted to recover from a global failure\.`),
	clue("ExecutionGraph", `^Job .* switched from state RUNNING to RESTARTING\.`),
}

// checkpointEvidence is, for each kind of fault of a checkpoint (k1…k6),
// what the cluster's logs show when it happens; it is part of evidence.
var checkpointEvidence = map[Kind]Evidence{
	CheckpointExpired: {
		Step: trace.K1,
		Cause: `the CheckpointCoordinator triggered the checkpoint, but no source ever took it, so no task ` +
			`acknowledged it and, execution.checkpointing.timeout later, it gave up: "Checkpoint N of job … expired ` +
			`before completing." CHECKPOINT_EXPIRED counts against execution.checkpointing.tolerable-failed-checkpoints ` +
			`(0 by default), so the CheckpointFailureManager failed the job: "Exceeded checkpoint tolerable failure ` +
			`threshold.", a global failure ("Trying to recover from a global failure."): every task restarted by the ` +
			`restart strategy ("N tasks will be restarted to recover from a global failure."), from the latest ` +
			`completed checkpoint`,
		WhereToLook: `the JobManager log says only that the checkpoint expired; its statistics say where it stopped: ` +
			`in GET /jobs/<jobid>/checkpoints (the web UI's Checkpoints tab) the failed checkpoint has 0 acknowledged ` +
			`subtasks, so no source took it. Check that the JobManager reaches the sources' TaskManagers (at DEBUG a ` +
			`TaskManager logs "Trigger checkpoint N@… for …" when a trigger arrives) and that the sources are not ` +
			`stuck. Raise execution.checkpointing.timeout or tolerable-failed-checkpoints only once you know why`,
		Clues: checkpointExpiredClues,
	},
	TaskNotReady: {
		Step: trace.K2,
		Cause: `a source's Task declined the checkpoint's trigger as a task that is not running does ("Declining ` +
			`checkpoint request for non-running task …", at DEBUG in the TaskManager log), with ` +
			`CHECKPOINT_DECLINED_TASK_NOT_READY. The CheckpointCoordinator aborted the checkpoint ("Decline checkpoint N ` +
			`by task …"), and the CheckpointFailureManager did not count it ("0 consecutive failed attempts so far", ` +
			`"Checkpoint was declined (tasks not ready)"): the job kept running, and the next checkpoint completed`,
		WhereToLook: `the JobManager log: the task under "Decline checkpoint N by task … at <TaskManager>" and the ` +
			`reason under "Failed to trigger or complete checkpoint N". A task that is not ready is still deploying or ` +
			`restoring, or has just finished or failed: a few such declines are normal around a failover or at the end ` +
			`of a bounded input; many in a row mean tasks that keep restarting, so look for their failures`,
		Clues: []Clue{
			clue("CheckpointCoordinator", `(?s)^(Decline checkpoint \d+ by task \S+) of job \S+ at .*\n(Task name with subtask : .*)`),
			clue("CheckpointFailureManager", `(?s)^(Failed to trigger or complete checkpoint \d+ for job \S+\. \(0 consecutive failed attempts so far\))\n.*(Checkpoint was declined \(tasks not ready\))`),
			clue("CheckpointCoordinator", `^(Completed checkpoint \d+ for job \S+)`),
		},
	},
	BarrierLost: {
		Step: trace.K4,
		Cause: `a task with several inputs never had the checkpoint's barrier on all of them: its ` +
			`CheckpointBarrierHandler waited for the missing one, with the channels whose barrier had come blocked ` +
			`(exactly-once alignment), so the task never took the checkpoint. Behind the blocked channels the records ` +
			`backed up into their producers' queues, and the producers blocked: backpressure, up to the sources, and ` +
			`the job stopped making progress. execution.checkpointing.timeout later the checkpoint expired ("Checkpoint ` +
			`N of job … expired before completing."), which counts against ` +
			`execution.checkpointing.tolerable-failed-checkpoints (0 by default): "Exceeded checkpoint tolerable ` +
			`failure threshold.", a global failure, and every task restarted from the latest completed checkpoint`,
		WhereToLook: `the JobManager log says only that the checkpoint expired; its statistics say where it stopped: ` +
			`in GET /jobs/<jobid>/checkpoints the failed checkpoint has some subtasks acknowledged (the sources) and not ` +
			`all; the vertex with missing ones is where the alignment hung. In Flink the web UI's BackPressure tab shows ` +
			`its upstream backpressured. A barrier is never lost over TCP; what holds one back in production is ` +
			`backpressure itself: a barrier travels behind every buffer in flight, so a slow or skewed task delays it ` +
			`past the timeout. Fix the slow task; unaligned checkpoints or buffer debloating make barriers overtake ` +
			`the data`,
		Clues: checkpointExpiredClues,
	},
	StorageWriteFails: {
		Step: trace.K5,
		Cause: `a task's asynchronous part could not write its state to the checkpoint storage ("… - asynchronous ` +
			`part of checkpoint N could not be completed.": "Could not flush to file and close the file system output ` +
			`stream to …/chk-N/… in order to obtain the stream state handle"), so the task declined the checkpoint ` +
			`("Decline checkpoint N by task …": "Could not materialize checkpoint N for operator …") with ` +
			`CHECKPOINT_ASYNC_EXCEPTION, which counts against execution.checkpointing.tolerable-failed-checkpoints ` +
			`(0 by default): "Exceeded checkpoint tolerable failure threshold.", a global failure, and every task ` +
			`restarted by the restart strategy from the latest completed checkpoint`,
		WhereToLook: `the TaskManager log: the cause under "asynchronous part of checkpoint … could not be ` +
			`completed." names the file the task could not write. Check the file system of state.checkpoints.dir as ` +
			`that TaskManager sees it (space, quota, permissions, an object store's throttling); the JobManager log's ` +
			`"Decline checkpoint" names the task and its TaskManager`,
		Clues: []Clue{
			clue("AsyncCheckpointRunnable", `(?s)(asynchronous part of checkpoint \d+ could not be completed\.).*\n(Could not flush to file and close the file system output stream to \S+) in order to obtain the stream state handle`),
			clue("CheckpointCoordinator", `(?s)^(Decline checkpoint \d+ by task \S+) of job \S+ at .*\n(Could not materialize checkpoint \d+ for operator .*?\.) Caused by`),
			clue("CheckpointFailureManager", `(?s)^(Failed to trigger or complete checkpoint \d+ for job \S+\.) \(\d+ consecutive failed attempts so far\)\n.*(Asynchronous task checkpoint failed\.)`),
			clue("DefaultScheduler", `(?s)^(Trying to recover from a global failure\.)\n(Exceeded checkpoint tolerable failure threshold\.) The latest checkpoint failed due to (Asynchronous task checkpoint failed\.)`),
			clue("DefaultScheduler", `^\d+ tasks will be restarted to recover from a global failure\.`),
		},
	},
	TaskExecutorDiesDuringCheckpoint: {
		Step:      trace.K5,
		Component: "TaskExecutor",
		Cause: `a TaskManager was lost while a checkpoint was in flight: it died after its tasks had taken their ` +
			`snapshots, before their acknowledgements reached the JobMaster (a killed process writes nothing). The ` +
			`JobMaster noticed by the heartbeat timeout ("Heartbeat of TaskManager with id … timed out."), the ` +
			`TaskManager's tasks "switched from RUNNING to FAILED", the pending checkpoint was aborted without counting ` +
			`against the tolerable failures ("Task has failed.", or "Checkpoint Coordinator is suspending." as the job ` +
			`went RESTARTING), and the job failed over ("N tasks will be restarted to recover the failed task …") from ` +
			`the latest completed checkpoint`,
		WhereToLook: `the JobManager log: the heartbeat timeouts name the lost TaskManager; the checkpoint's failure is ` +
			`a consequence. Then that TaskManager: its last log lines, the kernel's OOM killer, the exit reason of its ` +
			`pod or container. A TaskManager that dies during checkpoints again and again points at the memory a ` +
			`snapshot takes (the state backend's copy, the upload's buffers)`,
		Clues: []Clue{
			optional("StandaloneResourceManager", `^The heartbeat of TaskManager with id \S+ timed out\.`),
			clue("JobMaster", `^Heartbeat of TaskManager with id \S+ timed out\.`),
			clue("ExecutionGraph", `(?s)(switched from RUNNING to FAILED on \S+) .*\n(Heartbeat of TaskManager with id \S+ timed out\.)`),
			clue("CheckpointFailureManager", `(?s)^(Failed to trigger or complete checkpoint \d+ for job \S+\.) \(\d+ consecutive failed attempts so far\)\n.*(Task has failed\.|Checkpoint Coordinator is suspending\.)`),
			clue("DefaultScheduler", `tasks will be restarted to recover the failed task `),
		},
	},
	MetadataWriteFails: {
		Step: trace.K6,
		Cause: `every task acknowledged the checkpoint, but the CheckpointCoordinator could not write its _metadata ` +
			`("Could not flush and close the file system output stream to …/chk-N/_metadata in order to obtain the ` +
			`stream state handle"), so it aborted the checkpoint (FINALIZE_CHECKPOINT_FAILURE, "Failure to finalize ` +
			`checkpoint.") and deleted its directory. Flink does not count this failure against ` +
			`execution.checkpointing.tolerable-failed-checkpoints: the job kept running, and the next checkpoint ` +
			`completed`,
		WhereToLook: `the JobManager log: the cause under "Failed to trigger or complete checkpoint N" names the ` +
			`_metadata file. Check the file system of state.checkpoints.dir as the JobManager sees it (space, quota, ` +
			`permissions): the tasks wrote their state there, so the JobManager's access is what differs. These ` +
			`failures do not count, so a job can run on for long without a completed checkpoint, and restore from an ` +
			`old one: watch the latest completed checkpoint in GET /jobs/<jobid>/checkpoints`,
		Clues: []Clue{
			clue("CheckpointFailureManager", `(?s)^(Failed to trigger or complete checkpoint \d+ for job \S+\.) \(\d+ consecutive failed attempts so far\)\n.*(Failure to finalize checkpoint\.).*(Could not flush and close the file system output stream to \S+) in order to obtain the stream state handle`),
			clue("DefaultScheduler", `(?s)^(Error while processing AcknowledgeCheckpoint message)\n.*(Could not finalize the pending checkpoint \d+\.)`),
			clue("CheckpointCoordinator", `^(Completed checkpoint \d+ for job \S+)`),
		},
	},
}

// adaptiveEvidence is, for the kinds whose failure shows differently in a
// job of the AdaptiveScheduler, what its logs show. The AdaptiveScheduler
// declares its requirements and waits for slots in WaitingForResources: it
// has no slot requests to fail, and the job has no ExecutionGraph, no
// task, until it has slots.
var adaptiveEvidence = map[Kind]Evidence{
	NoMatchingSlot: {
		Step: trace.M7,
		Cause: `the job waited for slots that never came: the SlotManager listed TaskManagers with free ` +
			`resources under "Current resources" ("Available: ResourceProfile{…}", not zero) but cut no slot ` +
			`out of them for the job's requirement, and after the start-up period it gave up ("Could not fulfill ` +
			`resource requirements of job …"), which the AdaptiveScheduler does not act on. The job stayed ` +
			`CREATED, in WaitingForResources, without an ExecutionGraph or a task, until ` +
			`jobmanager.adaptive-scheduler.resource-wait-timeout ran out; then it failed: "Failed to go from ` +
			`CreatingExecutionGraph to Executing because the ExecutionGraph creation failed." ` +
			`NoResourceAvailableException: Not enough resources available for scheduling.`,
		WhereToLook: `the SlotManager's "Matching resource requirements against available resources" block in the ` +
			`JobManager log: the job's ResourceRequirement under "Missing resources" against each TaskManager ` +
			`under "Current resources". The AdaptiveScheduler says nothing at INFO while it waits (its transitions ` +
			`are DEBUG lines), so the SlotManager's lines are the story. Free resources left untaken mean the ` +
			`requirement fits none of them (a blocked TaskManager); nothing available at all, slots held by other ` +
			`jobs or too few TaskManagers (in active mode: did the workers the ResourceManager asked for start?). ` +
			`GET /jobs/{jobid}/resource-requirements gives the job's lower bounds`,
		Clues: []Clue{
			clue("FineGrainedSlotManager", `(?s)^(Matching resource requirements against available resources\.).*\n\s*(TaskManager \S+)\n\s*(Available: ResourceProfile\{cpuCores=(?:[1-9]|0\.\d*[1-9])[^}]*\})`),
			clue("FineGrainedSlotManager", `^Could not fulfill resource requirements of job `),
			clue("AdaptiveScheduler", `(?s)^(Failed to go from CreatingExecutionGraph to Executing because the ExecutionGraph creation failed\.)\n(NoResourceAvailableException: Not enough resources available for scheduling\.)`),
			clue("StandaloneDispatcher", `(?s)^(Job \S+ reached terminal state FAILED\.)\n(NoResourceAvailableException: Not enough resources available for scheduling\.)`),
		},
	},
}

// evidenceOfAnyKind is, for a step whose kinds of failure can leave the
// same lines in the log, what the log shows when it cannot tell them
// apart.
var evidenceOfAnyKind = map[trace.Step]Evidence{
	// A TaskExecutor that offers again before the JobMaster answered (a
	// second slot of the job arrived) discards the answer to the first
	// offer, a rejection or none, at DEBUG, as Flink's does.
	trace.M8: {
		Step: trace.M8,
		Cause: `the TaskExecutor offered its slots ("Offer reserved slots to the leader of job …") and, before ` +
			`the JobMaster's answer came, offered them again with a newer offer, which the JobMaster accepted ` +
			`("Activate slot"); the answer to the first offer, a rejection or none, was discarded because a ` +
			`newer offer for the job existed`,
		WhereToLook: `the TaskManager log for the offers and what became of each slot (ACTIVE, or freed), then ` +
			`the JobManager log for the slot pool's answer; repeated offers without "Activate slot" point at the ` +
			`JobMaster`,
		Clues: []Clue{
			clue("TaskExecutor", `^Offer reserved slots to the leader of job `),
			clue("TaskExecutor", `^Offer reserved slots to the leader of job `),
			clue("TaskSlotTableImpl", `^Activate slot `),
		},
	},
}
