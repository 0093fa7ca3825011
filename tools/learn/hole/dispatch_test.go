package hole

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shapes a hole comes in: a method with an unnamed receiver and an
// unnamed parameter, a generic function, a variadic function, a function
// without results that calls itself.
const dispatched = `package main

import (
	"fmt"
	"strings"
)

type Strategy struct{}

func (Strategy) Pick(_ int, names []string) string { return names[0] }

func First[V any](values []V) V { return values[0] }

func Join(sep string, parts ...string) string { return strings.Join(parts, sep) }

func Count(n int, out *[]int) {
	if n == 0 {
		return
	}
	*out = append(*out, n)
	Count(n-1, out)
}

func main() {
	var counted []int
	Count(3, &counted)
	fmt.Println(Strategy{}.Pick(0, []string{"a", "b"}), First([]int{1, 2}), Join("-", "x", "y"), counted)
}
`

func TestDispatchRunsTheVariantTheEnvironmentNames(t *testing.T) {
	src := []byte(dispatched)
	known, err := Imports(src)
	require.NoError(t, err)
	for name, variants := range map[string]map[string]string{
		"Strategy.Pick": {"1": "\n\treturn names[len(names)-1]\n"},
		"First":         {"1": "\n\treturn values[len(values)-1]\n"},
		"Join":          {"1": "\n\treturn strings.ToUpper(strings.Join(parts, sep))\n"},
		"Count":         {"1": "\n\tif n == 0 {\n\t\treturn\n\t}\n\t*out = append(*out, 10*n)\n\tCount(n-1, out)\n"},
	} {
		src, err = Dispatch(src, name, variants, "VARIANT", known)
		require.NoError(t, err, name)
	}

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644))
	run := func(variant string) string {
		cmd := exec.Command("go", "run", "main.go")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "VARIANT="+variant, "GOFLAGS=-mod=mod", "GO111MODULE=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s\n%s", out, src)
		return strings.TrimSpace(string(out))
	}
	assert.Equal(t, "a 1 x-y [3 2 1]", run(""), "no variant named: the function's own body")
	assert.Equal(t, "b 2 X-Y [30 20 10]", run("1"), "variant 1 of every function, recursion included")
}
