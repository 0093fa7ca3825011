package client

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{
			name: "CRLF",
			in:   "Manifest-Version: 1.0\r\nProgram-Class: wordcount\r\n\r\n",
			want: map[string]string{"manifest-version": "1.0", "program-class": "wordcount"},
		},
		{
			name: "LF and a last line without a break",
			in:   "Manifest-Version: 1.0\nProgram-Class: wordcount",
			want: map[string]string{"manifest-version": "1.0", "program-class": "wordcount"},
		},
		{
			name: "CR alone",
			in:   "Program-Class: wordcount\rX-Other: y\r",
			want: map[string]string{"program-class": "wordcount", "x-other": "y"},
		},
		{
			name: "continuation lines drop exactly one leading space",
			in:   "Program-Class: a-very-long\r\n -name\r\n  with-a-space\r\n\r\n",
			want: map[string]string{"program-class": "a-very-long-name with-a-space"},
		},
		{
			name: "header names are case-insensitive; the last one wins",
			in:   "program-class: first\r\nPROGRAM-CLASS: second\r\n",
			want: map[string]string{"program-class": "second"},
		},
		{
			name: "per-entry sections after the blank line are ignored",
			in:   "Program-Class: main\r\n\r\nName: wordcount/hamlet.txt\r\nProgram-Class: other\r\n",
			want: map[string]string{"program-class": "main"},
		},
		{
			name: "empty value",
			in:   "Program-Class: \r\n",
			want: map[string]string{"program-class": ""},
		},
		{
			name: "empty manifest",
			in:   "",
			want: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseManifest([]byte(tt.in))
			if err != nil {
				t.Fatalf("parseManifest: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseManifestRejects(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"no colon", "Program-Class wordcount\r\n", "invalid header field on line 1"},
		{"colon without space", "Program-Class:wordcount\r\n", "invalid header field on line 1"},
		{"empty name", ": wordcount\r\n", "invalid header field on line 1"},
		{"bad character in name", "Program Class: wordcount\r\n", "invalid header field on line 1"},
		{"name too long", strings.Repeat("x", 71) + ": v\r\n", "invalid header field on line 1"},
		{"continuation first", " wordcount\r\n", "line 1 continues a header"},
		{"NUL", "Program-Class: word\x00count\r\n", "line 1 holds a NUL byte"},
		{"invalid UTF-8", "Program-Class: \xff\r\n", "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseManifest([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseManifest(%q) = %v, want an error containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestWriteManifestHeaderWrapsAt72Bytes(t *testing.T) {
	for _, value := range []string{
		"short",
		strings.Repeat("a", 57), // "Program-Class: " + 57 = 72 bytes: fits exactly
		strings.Repeat("a", 58), // one byte too many
		strings.Repeat("b", 500),
		strings.Repeat("é", 100), // two-byte characters must not be split
		strings.Repeat("x", 56) + "日本語プログラム",
	} {
		var b bytes.Buffer
		writeManifestHeader(&b, ManifestAttributeProgramClass, value)
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\r\n"), "\r\n") {
			if len(line) > maxManifestLineBytes {
				t.Errorf("line %q has %d bytes, want at most %d", line, len(line), maxManifestLineBytes)
			}
		}
		got, err := parseManifest(b.Bytes())
		if err != nil {
			t.Fatalf("parseManifest: %v", err)
		}
		if got["program-class"] != value {
			t.Errorf("round trip: got %q, want %q", got["program-class"], value)
		}
	}
}
