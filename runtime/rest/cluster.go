package rest

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway"
)

// FlinkVersion is the flink-version GET /config and GET /overview report:
// the Flink release whose REST API this endpoint follows, marked as
// flinklab's, so that no client mistakes it for a real Flink 1.20.
const FlinkVersion = "1.20-flinklab"

// refreshInterval is how often, in ms, the web UI should poll: Flink's
// web.refresh-interval default.
const refreshInterval = 3000

// Flink's EnvironmentInformation answers for a build without Git
// information: its UNKNOWN_COMMIT_ID, and the DashboardConfiguration's
// text for a revision it does not know.
const (
	unknownCommitID = "DecafC0ffeeD0d0F00d"
	unknownRevision = "unknown revision"
)

// buildRevision returns the commit this binary was built from and the
// DashboardConfiguration's "<commit> @ <date>", read from the Go build
// information; Flink's texts for an unknown revision when there is none
// (as in a test binary, or a build outside a Git checkout).
func buildRevision() (commit, revision string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return unknownCommitID, unknownRevision
	}
	settings := make(map[string]string)
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	commit = settings["vcs.revision"]
	if commit == "" {
		return unknownCommitID, unknownRevision
	}
	return commit, commit + " @ " + settings["vcs.time"]
}

// ---------------------------------------------------------------------------
// GET /config — Flink's DashboardConfigHandler
// ---------------------------------------------------------------------------

// handleDashboardConfig tells the web UI how often to poll, the server's
// time zone, the version, and which actions it may offer: uploading and
// running jars, cancelling jobs, and rescaling them where Flink would
// (webRescaleEnabled).
func (s *Server) handleDashboardConfig(_ http.ResponseWriter, _ *http.Request) (any, error) {
	now := s.now()
	zone, offset := now.Zone()
	_, revision := buildRevision()
	return DashboardConfiguration{
		RefreshInterval: refreshInterval,
		// Differs from Flink: Java's display name of the zone ("Central
		// European Time"); Go knows its abbreviation ("CET").
		TimezoneName:   zone,
		TimezoneOffset: offset * 1000,
		FlinkVersion:   FlinkVersion,
		FlinkRevision:  revision,
		Features:       DashboardFeatures{WebSubmit: true, WebCancel: true, WebRescale: webRescaleEnabled(s.deps.Configuration)},
	}, nil
}

// webRescaleEnabled says whether the web UI may offer to rescale jobs, as
// Flink's RestHandlerConfiguration decides it: when the cluster runs its
// jobs on the AdaptiveScheduler (jobmanager.scheduler: adaptive), not in
// reactive mode (scheduler-mode: reactive, where the scheduler rescales
// by itself), and web.rescale.enable, true by default, is not false.
//
// It only tells the web UI. Flink serves GET and PUT
// /jobs/{jobid}/resource-requirements whatever it says, and so does this
// endpoint; a job on the DefaultScheduler refuses the update.
//
// Differs from Flink: a web.rescale.enable that is neither true nor false
// counts as true; Flink refuses to start.
func webRescaleEnabled(conf map[string]string) bool {
	option := func(key string) string { return strings.ToLower(strings.TrimSpace(conf[key])) }
	return option("jobmanager.scheduler") == "adaptive" && option("scheduler-mode") != "reactive" && option("web.rescale.enable") != "false"
}

// ---------------------------------------------------------------------------
// GET /overview — Flink's ClusterOverviewHandler
// ---------------------------------------------------------------------------

