package diagnose_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
	"flinklab/tools/learn/diagnose"
)

func TestCheckHonest(t *testing.T) {
	tests := []struct {
		name     string
		key      diagnose.Key
		files    map[string][]string
		healthy  map[string][]string // the run without the fault; nil: an empty log
		wantErr  error
		contains []string
	}{
		{name: "m10 drill", key: jarCorruptedKey, files: jarCorrupted()},
		{name: "m6 drill", key: declarationLostKey, files: declarationLost()},

		// (a) The logs must prove the answer.
		{name: "the last attempt's cause is missing", key: jarCorruptedKey,
			files:    without(jarCorrupted(), tm0, "No retries left."),
			wantErr:  diagnose.ErrIncomplete,
			contains: []string{"m10:jar-corrupted: no line for BlobClient /(?s)^(Failed to fetch BLOB) .* (No retries left\\.)\\n(Detected data corruption", "; Task /"}},
		{name: "the logs of another fault", key: diagnose.Key{Step: trace.M10, Kind: fault.BlobUnavailable}, files: jarCorrupted(),
			wantErr: diagnose.ErrIncomplete, contains: []string{"GET operation failed"}},

		// (b) No line may give the fault away.
		{name: "the injector's own line", key: jarCorruptedKey,
			files:    withLines(jarCorrupted(), tm0, "2026-11-30 10:16:00,709 WARN  FaultInjector [] - Injecting fault at a step"),
			wantErr:  diagnose.ErrGivesAway,
			contains: []string{tm0 + `:11 ("Fault"): 2026-11-30 10:16:00,709 WARN  FaultInjector [] - Injecting fault at a step`}},
		{name: "a step's name in a path", key: jarCorruptedKey,
			files:    withLines(jarCorrupted(), diagnose.JobManagerLogFile, "2026-11-30 10:16:00,103 INFO  DispatcherRestEndpoint [] - Using /tmp/drills/M10/web-upload"),
			wantErr:  diagnose.ErrGivesAway,
			contains: []string{`("M10")`}},
		{name: "a kind of fault", key: jarCorruptedKey,
			files:    withLines(jarCorrupted(), tm0, "2026-11-30 10:16:00,103 INFO  TaskExecutor [] - Started in /tmp/jar-corrupted-1"),
			wantErr:  diagnose.ErrGivesAway,
			contains: []string{`("jar-corrupted")`}},
		{name: "another kind of fault", key: jarCorruptedKey,
			files:   withLines(jarCorrupted(), tm0, "2026-11-30 10:16:00,103 INFO  TaskExecutor [] - mode=Operator-Open-Throws"),
			wantErr: diagnose.ErrGivesAway},
		{name: "what the client was told", key: jarCorruptedKey,
			files:    withLines(jarCorrupted(), diagnose.ClientFile, "GET /jobs/overview", `500 {"errors":["fault injected at step m10"]}`),
			wantErr:  diagnose.ErrGivesAway,
			contains: []string{`client.txt:2 ("fault"): 500 {"errors":["fault injected at step m10"]}`}},
		{name: "a diagnosis", key: jarCorruptedKey,
			files:   withLines(jarCorrupted(), tm0, "2026-11-30 10:16:00,103 INFO  TaskExecutor [] - Diagnosis written."),
			wantErr: diagnose.ErrGivesAway},

		// (c) A healthy run must not prove the answer.
		{name: "the proof is what every run writes", key: jarCorruptedKey, files: jarCorrupted(), healthy: jarCorrupted(),
			wantErr: diagnose.ErrHealthyToo, contains: []string{"m10:jar-corrupted is complete in a run without the fault"}},

		// (d) No other step may be proved as well, by lines a healthy run
		// does not write.
		{name: "a registration answered at once proves no m5", key: jarCorruptedKey, files: jarCorrupted()},
		{name: "a registration answered late proves m5 too", key: jarCorruptedKey,
			files: withLines(without(jarCorrupted(), diagnose.JobManagerLogFile, "ResourceManager"), diagnose.JobManagerLogFile,
				"2026-11-30 10:16:00,145 INFO  JobMaster [] - Connecting to ResourceManager pekko://flink/user/rpc/resourcemanager_0("+leader+")",
				"2026-11-30 10:16:00,147 INFO  JobMaster [] - Resolved ResourceManager address, beginning registration",
				"2026-11-30 10:16:00,550 INFO  StandaloneResourceManager [] - Registering job manager "+leader+"@pekko://flink/user/rpc/jobmanager_2 for job "+job+".",
				"2026-11-30 10:16:00,552 INFO  JobMaster [] - JobManager successfully registered at ResourceManager, leader id: "+leader+"."),
			wantErr:  diagnose.ErrAmbiguous,
			contains: []string{"the evidence of m5:resourcemanager-unreachable is complete:", "Registering job manager"}},
		{name: "an unmatched requirement proves m7 too", key: jarCorruptedKey,
			files: withLines(jarCorrupted(), diagnose.JobManagerLogFile,
				"2026-11-30 10:16:00,561 INFO  FineGrainedSlotManager [] - Matching resource requirements against available resources.",
				"Current resources:",
				"  TaskManager taskexecutor-0",
				"    Available: ResourceProfile{cpuCores=1, taskHeapMemory=192.000mb (201326587 bytes), taskOffHeapMemory=0 bytes, managedMemory=256.000mb (268435460 bytes), networkMemory=64.000mb (67108865 bytes)}",
				"2026-11-30 10:16:00,562 WARN  FineGrainedSlotManager [] - Could not fulfill resource requirements of job "+job+".",
				"2026-11-30 10:16:00,563 WARN  DeclarativeSlotPoolBridge [] - Could not acquire the minimum required resources, failing slot requests.",
				"2026-11-30 10:16:00,564 INFO  ExecutionGraph [] - "+source+" switched from SCHEDULED to FAILED on [unassigned resource].",
				"NoResourceAvailableException: Could not acquire the minimum required resources."),
			wantErr:  diagnose.ErrAmbiguous,
			contains: []string{"the evidence of m7:no-matching-slot is complete:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := diagnose.CheckHonest(tt.key, loadDrill(t, tt.files), loadDrill(t, tt.healthy))
			t.Log(err)
			if tt.wantErr == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tt.wantErr)
			for _, other := range []error{diagnose.ErrIncomplete, diagnose.ErrGivesAway, diagnose.ErrHealthyToo, diagnose.ErrAmbiguous} {
				if other != tt.wantErr {
					assert.False(t, errors.Is(err, other), "only the check that failed: %v", err)
				}
			}
			for _, s := range tt.contains {
				assert.ErrorContains(t, err, s)
			}
		})
	}
}

func TestCheckHonestWantsEvidence(t *testing.T) {
	err := diagnose.CheckHonest(diagnose.Key{Step: trace.M9, Kind: fault.JarCorrupted}, loadDrill(t, jarCorrupted()), loadDrill(t, nil))
	assert.ErrorIs(t, err, diagnose.ErrNoEvidence)
}
