// Command graphs draws a program's StreamGraph and JobGraph, as SVG (the
// default), as DOT, or its submission sequence as Mermaid:
//
//	go run ./tools/graphs wordcount                  # wordcount-streamgraph.svg, wordcount-jobgraph.svg
//	go run ./tools/graphs -format dot -p 2 wordcount # the DOT sources, at parallelism 2
//	go run ./tools/graphs -format mermaid wordcount  # wordcount-sequence.mmd, from a MiniCluster run
//	go run ./tools/graphs -o out/ path/to/job.jar    # the jar's Program-Class
//	go run ./tools/graphs -diagrams diagrams         # what `make diagrams` runs
//
// PROGRAM is a registered example program (wordcount, ticker); a path ending
// in ".jar" is opened as a job jar and its Program-Class planned. The
// arguments after it are the program's. The DOT and Mermaid come from
// package diagrams (and package dot), which need no Graphviz; SVG is
// rendered by package svg, the only importer of go-graphviz.
//
// Package dot draws no StreamGraph or JobGraph as Mermaid, so -format
// mermaid writes nothing else but the submission sequence. Drawing a job on
// a running cluster (-m host:port -job JOBID) is not implemented yet.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"flinklab/tools/graphs/diagrams"
	"flinklab/tools/graphs/svg"
)

const usage = `usage: go run ./tools/graphs [-o DIR] [-format svg|dot|mermaid] [-p N] PROGRAM|JAR [args]
       go run ./tools/graphs -diagrams DIR

Writes <name>-streamgraph.<ext> and <name>-jobgraph.<ext> to DIR for svg and
dot; for mermaid it writes only <name>-sequence.mmd, the submission sequence
of a run on a MiniCluster (no StreamGraph or JobGraph as Mermaid).
-diagrams DIR regenerates the committed diagrams (make diagrams).
Not yet: -m host:port -job JOBID (a job on a running cluster).

`

func main() {
	outDir := flag.String("o", ".", "directory to write the files to")
	format := flag.String("format", "svg", "svg, dot or mermaid")
	parallelism := flag.Int("p", 0, "default parallelism of the program (0: the program's own)")
	diagramsDir := flag.String("diagrams", "", "regenerate the committed diagrams into this directory")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()

	var err error
	switch {
	case *diagramsDir != "":
		err = writeDiagrams(*diagramsDir)
	case flag.NArg() == 0:
		flag.Usage()
		os.Exit(2)
	default:
		err = run(*outDir, *format, *parallelism, flag.Arg(0), flag.Args()[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "graphs:", err)
		os.Exit(1)
	}
}

func run(outDir, format string, parallelism int, program string, args []string) error {
	plan, err := diagrams.PlanProgram(program, args, parallelism)
	if err != nil {
		return err
	}
	files := plan.DOT()
	switch format {
	case "dot":
	case "svg":
		if files, err = renderSVG(files); err != nil {
			return err
		}
	case "mermaid":
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sequence, err := plan.Sequence(ctx)
		if err != nil {
			return err
		}
		files = map[string][]byte{plan.SequenceFile(): sequence}
	default:
		return fmt.Errorf("unknown -format %q: want svg, dot or mermaid", format)
	}
	return writeFiles(outDir, files)
}

// writeDiagrams writes the committed diagrams (diagrams.Generate) to dir,
// and an SVG next to every DOT file.
func writeDiagrams(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	files, err := diagrams.Generate(ctx)
	if err != nil {
		return err
	}
	dotFiles := make(map[string][]byte)
	for name, data := range files {
		if strings.HasSuffix(name, ".dot") {
			dotFiles[name] = data
		}
	}
	svgs, err := renderSVG(dotFiles)
	if err != nil {
		return err
	}
	for name, data := range svgs {
		files[name] = data
	}
	return writeFiles(dir, files)
}

// renderSVG renders every DOT file to <name>.svg.
func renderSVG(dotFiles map[string][]byte) (map[string][]byte, error) {
	out := make(map[string][]byte, len(dotFiles))
	for name, data := range dotFiles {
		image, err := svg.Render(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[strings.TrimSuffix(name, ".dot")+".svg"] = image
	}
	return out, nil
}

// writeFiles writes files to dir, creating it, and prints each path.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(path)
	}
	return nil
}
