package client

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxUncompressedSize bounds what a job jar may unpack to: the sum of the
// uncompressed sizes of its entries, 256 MiB. A few kilobytes of deflated
// zeros can claim gigabytes (a "zip bomb"); every read is counted against
// this bound, whatever the entries' headers claim.
const MaxUncompressedSize = 256 << 20

// ParallelismDefault is the parallelism that means "not set": the program
// decides, or its environment's default applies. It mirrors Flink's
// ExecutionConfig.PARALLELISM_DEFAULT.
const ParallelismDefault = -1

// ErrInvalidJar is matched (errors.Is) by every error OpenPackagedProgram
// and ReadPackagedProgram return because of the jar's content: not a zip, a
// damaged entry, no manifest, no Program-Class, an unsafe entry name, or
// too large. The message says which, in Flink's words where Flink has them.
var ErrInvalidJar = errors.New("invalid jar file")

// ErrJarTooLarge is matched, besides ErrInvalidJar, when a jar would unpack
// to more than MaxUncompressedSize bytes.
var ErrJarTooLarge = errors.New("jar file too large")

// jarError is the error of an invalid jar: its message is the whole story,
// and it matches ErrInvalidJar (and ErrJarTooLarge when tooLarge).
type jarError struct {
	msg      string
	tooLarge bool
	cause    error
}

func (e *jarError) Error() string { return e.msg }
func (e *jarError) Unwrap() error { return e.cause }
func (e *jarError) Is(target error) bool {
	return target == ErrInvalidJar || (e.tooLarge && target == ErrJarTooLarge)
}

// PackagedProgram is a job jar opened for running: the name of the program
// it runs and the resources it carries. It mirrors the jar side of Flink's
// org.apache.flink.client.program.PackagedProgram.
//
// A PackagedProgram has been checked completely when it is returned: every
// entry decompressed and its CRC-32 verified, within MaxUncompressedSize.
// It is immutable and safe for concurrent use.
type PackagedProgram struct {
	jar          string // the path it was opened from; "" when read from memory
	programClass string
	files        map[string]*zip.File // resources by name
	names        []string             // sorted
}

// OpenPackagedProgram reads and checks the job jar at path.
func OpenPackagedProgram(path string) (*PackagedProgram, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open jar file: %w", err)
	}
	if info.Size() > MaxUncompressedSize {
		return nil, tooLarge(quoted(path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("open jar file: %w", err)
	}
	return readPackagedProgram(path, data)
}

// ReadPackagedProgram checks a job jar held in memory. The program keeps
// data to read resources from: do not modify data afterwards.
func ReadPackagedProgram(data []byte) (*PackagedProgram, error) {
	return readPackagedProgram("", data)
}

func readPackagedProgram(jarPath string, data []byte) (*PackagedProgram, error) {
	p := &PackagedProgram{jar: jarPath, files: make(map[string]*zip.File)}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // unsafe names are reported below
		return nil, &jarError{msg: fmt.Sprintf("%s is not a valid jar file: %v", p.subject(), err), cause: err}
	}
	if err := p.check(zr); err != nil {
		return nil, err
	}
	return p, nil
}

