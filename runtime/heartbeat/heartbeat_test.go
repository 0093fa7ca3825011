package heartbeat_test

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/heartbeat"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const s = time.Second

// Ticks fall on whole multiples of the interval; the tests look between
// them (35 s rather than 30 s), where nothing is in flight.

func TestHeartbeatsKeepBothSidesAliveAndCarryPayloadsBothWays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPair(t, heartbeat.DefaultHeartbeatServices(), nil)

		time.Sleep(35 * s)
		synctest.Wait()

		// The JobMaster asked at 0, 10, 20 and 30 s, each time with a new
		// slot report and a ctx of one interval...
		assert.Equal(t, []call{
			{At: 0, Budget: 10 * s, Ended: 0, Payload: "slot report #1"},
			{At: 10 * s, Budget: 10 * s, Ended: 10 * s, Payload: "slot report #2"},
			{At: 20 * s, Budget: 10 * s, Ended: 20 * s, Payload: "slot report #3"},
			{At: 30 * s, Budget: 10 * s, Ended: 30 * s, Payload: "slot report #4"},
		}, p.toTM.seen())
		// ...the TaskExecutor got each report...
		assert.Equal(t, []event{
			{Kind: "payload", From: jmID, Payload: "slot report #1", At: 0},
			{Kind: "payload", From: jmID, Payload: "slot report #2", At: 10 * s},
			{Kind: "payload", From: jmID, Payload: "slot report #3", At: 20 * s},
			{Kind: "payload", From: jmID, Payload: "slot report #4", At: 30 * s},
		}, p.tm.listener.of("payload"))
		// ...and answered each with its own payload.
		assert.Equal(t, []event{
			{Kind: "payload", From: tmID, Payload: "tm report #1", At: 0},
			{Kind: "payload", From: tmID, Payload: "tm report #2", At: 10 * s},
			{Kind: "payload", From: tmID, Payload: "tm report #3", At: 20 * s},
			{Kind: "payload", From: tmID, Payload: "tm report #4", At: 30 * s},
		}, p.jm.listener.of("payload"))
		assert.Len(t, p.toJM.seen(), 4)
		assert.Equal(t, p.start.Add(30*s), p.jm.lastHeartbeatFrom(t, tmID))
		assert.Equal(t, p.start.Add(30*s), p.tm.lastHeartbeatFrom(t, jmID))

		// Five minutes later nobody has timed out: heartbeats keep both
		// sides alive.
		time.Sleep(5*time.Minute - 35*s + 5*s)
		synctest.Wait()
		assert.Len(t, p.toTM.seen(), 31) // 0 s, 10 s, ..., 300 s
		assert.Empty(t, p.jm.listener.of("timeout"))
		assert.Empty(t, p.jm.listener.of("unreachable"))
		assert.Empty(t, p.tm.listener.of("timeout"))
		assert.Empty(t, p.tm.listener.of("unreachable"))
		// The listeners ran on their owners' main threads: calls is
		// unlocked, and read there, so -race would tell otherwise.
		assert.Equal(t, 31+31, p.jm.listenerCalls(t)) // 31 payloads retrieved, 31 reported
		assert.Equal(t, 31+31, p.tm.listenerCalls(t))
	})
}

func TestASilentTargetTimesOutExactlyAfterTheTimeout(t *testing.T) {
	t.Run("a frozen TaskExecutor, seen by the sender", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			jm := newNode[tmReport](t, jmID, start, "slot report")
			frozen := newFakeGateway[string](start, nil, hang)
			jm.startSender(heartbeat.DefaultHeartbeatServices(), nil, targets(tmID, frozen))

			assert.Equal(t, event{Kind: "timeout", From: tmID, At: 50 * s}, <-jm.listener.verdicts)

			time.Sleep(10*time.Minute + 5*s)
			assert.Len(t, jm.listener.of("timeout"), 1, "a monitor notifies once")
			// Each request waited one interval for its answer, and a
			// request that timed out is no failed RPC: else the target
			// would have been unreachable at 20 s.
			calls := frozen.seen()
			require.Len(t, calls, 66, "the spent monitor's target is still asked") // 0 s, 10 s, ..., 650 s
			for i, c := range calls[:5] {
				at := time.Duration(i) * 10 * s
				assert.Equal(t, call{At: at, Budget: 10 * s, Ended: at + 10*s, Payload: c.Payload}, c)
			}
			assert.Empty(t, jm.listener.of("unreachable"))
			assert.True(t, jm.lastHeartbeatFrom(t, tmID).IsZero())
		})
	})
	t.Run("a JobMaster that stops asking, seen by the receiver", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			tm := newNode[slotReport](t, tmID, start, "tm report")
			toJM := newFakeGateway[string](start, nil, deliver)
			tm.startReceiver(heartbeat.DefaultHeartbeatServices(), nil, targets(jmID, toJM))

			assert.Equal(t, event{Kind: "timeout", From: jmID, At: 50 * s}, <-tm.listener.verdicts)
			assert.Empty(t, toJM.seen(), "a receiver never asks")
		})
	})
	t.Run("every heartbeat restarts the timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			tm := newNode[slotReport](t, tmID, start, "tm report")
			toJM := newFakeGateway[string](start, nil, deliver)
			tm.startReceiver(heartbeat.DefaultHeartbeatServices(), nil, targets(jmID, toJM))

			for _, at := range []time.Duration{30 * s, 70 * s} {
				time.Sleep(at - time.Since(start))
				tm.do(t, func(hm heartbeat.HeartbeatManager[slotReport, string]) { hm.RequestHeartbeat(jmID, "slot report") })
			}

			assert.Equal(t, event{Kind: "timeout", From: jmID, At: 120 * s}, <-tm.listener.verdicts)
			assert.Equal(t, start.Add(70*s), tm.lastHeartbeatFrom(t, jmID))
			assert.Len(t, toJM.seen(), 2, "each request was answered")
		})
	})
}

