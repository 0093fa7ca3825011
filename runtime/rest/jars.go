package rest

import (
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/fault"
	"flinklab/runtime/trace"
)

// ---------------------------------------------------------------------------
// POST /jars/upload — Flink's JarUploadHandler (and FileUploadHandler)
// ---------------------------------------------------------------------------

// handleJarUpload stores one uploaded jar as <jarDir>/<uuid>_<name>.jar.
//
// Step m1: the client's jar arrives. It is streamed into a hidden temp
// file in the jar directory, checked, and only then renamed to its final
// name, so GET /jars never lists a half-written or invalid jar, and a
// rejected upload leaves nothing behind.
//
// The upload belongs to no job yet, so nothing is traced here: the server
// remembers when the jar arrived, and each run of the jar that the
// Dispatcher accepts records step m1 for its job with that time.
func (s *Server) handleJarUpload(w http.ResponseWriter, r *http.Request) (any, error) {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxUploadSize)
	u := &upload{}
	defer u.removeTemp()
	if err := s.receiveUpload(r, u); err != nil {
		return nil, err
	}
	if u.files != 1 {
		return nil, badRequest(fmt.Sprintf("Exactly 1 file must be sent, received %d.", u.files))
	}
	if !isJarName(u.name) {
		return nil, badRequest("Only Jar files are allowed.")
	}

	// Differs from Flink: Flink stores any file named *.jar; we open it
	// first, so that a corrupt jar fails now, not when it is run. It is
	// checked from the temp file, never read whole into memory.
	programClass, err := client.CheckJarFile(u.tempPath, u.name)
	if err != nil {
		return nil, withMessages(err, "The uploaded file is not a valid job jar.", err.Error())
	}

	jarID := newUUID() + "_" + u.name
	destination := filepath.Join(s.jarDir, jarID)
	if err := s.injectedStoreFailure(u.name, destination); err != nil {
		return nil, err
	}
	if err := os.Rename(u.tempPath, destination); err != nil {
		return nil, fmt.Errorf("Could not move uploaded jar file [%s] to [%s]: %w", u.name, destination, err)
	}
	u.tempPath = "" // kept
	if err := s.rememberStoredJar(jarID, destination, programClass); err != nil {
		return nil, err
	}
	return JarUploadResponseBody{Filename: destination, Status: UploadStatusSuccess}, nil
}

// injectedStoreFailure is step m1's fault: the jar cannot be stored, as
// when the upload directory is full or gone; nothing is kept.
func (s *Server) injectedStoreFailure(name, destination string) error {
	kind, ok := s.deps.Faults.Fire(trace.M1, api.JobID{})
	if !ok {
		return nil
	}
	// Step m1 (fault): the rename fails, with the error a real one gives.
	err := fmt.Errorf("Could not move uploaded jar file [%s] to [%s]: %w", name, destination, fault.Injected(trace.M1, kind))
	s.deps.Trace.EmitFailure(trace.M1, "Client", "REST", api.JobID{}, "POST /jars/upload refused: %v", err)
	return err
}

// rememberStoredJar notes a jar just stored at destination (its program
// class, and now as its upload time, the time of its step m1) and logs
// it.
func (s *Server) rememberStoredJar(jarID, destination, programClass string) error {
	info, err := os.Stat(destination)
	if err != nil {
		return fmt.Errorf("stat the stored jar: %w", err)
	}
	s.rememberJar(jarID, info, programClass, s.now())
	s.log.Info(fmt.Sprintf("Uploaded jar %s (Program-Class %s).", destination, programClass))
	return nil
}

// upload is what receiveUpload found in a multipart request.
type upload struct {
	files    int    // file parts seen
	name     string // base name of the first file, as the client sent it
	tempPath string // where the first file was written, if it was a jar; "" once kept
}

func (u *upload) removeTemp() {
	if u.tempPath != "" {
		_ = os.Remove(u.tempPath)
	}
}

// receiveUpload reads every part of a multipart request: a file part goes
// to receiveFileUpload (any form field name is accepted, as in Flink; the
// spec's curl example uses "jarfile"), every other part is read and thrown
// away. A request that is not multipart carries no file.
func (s *Server) receiveUpload(r *http.Request, u *upload) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil // not multipart: zero files, which the caller rejects
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return requestReadError(err)
		}
		sentName := sentFileName(part)
		if sentName == "" { // a plain form field
			if err := discard(part); err != nil {
				return err
			}
			continue
		}
		if err := s.receiveFileUpload(part, sentName, u); err != nil {
			return err
		}
	}
}