// check indexes and checks the entries of zr, the jar's zip, and reads the
// program's name from its manifest. It reads every entry once, through
// zr, and holds no more than one manifest in memory: whether zr reads from
// memory or from a file (CheckJarFile), the checks are the same.
func (p *PackagedProgram) check(zr *zip.Reader) error {
	if len(zr.File) > MaxJarEntries {
		return tooManyEntries(p.subject())
	}

	// Index the entries. Refuse unsafe names and duplicates, and bound the
	// total size the headers declare before decompressing anything.
	var manifest *zip.File
	var declared uint64
	for _, f := range zr.File {
		if strings.EqualFold(f.Name, ManifestPath) {
			if manifest != nil {
				return p.invalid("%s holds more than one manifest", p.object())
			}
			manifest = f
			continue
		}
		if strings.HasSuffix(f.Name, "/") {
			if err := checkResourceName(strings.TrimSuffix(f.Name, "/")); err != nil {
				return p.invalid("%s holds an entry with an unsafe name: %v", p.object(), err)
			}
			continue // a directory
		}
		if err := checkResourceName(f.Name); err != nil {
			return p.invalid("%s holds an entry with an unsafe name: %v", p.object(), err)
		}
		if _, dup := p.files[f.Name]; dup {
			return p.invalid("%s holds the entry %q twice", p.object(), f.Name)
		}
		p.files[f.Name] = f
		p.names = append(p.names, f.Name)
	}
	for _, f := range zr.File {
		if f.UncompressedSize64 > MaxUncompressedSize-declared {
			return tooLarge(p.subject())
		}
		declared += f.UncompressedSize64
	}
	slices.Sort(p.names)

	// Decompress every entry once: this verifies each CRC-32, and counts the
	// bytes really produced, whatever the headers declared.
	budget := int64(MaxUncompressedSize)
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		n, err := readEntry(f, io.Discard, budget)
		if err != nil {
			return p.entryError(f.Name, err)
		}
		budget -= n
	}

	// The manifest must name the program (Flink: the entry class).
	if manifest == nil {
		return p.invalid("No manifest found in %s. The manifest is need to point to the program's main class.", p.object())
	}
	var text bytes.Buffer
	if manifest.UncompressedSize64 > MaxManifestSize {
		return p.invalid("The manifest of %s is larger than %d bytes.", p.object(), MaxManifestSize)
	}
	if _, err := readEntry(manifest, &text, MaxManifestSize); err != nil {
		return p.entryError(manifest.Name, err)
	}
	headers, err := parseManifest(text.Bytes())
	if err != nil {
		return p.invalid("The manifest of %s is invalid: %v", p.object(), err)
	}
	p.programClass = strings.TrimSpace(headers[strings.ToLower(ManifestAttributeProgramClass)])
	if p.programClass == "" {
		return p.invalid("No 'Program-Class' entry was found in the jar file.")
	}
	if !printable(p.programClass) {
		return p.invalid("The 'Program-Class' entry %q holds a character that is not printable.", p.programClass)
	}
	return nil
}

// printable reports whether s holds only printable characters: letters,
// marks, numbers, punctuation, symbols and the ASCII space (unicode.IsPrint).
// A Program-Class is a name that is logged and shown; a control character,
// a byte order mark or a zero-width space in it would only hide which
// program runs.
func printable(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
}

// errEntryTooLarge is what readEntry returns when an entry is larger than
// its budget.
var errEntryTooLarge = errors.New("entry too large")

// readEntry copies the content of f to w, reading at most budget bytes and
// at most what the entry's header declares (archive/zip then verifies the
// CRC-32). It returns how many bytes it copied.
func readEntry(f *zip.File, w io.Writer, budget int64) (int64, error) {
	if f.UncompressedSize64 > uint64(budget) {
		return 0, errEntryTooLarge
	}
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	n, err := io.Copy(w, io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	if err != nil {
		return n, err
	}
	if n != int64(f.UncompressedSize64) {
		return n, fmt.Errorf("the entry holds %d bytes, its header says %d", n, f.UncompressedSize64)
	}
	return n, nil
}

// checkResourceName accepts a clean, relative, slash-separated name that
// cannot leave the directory a jar might be unpacked into: not absolute, no
// ".." element, no backslash, no empty or "." element. The same rules keep
// Resource lookups unambiguous.
func checkResourceName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case !utf8.ValidString(name) || strings.ContainsAny(name, "\\\x00"):
		return fmt.Errorf("%q holds a backslash, a NUL or invalid UTF-8", name)
	case strings.HasPrefix(name, "/"):
		return fmt.Errorf("%q is absolute", name)
	case slices.Contains(strings.Split(name, "/"), ".."):
		return fmt.Errorf("%q contains \"..\"", name)
	case path.Clean(name) != name:
		return fmt.Errorf("%q is not a clean path", name)
	}
	return nil
}

