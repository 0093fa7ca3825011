package watch

import (
	"path/filepath"
	"testing"
)

func TestDefaultMatters(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"runtime/dispatcher/dispatcher.go", true},
		{"runtime/dispatcher/dispatcher_test.go", true},
		{"exercises/m03/exercise.yaml", true},
		{"exercises/m03/expected.txt", true},
		{"exercises/m03/README.md", true},
		{"runtime/jobgraph/testdata/fuzz/FuzzDecode/cycle", true}, // test inputs count, whatever their name
		{"tools/graphs/dot/testdata/pipeline.golden", true},

		{"runtime/rest/openapi.json", false},
		{"runtime/rest/server", false},
		{"runtime/dispatcher/.dispatcher.go.swp", false}, // Vim's swap file
		{"runtime/dispatcher/dispatcher.go.swp", false},  // with 'directory' set to keep it beside the file
		{"runtime/dispatcher/dispatcher.go.swx", false},
		{"runtime/dispatcher/dispatcher.go~", false},            // backup
		{"runtime/dispatcher/4913", false},                      // Vim's probe
		{"runtime/dispatcher/#dispatcher.go#", false},           // Emacs' auto-save
		{"runtime/dispatcher/.#dispatcher.go", false},           // Emacs' lock
		{"runtime/dispatcher/dispatcher.go___jb_tmp___", false}, // JetBrains' safe write
		{"runtime/dispatcher/.hidden.go", false},
		{"runtime/jobgraph/testdata/fuzz/.seed.swp", false},
		{"runtime/jobgraph/testdata/seed~", false},
	}
	for _, tt := range tests {
		path := filepath.FromSlash(tt.path)
		if got := DefaultMatters(path); got != tt.want {
			t.Errorf("DefaultMatters(%q) = %v, want %v", path, got, tt.want)
		}
	}
}
