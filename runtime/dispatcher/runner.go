package dispatcher

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/jobmanager"
)

// Runner is the Dispatcher's part in the leader election (Flink's
// DefaultDispatcherRunner with a SessionDispatcherLeaderProcess per
// leadership). While the process leads, one Dispatcher runs; when the
// leadership is granted, the runner first recovers what the last leader
// left:
//
//	DefaultDispatcherRunner was granted leadership with leader id …. Creating new DispatcherLeaderProcess.
//	Start SessionDispatcherLeaderProcess.
//	Recover all persisted job graphs that are not finished, yet.
//	Retrieved job ids [...] from ….
//	Trying to recover job with job id ….           (each stored job without a result)
//	Recovered JobGraph(jobId: …).
//	Successfully recovered N persisted job graphs.
//
// A stored job whose result is dirty in the JobResultStore reached its
// globally terminal state under the last leader: it is not run again,
// only its cleanup is finished. Then a Dispatcher whose DispatcherID is
// the leader session starts with the recovered jobs, and the runner
// confirms the leadership with its address.
//
// When the leadership is revoked, the Dispatcher is closed: its jobs are
// SUSPENDED, not failed, and their JobGraphs stay stored for the next
// leader.
type Runner struct {
	election highavailability.LeaderElection
	cfg      Config // of every Dispatcher it starts
	deps     Deps
	base     *slog.Logger // the Dispatchers'
	log      *slog.Logger
	dlog     *slog.Logger // the leader process's lines

	ops  chan func() // leadership changes, in order
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	current *Dispatcher // nil while the process does not lead
	session api.LeaderSessionID
}

