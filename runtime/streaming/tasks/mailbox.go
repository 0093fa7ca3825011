package tasks

import (
	"context"
	"sync"
	"sync/atomic"
)

// mailbox holds the actions other goroutines hand to the task: a
// checkpoint to take (a source's trigger), a checkpoint that completed or
// was aborted. The task runs them on its own goroutine, between two
// records, so they never race the operators. It mirrors Flink's
// TaskMailbox and the MailboxProcessor of StreamTask, which runs every
// action of a task, records included, in one loop.
//
// Putting a mail wakes the task: a source checks hasMail after every
// record and waits on available between ticks; a task waiting for input
// waits on a context (waitContext) that a new mail cancels.
type mailbox struct {
	hasMail   atomic.Bool
	available chan struct{} // a token when a mail was put

	mu         sync.Mutex
	mails      []func() error
	closed     bool
	cancelWait context.CancelFunc
}

func newMailbox() *mailbox { return &mailbox{available: make(chan struct{}, 1)} }

// put queues a mail; it reports false once the task has stopped taking
// mails (close). Any goroutine may call it.
func (m *mailbox) put(mail func() error) bool {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false
	}
	m.mails = append(m.mails, mail)
	m.hasMail.Store(true)
	if m.cancelWait != nil {
		m.cancelWait()
	}
	m.mu.Unlock()
	select {
	case m.available <- struct{}{}:
	default:
	}
	return true
}

// runMails runs every queued mail, in order, on the task's goroutine. The
// first error stops the task.
func (m *mailbox) runMails() error {
	for m.hasMail.Load() {
		m.mu.Lock()
		mails := m.mails
		m.mails = nil
		m.hasMail.Store(false)
		m.mu.Unlock()
		for _, mail := range mails {
			if err := mail(); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitContext returns a context for the task's next wait for input: it
// ends with parent, or when a mail is put.
func (m *mailbox) waitContext(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	m.mu.Lock()
	if m.cancelWait != nil {
		m.cancelWait()
	}
	m.cancelWait = cancel
	if len(m.mails) > 0 {
		cancel()
	}
	m.mu.Unlock()
	return ctx
}

// close stops the mailbox taking mails: the task is ending. Mails still
// queued are dropped.
func (m *mailbox) close() {
	m.mu.Lock()
	m.closed = true
	m.mails = nil
	if m.cancelWait != nil {
		m.cancelWait()
	}
	m.mu.Unlock()
}
