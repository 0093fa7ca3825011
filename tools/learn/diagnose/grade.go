package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

// Part is the grade of one part of an answer.
type Part struct {
	Right bool
	// Message says why the part is not right and where to look; it never
	// says the answer. "" when Right.
	Message string
}

// Verdict is the grade of an answer: its step, its component and its line.
type Verdict struct {
	Step, Component, Line Part
	// Err is set when the drill itself is broken (its key has no evidence,
	// or names no component): the caller's error, not the learner's.
	Err error
}

// Passed reports whether every part is right.
func (v Verdict) Passed() bool {
	return v.Err == nil && v.Step.Right && v.Component.Right && v.Line.Right
}

// String prints the verdict, a line per part:
//
//	step:      right
//	component: not yet: "JobMaster" is not the component to open. …
//	line:      right
func (v Verdict) String() string {
	return printParts(v.Err, []namedPart{{"step:", v.Step}, {"component:", v.Component}, {"line:", v.Line}})
}

// namedPart is a part of an answer and its key in the answer file.
type namedPart struct {
	name string
	part Part
}

// printParts prints a verdict, a line per part, or why it cannot grade.
func printParts(err error, parts []namedPart) string {
	if err != nil {
		return "cannot grade: " + err.Error()
	}
	var b strings.Builder
	for _, p := range parts {
		if p.part.Right {
			fmt.Fprintf(&b, "%-10s right\n", p.name)
		} else {
			fmt.Fprintf(&b, "%-10s not yet: %s\n", p.name, p.part.Message)
		}
	}
	return b.String()
}

// Grade grades an answer against a drill's key and logs. The step is
// right when it is the key's; the component when it names the key's (any
// alias, see CanonicalComponent); the line when it is in exactly one
// record of the logs and that record is one of the lines that prove the
// key's fault (fault.EvidenceFor(key.Step, key.Kind).Find). For a fault
// proved by the checkpoint statistics (Key.ProvedByStatistics) the line
// is a row of them instead (gradeStatisticsLine). A wrong part's message
// says where to look, never what the answer is.
func Grade(key Key, logs Logs, a Answer) Verdict {
	e, err := key.Evidence()
	if err != nil {
		return Verdict{Err: err}
	}
	component := key.Component
	if component == "" {
		component = ComponentOf(key.Step)
	}
	component, ok := CanonicalComponent(key.Step, component)
	if !ok {
		return Verdict{Err: fmt.Errorf("diagnose: key of %s names no component: %q", key.Step, key.Component)}
	}
	proof := findProof(e, logs)
	if key.ProvedByStatistics() {
		return Verdict{
			Step: gradeStep(key.Step, a.Step),
			Component: gradeComponent(key.Step, component, a.Component, "The line that proves the failure is a row of the "+
				"checkpoint statistics ("+ClientFile+"); open the component that performs the step the checkpoint stopped at."),
			Line: gradeStatisticsLine(logs, proof, a.Line),
		}
	}
	where := whereProofIs(proof.lines, e)
	return Verdict{
		Step: gradeStep(key.Step, a.Step),
		Component: gradeComponent(key.Step, component, a.Component, "The lines that prove the failure are in "+logsOf(where)+"; "+
			"open the component that writes the proving line, or that the line is about."),
		Line: gradeLine(logs, proof.lines, where, a.Line),
	}
}

func gradeStep(want, got trace.Step) Part {
	switch {
	case got == want:
		return Part{Right: true}
	case got == "":
		return Part{Message: "Name the step, " + StepRange(want) + "."}
	}
	what, ok := whatStepDoes[got]
	if !ok {
		return Part{Message: fmt.Sprintf("%q is not a step; name the step, %s.", got, StepRange(want))}
	}
	if IsCheckpointStep(want) {
		return Part{Message: what + " This drill's logs and checkpoint statistics do not show that as the first thing that went wrong. " +
			firstCheckpointFailureRule}
	}
	return Part{Message: what + " This drill's logs do not show that as the first thing that went wrong. " + firstFailureRule}
}

// gradeComponent grades the component; look says, to a learner who named
// another, where the proof is and which component to open.
func gradeComponent(step trace.Step, want, got, look string) Part {
	choose := "choose one of " + strings.Join(Components(), ", ") + "."
	if got == "" {
		return Part{Message: "Name the component to open: " + choose}
	}
	c, ok := CanonicalComponent(step, got)
	switch {
	case ok && c == want:
		return Part{Right: true}
	case !ok:
		return Part{Message: fmt.Sprintf("%s is none of the components: %s", quote(got), choose)}
	}
	return Part{Message: fmt.Sprintf("%s is not the component to open. %s", quote(got), look)}
}

