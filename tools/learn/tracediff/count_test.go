package tracediff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	m6  = Event{Step: "m6", From: "JobMaster", To: "ResourceManager", Message: "requires 5 slot(s)"}
	m7a = Event{Step: "m7", From: "SlotManager", To: "TaskExecutor", Message: "slot taskexecutor-0_0"}
	m7b = Event{Step: "m7", From: "SlotManager", To: "TaskExecutor", Message: "slot taskexecutor-1_0"}
	m8a = Event{Step: "m8", From: "TaskExecutor", To: "JobMaster", Message: "from taskexecutor-1"}
	m8b = Event{Step: "m8", From: "TaskExecutor", To: "JobMaster", Message: "from taskexecutor-0"}
	m9  = Event{Step: "m9", From: "JobMaster", To: "TaskExecutor"}
	m9x = Event{Step: "m9", From: "JobMaster", To: "TaskExecutor", Failed: true}
)

func TestCount(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   []Counted
	}{
		{"nothing", nil, nil},
		{"each message once", []Event{m6, m7a, m8a}, []Counted{{m6, 1}, {m7a, 1}, {m8a, 1}}},
		{
			"repeats interleaved: counted where each message first happened, with its first message",
			[]Event{m6, m7a, m8a, m7b, m8b}, []Counted{{m6, 1}, {m7a, 2}, {m8a, 2}},
		},
		{
			"the same step failed and went through: two messages",
			[]Event{m9x, m6, m9}, []Counted{{m9x, 1}, {m6, 1}, {m9, 1}},
		},
		{
			"a message that comes back after others is counted at its first place",
			[]Event{m6, m9x, m6}, []Counted{{m6, 2}, {m9x, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Count(tt.events)); diff != "" {
				t.Errorf("Count: differs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFirstCountDifference(t *testing.T) {
	run := []Counted{{m6, 1}, {m7a, 4}, {m8a, 4}}
	tests := []struct {
		name string
		a, b []Counted
		want int
	}{
		{"both empty", nil, nil, -1},
		{"the same, messages aside", []Counted{{m6, 1}, {m7b, 4}, {m8b, 4}}, run, -1},
		{"another count", []Counted{{m6, 1}, {m7a, 5}, {m8a, 4}}, run, 1},
		{"two rows swapped", []Counted{{m6, 1}, {m8a, 4}, {m7a, 4}}, run, 1},
		{"failed where it went through", []Counted{{m6, 1}, {m7a, 4}, {Event{Step: "m8", From: "TaskExecutor", To: "JobMaster", Failed: true}, 4}}, run, 2},
		{"one row more", append([]Counted{}, append(run, Counted{m9, 1})...), run, 3},
		{"one row fewer", run[:2], run, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FirstCountDifference(tt.a, tt.b); got != tt.want {
				t.Errorf("FirstCountDifference = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDescribeCountDifference(t *testing.T) {
	run := []Counted{{m6, 1}, {m7a, 4}, {m8a, 4}}
	tests := []struct {
		name      string
		predicted []Counted
		title     string
		want      string
	}{
		{
			"a count too high", []Counted{{m6, 1}, {m7a, 5}, {m8a, 4}}, TitlePredicted,
			"Row 2: m7 SlotManager → TaskExecutor happened 4 times; you predicted 5 times.",
		},
		{
			"a count too low", []Counted{{m6, 2}, {m7a, 4}, {m8a, 4}}, TitlePredicted,
			"Row 1: m6 JobMaster → ResourceManager happened once; you predicted twice.",
		},
		{
			"a message that happened, but later", []Counted{{m6, 1}, {m8a, 4}, {m7a, 4}}, TitlePredicted,
			"Row 2: you predicted m8 TaskExecutor → JobMaster here, but it happened later; the next new message was m7 SlotManager → TaskExecutor.",
		},
		{
			"a message that never happened, in the middle", []Counted{{m6, 1}, {m9, 1}, {m7a, 4}}, TitlePredicted,
			"Row 2: you predicted m9 JobMaster → TaskExecutor; it never happened. The next new message was m7 SlotManager → TaskExecutor.",
		},
		{
			"a message that never happened, after the end", []Counted{{m6, 1}, {m7a, 4}, {m8a, 4}, {m9, 1}}, TitlePredicted,
			"Row 4: you predicted m9 JobMaster → TaskExecutor; it never happened: the run ends after row 3.",
		},
		{
			"a prediction that ends early", []Counted{{m6, 1}}, TitlePredicted,
			"Row 2: you predicted nothing more, but the run went on: m7 SlotManager → TaskExecutor happened 4 times.",
		},
		{
			"in the words of the reference", []Counted{{m6, 1}, {m7a, 3}, {m8a, 4}}, TitleReference,
			"Row 2: m7 SlotManager → TaskExecutor happened 4 times; the reference says 3 times.",
		},
		{
			"failed where it went through", []Counted{{m6, 1}, {m7a, 4}, {m9x, 1}}, TitlePredicted,
			"Row 3: you predicted m9 JobMaster ✗ TaskExecutor; it never happened. The next new message was m8 TaskExecutor → JobMaster.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := FirstCountDifference(tt.predicted, run)
			if got := DescribeCountDifference(tt.predicted, run, i, tt.title); got != tt.want {
				t.Errorf("DescribeCountDifference:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
