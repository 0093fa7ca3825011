package diagnose_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/fault"
	"flinklab/runtime/logging"
	"flinklab/tools/learn/diagnose"
)

// What runtime/logging prints, ParseLog reads back: the same time, level,
// logger and text, so the clues of package fault match the parsed records
// as they match the ones a LogCapture kept.
func TestParseLogReadsBackWhatTheHandlerPrints(t *testing.T) {
	var printed bytes.Buffer
	captured := fault.NewLogCapture(slog.LevelDebug)
	handlers := []slog.Handler{logging.NewHandler(&printed, slog.LevelDebug), captured}
	at := time.Date(2026, 11, 30, 10, 16, 2, 475_000_000, time.UTC)
	log := func(level slog.Level, logger, msg string, attrs ...slog.Attr) {
		for _, h := range handlers {
			r := slog.NewRecord(at, level, msg, 0)
			r.AddAttrs(attrs...)
			require.NoError(t, h.WithAttrs([]slog.Attr{slog.String("logger", logger)}).Handle(context.Background(), r))
		}
		at = at.Add(time.Millisecond)
	}
	log(slog.LevelError, "BlobClient", fetch+" No retries left.",
		slog.String("cause", "Detected data corruption during transfer (SHA-256): expected "+blobKey))
	log(slog.LevelInfo, "FineGrainedSlotManager", "Matching resource requirements against available resources.\n"+
		"Missing resources:\n  Job "+job+"\nCurrent resources:\n  TaskManager taskexecutor-0\n    Available: ResourceProfile{cpuCores=2, taskHeapMemory=384.000mb (402653174 bytes), taskOffHeapMemory=0 bytes, managedMemory=512.000mb (536870920 bytes), networkMemory=128.000mb (134217730 bytes)}")
	log(slog.LevelWarn, "JobMaster", "Failed to declare resource requirements of job "+job+".", slog.Int("attempt", 2))
	log(slog.LevelDebug, "TaskExecutor", "", slog.String("cause", "an empty message"))

	parsed, err := diagnose.ParseLog(&printed)
	require.NoError(t, err)
	want := captured.Records()
	require.Len(t, parsed, len(want))
	for i, r := range parsed {
		assert.Equal(t, want[i].Time, r.Time, "record %d", i)
		assert.Equal(t, want[i].Level, r.Level, "record %d", i)
		assert.Equal(t, want[i].Logger, r.Logger, "record %d", i)
		assert.Equal(t, want[i].Text(), r.Text(), "record %d", i)
		assert.Empty(t, r.Attrs, "attributes stay in the message")
	}
	e, _ := fault.EvidenceFor("m7", fault.NoMatchingSlot)
	assert.True(t, e.Clues[0].Matches(parsed[1]), "a clue matches a parsed multi-line record")
}

func TestParseLog(t *testing.T) {
	tests := []struct {
		name    string
		log     string
		want    []string // each record as LogRecord.String prints it
		wantErr string
	}{
		{name: "empty", log: ""},
		{name: "no newline at the end",
			log:  "2026-11-30 10:16:00,120 INFO  StandaloneResourceManager [] - Starting the resource manager.",
			want: []string{"10:16:00,120 INFO  StandaloneResourceManager [] - Starting the resource manager."}},
		{name: "windows line ends and a cause",
			log:  "2026-11-30 10:16:02,475 ERROR BlobClient [] - Failed.\r\nDetected data corruption\r\n",
			want: []string{"10:16:02,475 ERROR BlobClient [] - Failed.\nDetected data corruption"}},
		{name: "blank lines before the first record",
			log:  "\n\n2026-11-30 10:16:00,001 DEBUG TaskExecutor [] - x\n",
			want: []string{"10:16:00,001 DEBUG TaskExecutor [] - x"}},
		{name: "an empty message", log: "2026-11-30 10:16:00,001 WARN  JobMaster [] - \n",
			want: []string{"10:16:00,001 WARN  JobMaster [] - "}},
		{name: "a continuation line first", log: "Detected data corruption\n", wantErr: `line 1: not a log record: "Detected data corruption"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			records, err := diagnose.ParseLog(strings.NewReader(tt.log))
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, r := range records {
				got = append(got, r.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// The merged story is in time order; in the same millisecond the
// JobManager's file comes first, then the files by name, then each file's
// own order.
func TestLoadLogsMergesTheFilesInTimeOrder(t *testing.T) {
	tm1 := diagnose.TaskManagerLogFile(1)
	logs := loadDrill(t, map[string][]string{
		tm1: {"2026-11-30 10:16:00,100 INFO  TaskExecutor [] - tm1 first",
			"2026-11-30 10:16:00,100 INFO  TaskExecutor [] - tm1 second"},
		tm0: {"2026-11-30 10:16:00,050 INFO  TaskExecutor [] - tm0 early",
			"2026-11-30 10:16:00,100 ERROR BlobClient [] - tm0 with a cause",
			"the cause",
			"2026-11-30 10:16:00,100 INFO  Task [] - tm0 after the cause"},
		diagnose.JobManagerLogFile: {"2026-11-30 10:16:00,100 INFO  JobMaster [] - jm"},
	})
	var got []string
	for _, r := range logs.All {
		got = append(got, r.Where()+" "+strings.ReplaceAll(r.Message, "\n", "|"))
	}
	assert.Equal(t, []string{
		tm0 + ":1 tm0 early",
		diagnose.JobManagerLogFile + ":1 jm",
		tm0 + ":2 tm0 with a cause|the cause",
		tm0 + ":4 tm0 after the cause",
		tm1 + ":1 tm1 first",
		tm1 + ":2 tm1 second",
	}, got)
	assert.Len(t, logs.Files, 3)
	assert.Len(t, logs.Files[tm0], 3)
	assert.Equal(t, fault.TaskManagerLog, logs.Files[tm0][2].Process(), "a Task line in a TaskManager's file")
	assert.Equal(t, fault.JobManagerLog, logs.Files[diagnose.JobManagerLogFile][0].Process())

	again := diagnose.NewLogs(map[string][]fault.LogRecord{
		tm0: {logs.Files[tm0][0].LogRecord, logs.Files[tm0][1].LogRecord, logs.Files[tm0][2].LogRecord},
	})
	assert.Equal(t, logs.Files[tm0], again.Files[tm0], "NewLogs counts the lines a record is printed on")
}

func TestLoadLogsWantsLogFiles(t *testing.T) {
	_, err := diagnose.LoadLogs(t.TempDir())
	assert.ErrorIs(t, err, diagnose.ErrNoLogs)

	dir := writeDrill(t, map[string][]string{tm0: {"not a record"}})
	_, err = diagnose.LoadLogs(dir)
	assert.ErrorContains(t, err, tm0+": line 1: not a log record")
}

func TestFindReturnsTheProvingRecordsWithTheirPlaces(t *testing.T) {
	logs := loadDrill(t, jarCorrupted())
	e, _ := fault.EvidenceFor("m10", fault.JarCorrupted)
	proof, complete := logs.Find(e)
	require.True(t, complete)
	var got []string
	for _, r := range proof {
		got = append(got, r.Where()+" "+r.Logger)
	}
	assert.Equal(t, []string{
		tm0 + ":7 BlobClient", tm0 + ":8 BlobClient", tm0 + ":10 Task",
		diagnose.JobManagerLogFile + ":16 ExecutionGraph", diagnose.JobManagerLogFile + ":18 DefaultScheduler",
	}, got)
}