// handleClusterOverview counts the TaskManagers and slots (the
// ResourceManager's overview) and the jobs per state, as Flink's
// JobsOverview does: FINISHED, CANCELED and FAILED each have a count, and
// every other state counts as running. Flink's Dispatcher asks the
// ResourceManager; we ask it directly, and the Dispatcher once per job.
func (s *Server) handleClusterOverview(_ http.ResponseWriter, r *http.Request) (any, error) {
	resources, err := s.deps.ResourceManager.RequestResourceOverview(r.Context())
	if err != nil {
		return nil, fmt.Errorf("request the resource overview: %w", err)
	}
	statuses, err := s.jobStatuses(r)
	if err != nil {
		return nil, err
	}
	commit, _ := buildRevision()
	overview := ClusterOverviewWithVersion{
		TaskManagers:   resources.NumberTaskManagers,
		SlotsTotal:     resources.NumberRegisteredSlots,
		SlotsAvailable: resources.NumberFreeSlots,
		FlinkVersion:   FlinkVersion,
		FlinkCommit:    commit,
	}
	for _, job := range statuses {
		switch job.Status {
		case api.JobFinished:
			overview.JobsFinished++
		case api.JobCanceled:
			overview.JobsCancelled++
		case api.JobFailed:
			overview.JobsFailed++
		default:
			overview.JobsRunning++
		}
	}
	return overview, nil
}

// jobStatuses lists every job the Dispatcher knows with its status, and
// drops the plans of the jobs it no longer knows (as GET /jobs/overview
// does). A job that ends and is forgotten between the two questions is
// left out.
func (s *Server) jobStatuses(r *http.Request) ([]JobIDWithStatus, error) {
	listed := s.plans.generation()
	jobIDs, err := s.deps.Dispatcher.ListJobs(r.Context())
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	s.plans.retain(jobIDs, listed)
	jobs := make([]JobIDWithStatus, 0, len(jobIDs))
	for _, jobID := range jobIDs {
		status, err := s.deps.Dispatcher.RequestJobStatus(r.Context(), jobID)
		if errors.Is(err, gateway.ErrJobNotFound) {
			continue // gone between the two calls
		}
		if err != nil {
			return nil, fmt.Errorf("request the status of job %s: %w", jobID, err)
		}
		jobs = append(jobs, JobIDWithStatus{ID: jobID, Status: status})
	}
	return jobs, nil
}

// ---------------------------------------------------------------------------
// GET /jobmanager/config — Flink's ClusterConfigHandler
// ---------------------------------------------------------------------------

// handleClusterConfig lists the cluster's configuration, sorted by key:
// the options the cluster was started with (Deps.Configuration) and the
// endpoint's own, which say where it listens, what it accepts and where
// it keeps its files. Flink lists the options its Configuration holds;
// defaults that nobody set are not listed there either.
func (s *Server) handleClusterConfig(_ http.ResponseWriter, _ *http.Request) (any, error) {
	options := maps.Clone(s.deps.Configuration)
	if options == nil {
		options = make(map[string]string)
	}
	maps.Copy(options, s.endpointOptions())
	entries := make([]ConfigurationInfoEntry, 0, len(options))
	for _, key := range slices.Sorted(maps.Keys(options)) {
		entries = append(entries, ConfigurationInfoEntry{Key: key, Value: options[key]})
	}
	return entries, nil
}

// endpointOptions are the endpoint's own options, under Flink's keys:
// where it listens (rest.address and rest.port: the address and port
// actually bound; rest.bind-address: the host it was told to bind), the
// largest upload (rest.server.max-content-length), its directories
// (web.upload.dir, and env.log.dir if it has one), Flink's
// web.access-control-allow-origin, and flinklab's deadlines and limits.
func (s *Server) endpointOptions() map[string]string {
	options := map[string]string{
		"rest.server.max-content-length":  strconv.FormatInt(s.cfg.MaxUploadSize, 10),
		"web.upload.dir":                  s.cfg.UploadDir,
		"web.access-control-allow-origin": s.cfg.AccessControlAllowOrigin,
		// flinklab's own (see "Deadlines and limits" in doc.go)
		"rest.server.read-timeout":     s.cfg.ReadTimeout.String(),
		"rest.server.idleness-timeout": s.cfg.IdleTimeout.String(),
		"rest.server.max-connections":  strconv.Itoa(s.cfg.MaxConnections),
	}
	if host, _, err := net.SplitHostPort(s.cfg.Address); err == nil {
		options["rest.bind-address"] = host
	}
	if host, port, err := net.SplitHostPort(s.Address()); err == nil {
		options["rest.address"], options["rest.port"] = host, port
	}
	if s.cfg.LogDir != "" {
		options["env.log.dir"] = s.cfg.LogDir
	}
	return options
}

