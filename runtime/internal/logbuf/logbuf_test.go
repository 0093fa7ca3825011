package logbuf

import (
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestBufferConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = b.Write([]byte("x"))
		}()
	}
	wg.Wait()
	if got := b.String(); got != "xxxxxxxx" {
		t.Fatalf("String() = %q, want 8 x", got)
	}
}

func TestBufferRecordsAndMessages(t *testing.T) {
	var b Buffer
	log := slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug}))
	log.With("logger", "A").Info("Starting the slot manager.")
	_, _ = b.Write([]byte("not json\n"))
	log.With("logger", "B").Debug("Starting allocation of slot 1")
	log.Warn("Stopping")

	want := []Record{
		{Level: "INFO", Msg: "Starting the slot manager.", Logger: "A"},
		{Level: "DEBUG", Msg: "Starting allocation of slot 1", Logger: "B"},
		{Level: "WARN", Msg: "Stopping"},
	}
	got := b.Records()
	for i := range got {
		if got[i].Time.IsZero() {
			t.Fatalf("Records()[%d] has no time: %+v", i, got[i])
		}
		got[i].Time = time.Time{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Records() = %+v, want %+v", got, want)
	}
	if got, want := b.Messages("Starting"), []string{"Starting the slot manager.", "Starting allocation of slot 1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Messages(Starting) = %q, want %q", got, want)
	}
	if got := b.Messages("Nothing"); got != nil {
		t.Fatalf("Messages(Nothing) = %q, want nil", got)
	}
}
