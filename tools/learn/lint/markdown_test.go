package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinksFound(t *testing.T) {
	tests := []struct {
		name     string
		markdown string
		want     []string // each link's target
	}{
		{"inline link", "See [x](a.md).", []string{"a.md"}},
		{"image", "![flow](d.svg)", []string{"d.svg"}},
		{"image inside a link", "[![flow](d.svg)](d.md)", []string{"d.md", "d.svg"}},
		{"code text", "[`Dispatcher.submitJob`](d.go#L42)", []string{"d.go#L42"}},
		{"brackets in code text", "[`m[k]`](a.go)", []string{"a.go"}},
		{"balanced brackets in text", "[a [b] c](a.md)", []string{"a.md"}},
		{"title", `[x](a.md "A title") [y](b.md 'single') [z](c.md (paren))`, []string{"a.md", "b.md", "c.md"}},
		{"angle brackets", "[x](<a b.md>)", []string{"a b.md"}},
		{"parentheses in target", "[x](a_(b).md)", []string{"a_(b).md"}},
		{"wrapped text", "[the\nDispatcher](a.md)", []string{"a.md"}},
		{"wrapped target", "[x](\n  a.md)", []string{"a.md"}},
		{"reference definition", "[label]: a.md\n[`Name`]: <b.go#L3> \"title\"", []string{"a.md", "b.go#L3"}},
		{"empty target", "[x]()", []string{""}},

		{"escaped bracket", `\[x](a.md)`, nil},
		{"inline code", "`[x](a.md)` and ``[`y`](b.md)``", nil},
		{"unclosed backtick is text", "a ` b [x](a.md)", []string{"a.md"}},
		{"space before parenthesis", "[x] (a.md)", nil},
		{"reference use", "[x][label] and [x][] and [x]", nil},
		{"footnote", "[^1]: a note\nText[^1].", nil},
		{"text after target", "[x](a.md b.md)", nil},
		{"fenced code", "```go\n[x](a.md)\n```\n[y](b.md)", []string{"b.md"}},
		{"tilde fence holds a backtick fence", "~~~\n```\n[x](a.md)\n~~~\n[y](b.md)", []string{"b.md"}},
		{"longer closing fence", "````\n```\n[x](a.md)\n`````\n[y](b.md)", []string{"b.md"}},
		{"indented fence", "1. step\n   ```\n   [x](a.md)\n   ```\n", nil},
		{"unclosed fence", "```\n[x](a.md)", nil},
		{"three backticks inline", "```[x](a.md)```", nil},
		{"blank line ends a link", "[x\n\n](a.md)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range parseDocument(tt.markdown).links {
				got = append(got, l.target)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLinkPositions(t *testing.T) {
	doc := parseDocument("# Title\r\n\r\nSee\n[`x`](\n  a.go#L3 \"t\").\n[y]: <b.md>\n")
	require.Len(t, doc.links, 2)

	inline := doc.links[0]
	assert.Equal(t, "[`x`](\n  a.go#L3 \"t\")", inline.written)
	assert.Equal(t, "`x`", inline.text)
	assert.Equal(t, 4, doc.lineOf(inline.at))
	assert.Equal(t, 5, doc.lineOf(inline.targetAt))
	assert.Equal(t, "a.go#L3", doc.src[inline.targetAt:inline.targetAt+len(inline.target)])

	definition := doc.links[1]
	assert.Equal(t, "[y]: <b.md>", definition.written)
	assert.Equal(t, 6, doc.lineOf(definition.at))
	assert.Equal(t, "b.md", doc.src[definition.targetAt:definition.targetAt+len(definition.target)])
}

func TestGithubSlug(t *testing.T) {
	tests := []struct {
		heading string
		want    string
	}{
		{"JobManager anatomy", "jobmanager-anatomy"},
		{"Step m3: `submitJob`", "step-m3-submitjob"},
		{"Slots, slot sharing & co-location", "slots-slot-sharing--co-location"},
		{"What's a JobID?", "whats-a-jobid"},
		{"snake_case and kebab-case", "snake_case-and-kebab-case"},
		{"[The Dispatcher](../runtime/dispatcher/dispatcher.go)", "the-dispatcher"},
		{"Heartbeats <em>and</em> timeouts", "heartbeats-and-timeouts"},
		{"Schritt 3: Überblick", "schritt-3-überblick"},
		{"m1 → m11", "m1--m11"},
	}
	for _, tt := range tests {
		t.Run(tt.heading, func(t *testing.T) {
			assert.Equal(t, tt.want, githubSlug(tt.heading))
		})
	}
}

func TestAnchors(t *testing.T) {
	doc := parseDocument(`# Notes
## Notes ##
### Notes
## Notes-1

Setext title
============

Another one
---

- a list item
---

<a id="explicit"></a> and <a name='named'>here</a>

` + "```" + `
# Not a heading
<a id="in-code"></a>
` + "```\n")

	want := []string{"notes", "notes-1", "notes-2", "notes-1-1", "setext-title", "another-one", "explicit", "named"}
	var got []string
	for a := range doc.anchors {
		got = append(got, a)
	}
	assert.ElementsMatch(t, want, got)
}

func TestParseSymbol(t *testing.T) {
	tests := []struct {
		text string
		want []meaning // nil: not a symbol
	}{
		{"`New`", []meaning{{name: "New"}}},
		{"`New()`", []meaning{{name: "New"}}},
		{"`` New ``", []meaning{{name: "New"}}},
		{"`Dispatcher.submitJob`", []meaning{{typ: "Dispatcher", name: "submitJob"}, {pkg: "Dispatcher", name: "submitJob"}}},
		{"`dispatcher.Dispatcher.submitJob()`", []meaning{{pkg: "dispatcher", typ: "Dispatcher", name: "submitJob"}}},
		{"`(*Endpoint).Start`", []meaning{{typ: "Endpoint", name: "Start"}}},
		{"`(Endpoint).Start()`", []meaning{{typ: "Endpoint", name: "Start"}}},
		{"`(*rpc.Endpoint).Start`", []meaning{{pkg: "rpc", typ: "Endpoint", name: "Start"}}},

		{"New", nil},                        // no backticks
		{"the `New` function", nil},         // more than a code span
		{"`dispatcher.go`", nil},            // a file: "go" is a keyword
		{"`go test ./...`", nil},            // a command
		{"`a.b.c.d`", nil},                  // too many parts
		{"`(*Endpoint)`", nil},              // no method
		{"`New` and `Old`", nil},            // two code spans
		{"`Dispatcher.submitJob(id)`", nil}, // a call with arguments
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			s, ok := parseSymbol(tt.text)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, s.meanings)
		})
	}
}
