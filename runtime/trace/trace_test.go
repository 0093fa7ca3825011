package trace_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/trace"
)

func TestEventsKeepTheOrderTheyWereEmittedIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := trace.NewRecorder()
		job := api.NewJobID()
		start := time.Now()
		rec.Emit(trace.M3, "REST", "Dispatcher", job, "submitJob '%s'", "WordCount")
		time.Sleep(time.Second) // fake time: the next step happens later
		rec.Emit(trace.M4, "Dispatcher", "JobMaster", job, "JobMaster created")
		rec.Emit(trace.M5, "JobMaster", "ResourceManager", job, "registerJobMaster")

		got := rec.Events()
		require.Len(t, got, 3)
		assert.Equal(t, trace.Event{
			Step: trace.M3, From: "REST", To: "Dispatcher", JobID: job,
			Message: "submitJob 'WordCount'", Time: start,
		}, got[0])
		assert.Equal(t, start.Add(time.Second), got[1].Time)
		assert.Equal(t, []trace.Step{trace.M3, trace.M4, trace.M5}, trace.Steps(got))
	})
}

// TestEmitAtPlacesAnEarlierEventBeforeLaterOnes: the REST endpoint records
// a job's upload (m1) once the job was accepted (after m3), with the time of
// the upload; the trace still reads m1, m2, m3.
func TestEmitAtPlacesAnEarlierEventBeforeLaterOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := trace.NewRecorder()
		job, other := api.NewJobID(), api.NewJobID()
		uploaded := time.Now()
		time.Sleep(time.Minute) // fake time: the jar is run a minute later
		runArrived := time.Now()
		time.Sleep(time.Second)
		rec.Emit(trace.M3, "Client", "Dispatcher", job, "submitJob")
		rec.Emit(trace.M3, "Client", "Dispatcher", other, "submitJob")
		rec.Emit(trace.M4, "Dispatcher", "JobMaster", job, "JobMaster created")

		rec.EmitAt(trace.At(runArrived), trace.M2, "Client", "REST", job, "run")
		rec.EmitAt(trace.At(uploaded), trace.M1, "Client", "REST", job, "upload")

		got := rec.JobEvents(job)
		assert.Equal(t, []trace.Step{trace.M1, trace.M2, trace.M3, trace.M4}, trace.Steps(got))
		assert.Equal(t, uploaded, got[0].Time)
		assert.Equal(t, []trace.Step{trace.M1, trace.M2, trace.M3, trace.M3, trace.M4}, trace.Steps(rec.Events()))
		assert.Equal(t, []trace.Step{trace.M3}, trace.Steps(rec.JobEvents(other)))

		// Events at the same time keep the order they were emitted in.
		rec.EmitAt(trace.At(uploaded), trace.M11, "Task", "JobMaster", job, "same time, emitted last")
		assert.Equal(t, []trace.Step{trace.M1, trace.M11, trace.M2, trace.M3, trace.M4}, trace.Steps(rec.JobEvents(job)))
	})
}

func TestEmitAtWakesAwait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := trace.NewRecorder()
		job := api.NewJobID()
		done := make(chan error, 1)
		go func() {
			done <- rec.Await(context.Background(), job, func(events []trace.Event) bool { return trace.Count(events, trace.M1) == 1 })
		}()
		synctest.Wait()
		rec.EmitAt(trace.At(time.Now().Add(-time.Hour)), trace.M1, "Client", "REST", job, "upload")
		require.NoError(t, <-done)
	})
}

func TestEventsReturnsACopy(t *testing.T) {
	rec := trace.NewRecorder()
	job := api.NewJobID()
	rec.Emit(trace.M1, "client", "BlobServer", job, "upload")
	got := rec.Events()
	got[0].Step = trace.M11
	assert.Equal(t, []trace.Step{trace.M1}, trace.Steps(rec.Events()))
}

