package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The demo behind `make run` is exercised here, so it cannot break
// silently: it must finish, show every step m1…m11, and print the ten most
// frequent words with the counts this test computes on its own.
func TestMakeRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, options{parallelism: defaultParallelism, log: io.Discard}), out.String())
	text := out.String()
	assert.NotContains(t, text, "diagnosis:", "nothing broke, nothing to diagnose")

	assert.Contains(t, text, "FINISHED")
	for step := 1; step <= 11; step++ {
		assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`(?m)^\s*\d+\. m%d\s`, step)), text, "step m%d is missing from the trace", step)
	}

	assert.Contains(t, text, "the ten most frequent words:\n"+topTen())
}

// TestMakeRunWithAFault is `make run INJECT=mN` for every step and kind:
// the demo works (returns nil, so the command exits 0), prints the
// diagnosis naming the component to dig into and the cause the cluster's
// log shows, and ends as Flink would: a refused job for m1–m3, a job FAILED
// during initialization for m4, and a job that recovers and still counts
// every word exactly for m5–m11, except for a slot sharing group larger
// than any TaskManager (m7), which no restart fixes: the job is FAILED once
// its restarts are used up. Under the diagnosis it prints three to
// five lines of the JobManager's and the TaskManagers' logs, and each is
// really in the log the cluster wrote (the demo's -v output), in the log
// it is labelled with.
func TestMakeRunWithAFault(t *testing.T) {
	want := topTen()
	// causeInLog is, per kind, a phrase of the log that the diagnosis must
	// quote: the cause as the log shows it.
	causeInLog := map[fault.Kind]string{
		fault.UploadRejected:             "Could not move uploaded jar file",
		fault.MalformedRunRequest:        "Request did not match expected format JarRunRequestBody.",
		fault.InvalidJobGraph:            "JobSubmissionException: The JobGraph is invalid.",
		fault.DuplicateJobID:             "DuplicateJobSubmissionException: Job has already been submitted.",
		fault.JobMasterStartFailure:      "Could not start the JobMaster.",
		fault.MaxParallelismExceeded:     "is higher than the max parallelism (1).",
		fault.ResourceManagerUnreachable: "Registering job manager",
		fault.RegistrationError:          "Pausing and re-attempting registration",
		fault.ResourceDeclarationLost:    "Failed to declare resource requirements of job",
		fault.NoMatchingSlot:             "Could not fulfill resource requirements of job",
		fault.SlotSharingGroupTooLarge:   "resourceProfile=ResourceProfile{cpuCores=16, ",
		fault.SlotOfferRejected:          "Offer reserved slots to the leader of job",
		fault.SlotOfferTimeout:           "Offer reserved slots to the leader of job",
		fault.TaskExecutorDies:           "switched from DEPLOYING to FAILED",
		fault.BlobUnavailable:            "does not exist and failed to copy from blob store",
		fault.JarCorrupted:               "Detected data corruption during transfer",
		fault.OperatorOpenThrows:         "switched from INITIALIZING to FAILED",
	}
	for _, step := range fault.Steps() {
		for _, kind := range fault.Kinds(step) {
			f := fault.Fault{Step: step, Kind: kind}
			t.Run(f.String(), func(t *testing.T) {
				var out, log bytes.Buffer
				require.NoError(t, run(&out, options{injected: &f, verbose: true, log: &log}), out.String())
				text := out.String()

				assert.Contains(t, text, fmt.Sprintf("diagnosis: step %s — %s: ", step, fault.Component(step)), text)
				assert.Contains(t, text, "injecting fault "+f.String()+" once")
				switch step {
				case trace.M1:
					assert.Contains(t, text, "upload refused: REST request failed with status 500")
				case trace.M2:
					assert.Contains(t, text, "job refused: REST request failed with status 400")
				case trace.M3:
					assert.Contains(t, text, "job refused: REST request failed with status 400: Could not execute application.")
				case trace.M4:
					assert.Regexp(t, `job [0-9a-f]{32} FAILED`, text)
					assert.Contains(t, text, "root exception: JobInitializationException: Could not start the JobMaster.")
				case trace.M7:
					if kind == fault.SlotSharingGroupTooLarge { // no restart finds a slot that large
						assert.Regexp(t, `job [0-9a-f]{32} FAILED`, text)
						assert.Contains(t, text, "root exception: JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy"+
							"(maxNumberRestartAttempts=3, backoffTimeMS=100): NoResourceAvailableException: Could not acquire the minimum required resources.")
						break
					}
					assert.Regexp(t, `job [0-9a-f]{32} FINISHED`, text)
					assert.Contains(t, text, "the ten most frequent words:\n"+want, "every word counted exactly, despite the fault")
				default:
					assert.Regexp(t, `job [0-9a-f]{32} FINISHED`, text)
					assert.Contains(t, text, "the ten most frequent words:\n"+want, "every word counted exactly, despite the fault")
				}

				// The cause: the kind's own, or for m8, whose kinds can
				// leave the same lines, what the log shows of either.
				diagnosis := oneLine(text[strings.Index(text, "diagnosis:"):])
				causes := []string{evidence(t, step, kind).Cause}
				if step == trace.M8 {
					causes = append(causes, evidence(t, step, "").Cause)
				}
				assert.True(t, slices.ContainsFunc(causes, func(c string) bool { return strings.Contains(diagnosis, oneLine(c)) }),
					"the diagnosis names the cause of %s:\n%s", kind, text)
				assert.Contains(t, diagnosis, oneLine(causeInLog[kind]), "the diagnosis quotes the log")
				assert.Contains(t, log.String(), causeInLog[kind], "what the diagnosis quotes is in the log")

				proof := provingLines(text)
				assert.GreaterOrEqual(t, len(proof), 3, "the lines that prove it:\n%s", text)
				assert.LessOrEqual(t, len(proof), 5, "the lines that prove it:\n%s", text)
				records := logRecords(log.String())
				for _, line := range proof {
					assert.True(t, slices.ContainsFunc(records, line.isIn), "a printed line is not in the log:\n%s\nlog:\n%s", line, log.String())
					assert.Equal(t, fault.LogRecord{Logger: line.logger}.Process(), line.process, "the log %s is labelled with", line)
					assert.NotEqual(t, "FaultInjector", line.logger, "the injector's own lines prove nothing")
				}
			})
		}
	}
}

