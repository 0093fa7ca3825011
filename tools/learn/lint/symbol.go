package lint

import (
	"go/token"
	"regexp"
	"strings"
)

// symbol is a Go name as a lesson writes it in a link's text, between
// backticks: "Dispatcher.submitJob", "dispatcher.New()",
// "(*Endpoint).Start".
type symbol struct {
	written string // between the backticks: "Dispatcher.submitJob()"
	// meanings are what the name may stand for, most likely first:
	// "a.B" is the member B of type a, or B in package a.
	meanings []meaning
}

// meaning is one reading of a symbol.
type meaning struct {
	pkg  string // the package name it is qualified with, or ""
	typ  string // the type whose method or field it is, or "" at package level
	name string // the func, type, const, var, method or field
}

// methodExpression matches "(*Type).Method" and "(Type).Method", the type
// optionally qualified: "(*rpc.Endpoint).Start".
var methodExpression = regexp.MustCompile(`^\(\*?([^()*]+)\)\.([^().]+)$`)

// parseSymbol reads the symbol in a link's text. The text must be one code
// span and nothing else; ok is false when it is not, or when what is
// inside is not a Go name ("go test ./...", "dispatcher.go").
func parseSymbol(text string) (s symbol, ok bool) {
	inner, ok := codeSpanContent(text)
	if !ok {
		return symbol{}, false
	}
	s.written = inner
	name := strings.TrimSuffix(inner, "()")

	if m := methodExpression.FindStringSubmatch(name); m != nil {
		parts, ok := identifiers(m[1] + "." + m[2])
		switch {
		case !ok:
			return symbol{}, false
		case len(parts) == 2:
			s.meanings = []meaning{{typ: parts[0], name: parts[1]}}
		case len(parts) == 3:
			s.meanings = []meaning{{pkg: parts[0], typ: parts[1], name: parts[2]}}
		default:
			return symbol{}, false
		}
		return s, true
	}

	parts, ok := identifiers(name)
	if !ok {
		return symbol{}, false
	}
	switch len(parts) {
	case 1:
		s.meanings = []meaning{{name: parts[0]}}
	case 2:
		s.meanings = []meaning{
			{typ: parts[0], name: parts[1]},
			{pkg: parts[0], name: parts[1]},
		}
	case 3:
		s.meanings = []meaning{{pkg: parts[0], typ: parts[1], name: parts[2]}}
	default:
		return symbol{}, false
	}
	return s, true
}

// codeSpanContent returns what is inside text when text is exactly one code
// span, between runs of one backtick or more.
func codeSpanContent(text string) (string, bool) {
	n := countRun(text, 0, '`')
	if n == 0 || len(text) <= 2*n || text[len(text)-n:] != text[:n] || text[len(text)-n-1] == '`' {
		return "", false
	}
	inner := text[n : len(text)-n]
	if strings.Contains(inner, text[:n]) {
		return "", false
	}
	return strings.TrimSpace(inner), true
}

// identifiers splits a dotted name into Go identifiers, or reports false
// when a part is not one (keywords included: "dispatcher.go" is a file).
func identifiers(name string) ([]string, bool) {
	parts := strings.Split(name, ".")
	for _, p := range parts {
		if !token.IsIdentifier(p) {
			return nil, false
		}
	}
	return parts, true
}
