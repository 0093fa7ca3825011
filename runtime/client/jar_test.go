package client_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"flinklab/runtime/client"
)

func writeJar(t *testing.T, programClass string, resources map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := client.WriteJar(&buf, programClass, resources); err != nil {
		t.Fatalf("WriteJar: %v", err)
	}
	return buf.Bytes()
}

// rawZip builds a zip by hand, for jars WriteJar refuses to write.
func rawZip(t *testing.T, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e[0], Method: zip.Deflate})
		if err != nil {
			t.Fatalf("create %q: %v", e[0], err)
		}
		if _, err := w.Write([]byte(e[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const manifest = "Manifest-Version: 1.0\r\nProgram-Class: wordcount\r\n\r\n"

func TestWriteJarThenOpen(t *testing.T) {
	resources := map[string][]byte{
		"wordcount/hamlet.txt": []byte("To be, or not to be, that is the question"),
		"wordcount/empty.txt":  {},
		"top.txt":              []byte("top"),
	}
	data := writeJar(t, "wordcount", resources)
	path := filepath.Join(t.TempDir(), "wordcount.jar")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	for name, open := range map[string]func() (*client.PackagedProgram, error){
		"OpenPackagedProgram": func() (*client.PackagedProgram, error) { return client.OpenPackagedProgram(path) },
		"ReadPackagedProgram": func() (*client.PackagedProgram, error) { return client.ReadPackagedProgram(data) },
	} {
		t.Run(name, func(t *testing.T) {
			p, err := open()
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if got, want := p.ProgramClass(), "wordcount"; got != want {
				t.Errorf("ProgramClass() = %q, want %q", got, want)
			}
			want := []string{"top.txt", "wordcount/empty.txt", "wordcount/hamlet.txt"}
			if diff := cmp.Diff(want, p.Resources()); diff != "" {
				t.Errorf("Resources() (-want +got):\n%s", diff)
			}
			for name, content := range resources {
				got, err := p.Resource(name)
				if err != nil {
					t.Fatalf("Resource(%q): %v", name, err)
				}
				if !bytes.Equal(got, content) {
					t.Errorf("Resource(%q) = %q, want %q", name, got, content)
				}
			}
			if _, err := p.Resource("missing.txt"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Resource(missing) = %v, want fs.ErrNotExist", err)
			}
			if _, err := p.Resource(client.ManifestPath); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Resource(manifest) = %v, want fs.ErrNotExist: the manifest is not a resource", err)
			}
		})
	}
}

func TestWriteJarIsDeterministic(t *testing.T) {
	resources := map[string][]byte{"a": []byte("1"), "b/c": []byte("2"), "d": []byte("3")}
	first := writeJar(t, "p", resources)
	for range 5 {
		if !bytes.Equal(first, writeJar(t, "p", resources)) {
			t.Fatal("WriteJar gave different bytes for the same input")
		}
	}
}

func TestWriteJarRejects(t *testing.T) {
	tests := []struct {
		name         string
		programClass string
		resources    map[string][]byte
	}{
		{"empty Program-Class", " ", nil},
		{"line break in Program-Class", "a\nb", nil},
		{"tab in Program-Class", "a\tb", nil},
		{"byte order mark in Program-Class", "\ufeffwordcount", nil},
		{"invalid UTF-8 in Program-Class", "word\xffcount", nil},
		{"absolute resource", "p", map[string][]byte{"/etc/passwd": nil}},
		{"dot-dot resource", "p", map[string][]byte{"../x": nil}},
		{"manifest as resource", "p", map[string][]byte{client.ManifestPath: nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := client.WriteJar(&bytes.Buffer{}, tt.programClass, tt.resources); err == nil {
				t.Error("WriteJar succeeded, want an error")
			}
		})
	}
}

func TestReadPackagedProgramRejects(t *testing.T) {
	// Zip bombs, built with CreateRaw so that the test need not deflate
	// hundreds of megabytes: one entry declares more than the bound, the
	// other declares 10 bytes but inflates to 1 MiB of zeros.
	var zeros bytes.Buffer
	fw, _ := flate.NewWriter(&zeros, flate.BestCompression)
	_, _ = fw.Write(make([]byte, 1<<20))
	_ = fw.Close()
	bomb := func(declared uint64) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create(client.ManifestPath)
		_, _ = w.Write([]byte(manifest))
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: "zeros.bin", Method: zip.Deflate,
			CompressedSize64: uint64(zeros.Len()), UncompressedSize64: declared,
		})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(zeros.Bytes())
		_ = zw.Close()
		return buf.Bytes()
	}

	tests := []struct {
		name         string
		data         []byte
		wantErr      string
		wantTooLarge bool
	}{
		{name: "not a zip", data: []byte("success"), wantErr: "The given data is not a valid jar file"},
		{name: "empty", data: nil, wantErr: "is not a valid jar file"},
		{name: "truncated", data: writeJar(t, "p", map[string][]byte{"a": []byte("a")})[:40], wantErr: "is not a valid jar file"},
		{name: "no manifest", data: rawZip(t, [2]string{"a.txt", "a"}),
			wantErr: "No manifest found in the given jar. The manifest is need to point to the program's main class."},
		{name: "no Program-Class", data: rawZip(t, [2]string{client.ManifestPath, "Manifest-Version: 1.0\r\nMain-Class: x\r\n"}),
			wantErr: "No 'Program-Class' entry was found in the jar file."},
		{name: "blank Program-Class", data: rawZip(t, [2]string{client.ManifestPath, "Program-Class:  \r\n"}),
			wantErr: "No 'Program-Class' entry was found in the jar file."},
		{name: "control character in Program-Class", data: rawZip(t, [2]string{client.ManifestPath, "Program-Class: word\x01count\r\n"}),
			wantErr: `The 'Program-Class' entry "word\x01count" holds a character that is not printable.`},
		{name: "byte order mark in Program-Class", data: rawZip(t, [2]string{client.ManifestPath, "Program-Class: \ufeffwordcount\r\n"}),
			wantErr: "not printable"},
		{name: "manifest starting with a byte order mark", data: rawZip(t, [2]string{client.ManifestPath, "\ufeff" + manifest}),
			wantErr: "invalid header field on line 1"},
		{name: "malformed manifest", data: rawZip(t, [2]string{client.ManifestPath, "Program-Class wordcount\r\n"}),
			wantErr: "invalid header field on line 1"},
		{name: "two manifests", data: rawZip(t, [2]string{client.ManifestPath, manifest}, [2]string{"meta-inf/manifest.mf", manifest}),
			wantErr: "more than one manifest"},
		{name: "zip slip", data: rawZip(t, [2]string{client.ManifestPath, manifest}, [2]string{"../../../../tmp/success", "x"}),
			wantErr: `contains ".."`},
		{name: "dot-dot in the middle", data: rawZip(t, [2]string{client.ManifestPath, manifest}, [2]string{"a/../../b", "x"}),
			wantErr: `contains ".."`},
		{name: "absolute", data: rawZip(t, [2]string{client.ManifestPath, manifest}, [2]string{"/etc/passwd", "x"}),
			wantErr: "is absolute"},
		{name: "backslash", data: rawZip(t, [2]string{client.ManifestPath, manifest}, [2]string{`..\..\x`, "x"}),
			wantErr: "backslash"},
		{name: "unclean", data: rawZip(t, [2]string{client.ManifestPath, manifest}, [2]string{"a//b", "x"}),
			wantErr: "not a clean path"},
		{name: "duplicate entry", data: rawZip(t, [2]string{client.ManifestPath, manifest}, [2]string{"a", "1"}, [2]string{"a", "2"}),
			wantErr: `the entry "a" twice`},
		{name: "zip bomb declaring its size", data: bomb(client.MaxUncompressedSize + 1), wantErr: "is too large", wantTooLarge: true},
		{name: "zip bomb lying about its size", data: bomb(10), wantErr: `entry "zeros.bin"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := client.ReadPackagedProgram(tt.data)
			if err == nil {
				t.Fatalf("ReadPackagedProgram = %v, want an error", p)
			}
			if !errors.Is(err, client.ErrInvalidJar) {
				t.Errorf("error %v does not match ErrInvalidJar", err)
			}
			if got := errors.Is(err, client.ErrJarTooLarge); got != tt.wantTooLarge {
				t.Errorf("errors.Is(err, ErrJarTooLarge) = %v, want %v", got, tt.wantTooLarge)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestReadPackagedProgramDetectsDamagedEntries(t *testing.T) {
	content := strings.Repeat("All the world's a stage. ", 100)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create(client.ManifestPath)
	_, _ = w.Write([]byte(manifest))
	w, _ = zw.CreateHeader(&zip.FileHeader{Name: "text.txt", Method: zip.Store})
	_, _ = w.Write([]byte(content))
	_ = zw.Close()
	data := buf.Bytes()

	// Flip one byte of the stored (uncompressed) content: only the CRC-32
	// can tell.
	i := bytes.Index(data, []byte("All the world"))
	data[i+5] ^= 0xff
	_, err := client.ReadPackagedProgram(data)
	if !errors.Is(err, client.ErrInvalidJar) || !errors.Is(err, zip.ErrChecksum) {
		t.Errorf("ReadPackagedProgram = %v, want ErrInvalidJar wrapping zip.ErrChecksum", err)
	}
}

func TestOpenPackagedProgramNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.jar")
	if err := os.WriteFile(path, []byte("success"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := client.OpenPackagedProgram(path)
	if want := "'" + path + "' is not a valid jar file"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("OpenPackagedProgram = %v, want an error starting with %q", err, want)
	}
	if _, err := client.OpenPackagedProgram(filepath.Join(t.TempDir(), "missing.jar")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenPackagedProgram(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestManifestOfRealJarTools(t *testing.T) {
	// What the JDK's jar tool writes (LF is accepted too), with a long
	// Program-Class wrapped at 72 bytes and a per-entry section.
	long := "org.example.streaming.analytics.pipelines.AVeryLongProgramNameForWrapping"
	text := "Manifest-Version: 1.0\nCreated-By: 21.0.2 (Eclipse Adoptium)\n" +
		"Program-Class: " + long[:57] + "\n " + long[57:] + "\n\nName: data/x.txt\nSHA-256-Digest: abc\n"
	p, err := client.ReadPackagedProgram(rawZip(t, [2]string{"META-INF/", ""}, [2]string{client.ManifestPath, text}, [2]string{"data/", ""}, [2]string{"data/x.txt", "x"}))
	if err != nil {
		t.Fatalf("ReadPackagedProgram: %v", err)
	}
	if p.ProgramClass() != long {
		t.Errorf("ProgramClass() = %q, want %q", p.ProgramClass(), long)
	}
	if diff := cmp.Diff([]string{"data/x.txt"}, p.Resources()); diff != "" {
		t.Errorf("Resources() (-want +got):\n%s", diff)
	}
}