// ---------------------------------------------------------------------------
// GET /taskmanagers and /taskmanagers/{taskmanagerid} — Flink's
// TaskManagersHandler and TaskManagerDetailsHandler
// ---------------------------------------------------------------------------

// handleTaskManagers lists the registered TaskManagers, ordered by ID.
func (s *Server) handleTaskManagers(_ http.ResponseWriter, r *http.Request) (any, error) {
	infos, err := s.deps.ResourceManager.RequestTaskManagerInfo(r.Context())
	if err != nil {
		return nil, fmt.Errorf("request the TaskManagers: %w", err)
	}
	slices.SortFunc(infos, func(a, b gateway.TaskManagerInfo) int { return cmp.Compare(a.ResourceID, b.ResourceID) })
	taskManagers := make([]TaskManagerInfo, 0, len(infos))
	for _, info := range infos {
		taskManagers = append(taskManagers, taskManagerInfoOf(info))
	}
	return TaskManagersInfo{TaskManagers: taskManagers}, nil
}

// handleTaskManagerDetails describes one TaskManager, with Flink's 404
// for one the ResourceManager does not know. Flink's TaskManager IDs are
// any string, so there is no malformed one.
func (s *Server) handleTaskManagerDetails(_ http.ResponseWriter, r *http.Request) (any, error) {
	id := api.ResourceID(r.PathValue("taskmanagerid"))
	infos, err := s.deps.ResourceManager.RequestTaskManagerInfo(r.Context())
	if err != nil {
		return nil, fmt.Errorf("request the TaskManagers: %w", err)
	}
	i := slices.IndexFunc(infos, func(info gateway.TaskManagerInfo) bool { return info.ResourceID == id })
	if i < 0 {
		return nil, notFound(fmt.Sprintf("Could not find TaskExecutor %s.", id))
	}
	allocated := make([]SlotInfo, 0, len(infos[i].AllocatedSlots))
	for _, slot := range infos[i].AllocatedSlots {
		allocated = append(allocated, SlotInfo{Resource: resourceProfileInfoOf(slot.ResourceProfile), JobID: slot.JobID})
	}
	return TaskManagerDetailsInfo{
		TaskManagerInfo: taskManagerInfoOf(infos[i]),
		AllocatedSlots:  allocated,
		Metrics:         TaskManagerMetricsInfo{GarbageCollectors: []GarbageCollectorInfo{}},
	}, nil
}

// noPort is Flink's value for a port a TaskManager does not have.
const noPort = -1

func taskManagerInfoOf(info gateway.TaskManagerInfo) TaskManagerInfo {
	return TaskManagerInfo{
		ID:                  info.ResourceID,
		Path:                info.Address,
		DataPort:            noPort,
		JMXPort:             noPort,
		SlotsNumber:         info.NumberSlots,
		FreeSlots:           info.NumberFreeSlots,
		TotalResource:       resourceProfileInfoOf(info.TotalResource),
		FreeResource:        resourceProfileInfoOf(info.FreeResource),
		Hardware:            info.Hardware,
		MemoryConfiguration: info.MemoryConfiguration,
	}
}

// resourceProfileInfoOf is Flink's ResourceProfileInfo#fromResourceProfile:
// the memory in whole MiB, rounded down.
func resourceProfileInfoOf(p api.ResourceProfile) ResourceProfileInfo {
	return ResourceProfileInfo{
		CPUCores:          p.CPUCores,
		TaskHeapMemory:    int(p.TaskHeapMemory.MebiBytes()),
		TaskOffHeapMemory: int(p.TaskOffHeapMemory.MebiBytes()),
		ManagedMemory:     int(p.ManagedMemory.MebiBytes()),
		NetworkMemory:     int(p.NetworkMemory.MebiBytes()),
		ExtendedResources: map[string]float64{},
	}
}
