package client_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"flinklab/runtime/client"
)

// FuzzReadPackagedProgram feeds arbitrary bytes to ReadPackagedProgram: it
// must never panic, every error must match ErrInvalidJar, and a jar it
// accepts must have a Program-Class and only safe, readable resources.
//
//	go test -run='^$' -fuzz=FuzzReadPackagedProgram -fuzztime=10s ./runtime/client/
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
			if !errors.Is(err, client.ErrInvalidJar) {
				t.Fatalf("error %v does not match ErrInvalidJar", err)
			}
			return
		}
		if p.ProgramClass() == "" {
			t.Fatal("accepted a jar without a Program-Class")
		}
		for _, name := range p.Resources() {
			if strings.HasPrefix(name, "/") || containsDotDotElement(name) {
				t.Fatalf("accepted an unsafe resource name %q", name)
			}
			if _, err := p.Resource(name); err != nil {
				t.Fatalf("Resource(%q) of an accepted jar: %v", name, err)
			}
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