func TestATimedOutMonitorIsSpentUntilTheOwnerUnmonitorsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPair(t, heartbeat.DefaultHeartbeatServices(), nil)

		// After the round at 0 s the TaskExecutor freezes: both sides
		// heard from each other last at 0 s, so both time out at 50 s.
		time.Sleep(5 * s)
		p.toTM.set(hang)
		assert.Equal(t, event{Kind: "timeout", From: tmID, At: 50 * s}, <-p.jm.listener.verdicts)
		assert.Equal(t, event{Kind: "timeout", From: jmID, At: 50 * s}, <-p.tm.listener.verdicts)

		// It thaws at 65 s. The spent monitors stay: requests and answers
		// flow again, payloads arrive and the times are updated, but
		// nothing is re-armed and nobody is notified again.
		time.Sleep(65*s - time.Since(p.start))
		p.toTM.set(deliver)
		time.Sleep(195*s - time.Since(p.start))
		synctest.Wait()
		assert.Equal(t, p.start.Add(190*s), p.jm.lastHeartbeatFrom(t, tmID))
		assert.Equal(t, p.start.Add(190*s), p.tm.lastHeartbeatFrom(t, jmID))
		assert.Equal(t, "tm report #14", last(p.jm.listener.of("payload")).Payload) // answers at 0 s and 70-190 s
		assert.Len(t, p.jm.listener.of("timeout"), 1)
		assert.EqualValues(t, 1, p.jm.executor.armed.Load(), "only the next round is armed, no timeout")

		// Monitoring it again does nothing while the spent monitor is there.
		p.jm.do(t, func(hm heartbeat.HeartbeatManager[tmReport, string]) { hm.MonitorTarget(tmID, p.toTM) })
		assert.EqualValues(t, 1, p.jm.executor.armed.Load())

		// The owner disconnects the TaskExecutor and it registers again:
		// a fresh monitor, with a fresh timeout.
		p.jm.do(t, func(hm heartbeat.HeartbeatManager[tmReport, string]) {
			hm.UnmonitorTarget(tmID)
			hm.MonitorTarget(tmID, p.toTM)
		})
		assert.True(t, p.jm.lastHeartbeatFrom(t, tmID).IsZero())
		p.toTM.set(hang)
		assert.Equal(t, event{Kind: "timeout", From: tmID, At: 245 * s}, <-p.jm.listener.verdicts)
	})
}

func TestFailedRPCsMakeATargetUnreachable(t *testing.T) {
	tests := []struct {
		name      string
		threshold int
		want      event
	}{
		// The TaskExecutor's process dies at 25 s; its RPC service answers
		// at once that it is unreachable. The last answer came at 20 s.
		{"the default threshold 2: the requests at 30 and 40 s fail", 2, event{Kind: "unreachable", From: tmID, At: 40 * s}},
		{"threshold 1: the request at 30 s fails", 1, event{Kind: "unreachable", From: tmID, At: 30 * s}},
		{"-1 disables the check: the timeout, 50 s after the answer at 20 s", heartbeat.FailedRPCDetectionDisabled,
			event{Kind: "timeout", From: tmID, At: 70 * s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				services := heartbeat.DefaultHeartbeatServices()
				services.RPCFailureThreshold = tt.threshold
				p := startPair(t, services, nil)

				time.Sleep(25 * s)
				p.toTM.set(fail)
				assert.Equal(t, tt.want, <-p.jm.listener.verdicts)

				// Once is all: an unreachable target does not time out
				// later, a timed-out one is not declared unreachable.
				time.Sleep(10 * time.Minute)
				verdicts := append(p.jm.listener.of("timeout"), p.jm.listener.of("unreachable")...)
				assert.Equal(t, []event{tt.want}, verdicts)
			})
		})
	}
}

func TestASuccessfulRPCResetsTheFailureCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		jm := newNode[tmReport](t, jmID, start, "slot report")
		// The requests go through every other time. No answer ever comes
		// back (lose), so the target times out; it is never unreachable.
		flaky := newFakeGateway[string](start, nil, lose)
		flaky.play(fail, lose, fail, lose, fail)
		jm.startSender(heartbeat.DefaultHeartbeatServices(), nil, targets(tmID, flaky))

		assert.Equal(t, event{Kind: "timeout", From: tmID, At: 50 * s}, <-jm.listener.verdicts)
		assert.Empty(t, jm.listener.of("unreachable"))
	})
}

func TestTheReceiverCountsFailedAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tm := newNode[slotReport](t, tmID, start, "tm report")
		deadJM := newFakeGateway[string](start, nil, fail)
		tm.startReceiver(heartbeat.DefaultHeartbeatServices(), nil, targets(jmID, deadJM))

		// Requests arrive, but the answers cannot reach the JobMaster.
		for _, at := range []time.Duration{0, 10 * s} {
			time.Sleep(at - time.Since(start))
			tm.do(t, func(hm heartbeat.HeartbeatManager[slotReport, string]) { hm.RequestHeartbeat(jmID, "slot report") })
		}

		assert.Equal(t, event{Kind: "unreachable", From: jmID, At: 10 * s}, <-tm.listener.verdicts)
		assert.Zero(t, tm.executor.armed.Load(), "an unreachable target's timeout is cancelled")
	})
}

func TestAHeartbeatFromAnUnknownTargetIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tm := newNode[slotReport](t, tmID, start, "tm report")
		toJM := newFakeGateway[string](start, nil, deliver)
		tm.startReceiver(heartbeat.DefaultHeartbeatServices(), nil, targets(jmID, toJM))

		const stranger api.ResourceID = "jm-stranger"
		time.Sleep(30 * s)
		tm.do(t, func(hm heartbeat.HeartbeatManager[slotReport, string]) {
			hm.RequestHeartbeat(stranger, "slot report")
			hm.ReceiveHeartbeat(stranger, "slot report")
		})
		synctest.Wait()

		assert.Empty(t, tm.listener.of("payload"), "no payload reported")
		assert.Empty(t, toJM.seen(), "no answer sent")
		assert.True(t, tm.lastHeartbeatFrom(t, stranger).IsZero())
		assert.Equal(t, 0, tm.listenerCalls(t), "the payload was not even retrieved")
		// Nor did it keep the monitored JobMaster alive.
		assert.Equal(t, event{Kind: "timeout", From: jmID, At: 50 * s}, <-tm.listener.verdicts)
	})
}

func TestUnmonitorTargetCancelsItsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tm := newNode[slotReport](t, tmID, start, "tm report")
		const otherJM api.ResourceID = "jm-2"
		tm.startReceiver(heartbeat.DefaultHeartbeatServices(), nil, map[api.ResourceID]heartbeat.HeartbeatTarget[string]{
			jmID:    newFakeGateway[string](start, nil, deliver),
			otherJM: newFakeGateway[string](start, nil, deliver),
		})

		time.Sleep(20 * s)
		assert.EqualValues(t, 2, tm.executor.armed.Load())
		tm.do(t, func(hm heartbeat.HeartbeatManager[slotReport, string]) { hm.UnmonitorTarget(jmID) })
		assert.EqualValues(t, 1, tm.executor.armed.Load())

		assert.Equal(t, event{Kind: "timeout", From: otherJM, At: 50 * s}, <-tm.listener.verdicts)
		time.Sleep(10 * time.Minute)
		assert.Len(t, tm.listener.of("timeout"), 1, "the unmonitored JobMaster never timed out")
		tm.do(t, func(hm heartbeat.HeartbeatManager[slotReport, string]) { hm.UnmonitorTarget("jm-unknown") })
	})
}

