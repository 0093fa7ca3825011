package lint

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenFixed holds, for each markdown file Fix rewrites in the fixture,
// the file as it must read afterwards.
const goldenFixed = "testdata/fixed"

func TestFix(t *testing.T) {
	root := copyFixture(t)
	before, err := Check(root)
	require.NoError(t, err)

	fixed, remaining, err := Fix(root)
	require.NoError(t, err)

	// Fix repairs exactly the stale anchors and moved symbols…
	var wantFixed, wantRemaining []Problem
	for _, p := range before {
		if isFixable(p) {
			wantFixed = append(wantFixed, p)
		} else {
			wantRemaining = append(wantRemaining, p)
		}
	}
	assert.Equal(t, wantFixed, fixed)
	assert.Equal(t, wantRemaining, remaining)
	assert.Len(t, fixed, 12)

	// …and afterwards Check finds what Fix said it could not fix, and no
	// code link that points at the wrong line or file.
	after, err := Check(root)
	require.NoError(t, err)
	assert.Equal(t, remaining, after)
	for _, p := range after {
		assert.False(t, isFixable(p), "still broken after Fix: %s", p)
	}

	// The rewritten files read as the golden ones, byte for byte; every
	// other file is untouched; no temporary file is left behind.
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		rel := relSlash(t, root, path)
		assert.False(t, strings.HasSuffix(rel, ".tmp"), "left behind: %s", rel)
		want, err := os.ReadFile(filepath.Join(goldenFixed, filepath.FromSlash(rel)))
		if os.IsNotExist(err) {
			want, err = os.ReadFile(filepath.Join(fixture, filepath.FromSlash(rel)))
		}
		require.NoError(t, err, rel)
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), rel)
		return nil
	})
	require.NoError(t, err)
}

func TestFixTwiceChangesNothing(t *testing.T) {
	root := copyFixture(t)
	_, remaining, err := Fix(root)
	require.NoError(t, err)

	fixed, remainingAgain, err := Fix(root)
	require.NoError(t, err)
	assert.Empty(t, fixed)
	assert.Equal(t, remaining, remainingAgain)
}

func TestFixKeepsLineEndings(t *testing.T) {
	root := copyFixture(t)
	writeFile(t, root, "lessons/03-windows.md",
		"# Windows\r\n\r\n[`New`](../runtime/dispatcher/dispatcher.go#L1)\r\nand [`New`](../runtime/dispatcher/dispatcher.go#L28).\r\n")

	_, _, err := Fix(root)
	require.NoError(t, err)

	got, err := os.ReadFile(filepath.Join(root, "lessons", "03-windows.md"))
	require.NoError(t, err)
	assert.Equal(t,
		"# Windows\r\n\r\n[`New`](../runtime/dispatcher/dispatcher.go#L28)\r\nand [`New`](../runtime/dispatcher/dispatcher.go#L28).\r\n",
		string(got))
}

func TestFixKeepsPermissions(t *testing.T) {
	root := copyFixture(t)
	lesson := filepath.Join(root, "lessons", "02-broken.md")
	require.NoError(t, os.Chmod(lesson, 0o640))

	_, _, err := Fix(root)
	require.NoError(t, err)

	info, err := os.Stat(lesson)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), info.Mode().Perm())
}

// isFixable reports whether p is a code link that Fix repairs: a stale
// line anchor or a symbol that moved to another file of its package.
func isFixable(p Problem) bool {
	return strings.Contains(p.Message, " is declared at line ") || strings.Contains(p.Message, " is declared in ")
}

// relSlash returns path relative to root, slash-separated.
func relSlash(t *testing.T, root, path string) string {
	t.Helper()
	rel, err := filepath.Rel(root, path)
	require.NoError(t, err)
	return filepath.ToSlash(rel)
}