// TestMakeRunWithACheckpointFault is `make run INJECT=kN` for every step
// and kind of a checkpoint: the demo runs the checkpointed ticker instead
// of WordCount, prints the steps of the checkpoint that broke, and ends as
// Flink would: a failure that counts against the tolerable failed
// checkpoints (an expiry, a failed asynchronous part) fails the job over
// from a global failure, a TaskManager lost in a checkpoint fails it over
// from its tasks' failures, and a decline of a task that is not ready or
// a _metadata that cannot be written do not count, so the job runs on.
// Every sensor's last count is exactly 200 in each case, and the diagnosis
// names the component, the cause and three to five lines of the log.
func TestMakeRunWithACheckpointFault(t *testing.T) {
	causeInLog := map[fault.Kind]string{
		fault.CheckpointExpired:                "expired before completing.",
		fault.TaskNotReady:                     "Checkpoint was declined (tasks not ready)",
		fault.BarrierLost:                      "expired before completing.",
		fault.StorageWriteFails:                "Could not flush to file and close the file system output stream to",
		fault.TaskExecutorDiesDuringCheckpoint: "Heartbeat of TaskManager with id taskexecutor-",
		fault.MetadataWriteFails:               "Could not flush and close the file system output stream to",
	}
	runsOn := map[fault.Kind]bool{fault.TaskNotReady: true, fault.MetadataWriteFails: true}
	for _, step := range fault.CheckpointSteps() {
		for _, kind := range fault.Kinds(step) {
			f := fault.Fault{Step: step, Kind: kind}
			t.Run(f.String(), func(t *testing.T) {
				var out, log bytes.Buffer
				require.NoError(t, run(&out, options{injected: &f, verbose: true, log: &log}), out.String())
				text := out.String()

				assert.Contains(t, text, "injecting fault "+f.String()+" once")
				assert.Contains(t, text, "checkpoints every 200ms into ")
				assert.Regexp(t, `job [0-9a-f]{32} FINISHED`, text)
				assert.Regexp(t, `checkpoints: \d+ completed, [1-9]\d* failed`, text)
				assert.Contains(t, text, "the last count of each sensor:\nsensor-1: 200\nsensor-2: 200\nsensor-3: 200\nsensor-4: 200\nsensor-5: 200\n",
					"every event counted once, despite the fault")
				assert.Regexp(t, `(?m)^checkpoint trace, from the trigger of the checkpoint that broke:\n +1\. k1 `, text)
				assert.Regexp(t, fmt.Sprintf(`(?m)^ +\d+\. %s .* ✗ `, step), text, "the trace shows the step that broke")
				if runsOn[kind] {
					assert.Contains(t, text, "the job needed no restart: the failed checkpoint does not count")
				} else {
					assert.Contains(t, text, "the job restarted 1 time(s)")
				}

				component := fault.Component(step)
				if e := evidence(t, step, kind); e.Component != "" {
					component = e.Component
				}
				assert.Contains(t, text, fmt.Sprintf("diagnosis: step %s — %s: ", step, component), text)
				diagnosis := oneLine(text[strings.Index(text, "diagnosis:"):])
				assert.Contains(t, diagnosis, oneLine(evidence(t, step, kind).Cause), "the diagnosis names the cause of %s:\n%s", kind, text)
				assert.Contains(t, diagnosis, oneLine(causeInLog[kind]), "the diagnosis quotes the log")
				assert.Contains(t, log.String(), causeInLog[kind], "what the diagnosis quotes is in the log")

				proof := provingLines(text)
				assert.GreaterOrEqual(t, len(proof), 3, "the lines that prove it:\n%s", text)
				assert.LessOrEqual(t, len(proof), 5, "the lines that prove it:\n%s", text)
				records := logRecords(log.String())
				for _, line := range proof {
					assert.True(t, slices.ContainsFunc(records, line.isIn), "a printed line is not in the log:\n%s\nlog:\n%s", line, log.String())
					assert.Equal(t, fault.LogRecord{Logger: line.logger}.Process(), line.process, "the log %s is labelled with", line)
				}
			})
		}
	}
}