// receiveFileUpload takes one file part of an upload, sent with the file
// name sentName.
//
// Step m1: the jar's bytes arrive. The file is counted, and the first one
// is written to a temp file (writeTemp) if its name ends in .jar, under
// the last element of its name only. Every other file is read and thrown
// away.
func (s *Server) receiveFileUpload(part io.Reader, sentName string, u *upload) error {
	u.files++
	if u.files > 1 {
		return discard(part) // a second file: counted for the error message, never written
	}

	// CVE-2020-17518: Flink 1.5.1–1.11.2 resolved the client's file
	// name against the upload directory, so "../../../../tmp/success"
	// wrote /tmp/success. The fix keeps only the last path element.
	// (Go's Part.FileName applies filepath.Base too; we read the raw
	// header to show the fix here.)
	u.name = filepath.Base(sentName)
	if u.name != sentName {
		s.log.Warn(fmt.Sprintf("Ignoring the directories of the uploaded file name %q: storing it as %q.", sentName, u.name))
	}
	if !isJarName(u.name) {
		return discard(part) // rejected by the caller; never written
	}
	return s.writeTemp(part, u)
}

// discard reads a part to its end and throws it away.
func discard(part io.Reader) error {
	if _, err := io.Copy(io.Discard, part); err != nil {
		return requestReadError(err)
	}
	return nil
}

// writeTemp streams part into a new hidden file in the jar directory. The
// name ".upload-*" can never be a jar ID, so GET /jars does not list it.
// A jar whose name is too long to be stored is refused before a byte of
// it is written: there is no use receiving a jar that cannot be kept.
func (s *Server) writeTemp(part io.Reader, u *upload) error {
	if len(u.name) > maxJarNameLength {
		// Differs from Flink: Flink fails to move the jar to its final
		// name, and answers 500 with both paths.
		return badRequest("The file name is too long.",
			fmt.Sprintf("A jar is stored as <uuid>_<name>, and a file name has at most %d bytes, so a jar's name may have at most %d; this one has %d.",
				maxFileNameLength, maxJarNameLength, len(u.name)))
	}
	f, err := os.CreateTemp(s.jarDir, jarUploadPattern)
	if err != nil {
		return fmt.Errorf("create a temp file for the upload: %w", err)
	}
	u.tempPath = f.Name()
	_, err = io.Copy(f, part)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) { // writing failed (disk full?): our fault
		return fmt.Errorf("write the upload: %w", err)
	}
	if err != nil {
		return requestReadError(err)
	}
	return nil
}

// requestReadError classifies an error while reading the request body: too
// large (413, kept as is for statusOf), stopped arriving (408, see
// bodyDeadline) or malformed (400).
func requestReadError(err error) error {
	var tooLarge *http.MaxBytesError
	var stalled *readTimeoutError
	switch {
	case errors.As(err, &tooLarge):
		return err
	case errors.As(err, &stalled):
		return timedOut(stalled.Error())
	}
	return badRequest("Bad request received.", err.Error())
}

// sentFileName returns the filename parameter of a part's
// Content-Disposition exactly as the client sent it, or "" for a part that
// is not a file.
func sentFileName(part *multipart.Part) string {
	_, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	if err != nil {
		return part.FileName()
	}
	return params["filename"]
}

// isJarName reports whether name ends in ".jar" and has something before
// it (Flink's JarListHandler skips names shorter than five characters; we
// refuse to store them in the first place).
func isJarName(name string) bool {
	return len(name) > len(".jar") && strings.HasSuffix(name, ".jar")
}

// maxFileNameLength is the longest file name most file systems store (255
// bytes: Linux's NAME_MAX, macOS's and Windows' too).
const maxFileNameLength = 255

// maxJarNameLength is the longest name an uploaded jar may have: its file
// is <uuid>_<name>, and the UUID and the underscore take 37 bytes.
const maxJarNameLength = maxFileNameLength - len("00000000-0000-0000-0000-000000000000_")

// isJarID reports whether jarID can name an uploaded jar: a plain file
// name of the jar directory ending in .jar, short enough to be one.
// "../x.jar" (sent as "..%2Fx.jar") cannot, and is not looked up outside
// the directory.
//
// A backslash is a plain character of a name on Linux and macOS, as in
// Flink: a jar uploaded as "C:\jobs\wordcount.jar" is stored, listed,
// run and deleted under that name. On Windows it separates directories,
// and filepath.Base has already dropped what came before it.
func isJarID(jarID string) bool {
	return jarID == filepath.Base(jarID) && !strings.ContainsAny(jarID, "/\x00") &&
		len(jarID) <= maxFileNameLength && isJarName(jarID)
}

// newUUID returns a random (version 4) UUID in its usual text form, as
// Java's UUID.randomUUID().toString().
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func jarUploadedMessage(jarID, programClass string, uploaded time.Time) string {
	return fmt.Sprintf("POST /jars/upload: jar %s (Program-Class %s) stored at %s",
		jarID, programClass, uploaded.Format("15:04:05.000"))
}

