package hole

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const source = `package demo

import (
	"errors"
	"fmt"
	"strings"
)

// Checker checks things.
type Checker struct{ limit int }

// Check refuses what is over the limit.
func (c *Checker) Check(s string) error {
	// Empty strings are fine.
	if s == "" {
		return nil
	}
	if len(s) > c.limit { // too long
		return fmt.Errorf("%q is over %d", s, c.limit)
	}
	return errors.New("unchecked")
} // Check ends here

// Upper is untouched by the tests.
func Upper(s string) string { return strings.ToUpper(s) }

type Box[T any] struct{ v T }

func (b *Box[T]) Get() T {
	return b.v
}
`

func TestFindReturnsDeclarationBodyAndLine(t *testing.T) {
	fn, err := Find([]byte(source), "Checker.Check")
	require.NoError(t, err)
	assert.Equal(t, 13, fn.Line)
	assert.True(t, strings.HasPrefix(fn.Decl, "// Check refuses what is over the limit.\nfunc (c *Checker) Check"))
	assert.True(t, strings.HasSuffix(fn.Decl, "return errors.New(\"unchecked\")\n}"))
	assert.Contains(t, fn.Body, "// Empty strings are fine.")

	generic, err := Find([]byte(source), "Box.Get")
	require.NoError(t, err)
	assert.Equal(t, "\n\treturn b.v\n", generic.Body)

	_, err = Find([]byte(source), "Checker.Missing")
	assert.EqualError(t, err, "no function Checker.Missing in the file")
	_, err = Find([]byte(source), "Check") // a method is not a function
	assert.Error(t, err)
}

func TestPunchLeavesTheRestOfTheFileAlone(t *testing.T) {
	punched, err := Punch([]byte(source), "m99", map[string]string{"Checker.Check": "Refuse long strings.\n\nUse c.limit."})
	require.NoError(t, err)
	got := string(punched)

	assert.Contains(t, got, `func (c *Checker) Check(s string) error {
	// Refuse long strings.
	//
	// Use c.limit.
	panic("TODO(m99): write Checker.Check (see exercises/m99/README.md)")
} // Check ends here`)
	assert.NotContains(t, got, "Empty strings are fine", "the body's comments go with the body")
	assert.Contains(t, got, "// Check refuses what is over the limit.", "the doc comment stays")
	assert.NotContains(t, got, `"errors"`, "an import only the body used is dropped")
	assert.NotContains(t, got, `"fmt"`)
	assert.Contains(t, got, `"strings"`, "an import used elsewhere stays")
	assert.True(t, IsPunched(punched, "m99", "Checker.Check"))
	assert.False(t, IsPunched([]byte(source), "m99", "Checker.Check"))
}

func TestReplaceRestoresTheReferenceAndItsImports(t *testing.T) {
	punched, err := Punch([]byte(source), "m99", map[string]string{"Checker.Check": "todo"})
	require.NoError(t, err)
	ref, err := Find([]byte(source), "Checker.Check")
	require.NoError(t, err)
	known, err := Imports([]byte(source))
	require.NoError(t, err)

	restored, err := Replace(punched, map[string]string{"Checker.Check": ref.Body}, known)
	require.NoError(t, err)
	formatted, err := Replace([]byte(source), nil, nil)
	require.NoError(t, err)
	assert.Equal(t, string(formatted), string(restored), "punch then restore must give the file back")
}

// An import of the module that only the hole used comes back in its own
// group after the standard library's, not among them.
func TestReplaceRestoresAModuleImportToItsGroup(t *testing.T) {
	const grouped = `package demo

import (
	"fmt"
	"slices"

	"flinklab/runtime/jobgraph"
)

func Sorted(s []int) []int { slices.Sort(s); return s }

func AllToAll(pattern fmt.Stringer) bool {
	return pattern == jobgraph.AllToAll
}
`
	punched, err := Punch([]byte(grouped), "g99", map[string]string{"AllToAll": "todo"})
	require.NoError(t, err)
	assert.NotContains(t, string(punched), "jobgraph\"", "the import only the hole used is dropped")
	ref, err := Find([]byte(grouped), "AllToAll")
	require.NoError(t, err)
	known, err := Imports([]byte(grouped))
	require.NoError(t, err)

	restored, err := Replace(punched, map[string]string{"AllToAll": ref.Body}, known)
	require.NoError(t, err)
	formatted, err := Replace([]byte(grouped), nil, nil)
	require.NoError(t, err)
	assert.Equal(t, string(formatted), string(restored))
}

func TestReplaceSplicesSeveralBodies(t *testing.T) {
	got, err := Replace([]byte(source), map[string]string{
		"Checker.Check": "\n\treturn nil\n",
		"Upper":         " return s ",
	}, nil)
	require.NoError(t, err)
	assert.Contains(t, string(got), "func (c *Checker) Check(s string) error {\n\treturn nil\n}")
	assert.Contains(t, string(got), "func Upper(s string) string { return s }")
	assert.NotContains(t, string(got), "import", "no import is used any more")

	_, err = Replace([]byte(source), map[string]string{"Checker.Check": "\n\treturn nil }\n"}, nil)
	assert.ErrorContains(t, err, "the spliced file does not parse")
}
