package drill

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"flinklab/runtime/checkpoint"
	"flinklab/runtime/examples/ticker"
	"flinklab/runtime/examples/wordcount"
	"flinklab/runtime/fault"
	"flinklab/runtime/highavailability/hatrace"
	"flinklab/runtime/scheduler/adaptive"
)

// Spec is one drill: the fault its run hides and the cluster it runs on.
// A drill's Spec is kept with its answer, in solutions/dNN/drill.yaml.
type Spec struct {
	// Fault is what breaks, in the form fault.Parse reads: "m7",
	// "m10:jar-corrupted". Empty: nothing breaks, a healthy run to compare
	// a drill with.
	Fault string `json:"fault" yaml:"fault"`
	// Seed fixes the drill's clock: its logs begin at a time the seed picks.
	Seed int64 `json:"seed" yaml:"seed"`
	// Cause is what the injected failure reads as in the logs: the cause a
	// real cluster would give. Empty: the kind's usual one (usualCauses).
	Cause string `json:"cause,omitempty" yaml:"cause"`
	// TaskManagers and Slots shape the cluster (default 2 × 2); Parallelism
	// is the job's (default 2: half the slots, so that the job can fail
	// over to the other TaskManager).
	TaskManagers int `json:"taskmanagers,omitempty" yaml:"taskmanagers"`
	Slots        int `json:"slots,omitempty" yaml:"slots"`
	Parallelism  int `json:"parallelism,omitempty" yaml:"parallelism"`
	// Times is how many passes the fault fires on (fault.Fault.Times): 0
	// once, -1 every time.
	Times int `json:"times,omitempty" yaml:"times"`
	// Then are faults of later steps, in fault.Parse's form, that break
	// the run again after Fault did: the red herrings. Their failures come
	// later and are often louder; the answer stays Fault's step, the first
	// thing that went wrong.
	Then []string `json:"then,omitempty" yaml:"then"`
	// Scheduler is the cluster's jobmanager.scheduler: empty or "default"
	// for the DefaultScheduler, "adaptive" for the AdaptiveScheduler.
	// ResourceWaitTimeout is then its
	// jobmanager.adaptive-scheduler.resource-wait-timeout, as Go writes a
	// duration ("40s"; empty: Flink's 5 min).
	Scheduler           string `json:"scheduler,omitempty" yaml:"scheduler"`
	ResourceWaitTimeout string `json:"resource-wait-timeout,omitempty" yaml:"resource-wait-timeout"`
	// ExecutionMode is WordCount's --execution-mode: empty for STREAMING,
	// "BATCH" for stages connected by blocking exchanges, each pipelined
	// region scheduled when its inputs are finished.
	ExecutionMode string `json:"execution-mode,omitempty" yaml:"execution-mode"`
	// Job is the program the client runs: empty or JobWordCount, or
	// JobTicker, an unbounded keyed running count whose second task reads
	// from every source subtask (see programArgs).
	Job string `json:"job,omitempty" yaml:"job"`
	// Checkpointing are the cluster's checkpointing options by Flink's
	// keys, as its configuration writes them (checkpoint.FromMap reads
	// them): "execution.checkpointing.interval": "5 s",
	// "execution.checkpointing.timeout": "15 s",
	// "execution.checkpointing.tolerable-failed-checkpoints": "0". Without
	// an interval the job is not checkpointed, and a fault of a
	// checkpoint's step (k1 …) never fires.
	Checkpointing map[string]string `json:"checkpointing,omitempty" yaml:"checkpointing"`
	// Failover makes the drill one of high availability, on a cluster of
	// real processes (ProduceFailover) instead of a MiniCluster, with no
	// Fault: the incident that ends the leader's leadership, named as
	// package hatrace names its cause. "leader-killed": SIGKILL;
	// "leader-paused": SIGSTOP for longer than the session timeout, and
	// SIGCONT once the standby leads; FailoverNone: nothing happens, the
	// run to compare such a drill with. Its cluster is always two
	// JobManagers and two TaskManagers of two slots each, and its job the
	// ticker: TaskManagers, Slots and the scheduler's fields are not read.
	Failover string `json:"failover,omitempty" yaml:"failover"`
}

// The programs a drill's client can run (Spec.Job).
const (
	JobWordCount = "WordCount"
	JobTicker    = "ticker"
)

// FailoverNone is the Failover of a run of the high-availability cluster
// in which nothing happens to the leader.
const FailoverNone = "none"

