package dot

import (
	"strings"
	"unicode/utf8"
)

// quote returns s as a DOT double-quoted string. Inside the quotes a
// backslash becomes `\\` and a double quote `\"`; a newline becomes DOT's
// `\n` (a centred line break in a label), and a carriage return is dropped,
// so "a\r\nb" is two lines as well. Invalid UTF-8 becomes U+FFFD, because
// Graphviz reads its input as UTF-8.
func quote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// chainLines splits a chained vertex name, "Source: in -> Map -> Sink",
// into its operator names, one per line of a label.
func chainLines(name string) string {
	return strings.ReplaceAll(name, " -> ", "\n")
}

// maxMessageRunes is how long a message of the sequence diagram may be
// before shorten cuts it.
const maxMessageRunes = 60

// shorten cuts s to at most max runes, ending it with "…" when it had to
// cut, and turns every line break into a space.
func shorten(s string, max int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:max-1]), " ") + "…"
}

// wrap breaks s into lines of at most width runes, between words; a word
// longer than width is a line of its own.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// mermaidText makes s safe as the text of a Mermaid message or participant
// alias. Mermaid ends a statement at a newline or ';', starts an entity code
// at '#' and a comment at "%%", and reads '<' (a tag such as <br>) and '&'
// (an entity) as HTML; each of these becomes an entity code (#59; #35; #37;
// #lt; #amp;), which Mermaid renders as the character itself. '>' alone is
// harmless and stays, so "a -> b" reads as written. Line breaks become
// spaces.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch r {
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case ';':
			b.WriteString("#59;")
		case '#':
			b.WriteString("#35;")
		case '%':
			b.WriteString("#37;")
		case '<':
			b.WriteString("#lt;")
		case '&':
			b.WriteString("#amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// htmlText makes s safe inside an HTML-like label of Graphviz ("<b>…</b>"
// in label=<…>): '&', '<', '>' and '"' become entities, so "a -> b" reads
// as written; line breaks become spaces, and invalid UTF-8 becomes U+FFFD.
func htmlText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
