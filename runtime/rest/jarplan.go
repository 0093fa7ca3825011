package rest

import (
	"fmt"
	"net/http"
)

// ---------------------------------------------------------------------------
// GET and POST /jars/{jarid}/plan — Flink's JarPlanHandler
// ---------------------------------------------------------------------------

// handleJarPlan answers the dataflow plan of the job a jar's program
// builds, without running it: nothing reaches the BlobServer or the
// Dispatcher. It takes the settings of a run (the JarPlanRequestBody, the
// query parameters entry-class, parallelism, programArg and program-args)
// and resolves them as the run does, builds the JobGraph the same way
// (jobGraphOf), and writes its plan as GET /jobs/{jobid}/plan would.
//
// Flink registers the same handler for GET and POST; its spec lists only
// POST. As in Flink, a program that fails or builds no job is a 500
// (JarPlanHandler wraps nothing, unlike the run's "Could not execute
// application."); a jar that cannot be read is a 400.
func (s *Server) handleJarPlan(_ http.ResponseWriter, r *http.Request) (any, error) {
	jarID := r.PathValue("jarid")
	var body JarPlanRequestBody
	if err := decodeJSONBody(r, &body, "JarPlanRequestBody"); err != nil {
		return nil, err
	}
	params, err := s.jarRunParams(body.runRequest(), r.URL.Query())
	if err != nil {
		return nil, err
	}
	data, _, err := s.readJar(jarID)
	if err != nil {
		return nil, err
	}
	_, _, jobGraph, err := s.jobGraphOf(data, params)
	if err != nil {
		return nil, fmt.Errorf("Could not generate the plan of jar %s: %w", jarID, err)
	}
	return JobPlanInfo{Plan: newJobPlan(jobGraph)}, nil
}