// The environment TestProduce reads: the Spec as JSON, and the directory
// to write the drill's files to.
const (
	EnvSpec = "FLINKLAB_DRILL_SPEC"
	EnvDir  = "FLINKLAB_DRILL_DIR"
)

// Env returns the environment that makes TestProduce produce spec's logs
// into dir.
func Env(spec Spec, dir string) ([]string, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	return []string{EnvSpec + "=" + string(data), EnvDir + "=" + dir}, nil
}

// fromEnv reads the Spec and directory Env wrote; ok is false when the
// environment names no drill.
func fromEnv() (spec Spec, dir string, ok bool, err error) {
	data, dir := os.Getenv(EnvSpec), os.Getenv(EnvDir)
	if data == "" || dir == "" {
		return Spec{}, "", false, nil
	}
	if err := json.Unmarshal([]byte(data), &spec); err != nil {
		return Spec{}, "", false, fmt.Errorf("%s: %w", EnvSpec, err)
	}
	return spec, dir, true, nil
}

// withDefaults fills in the cluster's shape and the cause, and returns the
// faults to inject: Fault, then Then; none for a healthy run.
func (s Spec) withDefaults() (Spec, []fault.Fault, error) {
	if err := s.checkFailover(); err != nil {
		return s, nil, err
	}
	var faults []fault.Fault
	if s.Fault != "" {
		parsed, err := fault.Parse(s.Fault)
		if err != nil {
			return s, nil, err
		}
		parsed.Times = s.Times
		faults = append(faults, parsed)
	}
	for _, then := range s.Then {
		parsed, err := fault.Parse(then)
		if err != nil {
			return s, nil, err
		}
		faults = append(faults, parsed)
	}
	if s.TaskManagers <= 0 {
		s.TaskManagers = 2
	}
	if s.Slots <= 0 {
		s.Slots = 2
	}
	if s.Parallelism <= 0 {
		s.Parallelism = 2
	}
	if _, _, err := s.scheduler(); err != nil {
		return s, nil, err
	}
	if err := s.checkJob(faults); err != nil {
		return s, nil, err
	}
	if s.Cause == "" && len(faults) > 0 {
		s.Cause = usualCauses[faults[0].Kind]
	}
	return s, faults, nil
}

// checkFailover refuses a Failover that is no incident of ProduceFailover,
// or that comes with a Fault: a drill breaks a step or a leader, not both.
func (s Spec) checkFailover() error {
	switch hatrace.Kind(s.Failover) {
	case "":
		return nil
	case hatrace.LeaderKilled, hatrace.LeaderPaused, FailoverNone:
	default:
		return fmt.Errorf("failover %q: want %q, %q or %q", s.Failover, hatrace.LeaderKilled, hatrace.LeaderPaused, FailoverNone)
	}
	if s.Fault != "" || len(s.Then) > 0 {
		return fmt.Errorf("failover %q with fault %q: a drill breaks a step or a leader, not both", s.Failover, s.Fault)
	}
	return nil
}

// checkJob refuses a job the client cannot run, options it does not
// take, and a fault of a checkpoint's step in a job without checkpoints,
// which would never fire.
func (s Spec) checkJob(faults []fault.Fault) error {
	switch s.Job {
	case "", JobWordCount:
	case JobTicker:
		if s.ExecutionMode != "" {
			return fmt.Errorf("execution-mode %q: the ticker is unbounded, it runs STREAMING only", s.ExecutionMode)
		}
	default:
		return fmt.Errorf("job %q: want %q or %q", s.Job, JobWordCount, JobTicker)
	}
	cfg, err := s.checkpointing()
	if err != nil {
		return err
	}
	for _, f := range faults {
		if slices.Contains(fault.CheckpointSteps(), f.Step) && !cfg.IsCheckpointingEnabled() {
			return fmt.Errorf("fault %s: a checkpoint's step breaks a checkpointed job only: set %s", f, checkpoint.KeyInterval)
		}
	}
	return nil
}

// checkpointing returns the cluster's checkpointing options; without an
// interval, checkpointing is off.
func (s Spec) checkpointing() (checkpoint.CheckpointCoordinatorConfiguration, error) {
	cfg, err := checkpoint.FromMap(s.Checkpointing)
	if err != nil {
		return cfg, fmt.Errorf("checkpointing: %w", err)
	}
	return cfg, nil
}

