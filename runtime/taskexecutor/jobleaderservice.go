package taskexecutor

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
	"flinklab/runtime/highavailability"
	"flinklab/runtime/registration"
	"flinklab/runtime/rpc"
)

// jobLeaderListener is what the jobLeaderService tells the TaskExecutor
// (Flink's JobLeaderListener). Its methods run on the main thread.
type jobLeaderListener interface {
	// jobManagerGainedLeadership: we registered at the job's leader.
	jobManagerGainedLeadership(jobID api.JobID, jobMaster jobMasterGateway, jobMasterID api.JobMasterID,
		address string, success gateway.JMTMRegistrationSuccess)
	// jobManagerLostLeadership: the job has no leader at the moment.
	jobManagerLostLeadership(jobID api.JobID, jobMasterID api.JobMasterID)
	// jobManagerRejectedRegistration: the job's leader will not have us.
	jobManagerRejectedRegistration(jobID api.JobID, address string, err error)
}

// jobLeaderService watches the leader of every job the TaskExecutor holds
// slots for, and registers the TaskExecutor at each new leader (Flink's
// DefaultJobLeaderService). It lives on the TaskExecutor's main thread:
// leader news and registration answers arrive there as mailbox messages.
type jobLeaderService struct {
	owner      *rpc.Endpoint
	logger     *slog.Logger
	ha         highavailability.Services
	rpcService rpc.Service
	location   gateway.TaskManagerLocation // who we are, for RegisterTaskManager
	config     registration.Config
	rpcTimeout time.Duration
	listener   jobLeaderListener
	jobs       map[api.JobID]*jobManagerLeaderListener

	// disconnecting counts, per JobMaster (a job's leader session), the
	// DisconnectTaskManager messages sent to it and not yet answered; a
	// registration at that same JobMaster waits for them in deferred.
	// Pekko delivers the messages between two actors in order, so in Flink
	// a JobMaster can never see the old connection's goodbye after the new
	// connection's registration; here a registration at the JobMaster we
	// said goodbye to waits for the goodbye's answer. A registration at a
	// new leader does not wait: the goodbye went to another JobMaster,
	// which may be gone, or paused, and never answer.
	disconnecting map[jobLeader]int
	deferred      map[jobLeader][]func()
}

// jobLeader is one leader session of a job: its JobMaster.
type jobLeader struct {
	jobID       api.JobID
	jobMasterID api.JobMasterID
}

// disconnectSent notes a DisconnectTaskManager on its way to a JobMaster.
func (s *jobLeaderService) disconnectSent(to jobLeader) {
	if s.disconnecting == nil {
		s.disconnecting = make(map[jobLeader]int)
		s.deferred = make(map[jobLeader][]func())
	}
	s.disconnecting[to]++
}

// disconnectAnswered notes its answer, and starts the registrations at
// that JobMaster that waited for it.
func (s *jobLeaderService) disconnectAnswered(to jobLeader) {
	if s.disconnecting[to]--; s.disconnecting[to] > 0 {
		return
	}
	delete(s.disconnecting, to)
	waiting := s.deferred[to]
	delete(s.deferred, to)
	for _, start := range waiting {
		start()
	}
}

// jobManagerLeaderListener follows one job's leader (Flink's
// DefaultJobLeaderService.JobManagerLeaderListener).
type jobManagerLeaderListener struct {
	jobID        api.JobID
	retrieval    highavailability.LeaderRetrievalService
	stopped      bool
	jobMasterID  api.JobMasterID // the leader we are registering or registered at
	registration *registration.RetryingRegistration[jobMasterGateway, gateway.JMTMRegistrationSuccess]
}

// containsJob reports whether the job's leader is being watched.
func (s *jobLeaderService) containsJob(jobID api.JobID) bool {
	_, ok := s.jobs[jobID]
	return ok
}

// addJob starts watching the job's leader.
func (s *jobLeaderService) addJob(jobID api.JobID) error {
	s.logger.Info(fmt.Sprintf("Add job %s for job leader monitoring.", jobID))
	l := &jobManagerLeaderListener{jobID: jobID, retrieval: s.ha.JobManagerLeaderRetriever(jobID)}
	s.jobs[jobID] = l
	err := l.retrieval.Start(leaderListenerFunc(func(address string, session api.LeaderSessionID) {
		s.owner.RunAsync(func() { s.notifyLeaderAddress(l, address, api.JobMasterID(session)) })
	}))
	if err != nil {
		delete(s.jobs, jobID)
		return err
	}
	return nil
}