func TestJobEventsKeepsOneJobsEvents(t *testing.T) {
	rec := trace.NewRecorder()
	wordCount, topSpeed := api.NewJobID(), api.NewJobID()
	rec.Emit(trace.M3, "REST", "Dispatcher", wordCount, "submit")
	rec.Emit(trace.M3, "REST", "Dispatcher", topSpeed, "submit")
	rec.Emit(trace.M4, "Dispatcher", "JobMaster", wordCount, "create")
	rec.Emit(trace.M7, "SlotManager", "TaskExecutor", topSpeed, "requestSlot")
	rec.Emit(trace.M5, "JobMaster", "ResourceManager", wordCount, "register")

	got, want := trace.Steps(rec.JobEvents(wordCount)), []trace.Step{trace.M3, trace.M4, trace.M5}
	assert.Equal(t, want, got)
	got, want = trace.Steps(rec.JobEvents(topSpeed)), []trace.Step{trace.M3, trace.M7}
	assert.Equal(t, want, got)
	assert.Empty(t, rec.JobEvents(api.NewJobID()))
}

func TestNilRecorderRecordsNothing(t *testing.T) {
	var rec *trace.Recorder
	assert.NotPanics(t, func() {
		rec.Emit(trace.M1, "client", "BlobServer", api.NewJobID(), "upload")
		rec.EmitAt(trace.At(time.Now()), trace.M1, "client", "BlobServer", api.NewJobID(), "upload")
		rec.EmitFailure(trace.M1, "client", "BlobServer", api.NewJobID(), "upload")
	})
	assert.Nil(t, rec.Events())
	assert.Empty(t, rec.JobEvents(api.NewJobID()))
}

func TestSteps(t *testing.T) {
	tests := []struct {
		name   string
		events []trace.Event
		want   []trace.Step
	}{
		{"none", nil, []trace.Step{}},
		{"one", []trace.Event{{Step: trace.M9}}, []trace.Step{trace.M9}},
		{"in order", []trace.Event{{Step: trace.M10}, {Step: trace.M11}, {Step: trace.M8}},
			[]trace.Step{trace.M10, trace.M11, trace.M8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, trace.Steps(tt.events))
		})
	}
}

func TestEmitFailureRecordsAFailedEventInItsPlace(t *testing.T) {
	rec := trace.NewRecorder()
	job := api.NewJobID()
	rec.Emit(trace.M9, "JobMaster", "TaskExecutor", job, "submitTask")
	rec.EmitFailure(trace.M10, "TaskExecutor", "BlobServer", job, "Failed to fetch BLOB %s.", "p-1")
	rec.Emit(trace.M9, "JobMaster", "TaskExecutor", job, "submitTask again")

	events := rec.JobEvents(job)
	assert.Equal(t, []trace.Step{trace.M9, trace.M10, trace.M9}, trace.Steps(events))
	assert.Equal(t, []bool{false, true, false}, []bool{events[0].Failed, events[1].Failed, events[2].Failed})
	failures := trace.Failures(events)
	if assert.Len(t, failures, 1) {
		assert.Equal(t, "Failed to fetch BLOB p-1.", failures[0].Message)
	}
	assert.Empty(t, trace.Failures(events[:1]))
}

func TestEventString(t *testing.T) {
	tests := []struct {
		event trace.Event
		want  string
	}{
		{trace.Event{Step: trace.M5, From: "JobMaster", To: "ResourceManager", Message: "registerJobMaster"},
			"m5  JobMaster → ResourceManager: registerJobMaster"},
		{trace.Event{Step: trace.M10, From: "TaskExecutor", To: "BlobServer", Message: "download"},
			"m10 TaskExecutor → BlobServer: download"},
		{trace.Event{Step: trace.M10, From: "TaskExecutor", To: "BlobServer", Message: "Failed to fetch BLOB", Failed: true},
			"m10 TaskExecutor ✗ BlobServer: Failed to fetch BLOB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.event.String())
	}
}

func TestAwaitReturnsOnceTheEventsAreThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := trace.NewRecorder()
		job := api.NewJobID()
		done := make(chan error, 1)
		go func() {
			done <- r.Await(context.Background(), job, func(events []trace.Event) bool { return trace.Count(events, trace.M11) == 2 })
		}()
		r.Emit(trace.M11, "Task", "JobMaster", job, "first")
		r.Emit(trace.M11, "Task", "JobMaster", api.NewJobID(), "another job")
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Await returned after one of two events")
		default:
		}
		r.Emit(trace.M11, "Task", "JobMaster", job, "second")
		assert.NoError(t, <-done)

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, r.Await(ctx, job, func([]trace.Event) bool { return false }), context.Canceled)
	})
}

func TestAwaitOnANilRecorderWaitsForCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec *trace.Recorder
		job := api.NewJobID()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()

		start := time.Now()
		err := rec.Await(ctx, job, func(events []trace.Event) bool { return trace.Count(events, trace.M11) > 0 })
		assert.ErrorIs(t, err, context.DeadlineExceeded, "nothing is ever recorded, so only ctx ends the wait")
		assert.Equal(t, 5*time.Second, time.Since(start))

		assert.NoError(t, rec.Await(ctx, job, func(events []trace.Event) bool { return len(events) == 0 }),
			"no events is all a nil recorder will ever have")
	})
}

func TestForgetDropsOneJobsEvents(t *testing.T) {
	rec := trace.NewRecorder()
	wordCount, topSpeed := api.NewJobID(), api.NewJobID()
	rec.Emit(trace.M3, "REST", "Dispatcher", wordCount, "submit")
	rec.Emit(trace.M3, "REST", "Dispatcher", topSpeed, "submit")
	rec.Emit(trace.M4, "Dispatcher", "JobMaster", wordCount, "create")

	rec.Forget(wordCount)
	assert.Empty(t, rec.JobEvents(wordCount))
	assert.Equal(t, []trace.Step{trace.M3}, trace.Steps(rec.JobEvents(topSpeed)), "other jobs keep theirs")
	got := rec.Events()
	require.Len(t, got, 1)
	assert.Equal(t, topSpeed, got[0].JobID)

	rec.Emit(trace.M5, "JobMaster", "ResourceManager", wordCount, "register")
	assert.Equal(t, []trace.Step{trace.M5}, trace.Steps(rec.JobEvents(wordCount)), "a forgotten job starts afresh")

	var none *trace.Recorder
	assert.NotPanics(t, func() { none.Forget(wordCount) })
}

func TestCallerNamesWhoAsked(t *testing.T) {
	ctx := context.Background()
	assert.Equal(t, "Client", trace.Caller(ctx, "Client"))
	assert.Equal(t, "REST", trace.Caller(trace.WithCaller(ctx, "REST"), "Client"))
}

// In a synctest bubble the clock stands still while goroutines run, so a
// whole submission may happen at one instant. The REST endpoint records
// the run request (m2) only once the Dispatcher has accepted the job (m3),
// at the moment it arrived; the JobMaster records a slot offer (m8) after
// the deployments it set off (m9). Each still takes its place as of its
// moment.
func TestAnEventRecordedLateTakesItsPlaceAsOfItsMoment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := trace.NewRecorder()
		job := api.NewJobID()
		r.Emit(trace.M1, "Client", "REST", job, "POST /jars/upload")
		arrived := r.Now()
		r.Emit(trace.M3, "REST", "Dispatcher", job, "submitJob")
		r.EmitAt(arrived, trace.M2, "Client", "REST", job, "POST /jars/{jarid}/run")
		r.Emit(trace.M7, "SlotManager", "TaskExecutor", job, "requestSlot")
		offered := r.Now()
		r.Emit(trace.M9, "JobMaster", "TaskExecutor", job, "submitTask")
		r.EmitAt(offered, trace.M8, "TaskExecutor", "JobMaster", job, "offerSlots")
		r.Emit(trace.M10, "TaskExecutor", "BlobServer", job, "jar fetched")

		want := []trace.Step{trace.M1, trace.M2, trace.M3, trace.M7, trace.M8, trace.M9, trace.M10}
		assert.Equal(t, want, trace.Steps(r.JobEvents(job)))
		assert.Equal(t, want, trace.Steps(r.Events()))
	})
}
