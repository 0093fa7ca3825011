package tracediff

import "testing"

func TestSame(t *testing.T) {
	m3 := Event{Step: "m3", From: "REST", To: "Dispatcher", Message: "submitJob 'r03'", JobID: "e69e5367"}
	tests := []struct {
		name string
		a, b Event
		want bool
	}{
		{"the same event", m3, m3, true},
		{"messages and job IDs are not compared", m3, Event{Step: "m3", From: "REST", To: "Dispatcher"}, true},
		{"names differ in case and spaces only", m3, Event{Step: "M3", From: "rest", To: "Dis patcher"}, true},
		{"another step", m3, Event{Step: "m4", From: "REST", To: "Dispatcher"}, false},
		{"another sender", m3, Event{Step: "m3", From: "Client", To: "Dispatcher"}, false},
		{"another receiver", m3, Event{Step: "m3", From: "REST", To: "JobMaster"}, false},
		{"sender and receiver the other way round", m3, Event{Step: "m3", From: "Dispatcher", To: "REST"}, false},
		{"failed against happened", m3, Event{Step: "m3", From: "REST", To: "Dispatcher", Failed: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Same(tt.a, tt.b); got != tt.want {
				t.Errorf("Same(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestFirstDifference(t *testing.T) {
	m1 := Event{Step: "m1", From: "Client", To: "REST"}
	m2 := Event{Step: "m2", From: "Client", To: "REST"}
	m3 := Event{Step: "m3", From: "REST", To: "Dispatcher"}
	tests := []struct {
		name string
		a, b []Event
		want int
	}{
		{"both empty", nil, nil, -1},
		{"the same", []Event{m1, m2, m3}, []Event{m1, m2, m3}, -1},
		{"the first row differs", []Event{m2, m1, m3}, []Event{m1, m2, m3}, 0},
		{"two rows swapped", []Event{m1, m3, m2}, []Event{m1, m2, m3}, 1},
		{"the first is shorter", []Event{m1, m2}, []Event{m1, m2, m3}, 2},
		{"the second is shorter", []Event{m1, m2, m3}, []Event{m1}, 1},
		{"one is empty", nil, []Event{m1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FirstDifference(tt.a, tt.b); got != tt.want {
				t.Errorf("FirstDifference(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestEventString(t *testing.T) {
	tests := []struct {
		e    Event
		want string
	}{
		{Event{Step: "m3", From: "REST", To: "Dispatcher", Message: "not shown"}, "m3 REST → Dispatcher"},
		{Event{Step: "m9", From: "JobMaster", To: "TaskExecutor", Failed: true}, "m9 JobMaster ✗ TaskExecutor"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.e, got, tt.want)
		}
	}
}
