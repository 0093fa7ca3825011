package client

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ManifestPath is where a jar keeps its manifest.
const ManifestPath = "META-INF/MANIFEST.MF"

// ManifestAttributeProgramClass names the manifest header that says which
// registered program a job jar runs. Flink reads "program-class" (and falls
// back to "Main-Class"); header names are case-insensitive, so both spellings
// find the same header.
const ManifestAttributeProgramClass = "Program-Class"

// maxManifestLineBytes is the JAR specification's limit for one manifest
// line, not counting the line break. Longer values continue on the next
// line, which starts with a single space.
const maxManifestLineBytes = 72

// parseManifest reads the main section of a manifest, as
// java.util.jar.Manifest does, and returns its headers keyed by their
// lower-cased names (header names are case-insensitive).
//
// The format, from the JAR File Specification:
//
//	Manifest-Version: 1.0⏎          one header per line: "Name: value"
//	Program-Class: a-very-long-na⏎  a line holds at most 72 bytes ...
//	 me-that-goes-on⏎               ... and a line starting with one space continues the value
//	⏎                               a blank line ends the main section
//	Name: wordcount/hamlet.txt⏎     per-entry sections follow (ignored here)
//
// Lines end in CRLF, LF or CR. Unknown headers are kept but nobody asks for
// them. A later header of the same name replaces an earlier one, as in Java.
//
// Differs from Java: Java silently drops a last line that has no line
// break, a classic reason for "no main class" errors; we accept it.
func parseManifest(data []byte) (map[string]string, error) {
	headers := make(map[string]string)
	var name string // the header the previous line belongs to; "" before the first
	var value strings.Builder
	flush := func() error {
		if name == "" {
			return nil
		}
		v := value.String()
		if !utf8.ValidString(v) {
			return fmt.Errorf("the value of header %q is not valid UTF-8", name)
		}
		headers[strings.ToLower(name)] = v
		name = ""
		value.Reset()
		return nil
	}

	for lineNo, line := range manifestLines(data) {
		if bytes.IndexByte(line, 0) >= 0 {
			return nil, fmt.Errorf("line %d holds a NUL byte", lineNo+1)
		}
		switch {
		case len(line) == 0:
			// A blank line ends the main section; per-entry sections follow.
			return headers, flush()
		case line[0] == ' ':
			if name == "" {
				return nil, fmt.Errorf("line %d continues a header, but no header came before it", lineNo+1)
			}
			value.Write(line[1:])
		default:
			if err := flush(); err != nil {
				return nil, err
			}
			colon := bytes.Index(line, []byte(": "))
			if colon <= 0 || !validHeaderName(line[:colon]) {
				return nil, fmt.Errorf("invalid header field on line %d", lineNo+1)
			}
			name = string(line[:colon])
			value.Write(line[colon+2:])
		}
	}
	return headers, flush()
}

// manifestLines splits data into lines ended by CRLF, LF or CR, without the
// line breaks. A last line without a break is a line too.
func manifestLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		end := bytes.IndexAny(data, "\r\n")
		if end < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:end])
		if data[end] == '\r' && end+1 < len(data) && data[end+1] == '\n' {
			end++ // CRLF is one break
		}
		data = data[end+1:]
	}
	return lines
}

// validHeaderName reports whether name is a header name as the JAR
// specification defines it: 1 to 70 letters, digits, '-' and '_'.
func validHeaderName(name []byte) bool {
	if len(name) == 0 || len(name) > 70 {
		return false
	}
	for _, c := range name {
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !isAlnum && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// writeManifestHeader appends "name: value" to b, wrapped so that no line
// is longer than 72 bytes: continuation lines start with a space. It never
// splits a UTF-8 character across lines.
func writeManifestHeader(b *bytes.Buffer, name, value string) {
	line := name + ": " + value
	limit := maxManifestLineBytes
	for len(line) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		b.WriteString(line[:cut])
		b.WriteString("\r\n ")
		line = line[cut:]
		limit = maxManifestLineBytes - 1 // the leading space counts
	}
	b.WriteString(line)
	b.WriteString("\r\n")
}
