package rpc

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
)

// Causal traces: which code sent a message.
//
// A message runs on its receiver's main thread, so the stack of a handler
// begins at the mailbox loop and says nothing of the code that sent the
// message: the stack of JobMaster.startJobExecution does not show the REST
// request that caused it. Debuggers of asynchronous code answer this with
// "async stack traces", and so does this file, for tests and for the
// reading exercises of the course: while a recording runs (RecordCauses),
// every hand-over of work to another goroutine remembers the stack of the
// code that handed it over, joined to whatever caused that code in turn.
// The hand-overs are the ones this package makes: a message put into a
// mailbox (RunAsync, and with it CallAsync and ScheduleRunAsync), the call
// an Ask or AskInOrder makes on a goroutine of its own, onStart and onStop,
// and work started with Go. Work started with a bare go statement, and a
// call that arrives over TCP from another process, begin a stack of their
// own.
//
// A recording costs a stack capture per hand-over; without one, each
// hand-over costs one atomic load.

// framesAtFirst is how many frames of one goroutine's stack a hand-over
// makes room for; a deeper stack gets more room.
const framesAtFirst = 64

// maxLegs bounds how many hand-overs back a CausalStack goes. A periodic
// timer that schedules its next run from the last one makes a chain that
// grows forever; a run this long has lost its beginning anyway.
const maxLegs = 200

// cause is the stack that led to one hand-over.
type cause struct {
	pcs    []uintptr // the handing goroutine's frames, innermost first
	parent *cause    // the cause of the work those frames belong to; nil where it began
}

// recording is the CauseRecording in progress, or nil.
var recording atomic.Pointer[CauseRecording]

// CauseRecording records the causal stack of every hand-over in the
// process, from RecordCauses to Stop.
type CauseRecording struct {
	mu sync.Mutex
	// running is, per goroutine ID, the cause of the work that goroutine
	// runs now: a message on a main thread, an Ask's call.
	running   map[uint64]*cause
	handovers []*cause
}

// RecordCauses starts recording causal stacks in the whole process. One
// recording runs at a time: it panics if another has not stopped.
func RecordCauses() *CauseRecording {
	r := &CauseRecording{running: make(map[uint64]*cause)}
	if !recording.CompareAndSwap(nil, r) {
		panic("rpc: RecordCauses while another recording runs")
	}
	return r
}

// Stop ends the recording and returns the causal stack of each hand-over
// it saw, in the order they happened.
func (r *CauseRecording) Stop() []CausalStack {
	recording.CompareAndSwap(r, nil)
	r.mu.Lock()
	defer r.mu.Unlock()
	legs := map[*cause][]CausalFrame{} // each leg symbolized once: legs share their causes
	stacks := make([]CausalStack, 0, len(r.handovers))
	for _, c := range r.handovers {
		var chain []*cause
		for x := c; x != nil && len(chain) < maxLegs; x = x.parent {
			chain = append(chain, x)
		}
		var s CausalStack
		for i := len(chain) - 1; i >= 0; i-- {
			leg, ok := legs[chain[i]]
			if !ok {
				leg = symbolize(chain[i].pcs)
				legs[chain[i]] = leg
			}
			first := len(s)
			s = append(s, leg...)
			if i < len(chain)-1 && len(s) > first {
				s[first].HandedOver = true
			}
		}
		stacks = append(stacks, s)
	}
	return stacks
}

// A CausalStack is the stack of one hand-over with its causes: the frames
// from where it all began (an HTTP request's goroutine, a component's
// start) to the hand-over itself, outermost first. Where the work moved
// to another goroutine, the first frame there is marked HandedOver.
type CausalStack []CausalFrame

// CausalFrame is one frame of a CausalStack.
type CausalFrame struct {
	// Function is the function's name as the Go runtime spells it:
	// "flinklab/runtime/dispatcher.(*Dispatcher).submitJob",
	// "….(*Dispatcher).SubmitJob.func1" for a function literal in it.
	Function string
	File     string
	Line     int
	// HandedOver marks the first frame of a goroutine that took the work
	// over from the frame before it.
	HandedOver bool
}

// symbolize turns program counters, innermost first, into frames,
// outermost first, inlined calls included.
func symbolize(pcs []uintptr) []CausalFrame {
	var frames []CausalFrame
	it := runtime.CallersFrames(pcs)
	for {
		f, more := it.Next()
		if f.Function != "" && f.Function != "runtime.goexit" { // where every goroutine returns to
			frames = append(frames, CausalFrame{Function: f.Function, File: f.File, Line: f.Line})
		}
		if !more {
			break
		}
	}
	for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
		frames[i], frames[j] = frames[j], frames[i]
	}
	return frames
}

// withCause returns fn, to be run on another goroutine, so that it runs
// under the cause of this hand-over. Without a recording it returns fn.
func withCause(fn func()) func() {
	r := recording.Load()
	if r == nil {
		return fn
	}
	pcs := make([]uintptr, framesAtFirst)
	n := runtime.Callers(2, pcs) // from withCause's caller outwards
	for n == len(pcs) {          // it may have been cut: the outermost frames matter most
		pcs = make([]uintptr, 2*len(pcs))
		n = runtime.Callers(2, pcs)
	}
	id := goroutineID()
	r.mu.Lock()
	c := &cause{pcs: pcs[:n:n], parent: r.running[id]}
	r.handovers = append(r.handovers, c)
	r.mu.Unlock()
	return func() { r.runUnder(c, fn) }
}

// runUnder runs fn with c as the cause of what the goroutine does.
func (r *CauseRecording) runUnder(c *cause, fn func()) {
	id := goroutineID()
	r.mu.Lock()
	before := r.running[id]
	r.running[id] = c
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if before == nil {
			delete(r.running, id)
		} else {
			r.running[id] = before
		}
		r.mu.Unlock()
	}()
	fn()
}

// goroutineID returns the calling goroutine's ID, read from the first line
// of its stack trace, "goroutine 42 [running]:". Go keeps these IDs to
// itself on purpose; a recording of causes is their one user here.
func goroutineID() uint64 {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	digits := bytes.TrimPrefix(buf[:n], []byte("goroutine "))
	var id uint64
	for _, b := range digits {
		if b < '0' || b > '9' {
			break
		}
		id = id*10 + uint64(b-'0')
	}
	return id
}

// Go runs fn on a goroutine of its own, counted by wg: wg.Go(fn), for
// work a component hands to another goroutine, as Flink hands it to an
// executor. Unlike a bare go statement, it is a hand-over that a
// recording of causes (RecordCauses) sees.
func Go(wg *sync.WaitGroup, fn func()) { wg.Go(withCause(fn)) }