// ProgramClass returns the name of the registered program the jar runs:
// the manifest's Program-Class header.
func (p *PackagedProgram) ProgramClass() string { return p.programClass }

// Resources returns the names of the jar's resources in sorted order:
// every file entry except the manifest. The slice is a copy.
func (p *PackagedProgram) Resources() []string { return slices.Clone(p.names) }

// Resource returns the content of the named resource, e.g.
// "wordcount/hamlet.txt". A name the jar does not hold gives an error
// wrapping fs.ErrNotExist.
func (p *PackagedProgram) Resource(name string) ([]byte, error) {
	f, ok := p.files[name]
	if !ok {
		return nil, fmt.Errorf("resource %q not found in %s: %w", name, p.object(), fs.ErrNotExist)
	}
	var buf bytes.Buffer
	buf.Grow(int(f.UncompressedSize64))
	if _, err := readEntry(f, &buf, MaxUncompressedSize); err != nil {
		// Checked when the jar was opened, so only a caller that modified
		// the bytes given to ReadPackagedProgram gets here.
		return nil, p.entryError(name, err)
	}
	return buf.Bytes(), nil
}

// subject and object name the jar in messages: "'/path/x.jar'" or "The
// given data"; "jar file '/path/x.jar'" or "the given jar".
func (p *PackagedProgram) subject() string {
	if p.jar == "" {
		return "The given data"
	}
	return quoted(p.jar)
}

func (p *PackagedProgram) object() string {
	if p.jar == "" {
		return "the given jar"
	}
	return "jar file " + quoted(p.jar)
}

func quoted(s string) string { return "'" + s + "'" }

func (p *PackagedProgram) invalid(format string, args ...any) error {
	return &jarError{msg: fmt.Sprintf(format, args...)}
}

func (p *PackagedProgram) entryError(name string, err error) error {
	if errors.Is(err, errEntryTooLarge) {
		return tooLarge(p.subject())
	}
	return &jarError{msg: fmt.Sprintf("%s is not a valid jar file: entry %q: %v", p.subject(), name, err), cause: err}
}

func tooLarge(subject string) error {
	return &jarError{
		msg:      fmt.Sprintf("%s is too large: a job jar may unpack to at most %d bytes", subject, MaxUncompressedSize),
		tooLarge: true,
	}
}

// WriteJar writes a job jar to w: a zip holding META-INF/MANIFEST.MF with
// a Program-Class header, then the resources in sorted order. The output
// depends only on the arguments (no timestamps), so the same program and
// resources always give the same bytes and the same BLOB key. The
// Program-Class must be printable UTF-8, as ReadPackagedProgram requires.
func WriteJar(w io.Writer, programClass string, resources map[string][]byte) error {
	if strings.TrimSpace(programClass) == "" || !utf8.ValidString(programClass) || !printable(programClass) {
		return fmt.Errorf("write jar: invalid Program-Class %q", programClass)
	}
	names := make([]string, 0, len(resources))
	for name := range resources {
		if err := checkResourceName(name); err != nil {
			return fmt.Errorf("write jar: unsafe resource name: %w", err)
		}
		if strings.EqualFold(name, ManifestPath) {
			return fmt.Errorf("write jar: %s is written by WriteJar itself", ManifestPath)
		}
		names = append(names, name)
	}
	slices.Sort(names)

	var manifest bytes.Buffer
	writeManifestHeader(&manifest, "Manifest-Version", "1.0")
	writeManifestHeader(&manifest, "Created-By", "flinklab")
	writeManifestHeader(&manifest, ManifestAttributeProgramClass, programClass)
	manifest.WriteString("\r\n")

	zw := zip.NewWriter(w)
	entries := append([]string{ManifestPath}, names...)
	for _, name := range entries {
		content := manifest.Bytes()
		if name != ManifestPath {
			content = resources[name]
		}
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return fmt.Errorf("write jar: %w", err)
		}
		if _, err := fw.Write(content); err != nil {
			return fmt.Errorf("write jar: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write jar: %w", err)
	}
	return nil
}
