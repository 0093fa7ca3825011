// Package svg renders DOT text to SVG with github.com/goccy/go-graphviz
// (Graphviz compiled to WASM, run by wazero). It is the only package of
// flinklab that imports go-graphviz, and only the tools/graphs command
// imports it: the library's init compiles its WASM module in every binary
// that links it (about 0.4 s on a cold cache), so it stays out of runtime/
// and of the exercise test binaries.
//
// The rules from ../shared/notes/tooling.md §1: SVG only (its PNG output is
// broken); one process-wide mutex, because the whole process shares one
// WASM instance; render into a buffer, never RenderFilename, whose failure
// kills the WASM module for the rest of the process. Each render leaks about
// half a megabyte of WASM memory, so render from short-lived commands.
package svg

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/goccy/go-graphviz"
)

// mu serialises every use of go-graphviz in the process.
var mu sync.Mutex

// Render lays out the DOT graph with Graphviz's dot engine and returns it
// as SVG. A DOT syntax error is returned as an error.
func Render(dot []byte) ([]byte, error) {
	mu.Lock()
	defer mu.Unlock()

	ctx := context.Background()
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("svg: %w", err)
	}
	defer gv.Close()
	g, err := graphviz.ParseBytes(dot)
	if err != nil {
		return nil, fmt.Errorf("svg: parse DOT: %w", err)
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := gv.Render(ctx, g, graphviz.SVG, &buf); err != nil {
		return nil, fmt.Errorf("svg: render: %w", err)
	}
	return buf.Bytes(), nil
}
