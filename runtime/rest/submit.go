package rest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"flinklab/runtime/blob"
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
// as in Flink since the fix of CVE-2020-17518. Each is streamed to a temp
// file of a directory of the request's own in the upload directory (as
// Flink's FileUploadHandler does, <web.upload.dir>/<uuid>/), never under a
// name the client chose, and the directory goes when the request is
// answered. Only the JobGraph file is read into memory, and only up to
// maxJobGraphFileSize.
func (s *Server) handleJobSubmit(w http.ResponseWriter, r *http.Request) (any, error) {
	// Steps m1 and m2: the jars and the submission arrive.
	received := s.deps.Trace.Now()
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxUploadSize)
	dir, err := os.MkdirTemp(s.uploadDir, submissionPattern)
	if err != nil {
		return nil, fmt.Errorf("create a directory for the uploaded files: %w", err)
	}
	defer os.RemoveAll(dir)
	sub, err := receiveSubmission(r, dir)
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
	jars := make([]userJar, 0, len(body.JobJarFileNames))
	for _, name := range body.JobJarFileNames {
		jar, err := sub.file("Jar", name)
		if err != nil {
			return nil, err
		}
		jars = append(jars, jar.userJar())
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
	graphJSON, err := graphFile.read(maxJobGraphFileSize)
	if err != nil {
		return nil, err
	}
	jobGraph, err := jobgraph.Decode(graphJSON)
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

// maxJobGraphFileSize bounds the JobGraph file of POST /jobs, the one file
// read into memory: 8 MiB, the JSON of a JobGraph of thousands of
// vertices. A larger one is answered 400 "Failed to deserialize
// JobGraph.". (Flink reads a serialized JobGraph of any size the request
// may have.)
const maxJobGraphFileSize = 8 << 20

// maxSubmissionFiles bounds the file parts of one POST /jobs: each becomes
// a temp file. 1,000: a JobGraph, its jars and its artifacts.
const maxSubmissionFiles = 1000

// submission is what a POST /jobs carried: the JSON request, and each file
// part, streamed to a temp file, by the base name it was sent with.
type submission struct {
	request   JobSubmitRequestBody
	files     map[string]uploadedFile
	fileParts int // file parts seen; more than len(files) if names repeat
}

// uploadedFile is one file of a POST /jobs, in its temp file: where, and
// the SHA-256 of its content, its BLOB key should it be a jar.
type uploadedFile struct {
	name   string // the base name it was sent with
	path   string
	sha256 [sha256.Size]byte
}

// file returns the file the request names, or Flink's 400 for one that was
// not sent: "<kind> file <name> could not be found on the server.".
func (sub *submission) file(kind, name string) (uploadedFile, error) {
	f, ok := sub.files[name]
	if !ok {
		return uploadedFile{}, badRequest(fmt.Sprintf("%s file %s could not be found on the server.", kind, name))
	}
	return f, nil
}

// userJar is the file as a jar to store for the job, under the key its
// content hashes to.
func (f uploadedFile) userJar() userJar {
	key, err := blob.ParsePermanentBlobKey("p-" + hex.EncodeToString(f.sha256[:]))
	if err != nil { // a SHA-256 in hex always parses
		panic(fmt.Sprintf("rest: the key of %s: %v", f.name, err))
	}
	return userJar{key: key, open: func() (io.ReadCloser, error) { return os.Open(f.path) }}
}

// read returns the file's content, or Flink's 400 "Failed to deserialize
// JobGraph." if it holds more than limit bytes.
func (f uploadedFile) read(limit int64) ([]byte, error) {
	file, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("read the uploaded file %s: %w", f.name, err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read the uploaded file %s: %w", f.name, err)
	}
	if int64(len(data)) > limit {
		return nil, badRequest("Failed to deserialize JobGraph.", fmt.Sprintf("The JobGraph file %s is larger than %d bytes.", f.name, limit))
	}
	return data, nil
}

// receiveSubmission reads a POST /jobs. A multipart request gives its
// "request" part (the last one, if several, as in Flink) and its file
// parts, each streamed to a new temp file in dir; other form fields are
// read and thrown away. A request that is not multipart is its JSON
// request alone, with no files, as in Flink, which then finds none of the
// files it names.
func receiveSubmission(r *http.Request, dir string) (*submission, error) {
	sub := &submission{files: make(map[string]uploadedFile)}
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
			if err := discard(part); err != nil {
				return nil, err
			}
		case sub.fileParts == maxSubmissionFiles:
			return nil, badRequest(fmt.Sprintf("A job submission may carry at most %d files.", maxSubmissionFiles))
		default:
			// CVE-2020-17518: only the last element of the sent name
			// counts, as in the jar upload; the file itself gets a name
			// of ours.
			f, err := receiveSubmissionFile(part, dir, filepath.Base(sentName))
			if err != nil {
				return nil, err
			}
			sub.files[f.name] = f
			sub.fileParts++
		}
	}
}

// receiveSubmissionFile streams one file part to a new temp file in dir,
// hashing it on the way.
func receiveSubmissionFile(part io.Reader, dir, name string) (uploadedFile, error) {
	f, err := os.CreateTemp(dir, "file-*")
	if err != nil {
		return uploadedFile{}, fmt.Errorf("create a temp file for the upload: %w", err)
	}
	hash := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, hash), part)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) { // writing failed (disk full?): our fault
		return uploadedFile{}, fmt.Errorf("write the upload: %w", err)
	}
	if err != nil {
		return uploadedFile{}, requestReadError(err)
	}
	uploaded := uploadedFile{name: name, path: f.Name()}
	hash.Sum(uploaded.sha256[:0])
	return uploaded, nil
}
