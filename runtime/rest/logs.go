package rest

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
)

// ---------------------------------------------------------------------------
// GET /jobmanager/logs and /jobmanager/logs/{filename} — Flink's
// JobManagerLogListHandler and JobManagerCustomLogHandler
// ---------------------------------------------------------------------------

// logFileNotFound is Flink's answer for a log file it will not serve
// (AbstractJobManagerFileHandler), whatever the reason: no log directory,
// no such file, or a name that is not a plain file of the directory.
const logFileNotFound = "This file does not exist in JobManager log dir."

// handleJobManagerLogList lists the regular files of Config.LogDir, sorted
// by name; none without a log directory, as in Flink. Symbolic links and
// subdirectories are not listed: they are not served either.
func (s *Server) handleJobManagerLogList(_ http.ResponseWriter, _ *http.Request) (any, error) {
	logs := []LogInfo{}
	if s.cfg.LogDir == "" {
		return LogListInfo{Logs: logs}, nil
	}
	entries, err := os.ReadDir(s.cfg.LogDir)
	if err != nil {
		return nil, fmt.Errorf("Could not list files in %s: %w", s.cfg.LogDir, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // deleted meanwhile
		}
		logs = append(logs, LogInfo{Name: e.Name(), Size: info.Size(), MTime: info.ModTime().UnixMilli()})
	}
	slices.SortFunc(logs, func(a, b LogInfo) int { return cmp.Compare(a.Name, b.Name) })
	return LogListInfo{Logs: logs}, nil
}

// handleJobManagerCustomLog sends one file of Config.LogDir as text/plain.
//
// CVE-2020-17519: Flink 1.11.0 to 1.11.2 opened new File(logDir, filename)
// with the path parameter as sent, so GET /jobmanager/logs/..%252f..%252f
// ..%252fetc%252fpasswd read /etc/passwd: any file the JobManager's user
// could read. Flink 1.11.3 and 1.12.0 fixed it (commit b561010b) by keeping
// only the last path element: new File(filename).getName().
//
// The handler does the same with filepath.Base, and then opens the name
// through an os.Root of the log directory, which refuses any path that
// leaves the directory, through ".." or a symbolic link. What it opens
// must be a regular file. Anything else is Flink's 404, "This file does
// not exist in JobManager log dir.", so the answer does not tell a file
// outside the directory from one that does not exist.
func (s *Server) handleJobManagerCustomLog(_ http.ResponseWriter, r *http.Request) (any, error) {
	name := filepath.Base(r.PathValue("filename"))
	if s.cfg.LogDir == "" || name == "." || name == ".." || name == string(filepath.Separator) {
		return nil, notFound(logFileNotFound)
	}
	root, err := os.OpenRoot(s.cfg.LogDir)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Could not open the log directory %s.", s.cfg.LogDir), "cause", err.Error())
		return nil, notFound(logFileNotFound)
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // it leaves the directory, or cannot be read
			s.log.Debug(fmt.Sprintf("Refusing the log file %q.", name), "cause", err.Error())
		}
		return nil, notFound(logFileNotFound)
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		_ = f.Close()
		return nil, notFound(logFileNotFound)
	}
	return plainTextFile{f: f, size: info.Size()}, nil
}
