package lint

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	// atxHeading matches "## Title", with an optional closing run of #.
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	// setextUnderline matches the "===" or "---" line under a heading.
	setextUnderline = regexp.MustCompile(`^ {0,3}(?:=+|-+)[ \t]*$`)
	// listOrQuote matches a line that starts a list item or a block quote;
	// a "---" under one of them is a rule, not a heading underline.
	listOrQuote = regexp.MustCompile(`^ {0,3}(?:[-*+>]|\d+[.)])(?:[ \t]|$)`)
	// explicitAnchor matches <a id="x"> and <a name="x">.
	explicitAnchor = regexp.MustCompile(`<a\s[^>]*?\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	// inlineLink matches a link or image, to keep only its text.
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	// htmlTag matches an HTML tag, which a heading's anchor leaves out.
	htmlTag = regexp.MustCompile(`<[^>]+>`)
)

// findAnchors returns every fragment that a link into this file may name:
// the GitHub anchor of each heading and each explicit <a id> or <a name>.
func findAnchors(src string, prose []span) map[string]bool {
	anchors := map[string]bool{}
	// repeats counts, for each heading anchor, the headings after the first
	// that wanted it; they get -1, -2, … as on GitHub.
	repeats := map[string]int{}
	addHeading := func(title string) {
		slug := githubSlug(title)
		anchor := slug
		for _, taken := repeats[anchor]; taken; _, taken = repeats[anchor] {
			repeats[slug]++
			anchor = slug + "-" + strconv.Itoa(repeats[slug])
		}
		repeats[anchor] = 0
		anchors[anchor] = true
	}
	for i, l := range prose {
		line := l.text(src)
		for _, m := range explicitAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]+m[2]] = true
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			addHeading(m[1])
			continue
		}
		if i > 0 && setextUnderline.MatchString(line) && isSetextTitle(src, prose[i-1], l) {
			addHeading(strings.TrimSpace(prose[i-1].text(src)))
		}
	}
	return anchors
}

// isSetextTitle reports whether title, the line just above underline, is the
// text of a setext heading.
func isSetextTitle(src string, title, underline span) bool {
	text := title.text(src)
	return onlyLineEndingBetween(src, title.end, underline.start) &&
		strings.TrimSpace(text) != "" &&
		!atxHeading.MatchString(text) &&
		!listOrQuote.MatchString(text)
}

// githubSlug returns the anchor GitHub gives a heading: the heading's text
// (links and HTML reduced to their text) in lower case, every character
// but letters, digits, '-' and '_' dropped, each space turned into '-'.
// GitHub adds -1, -2, … to repeated headings; findAnchors does that.
func githubSlug(heading string) string {
	text := inlineLink.ReplaceAllString(heading, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
