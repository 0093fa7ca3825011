package rpc

// Endpoint runs one main thread.
type Endpoint[M any] struct {
	mailbox chan M
}

// NewEndpoint returns an Endpoint that is not started.
func NewEndpoint[M any]() *Endpoint[M] {
	return &Endpoint[M]{mailbox: make(chan M)}
}

// Start launches the main thread.
func (e *Endpoint[M]) Start() {}
