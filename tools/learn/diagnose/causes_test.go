package diagnose

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package doc lists every name of every cause, as CanonicalCause
// accepts them: a learner reads the list there.
func TestThePackageDocListsEveryNameOfACause(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	for _, c := range Causes() {
		line := regexp.MustCompile(`(?m)^//\t` + regexp.QuoteMeta(string(c)) + ` +(.*)$`).FindSubmatch(doc)
		require.NotNil(t, line, "doc.go lists no names of %s", c)
		listed := strings.Split(string(line[1]), ", ")
		assert.Equal(t, causeAliases[c], listed, "the names of %s in doc.go", c)
	}
}
