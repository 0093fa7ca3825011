package lint

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a small repository: runtime/dispatcher and runtime/rpc hold
// Go declarations at known lines; lessons/01-good.md and the files it links
// to have only good links, lessons/02-broken.md has a broken link of every
// kind. Markdown files that Check must not read (exercises/m01/notes.md,
// exercises/README.md, solutions/m01/extra/deep.md) have broken links too.
const fixture = "testdata/repo"

// brokenLinks are the problems in the fixture, in the order Check reports
// them.
var brokenLinks = []struct {
	name    string
	file    string
	line    int
	message string
}{
	{"heading missing in another lesson", "exercises/m01/README.md", 5, "lessons/01-good.md has no heading or anchor #step-m4"},

	{"method line drifted", "lessons/02-broken.md", 5, "Dispatcher.submitJob is declared at line 35, not 30"},
	{"qualified type line drifted", "lessons/02-broken.md", 6, "dispatcher.Dispatcher is declared at line 14, not 13"},
	{"field line drifted", "lessons/02-broken.md", 7, "Dispatcher.jobs is declared at line 15, not 16"},
	{"anchor on the doc comment", "lessons/02-broken.md", 8, "New is declared at line 28, not 27"},
	{"range drifted", "lessons/02-broken.md", 9, "New is declared at line 28, not 26"},
	{"const line drifted", "lessons/02-broken.md", 10, "MaxJobs is declared at line 8, not 9"},
	{"var line drifted, same line", "lessons/02-broken.md", 10, "ErrDuplicateJob is declared at line 11, not 12"},
	{"wrapped link with a title", "lessons/02-broken.md", 11, "Dispatcher.submitJob is declared at line 35, not 1"},
	{"reference definition drifted", "lessons/02-broken.md", 15, "Gateway.SubmitJob is declared at line 24, not 25"},
	{"method moved to another file", "lessons/02-broken.md", 19, "Dispatcher.checkAndSubmit is declared in runtime/dispatcher/submit.go at line 4, not in dispatcher.go"},
	{"func moved, no anchor", "lessons/02-broken.md", 20, "jobCount is declared in runtime/dispatcher/submit.go, not in dispatcher.go"},
	{"type lacks the method", "lessons/02-broken.md", 24, "Dispatcher has no method or field cancelJob"},
	{"name declared nowhere", "lessons/02-broken.md", 25, "Cancel is not declared in package dispatcher (runtime/dispatcher)"},
	{"external tests are another package", "lessons/02-broken.md", 26, "onlyInExternalTests is not declared in package dispatcher (runtime/dispatcher)"},
	{"wrong package", "lessons/02-broken.md", 27, "runtime/dispatcher/dispatcher.go is in package dispatcher, not rpc"},
	{"Go file missing", "lessons/02-broken.md", 28, "runtime/dispatcher/gone.go does not exist"},
	{"not a line anchor", "lessons/02-broken.md", 29, "#New is not a line anchor such as #L42"},
	{"line past the end", "lessons/02-broken.md", 33, "line 99 is past the end of runtime/dispatcher/dispatcher.go (40 lines)"},
	{"lesson missing", "lessons/02-broken.md", 34, "lessons/03-missing.md does not exist"},
	{"image missing", "lessons/02-broken.md", 35, "diagrams/missing.svg does not exist"},
	{"heading missing in another file", "lessons/02-broken.md", 36, "lessons/01-good.md has no heading or anchor #no-such-heading"},
	{"heading missing in this file", "lessons/02-broken.md", 37, "this file has no heading or anchor #nowhere"},
	{"anchor in capitals", "lessons/02-broken.md", 37, "this file has no heading or anchor #Broken-links; heading anchors are lower case: #broken-links"},
	{"outside the repository", "lessons/02-broken.md", 38, "../../outside.md points outside the repository"},
	{"empty target", "lessons/02-broken.md", 39, "the link has no target"},

	{"solution line drifted", "solutions/m01/walkthrough.md", 3, "Dispatcher.submitJob is declared at line 35, not 33"},
}