// scheduler returns the cluster's jobmanager.scheduler and the
// AdaptiveScheduler's settings.
func (s Spec) scheduler() (string, adaptive.Settings, error) {
	schedulerType, err := adaptive.ParseSchedulerType(s.Scheduler)
	if err != nil {
		return "", adaptive.Settings{}, err
	}
	settings := adaptive.DefaultSettings()
	if s.ResourceWaitTimeout != "" {
		if settings.ResourceWaitTimeout, err = time.ParseDuration(s.ResourceWaitTimeout); err != nil {
			return "", settings, fmt.Errorf("resource-wait-timeout: %w", err)
		}
	}
	return schedulerType, settings, settings.Validate()
}

// programArgs are the job's arguments: WordCount's counts collected, in
// the spec's execution mode; the ticker's running counts collected, at
// its default rate of 10 events a second, for ever:
//
//	Source: sensor-events ─HASH(sensor)─► running-count -> Sink: collect-sink
func (s Spec) programArgs() []string {
	if s.Job == JobTicker {
		return []string{"--output", ticker.OutputCollect}
	}
	args := []string{"--output", wordcount.OutputCollect}
	if s.ExecutionMode != "" {
		args = append(args, "--execution-mode", s.ExecutionMode)
	}
	return args
}

// jar returns the job's jar, and the name the client uploads it under.
func (s Spec) jar() (name string, jar []byte, err error) {
	if s.Job == JobTicker {
		jar, err = ticker.Jar()
		return "Ticker.jar", jar, err
	}
	jar, err = wordcount.Jar()
	return "WordCount.jar", jar, err
}

// start is when the drill's logs begin: a morning in late November, a
// minute the seed picks.
func (s Spec) start() time.Time {
	minute := s.Seed % (12 * 60)
	if minute < 0 {
		minute = -minute
	}
	return time.Date(2026, time.November, 30, 8, 0, 0, 0, time.UTC).Add(time.Duration(minute)*time.Minute + 17*time.Second + 204*time.Millisecond)
}

// usualCauses are, per kind, what a real cluster would give as the cause
// where the runtime puts the injected one: the reason a production
// engineer would find under the line. Empty for a kind whose failure is
// real, with no injected cause to replace: the jar's bytes are damaged
// (jar-corrupted), the max parallelism is below the parallelism
// (max-parallelism-exceeded), a slot sharing group is larger than any
// TaskManager (slot-sharing-group-too-large); and for a kind that fails
// nothing a log could show, whose checkpoint only expires: the triggers
// are lost (checkpoint-expired), a barrier never arrives (barrier-lost).
var usualCauses = map[fault.Kind]string{
	fault.UploadRejected:             "java.nio.file.FileSystemException: /tmp/flink-web-upload: No space left on device",
	fault.MalformedRunRequest:        `Unrecognized field "programArgs" (class org.apache.flink.runtime.webmonitor.handlers.JarRunRequestBody), not marked as ignorable`,
	fault.InvalidJobGraph:            "java.lang.IllegalStateException: The vertex 7a1b (Source: file-input) has no invokable class.",
	fault.JobMasterStartFailure:      "java.lang.ClassNotFoundException: org.example.wordcount.CheckpointStorageFactory",
	fault.MaxParallelismExceeded:     "", // the ExecutionGraph's own check fails: its words are the cause
	fault.ResourceManagerUnreachable: "the connection to the ResourceManager was lost",
	fault.RegistrationError:          "java.net.ConnectException: Connection refused: jobmanager/10.0.4.17:6123",
	fault.ResourceDeclarationLost:    "the connection to the ResourceManager was lost",
	fault.NoMatchingSlot:             "no free slot has the requested resource profile",
	fault.SlotSharingGroupTooLarge:   "", // the SlotManager matches no TaskManager: its words are the cause
	fault.SlotOfferRejected:          "the JobMaster did not accept the slots",
	fault.SlotOfferTimeout:           "the JobMaster did not answer",
	fault.TaskExecutorDies:           "the TaskManager process was killed",
	fault.BlobUnavailable:            "java.io.FileNotFoundException: /tmp/blobStore-5d1c/job_1/blob_p-1 (No such file or directory)",
	fault.JarCorrupted:               "",
	fault.OperatorOpenThrows:         "java.io.FileNotFoundException: /data/stopwords-en.txt (No such file or directory)",
	fault.CheckpointExpired:          "",
	fault.BarrierLost:                "",
}