func evidence(t *testing.T, step trace.Step, kind fault.Kind) fault.Evidence {
	t.Helper()
	e, ok := fault.EvidenceFor(step, kind)
	require.True(t, ok, "evidence of %s:%s", step, kind)
	return e
}

// oneLine undoes the wrapping of the diagnosis' prose.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// provedLine is one line the diagnosis quotes: its label, its header as the
// log prints it after the date, and the words it quotes ("…" marks what it
// left out), also of its cause on the next line.
type provedLine struct {
	process     fault.Process
	header      string // "10:16:02,475 ERROR PermanentBlobCache [] - "
	logger      string
	quoted      []string
	printedText string
}

func (p provedLine) String() string { return p.printedText }

var provedHeader = regexp.MustCompile(`^    (JobManager|TaskManager) +(\d\d:\d\d:\d\d,\d{3} +[A-Z]+ +(\S+) \[\] - )(.*)$`)

// provingLines reads the lines under "the log lines that prove it:".
func provingLines(text string) []provedLine {
	_, after, ok := strings.Cut(text, "the log lines that prove it:\n")
	if !ok {
		return nil
	}
	var lines []provedLine
	for _, l := range strings.Split(after, "\n") {
		if m := provedHeader.FindStringSubmatch(l); m != nil {
			lines = append(lines, provedLine{process: fault.Process(m[1]), header: m[2], logger: m[3],
				quoted: []string{m[4]}, printedText: l})
			continue
		}
		if strings.HasPrefix(l, strings.Repeat(" ", 17)) && len(lines) > 0 {
			last := &lines[len(lines)-1]
			last.quoted = append(last.quoted, strings.TrimSpace(l))
			last.printedText += "\n" + l
			continue
		}
		break
	}
	return lines
}

// isIn reports whether record (a record of the printed log: its first
// line after the date, and its cause) is the line p quotes: the same
// header, and every quoted fragment in it. A fragment that starts a
// shortened path ("…/name") is found as "/name".
func (p provedLine) isIn(record string) bool {
	if !strings.HasPrefix(record, p.header) {
		return false
	}
	for _, q := range p.quoted {
		for _, fragment := range strings.Split(q, "…") {
			if fragment = strings.TrimSpace(fragment); fragment != "" && !strings.Contains(record, fragment) {
				return false
			}
		}
	}
	return true
}

// logRecords splits the printed log into records: a line that starts with
// a date, and the lines of its cause, without the date.
var logDate = regexp.MustCompile(`^\d{4}-\d\d-\d\d `)

func logRecords(log string) []string {
	var records []string
	for _, line := range strings.Split(log, "\n") {
		if logDate.MatchString(line) {
			records = append(records, logDate.ReplaceAllString(line, ""))
		} else if len(records) > 0 {
			records[len(records)-1] += "\n" + line
		}
	}
	return records
}

// topTen is the demo's expected answer, counted with the test's own
// splitter (Flink's rule: lower-case, split on anything but ASCII letters,
// digits and '_'), not the job's.
func topTen() string {
	counts := map[string]int{}
	isWordChar := func(r rune) bool {
		return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '_'
	}
	for _, word := range strings.FieldsFunc(strings.ToLower(wordcount.Text()), func(r rune) bool { return !isWordChar(r) }) {
		counts[word]++
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	var want strings.Builder
	for _, w := range words[:10] {
		fmt.Fprintf(&want, "%s: %d\n", w, counts[w])
	}
	return want.String()
}
