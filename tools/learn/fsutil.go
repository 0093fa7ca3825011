package main

import (
	"os"
	"path/filepath"
)

// writeNew writes a file, creating its directory, through a temporary file
// and a rename, so a reader never sees half of it.
func writeNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomically(path, data, 0o644)
}

// writeAtomically replaces the file at path with data, through a
// temporary file beside it (a dot-file, which go build and the watcher
// pass over) and a rename: a reader sees, and learn interrupted halfway
// leaves, the old file or the new one, never half of one.
func writeAtomically(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".learn-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