// ---------------------------------------------------------------------------
// GET /jars — Flink's JarListHandler
// ---------------------------------------------------------------------------

// handleJarList lists the jar directory, as Flink does, so jars stored by
// an earlier server with the same UploadDir are listed too, and a jar
// deleted by hand disappears. Newest first.
func (s *Server) handleJarList(_ http.ResponseWriter, _ *http.Request) (any, error) {
	entries, err := os.ReadDir(s.jarDir)
	if errors.Is(err, fs.ErrNotExist) {
		s.log.Warn(fmt.Sprintf("Jar upload dir %s does not exist, or had been deleted externally. Previously uploaded jars are no longer available.", s.jarDir))
	} else if err != nil {
		return nil, fmt.Errorf("Failed to fetch jar list: %w", err)
	}

	files := []JarFileInfo{}
	present := make(map[string]bool)
	for _, e := range entries {
		jarID := e.Name()
		_, name, ok := strings.Cut(jarID, "_")
		if !ok || !isJarName(name) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // deleted meanwhile
		}
		present[jarID] = true
		entry := []JarEntryInfo{}
		if programClass := s.programClassOf(jarID, info); programClass != "" {
			entry = append(entry, JarEntryInfo{Name: programClass})
		}
		files = append(files, JarFileInfo{ID: jarID, Name: name, Uploaded: info.ModTime().UnixMilli(), Entry: entry})
	}
	slices.SortFunc(files, func(a, b JarFileInfo) int {
		return cmp.Or(cmp.Compare(b.Uploaded, a.Uploaded), strings.Compare(a.ID, b.ID))
	})
	s.forgetJarsExcept(present)
	return JarListInfo{Address: restBaseURL(s.Address()), Files: files}, nil
}

// rememberJar caches a jar's program class and upload time.
func (s *Server) rememberJar(jarID string, info fs.FileInfo, programClass string, uploaded time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jars[jarID] = jarInfo{size: info.Size(), modTime: info.ModTime(), programClass: programClass, uploaded: uploaded}
}

// uploadTimeOf returns when a jar was uploaded: the time this server
// stored it, or, for a jar it did not store (an earlier server's, or one
// changed since), its modification time.
func (s *Server) uploadTimeOf(jarID string, size int64, modTime time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cached, ok := s.jars[jarID]; ok && cached.size == size && cached.modTime.Equal(modTime) {
		return cached.uploaded
	}
	return modTime
}

// programClassOf returns a listed jar's program class, opening the jar
// only if it is new or changed since it was last opened. An unreadable
// jar shows no entries, as in Flink.
func (s *Server) programClassOf(jarID string, info fs.FileInfo) string {
	s.mu.Lock()
	cached, ok := s.jars[jarID]
	s.mu.Unlock()
	if ok && cached.size == info.Size() && cached.modTime.Equal(info.ModTime()) {
		return cached.programClass
	}
	programClass, err := client.CheckJarFile(filepath.Join(s.jarDir, jarID), jarID)
	if err != nil {
		programClass = ""
	}
	s.rememberJar(jarID, info, programClass, info.ModTime())
	return programClass
}

// forgetJar drops what is cached about a deleted jar.
func (s *Server) forgetJar(jarID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.jars, jarID)
}

func (s *Server) forgetJarsExcept(present map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for jarID := range s.jars {
		if !present[jarID] {
			delete(s.jars, jarID)
		}
	}
}

// ---------------------------------------------------------------------------
// DELETE /jars/{jarid} — Flink's JarDeleteHandler
// ---------------------------------------------------------------------------

// handleJarDelete deletes an uploaded jar and answers {}. The jobs already
// run from it are not affected: the BlobServer keeps each one's copy under
// its JobID. An ID that does not name an uploaded jar, such as
// "../x.jar", is not found, and nothing outside the jar directory is
// touched.
func (s *Server) handleJarDelete(_ http.ResponseWriter, r *http.Request) (any, error) {
	jarID := r.PathValue("jarid")
	// Differs from Flink: 404 where Flink answers the same message with
	// 400, as for the other jar endpoints.
	missing := notFound(fmt.Sprintf("File %s does not exist in %s.", jarID, s.jarDir))
	if !isJarID(jarID) {
		return nil, missing
	}
	jarPath := filepath.Join(s.jarDir, jarID)
	info, err := os.Lstat(jarPath)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !info.Mode().IsRegular()) {
		return nil, missing
	}
	if err == nil {
		err = os.Remove(jarPath)
	}
	if errors.Is(err, fs.ErrNotExist) { // deleted meanwhile
		return nil, missing
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to delete jar %s.: %w", jarPath, err)
	}
	s.forgetJar(jarID)
	s.log.Info(fmt.Sprintf("Deleted jar %s.", jarPath))
	return EmptyResponseBody{}, nil
}
