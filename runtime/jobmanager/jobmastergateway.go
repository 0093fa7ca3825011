package jobmanager

import (
	"context"
	"errors"
)

// jobMasterGatewayFuture is Flink's jobMasterGatewayFuture of a
// JobMasterServiceLeadershipRunner: it is completed once, with the started
// JobMaster of the current leadership, or with the reason there will be
// none. A cancel that comes while the job is initializing waits on it, and
// reaches the JobMaster as soon as there is one.
//
// Its fields are guarded by the runner's mutex; ready is closed once they
// are set. Revoking leadership fails the future and puts a new one in its
// place, as Flink does.
type jobMasterGatewayFuture struct {
	ready     chan struct{}
	jobMaster JobMasterService // set on success
	err       error            // set on failure
}

// The reasons Flink's runner gives when there will be no JobMaster.
var (
	errJobMasterLostLeadership = errors.New("Cannot obtain JobMasterGateway because the JobMaster lost leadership.")
	errRunnerClosed            = errors.New("JobMasterServiceLeadershipRunner is closed. Therefore, the corresponding JobMaster will never acquire the leadership.")
	errJobMasterInitialization = errors.New("Could not retrieve JobMasterGateway because the JobMaster initialization failed.")
)

func newJobMasterGatewayFuture() *jobMasterGatewayFuture {
	return &jobMasterGatewayFuture{ready: make(chan struct{})}
}

// isDone reports whether the future is completed. The runner's mutex is
// held.
func (f *jobMasterGatewayFuture) isDone() bool {
	return f.jobMaster != nil || f.err != nil
}

// complete publishes the started JobMaster; a completed future stays as it
// is. The runner's mutex is held.
func (f *jobMasterGatewayFuture) complete(jobMaster JobMasterService) {
	if !f.isDone() {
		f.jobMaster = jobMaster
		close(f.ready)
	}
}

// fail says there will be no JobMaster; a completed future stays as it is.
// The runner's mutex is held.
func (f *jobMasterGatewayFuture) fail(err error) {
	if !f.isDone() {
		f.err = err
		close(f.ready)
	}
}

// runningJobMaster returns the JobMaster if the future completed with one.
// The runner's mutex is held.
func (f *jobMasterGatewayFuture) runningJobMaster() JobMasterService { return f.jobMaster }

// get waits for the future. The fields are set before ready is closed and
// never change after, so they are read here without the runner's mutex.
func (f *jobMasterGatewayFuture) get(ctx context.Context) (JobMasterService, error) {
	select {
	case <-f.ready:
		return f.jobMaster, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