// NewRunner returns a runner of Dispatchers built with deps, whose
// RecoveredJobs it fills in itself.
func NewRunner(cfg Config, deps Deps, election highavailability.LeaderElection) *Runner {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Runner{
		election: election, cfg: cfg, deps: deps, base: logger,
		log:  logger.With("logger", "DefaultDispatcherRunner"),
		dlog: logger.With("logger", "SessionDispatcherLeaderProcess"),
		ops:  make(chan func(), 16), stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// Start enters the election.
func (r *Runner) Start() error {
	go func() {
		defer close(r.done)
		for {
			select {
			case op := <-r.ops:
				op()
			case <-r.stop:
				return
			}
		}
	}()
	return r.election.StartLeaderElection(r)
}

// GrantLeadership starts a leader process for the session, once the
// previous one (if any) has stopped. It must not block.
func (r *Runner) GrantLeadership(session api.LeaderSessionID) {
	r.do(func() {
		r.log.Info(fmt.Sprintf("DefaultDispatcherRunner was granted leadership with leader id %s. Creating new DispatcherLeaderProcess.", session))
		r.stopLeader()
		if err := r.startLeader(session); err != nil {
			r.log.Error(fmt.Sprintf("Exception during leader election of %s occurred.", "DefaultDispatcherRunner"), "cause", err.Error())
		}
	})
}

// RevokeLeadership stops the leader process. It must not block.
func (r *Runner) RevokeLeadership() {
	r.do(func() {
		r.mu.Lock()
		session, leading := r.session, r.current != nil
		r.mu.Unlock()
		if !leading {
			return
		}
		r.log.Info(fmt.Sprintf("DefaultDispatcherRunner was revoked the leadership with leader id %s. Stopping the SessionDispatcherLeaderProcess.", session))
		r.stopLeader()
	})
}

// barrier returns once the leadership changes queued before it are
// handled.
func (r *Runner) barrier() {
	done := make(chan struct{})
	r.do(func() { close(done) })
	select {
	case <-done:
	case <-r.stop:
	}
}

func (r *Runner) do(op func()) {
	select {
	case r.ops <- op:
	case <-r.stop:
	}
}

// startLeader recovers the stored jobs and starts a Dispatcher with them.
// A panic on the way fails the leadership as an error would (Flink runs
// the recovery on an executor, where an exception fails the leader
// process's future).
func (r *Runner) startLeader(session api.LeaderSessionID) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	r.dlog.Info("Start SessionDispatcherLeaderProcess.")
	dirty, err := r.deps.JobResultStore.DirtyResults()
	if err != nil {
		return err
	}
	recovered, err := r.recoverJobs(dirty)
	if err != nil {
		return err
	}
	for _, result := range dirty {
		r.finishCleanup(result.JobID)
	}
	deps := r.deps
	deps.RecoveredJobs = recovered
	cfg := r.cfg
	cfg.Logger = r.base
	d, err := New(cfg, deps)
	if err != nil {
		return err
	}
	d.dispatcherID = api.DispatcherID(session)
	if err := d.Start(); err != nil {
		_ = d.Close()
		return err
	}
	r.mu.Lock()
	r.current, r.session = d, session
	r.mu.Unlock()
	r.election.ConfirmLeadership(session, d.Address())
	return nil
}

// recoverJobs reads every stored job that has no result yet (Flink's
// SessionDispatcherLeaderProcess#recoverJobs). A job whose result is dirty
// is skipped: it ended under the last leader, which did not finish its
// cleanup. An error fails the whole recovery: the leader process does not
// start, rather than run without a job it could not read.
func (r *Runner) recoverJobs(dirty []api.JobResult) ([]*jobgraph.JobGraph, error) {
	// Step h4: the new leader recovers the jobs the last one left in the
	// JobGraphStore, before its Dispatcher takes any request.
	r.dlog.Info("Recover all persisted job graphs that are not finished, yet.")
	ids, err := r.deps.JobGraphStore.JobIDs()
	if err != nil {
		return nil, err
	}
	r.dlog.Info(fmt.Sprintf("Retrieved job ids %v from %T.", ids, r.deps.JobGraphStore))
	done := make(map[api.JobID]bool, len(dirty))
	for _, result := range dirty {
		done[result.JobID] = true
	}
	var recovered []*jobgraph.JobGraph
	for _, id := range ids {
		if done[id] {
			r.dlog.Info(fmt.Sprintf("Skipping recovery of a job with job id %s, because it already reached a globally terminal state", id))
			continue
		}
		r.dlog.Info(fmt.Sprintf("Trying to recover job with job id %s.", id))
		g, err := r.deps.JobGraphStore.RecoverJobGraph(id)
		if errors.Is(err, jobmanager.ErrJobGraphNotFound) {
			r.dlog.Info(fmt.Sprintf("Skipping recovery of job with job id %s, because it already finished in a previous execution", id))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("Could not recover job with job id %s.: %w", id, err)
		}
		recovered = append(recovered, g)
	}
	r.dlog.Info(fmt.Sprintf("Successfully recovered %d persisted job graphs.", len(recovered)))
	return recovered, nil
}

// finishCleanup ends the cleanup of a job the last leader saw to its
// end: its JobGraph and its jars go, and its result is marked clean.
func (r *Runner) finishCleanup(jobID api.JobID) {
	if err := errors.Join(r.deps.JobGraphStore.RemoveJobGraph(jobID), cleanupBlobs(r.deps.BlobServer, jobID)); err != nil {
		r.dlog.Warn(fmt.Sprintf("Cleanup of job %s did not succeed.", jobID), "cause", err.Error())
		return
	}
	if err := r.deps.JobResultStore.MarkResultAsClean(jobID); err != nil {
		r.dlog.Warn(fmt.Sprintf("Could not mark job %s as clean.", jobID), "cause", err.Error())
	}
}

// stopLeader closes the running Dispatcher, if any: its jobs are
// SUSPENDED and stay stored.
func (r *Runner) stopLeader() {
	r.mu.Lock()
	d := r.current
	r.current, r.session = nil, api.LeaderSessionID{}
	r.mu.Unlock()
	if d != nil {
		r.dlog.Info("Stopping SessionDispatcherLeaderProcess.")
		_ = d.Close()
	}
}

// Leader returns the Dispatcher that runs now, or nil while the process
// does not lead.
func (r *Runner) Leader() *Dispatcher {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

// Close leaves the election and stops the Dispatcher: its jobs are
// SUSPENDED and stay stored.
func (r *Runner) Close() error {
	err := r.election.Close()
	r.do(r.stopLeader)
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.done
	r.stopLeader()
	return err
}
