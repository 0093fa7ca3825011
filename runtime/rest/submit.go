package rest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"

	"flinklab/runtime/jobgraph"
	"flinklab/runtime/trace"
)

// ---------------------------------------------------------------------------
// POST /jobs — Flink's JobSubmitHandler
// ---------------------------------------------------------------------------

// requestPartName is the form field of the JSON part of POST /jobs
// (Flink's FileUploadHandler.HTTP_ATTRIBUTE_REQUEST).
const requestPartName = "request"

// handleJobSubmit submits a job built by the client, the way Flink's CLI
// and RestClusterClient do: one multipart request with the JobGraph file,
// the jar files, and a JSON part named "request", a JobSubmitRequestBody
// naming those files:
//
//	POST /jobs  (multipart/form-data, at most MaxUploadSize)
//	  request = {"jobGraphFileName": "job.json", "jobJarFileNames": ["wordcount.jar"]}
//	  file_0  = job.json       (the JobGraph, in flinklab's JSON: jobgraph.Encode)
//	  file_1  = wordcount.jar
//	◀── 202 {"jobUrl": "/jobs/<32 hex>"}
//
// The jars go to the BlobServer under the job's ID and into the JobGraph's
// UserJarBlobKeys, and the Dispatcher gets the job (step m3), exactly as
// POST /jars/{jarid}/run does it (submitWithJars): a job the Dispatcher
// refuses leaves no BLOB this request added, and no plan. The answer
// comes once the Dispatcher has accepted the job, before it runs. Steps m1
// (the jars arrive) and m2 (the submission arrives) are recorded for the
// accepted job, at the time the request arrived.
//
// Files are matched by the last element of the name they were sent with,
// as in Flink since the fix of CVE-2020-17518, and are held in memory,
// never written under a name the client chose.
func (s *Server) handleJobSubmit(w http.ResponseWriter, r *http.Request) (any, error) {
	// Steps m1 and m2: the jars and the submission arrive.
	received := s.deps.Trace.Now()
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxUploadSize)
	sub, err := receiveSubmission(r)
	if err != nil {
		return nil, err
	}

	// Flink's checks, in Flink's order and words.
	if sub.fileParts != len(sub.files) {
		return nil, badRequest(fmt.Sprintf("The number of uploaded files was higher than the expected count. Expected: %d Actual %d",
			len(sub.files), sub.fileParts))
	}
	body := sub.request
	if body.JobGraphFileName == nil {
		return nil, badRequest("The jobGraphFileName field must not be omitted or be null.")
	}
	graphFile, err := sub.file("JobGraph", *body.JobGraphFileName)
	if err != nil {
		return nil, err
	}
	jars := make([][]byte, 0, len(body.JobJarFileNames))
	for _, name := range body.JobJarFileNames {
		jar, err := sub.file("Jar", name)
		if err != nil {
			return nil, err
		}
		jars = append(jars, jar)
	}
	for _, artifact := range body.JobArtifactFileNames {
		if _, err := sub.file("Artifact", artifact.FileName); err != nil {
			return nil, err
		}
	}
	if len(body.JobArtifactFileNames) > 0 {
		s.log.Warn(fmt.Sprintf("Ignoring %d distributed cache artifact(s): flinklab has no distributed cache.", len(body.JobArtifactFileNames)))
	}

	// Differs from Flink: the JobGraph is flinklab's JSON, not a
	// Java-serialized object.
	jobGraph, err := jobgraph.Decode(graphFile)
	if err != nil {
		return nil, badRequest("Failed to deserialize JobGraph.", err.Error())
	}
	jobID := jobGraph.JobID
	if err := s.submitWithJars(r.Context(), jobGraph, jars); err != nil {
		return nil, err
	}

	// Step m1: the job's jars arrived with the request (Flink's
	// FileUploadHandler), recorded now that the Dispatcher has accepted the
	// job, at the time the request arrived.
	s.deps.Trace.EmitAt(received, trace.M1, "Client", "REST", jobID, "POST /jobs: jars %q received with the job", body.JobJarFileNames)
	// Step m2: the JobGraph was submitted (Flink's JobSubmitHandler).
	s.deps.Trace.EmitAt(received, trace.M2, "Client", "REST", jobID, "POST /jobs: job '%s' submitted as %s (%d vertices)",
		jobGraph.Name, *body.JobGraphFileName, len(jobGraph.Vertices()))
	s.log.Info(fmt.Sprintf("Job '%s' (%s) submitted with %d jar(s).", jobGraph.Name, jobID, len(jars)))
	return accepted{JobSubmitResponseBody{JobURL: "/jobs/" + jobID.String()}}, nil
}

// submission is what a POST /jobs carried: the JSON request, and the
// content of each file part by the base name it was sent with.
type submission struct {
	request   JobSubmitRequestBody
	files     map[string][]byte
	fileParts int // file parts seen; more than len(files) if names repeat
}

// file returns the file the request names, or Flink's 400 for one that was
// not sent: "<kind> file <name> could not be found on the server.".
func (sub *submission) file(kind, name string) ([]byte, error) {
	data, ok := sub.files[name]
	if !ok {
		return nil, badRequest(fmt.Sprintf("%s file %s could not be found on the server.", kind, name))
	}
	return data, nil
}

// receiveSubmission reads a POST /jobs. A multipart request gives its
// "request" part (the last one, if several, as in Flink) and its file
// parts; other form fields are read and thrown away. A request that is
// not multipart is its JSON request alone, with no files, as in Flink,
// which then finds none of the files it names.
func receiveSubmission(r *http.Request) (*submission, error) {
	sub := &submission{files: make(map[string][]byte)}
	mr, err := r.MultipartReader()
	if err != nil {
		if err := decodeJSONBody(r, &sub.request, "JobSubmitRequestBody"); err != nil {
			return nil, err
		}
		return sub, nil
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return sub, nil
		}
		if err != nil {
			return nil, requestReadError(err)
		}
		sentName := sentFileName(part)
		switch {
		case sentName == "" && part.FormName() == requestPartName:
			var request JobSubmitRequestBody
			if err := decodeJSON(part, &request, "JobSubmitRequestBody"); err != nil {
				return nil, err
			}
			sub.request = request
		case sentName == "":
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, requestReadError(err)
			}
		default:
			data, err := io.ReadAll(part)
			if err != nil {
				return nil, requestReadError(err)
			}
			// CVE-2020-17518: only the last element of the sent name
			// counts, as in the jar upload.
			sub.files[filepath.Base(sentName)] = data
			sub.fileParts++
		}
	}
}
