package client

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
)

// Bounds on a job jar beyond MaxUncompressedSize. They keep the memory it
// takes to check a jar small and fixed, whatever the jar holds.
const (
	// MaxJarEntries bounds the entries of a job jar: 10,000. A flinklab
	// jar carries a program's resources, a handful of files; each entry
	// costs a few hundred bytes of memory while the jar is open, so a jar
	// of 300,000 empty entries (a few megabytes on disk) would cost a
	// hundred megabytes to open.
	MaxJarEntries = 10_000
	// MaxJarDirectorySize bounds the zip's central directory, its table
	// of contents, which archive/zip reads whole into memory before anyone
	// can count the entries: 1 MiB, room for 10,000 entries with names of
	// fifty bytes. CheckJarFile stops reading the directory there.
	MaxJarDirectorySize = 1 << 20
	// MaxManifestSize bounds META-INF/MANIFEST.MF, the one entry read into
	// memory: 64 KiB, a few hundred headers.
	MaxManifestSize = 64 << 10
)

// CheckJarFile checks the job jar at path exactly as ReadPackagedProgram
// checks one in memory, and returns its Program-Class. It reads the jar
// from the file with bounded memory: the central directory (at most
// MaxJarDirectorySize bytes, at most MaxJarEntries entries), the manifest
// (at most MaxManifestSize bytes), and each entry streamed once through
// the decompressor to verify its CRC-32. The REST endpoint checks every
// upload with it before the upload gets its final name.
//
// name is how the messages call the jar (the name it was uploaded as), so
// that an error shown to a client never shows where the server keeps it.
// An error caused by the content matches ErrInvalidJar, as
// ReadPackagedProgram's do; a corrupt zip reads, in Flink's words of
// ClassLoaderUtil#validateJarFile, "Error while opening jar file '<name>'".
func CheckJarFile(path, name string) (programClass string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open jar file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("open jar file: %w", err)
	}

	p := &PackagedProgram{jar: name, files: make(map[string]*zip.File)}
	directory := &directoryBudget{r: f, left: MaxJarDirectorySize + directoryEndSearch}
	zr, err := zip.NewReader(directory, info.Size())
	directory.spent() // from here on the entries are read freely
	switch {
	case errors.Is(err, errDirectoryTooLarge):
		return "", tooManyEntries(p.subject())
	case err != nil && !errors.Is(err, zip.ErrInsecurePath): // unsafe names are reported by check
		return "", &jarError{msg: fmt.Sprintf("Error while opening jar file %s: %v", p.subject(), err), cause: err}
	}
	if err := p.check(zr); err != nil {
		return "", err
	}
	return p.programClass, nil
}

// directoryEndSearch is what archive/zip reads at the end of a zip to find
// its end record before it reads the central directory: at most the last
// 65 KiB (the record and a comment of up to 64 KiB).
const directoryEndSearch = 65 << 10

// errDirectoryTooLarge is what directoryBudget answers once the budget is
// spent.
var errDirectoryTooLarge = errors.New("the central directory is too large")

// directoryBudget is the io.ReaderAt that zip.NewReader opens a jar file
// through. zip.NewReader reads the end record, then every central
// directory header, and keeps a zip.File for each, before it returns: a
// lying end record cannot stop it, since it reads headers until one does
// not parse. So every byte it reads counts against a budget, and once the
// budget is spent ReadAt fails, and zip.NewReader with it. After
// zip.NewReader, spent lifts the budget: the entries' content is then read
// through the same ReaderAt, streamed.
type directoryBudget struct {
	r         io.ReaderAt
	left      int64 // bytes zip.NewReader may still read
	unlimited bool  // set by spent, once zip.NewReader has returned
}

func (d *directoryBudget) ReadAt(p []byte, off int64) (int, error) {
	if d.unlimited {
		return d.r.ReadAt(p, off)
	}
	if int64(len(p)) > d.left {
		return 0, errDirectoryTooLarge
	}
	d.left -= int64(len(p))
	return d.r.ReadAt(p, off)
}

func (d *directoryBudget) spent() { d.unlimited = true }

func tooManyEntries(subject string) error {
	return &jarError{msg: fmt.Sprintf("%s has too many entries: a job jar may have at most %d entries, listed in a central directory of at most %d bytes",
		subject, MaxJarEntries, MaxJarDirectorySize)}
}
