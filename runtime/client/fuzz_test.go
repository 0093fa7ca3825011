package client_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"

	"flinklab/runtime/client"
)

// FuzzReadPackagedProgram feeds arbitrary bytes to ReadPackagedProgram. It
// must never panic, and every error must match ErrInvalidJar. A jar it
// accepts must have a non-empty, printable Program-Class without
// surrounding spaces, and only safe, readable resources, listed sorted and
// once each, that unpack to at most MaxUncompressedSize bytes in all.
//
// Besides the seeds below, the corpus committed under
// testdata/fuzz/FuzzReadPackagedProgram holds a jar written by WriteJar, an
// empty zip, a zip without a manifest, manifests with continuation lines,
// CRLF, LF, CR and a byte order mark, zip bombs that declare or hide a huge
// size, and path-traversal entry names. Run it with
//
//	go test -run='^$' -fuzz='^FuzzReadPackagedProgram$' -fuzztime=30s ./runtime/client/
func FuzzReadPackagedProgram(f *testing.F) {
	var jar bytes.Buffer
	_ = client.WriteJar(&jar, "wordcount", map[string][]byte{
		"wordcount/hamlet.txt": []byte("To be, or not to be"),
		"empty":                nil,
	})
	f.Add(jar.Bytes())
	f.Add([]byte("success"))
	f.Add([]byte{})
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18))) // an empty zip
	f.Add(jar.Bytes()[:jar.Len()/2])
	var long bytes.Buffer
	_ = client.WriteJar(&long, strings.Repeat("p", 200), nil)
	f.Add(long.Bytes())

	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := client.ReadPackagedProgram(data)
		if err != nil {
			if p != nil {
				t.Fatalf("ReadPackagedProgram returned a program and an error %v", err)
			}
			if !errors.Is(err, client.ErrInvalidJar) {
				t.Fatalf("error %v does not match ErrInvalidJar", err)
			}
			return
		}
		class := p.ProgramClass()
		if class == "" {
			t.Fatal("accepted a jar without a Program-Class")
		}
		if class != strings.TrimSpace(class) {
			t.Fatalf("Program-Class %q has surrounding spaces", class)
		}
		if i := strings.IndexFunc(class, func(r rune) bool { return !unicode.IsPrint(r) }); i >= 0 {
			t.Fatalf("accepted a Program-Class %q with a character that is not printable at byte %d", class, i)
		}

		names := p.Resources()
		if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
			t.Fatalf("Resources() = %q, want sorted and without duplicates", names)
		}
		var total int64
		for _, name := range names {
			if strings.HasPrefix(name, "/") || containsDotDotElement(name) || strings.ContainsRune(name, '\\') {
				t.Fatalf("accepted an unsafe resource name %q", name)
			}
			if strings.EqualFold(name, client.ManifestPath) {
				t.Fatalf("the manifest is listed as a resource %q", name)
			}
			content, err := p.Resource(name)
			if err != nil {
				t.Fatalf("Resource(%q) of an accepted jar: %v", name, err)
			}
			total += int64(len(content))
		}
		if total > client.MaxUncompressedSize {
			t.Fatalf("an accepted jar unpacks to %d bytes, more than %d", total, client.MaxUncompressedSize)
		}
	})
}

func containsDotDotElement(name string) bool {
	for _, elem := range strings.Split(name, "/") {
		if elem == ".." {
			return true
		}
	}
	return false
}