// removeJob stops watching the job's leader and registering there.
func (s *jobLeaderService) removeJob(jobID api.JobID) {
	l, ok := s.jobs[jobID]
	if !ok {
		return
	}
	s.logger.Info(fmt.Sprintf("Remove job %s from job leader monitoring.", jobID))
	delete(s.jobs, jobID)
	l.stopped = true
	l.closeRegistration()
	_ = l.retrieval.Stop()
}

// stop removes every job.
func (s *jobLeaderService) stop() {
	for jobID := range s.jobs {
		s.removeJob(jobID)
	}
}

// abandon stops watching every job's leader and registering there, as stop
// does, but without logging: it is how a killed TaskExecutor's connections
// end.
func (s *jobLeaderService) abandon() {
	for jobID, l := range s.jobs {
		delete(s.jobs, jobID)
		l.stopped = true
		l.closeRegistration()
		_ = l.retrieval.Stop()
	}
}

// notifyLeaderAddress handles leader retrieval's news about one job.
func (s *jobLeaderService) notifyLeaderAddress(l *jobManagerLeaderListener, address string, jobMasterID api.JobMasterID) {
	if l.stopped {
		s.logger.Debug(fmt.Sprintf("DefaultJobLeaderService's leader retrieval listener reported a new leader for job %s. However, the service is no longer running.", l.jobID))
		return
	}
	s.logger.Debug(fmt.Sprintf("New leader information for job %s. Address: %s, leader id: %s.", l.jobID, address, jobMasterID))

	if address == "" {
		// The leader lost leadership and there is no new one yet.
		lost := l.jobMasterID
		l.closeRegistration()
		l.jobMasterID = api.JobMasterID{}
		s.listener.jobManagerLostLeadership(l.jobID, lost)
		return
	}
	if jobMasterID == l.jobMasterID {
		s.logger.Debug(fmt.Sprintf("Ongoing attempt to connect to leader of job %s. Ignoring duplicate leader information.", l.jobID))
		return
	}
	l.closeRegistration()
	s.openRPCConnectionTo(l, address, jobMasterID)
}

// openRPCConnectionTo registers at a job's leader, with retries, once
// every goodbye we sent to that same JobMaster has been answered.
func (s *jobLeaderService) openRPCConnectionTo(l *jobManagerLeaderListener, address string, jobMasterID api.JobMasterID) {
	l.jobMasterID = jobMasterID
	if leader := (jobLeader{l.jobID, jobMasterID}); s.disconnecting[leader] > 0 {
		s.deferred[leader] = append(s.deferred[leader], func() {
			if !l.stopped && l.jobMasterID == jobMasterID && l.registration == nil {
				s.openRPCConnectionTo(l, address, jobMasterID)
			}
		})
		return
	}
	s.logger.Info(fmt.Sprintf("Try to register at job manager %s with leader id %s.", address, jobMasterID))
	jobID := l.jobID
	l.registration = &registration.RetryingRegistration[jobMasterGateway, gateway.JMTMRegistrationSuccess]{
		Owner:          s.owner,
		Logger:         s.logger,
		TargetName:     "JobManager",
		TargetAddress:  address,
		Config:         s.config,
		ResolveTimeout: s.rpcTimeout,
		Resolve: func(ctx context.Context) (jobMasterGateway, error) {
			return rpc.Connect[jobMasterGateway](ctx, s.rpcService, address)
		},
		Invoke: func(ctx context.Context, jm jobMasterGateway) (gateway.JMTMRegistrationSuccess, error) {
			return jm.RegisterTaskManager(ctx, jobMasterID, jobID, s.location)
		},
		OnSuccess: func(jm jobMasterGateway, success gateway.JMTMRegistrationSuccess) {
			s.logger.Info(fmt.Sprintf("Successful registration at job manager %s for job %s.", address, jobID))
			s.listener.jobManagerGainedLeadership(jobID, jm, jobMasterID, address, success)
		},
		OnRejection: func(err error) {
			s.listener.jobManagerRejectedRegistration(jobID, address, err)
		},
	}
	l.registration.Start()
}

func (l *jobManagerLeaderListener) closeRegistration() {
	if l.registration != nil {
		l.registration.Cancel()
		l.registration = nil
	}
}