func TestCheck(t *testing.T) {
	got, err := Check(fixture)
	require.NoError(t, err)
	require.Len(t, got, len(brokenLinks), "problems:\n%s", listed(got))

	for i, want := range brokenLinks {
		t.Run(want.name, func(t *testing.T) {
			assert.Equal(t, want.file, got[i].File)
			assert.Equal(t, want.line, got[i].Line)
			assert.Equal(t, want.message, got[i].Message)
		})
	}
}

func TestCheckReportsLinksAsWritten(t *testing.T) {
	problems, err := Check(fixture)
	require.NoError(t, err)

	tests := []struct {
		name string
		line int
		want string
	}{
		{"inline link", 5, "[`Dispatcher.submitJob`](../runtime/dispatcher/dispatcher.go#L30)"},
		{"wrapped link on one line", 11, "[`Dispatcher.submitJob()`]( ../runtime/dispatcher/dispatcher.go#L1 \"wrapped\")"},
		{"reference definition", 15, "[`Gateway.SubmitJob`]: ../runtime/dispatcher/dispatcher.go#L25"},
		{"image", 35, "![a diagram](../diagrams/missing.svg)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := problemAt(t, problems, "lessons/02-broken.md", tt.line)
			assert.Equal(t, tt.want, p.Link)
		})
	}
}

func TestProblemString(t *testing.T) {
	p := Problem{
		File:    "lessons/01-x.md",
		Line:    12,
		Link:    "[`Dispatcher.submitJob`](../runtime/dispatcher/dispatcher.go#L42)",
		Message: "Dispatcher.submitJob is declared at line 120, not 42",
	}
	assert.Equal(t,
		"lessons/01-x.md:12: [`Dispatcher.submitJob`](../runtime/dispatcher/dispatcher.go#L42): Dispatcher.submitJob is declared at line 120, not 42",
		p.String())
}

func TestCheckGoFileThatDoesNotParse(t *testing.T) {
	root := copyFixture(t)
	writeFile(t, root, "runtime/broken/broken.go", "package broken\n\nfunc Broken( {\n")
	writeFile(t, root, "lessons/03-parse.md", "See [`Broken`](../runtime/broken/broken.go#L3).\n")

	problems, err := Check(root)
	require.NoError(t, err)

	p := problemAt(t, problems, "lessons/03-parse.md", 1)
	assert.Equal(t, "runtime/broken/broken.go does not parse: line 3:14: expected ')', found '{'", p.Message)
}

// The course map, lessons/README.md, is a lesson like any other to Check:
// a link to a lesson that is only planned is a broken link.
func TestCheckReadsTheCourseMap(t *testing.T) {
	root := copyFixture(t)
	writeFile(t, root, "lessons/README.md", "# The course map\n\n"+
		"| [01](01-good.md) | available |\n"+
		"| [01b](01b-coming.md) | coming |\n")

	problems, err := Check(root)
	require.NoError(t, err)

	p := problemAt(t, problems, "lessons/README.md", 4)
	assert.Equal(t, "lessons/01b-coming.md does not exist", p.Message)
	for _, p := range problems {
		assert.False(t, p.File == "lessons/README.md" && p.Line == 3, "the link to an available lesson resolves: %s", p)
	}
}

func TestCheckEmptyRepository(t *testing.T) {
	problems, err := Check(t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestCheckFailsOnlyWhenItCannotRead(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "lessons"), 0o755))
	require.NoError(t, os.Symlink("nowhere.md", filepath.Join(root, "lessons", "01-dangling.md")))

	_, err := Check(root)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// copyFixture copies the fixture repository into a fresh folder.
func copyFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(fixture)))
	return root
}

// writeFile writes a file under root, creating its folders.
func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// problemAt returns the first problem at file:line.
func problemAt(t *testing.T, problems []Problem, file string, line int) Problem {
	t.Helper()
	for _, p := range problems {
		if p.File == file && p.Line == line {
			return p
		}
	}
	require.Failf(t, "no problem", "at %s:%d; problems:\n%s", file, line, listed(problems))
	return Problem{}
}

// listed returns the problems one per line, for failure messages.
func listed(problems []Problem) string {
	var s string
	for _, p := range problems {
		s += p.String() + "\n"
	}
	return s
}