func gradeLine(logs Logs, proof []Record, where []place, line string) Part {
	if strings.TrimSpace(line) == "" {
		return Part{Message: "Paste the log line that proves the failure: " + lineToLookFor(where) + "."}
	}
	i, wrong, ok := pastedRecord(logs, line)
	if !ok {
		return wrong
	}
	r := logs.All[i]
	if slices.ContainsFunc(proof, func(p Record) bool { return p.File == r.File && p.Line == r.Line }) {
		return Part{Right: true}
	}
	return Part{Message: fmt.Sprintf("That line is in the logs (%s), but it does not prove the failure. Look for %s: "+
		"the line that shows the first thing that went wrong. A consequence (a restart, a FAILED job, a cancelled task) is not the proof.",
		r.Where(), lineToLookFor(where))}
}

// pastedRecord finds the record of logs a learner's pasted line is from,
// its index in logs.All; or, when it is too short to tell, in no record or
// in several, says so.
func pastedRecord(logs Logs, line string) (int, Part, bool) {
	p := readPasted(line)
	status, i := locate(logs, p)
	switch {
	case status == tooShort:
		return -1, Part{Message: fmt.Sprintf("%s is too short to tell one line from another: paste at least %d characters of the line, or all of it.",
			quote(line), minPasted)}, false
	case status == notInLogs:
		return -1, Part{Message: fmt.Sprintf("%s is not in the logs shown: paste the line as its log file has it.", quote(line))}, false
	case status == inSeveral && p.clock != "":
		return -1, Part{Message: fmt.Sprintf("%s is in several logs, alike to the millisecond: put the name of the file you mean before it, "+
			"and a colon, as grep prints it (FILE:LINE).", quote(line))}, false
	case status == inSeveral:
		return -1, Part{Message: fmt.Sprintf("%s is in several lines of the logs: paste more of the one you mean (the whole line, with its time, says which).",
			quote(line))}, false
	}
	return i, Part{}, true
}

// place is a log and a logger the proof is in.
type place struct {
	process fault.Process
	file    string // "" when no proving line was found
	logger  string
}

// whereProofIs returns the places of the proving lines that name the
// failure: the loudest, those at the highest level among them (the error
// that the other lines set the scene for). With no proving line in the
// logs, it falls back to the loggers of the clues that must be found.
func whereProofIs(proof []Record, e fault.Evidence) []place {
	var places []place
	add := func(p place) {
		if !slices.Contains(places, p) {
			places = append(places, p)
		}
	}
	if len(proof) == 0 {
		for _, c := range e.Clues {
			if !c.Optional {
				add(place{process: c.Process(), logger: c.Logger})
			}
		}
		return places
	}
	loudest := slices.MaxFunc(proof, func(a, b Record) int { return int(a.Level - b.Level) }).Level
	for _, r := range proof {
		if r.Level == loudest {
			add(place{process: r.Process(), file: r.File, logger: r.Logger})
		}
	}
	return places
}

// byLog groups places by log file, in order.
func byLog(places []place) [][]place {
	var groups [][]place
	for _, p := range places {
		i := slices.IndexFunc(groups, func(g []place) bool { return g[0].process == p.process && g[0].file == p.file })
		if i < 0 {
			groups = append(groups, []place{p})
		} else {
			groups[i] = append(groups[i], p)
		}
	}
	return groups
}

// logName is "the TaskManager's log (flink-…-taskexecutor-0-localhost.log)".
func logName(p place) string {
	name := "the " + string(p.process) + "'s log"
	if p.file != "" {
		name += " (" + p.file + ")"
	}
	return name
}

// logsOf names the logs the places are in.
func logsOf(places []place) string {
	var names []string
	for _, g := range byLog(places) {
		names = append(names, logName(g[0]))
	}
	return strings.Join(names, " and ")
}

// lineToLookFor describes the proving line by its log only: "a line of
// the TaskManager's log (…)". Its logger would name the component, which
// is another part of the answer.
func lineToLookFor(places []place) string {
	var parts []string
	for _, g := range byLog(places) {
		parts = append(parts, logName(g[0]))
	}
	return "a line of " + strings.Join(parts, ", or of ")
}
