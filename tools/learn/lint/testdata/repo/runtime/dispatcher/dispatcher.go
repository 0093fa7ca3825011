// Package dispatcher is a fixture for the lesson checker's tests: a few
// declarations of every kind at known lines. It is never compiled.
package dispatcher

import "fmt"

// MaxJobs is how many jobs a Dispatcher runs at once.
const MaxJobs = 8

// ErrDuplicateJob is returned for a JobID that is already known.
var ErrDuplicateJob = fmt.Errorf("duplicate job")

// Dispatcher accepts jobs.
type Dispatcher struct {
	jobs     map[string]bool
	Endpoint // embedded
}

// Endpoint stands in for rpc.Endpoint.
type Endpoint struct{}

// Gateway is the Dispatcher's API.
type Gateway interface {
	SubmitJob(id string) error
}

// New returns a Dispatcher.
func New() *Dispatcher {
	return &Dispatcher{jobs: map[string]bool{}}
}

// submitJob accepts a job once.
//
// Its doc comment is two paragraphs long.
func (d *Dispatcher) submitJob(id string) error {
	if d.jobs[id] {
		return ErrDuplicateJob
	}
	return d.checkAndSubmit(id)
}