func TestStopCancelsTimersAndRPCsInFlight(t *testing.T) {
	t.Run("sender", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			jm := newNode[tmReport](t, jmID, start, "slot report")
			frozen1 := newFakeGateway[string](start, nil, hang)
			frozen2 := newFakeGateway[string](start, nil, hang)
			jm.startSender(heartbeat.DefaultHeartbeatServices(), nil, map[api.ResourceID]heartbeat.HeartbeatTarget[string]{
				"tm-1": frozen1, "tm-2": frozen2,
			})

			time.Sleep(5 * s)
			assert.EqualValues(t, 3, jm.executor.armed.Load(), "the next round and two timeouts")
			jm.do(t, func(hm heartbeat.HeartbeatManager[tmReport, string]) { hm.Stop() })
			assert.Zero(t, jm.executor.armed.Load())

			// The requests sent at 0 s were cancelled at once, not at
			// their 10 s deadline: no goroutine outlives Stop.
			synctest.Wait()
			assert.Equal(t, []call{{At: 0, Budget: 10 * s, Ended: 5 * s, Payload: "slot report #1"}}, frozen1.seen())
			assert.Equal(t, []call{{At: 0, Budget: 10 * s, Ended: 5 * s, Payload: "slot report #2"}}, frozen2.seen(),
				"targets are asked in the order of their ids")

			// Afterwards the manager does nothing.
			jm.do(t, func(hm heartbeat.HeartbeatManager[tmReport, string]) {
				hm.MonitorTarget("tm-3", frozen1)
				hm.ReceiveHeartbeat("tm-1", "tm report")
				hm.RequestHeartbeat("tm-1", "tm report")
				hm.UnmonitorTarget("tm-1")
				hm.Stop()
			})
			assert.Zero(t, jm.executor.armed.Load())
			time.Sleep(10 * time.Minute)
			assert.Len(t, frozen1.seen(), 1)
			assert.Len(t, frozen2.seen(), 1)
			assert.Empty(t, jm.listener.of("timeout"))
			assert.Empty(t, jm.listener.of("payload"))
		})
	})
	t.Run("receiver, with an answer in flight", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			tm := newNode[slotReport](t, tmID, start, "tm report")
			frozenJM := newFakeGateway[string](start, nil, hang)
			tm.startReceiver(heartbeat.DefaultHeartbeatServices(), nil, targets(jmID, frozenJM))

			tm.do(t, func(hm heartbeat.HeartbeatManager[slotReport, string]) { hm.RequestHeartbeat(jmID, "slot report") })
			time.Sleep(3 * s)
			tm.do(t, func(hm heartbeat.HeartbeatManager[slotReport, string]) { hm.Stop() })
			synctest.Wait()

			assert.Zero(t, tm.executor.armed.Load())
			assert.Equal(t, []call{{At: 0, Budget: 10 * s, Ended: 3 * s, Payload: "tm report #1"}}, frozenJM.seen())
			time.Sleep(10 * time.Minute)
			assert.Empty(t, tm.listener.of("timeout"))
		})
	})
}

func TestRPCsEndWithTheOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		jm := newNode[tmReport](t, jmID, start, "slot report")
		frozen := newFakeGateway[string](start, nil, hang)
		jm.startSender(heartbeat.DefaultHeartbeatServices(), nil, targets(tmID, frozen))

		// The owner stops without stopping its manager: the RPC's ctx
		// derives from the endpoint's, so it ends with the endpoint.
		time.Sleep(4 * s)
		jm.endpoint.Close(nil)
		synctest.Wait()
		assert.Equal(t, 4*s, frozen.seen()[0].Ended)
	})
}

func TestLogLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logRecorder{}
		p := startPair(t, fast, slog.New(logs))

		time.Sleep(fast.Interval / 2)
		p.toTM.set(fail)
		<-p.jm.listener.verdicts // unreachable after the failures at 1 s and 2 s
		p.jm.do(t, func(hm heartbeat.HeartbeatManager[tmReport, string]) { hm.MonitorTarget(tmID, p.toTM) })

		var got []logLine
		for _, l := range logs.all() {
			if l.Level != slog.LevelDebug {
				t.Errorf("%q logged at %v; the heartbeat lines are all DEBUG", l.Msg, l.Level)
			}
			l.Level = 0
			if !containsLine(got, l) {
				got = append(got, l)
			}
		}
		assert.ElementsMatch(t, []logLine{
			{Msg: "Trigger heartbeat request."},
			{Msg: "Received heartbeat request from jm-1."},
			{Msg: "Received heartbeat from tm-1."},
			{Logger: "DefaultHeartbeatMonitor", Msg: "Mark heartbeat target tm-1 as unreachable because 2 consecutive heartbeat RPCs have failed."},
			{Msg: "The target with resource ID tm-1 is already been monitored."},
		}, got)
	})
}

func containsLine(lines []logLine, l logLine) bool {
	for _, x := range lines {
		if x == l {
			return true
		}
	}
	return false
}

func targets(id api.ResourceID, target heartbeat.HeartbeatTarget[string]) map[api.ResourceID]heartbeat.HeartbeatTarget[string] {
	return map[api.ResourceID]heartbeat.HeartbeatTarget[string]{id: target}
}

func last[T any](xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	return xs[len(xs)-1]
}
