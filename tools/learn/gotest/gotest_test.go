package gotest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReadsTestsOutputAndOutcome(t *testing.T) {
	stream := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"run","Package":"p","Test":"TestB/one"}`,
		`{"Action":"output","Package":"p","Test":"TestB/one","Output":"    b_test.go:9: wrong\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestB/one"}`,
		`{"Action":"fail","Package":"p","Test":"TestB"}`,
		`not json at all`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	r := parse([]byte(stream))

	require.Len(t, r.Tests, 3)
	assert.False(t, r.Passed)
	assert.False(t, r.Crashed)
	assert.Equal(t, "pass", r.Test("TestA").Action)
	assert.Equal(t, "TestB/one", r.FirstFailure().Name, "the most specific failure")
	assert.Equal(t, []string{"    b_test.go:9: wrong"}, r.Test("TestB/one").Output)
}

func TestParseNoticesACrash(t *testing.T) {
	stream := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"panic: TODO(m03): write it\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestA"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	r := parse([]byte(stream))
	assert.True(t, r.Crashed)
	assert.Equal(t, "TestA", r.FirstFailure().Name)
}

// go test says "ok" for a -run pattern that matches no test, and for a
// package whose every test skips; neither proves an exercise passes.
func TestParseAPackageWithoutAPassingTestHasNotPassed(t *testing.T) {
	noTests := parse([]byte(strings.Join([]string{
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.002s [no tests to run]\n"}`,
		`{"Action":"pass","Package":"p"}`,
	}, "\n")))
	assert.False(t, noTests.Passed, "no test ran")
	assert.True(t, noTests.NoTests)

	allSkipped := parse([]byte(strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"skip","Package":"p","Test":"TestA"}`,
		`{"Action":"pass","Package":"p"}`,
	}, "\n")))
	assert.False(t, allSkipped.Passed, "every test skipped")

	onePassed := parse([]byte(strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"skip","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"pass","Package":"p"}`,
	}, "\n")))
	assert.True(t, onePassed.Passed)
	assert.False(t, onePassed.NoTests)
}
