// Package lint checks the links in flinklab's lessons, so that lessons
// never rot while the runtime changes under them, and the step markers of
// the exercises' holes. It is the checker behind `learn lint` and
// `learn lint --fix`.
//
// # What it reads
//
// Every markdown file under lessons/ (in any folder), the course map
// lessons/README.md among them, every exercise's README
// (exercises/*/README.md) and every solution walkthrough
// (solutions/*/*.md). Links inside fenced code blocks (``` or ~~~) and
// inside inline code spans are examples, not links, and are skipped. Links
// to other sites (https:, mailto:) are not checked.
//
// # Code links
//
// A lesson points at the code it talks about with a link whose text is a
// Go name in backticks and whose target is a Go file, usually with the line
// of the declaration:
//
//	[`Dispatcher.submitJob`](../runtime/dispatcher/dispatcher.go#L42)
//	[`dispatcher.Dispatcher`](../runtime/dispatcher/dispatcher.go#L30)
//	[`NewEndpoint`](../../runtime/rpc/endpoint.go#L54)
//
// The name may be a package-level func, type, const or var (NewEndpoint),
// a method or struct field (Dispatcher.submitJob), or an interface method;
// it may be qualified by its package name (dispatcher.Dispatcher), end in
// "()" (Dispatcher.submitJob()) or be written as a method expression
// ((*Endpoint).Start). For each code link, Check makes sure that
//
//  1. the Go file exists and parses;
//  2. the file's package declares the name, in that very file;
//  3. the anchor, if there is one, is the line of the declaration: the line
//     of "func" for a function or method (not its doc comment), of the name
//     for a type, const, var, struct field or interface method. A range
//     (#L42-L50) is checked by its first line.
//
// When the name is declared in another file of the same folder, the
// problem names that file. A link to a Go file whose text is not a Go name
// in backticks ([dispatcher.go](...)) is an ordinary link; its line anchor
// must only be inside the file.
//
// Only the linked file is parsed, with go/parser, and the other files of
// its folder only when the name is not found there. Nothing is type-checked
// or built, which keeps the check fast and lets it run on a tree whose code
// does not compile, for instance while an exercise has holes punched in it.
//
// # Other links
//
// A relative link to a lesson, a folder, an image or a diagram must point
// at something that exists; a target that starts with / is relative to the
// repository's root, as on GitHub. A "#fragment" on a link to a markdown
// file, or a bare "#fragment" within the same file, must name an anchor of
// that file: an explicit <a id="..."></a> or <a name="...">, or a heading.
// A heading's anchor is made the way GitHub makes it: the heading's text
// in lower case, punctuation other than '-' and '_' dropped, each space
// turned into '-'; a repeated heading gets -1, -2, … So
// "## Step m3: `submitJob`" is #step-m3-submitjob.
//
// # Fixing
//
// Code drifts: a method gains a line of doc comment and every anchor below
// it is one line off. Fix rewrites what it can work out for certain, the
// line anchor (#L42 becomes #L43) and, when the declaration moved to
// another file of the same package, the file's name in the target. It
// changes nothing else in the markdown and replaces each file atomically.
// A missing file, a name no file declares, or a broken link to a lesson
// needs a person; Fix returns those as remaining.
//
// # Step markers
//
// Every step of a submission is marked in the runtime with a comment
// "// Step m3: …" where it happens, and each writing exercise punches the
// functions where its step happens. CheckStepMarkers makes sure that the
// two agree: each hole of an exercise whose exercise.yaml says step: m7
// holds a comment line "// Step m7…" in its doc comment or its body (not
// "// Step m7 (fault): …", which marks what an injected fault breaks, and
// not a marker of another step: m1 is not m11). A marker in the doc
// comment survives `learn start`; one in the body is replaced by the
// hole's guidance, so the guidance (todo) must have a line "Step m7: …" of
// its own, which it shows as "// Step m7: …" in the punched body.
// Reading and predict exercises, whose step is a range (m2-m4), have no
// holes and nothing to check.
//
//	runtime/resourcemanager/slotmanager/allocationstrategy.go:89: exercise m07, hole DefaultResourceAllocationStrategy.TryFulfillRequirements: no `// Step m7:` marker in its doc comment or body; add one where step m7 happens, saying what happens there in Flink's terms
//
// `learn lint` checks the holes of the exercises that are not started; a
// learner's code in a hole need not carry the marker.
//
// # Differences from a full markdown renderer
//
// The scanner follows CommonMark where lessons need it: inline links and
// images, reference definitions ("[label]: target"), backslash escapes,
// code spans, links wrapped over two lines. It does not check links written
// as HTML (<a href>, <img src>), and it reads links inside HTML comments
// like any others. A reference-style link ([text][label]) is checked
// through its definition, "[label]: target", which is a code link when the
// label is a Go name in backticks.
//
// # Reading the code
//
// Check and Fix (lint.go, fix.go) walk the markdown files and hand each to
// a checker (checker.go). A file becomes a document (markdown.go): its
// prose without the code blocks, the links found in that prose (inline.go)
// and the anchors of its headings (anchors.go). Each link is then checked:
// a code link by reading its symbol (symbol.go) and looking the symbol up
// in the parsed Go file (codelinks.go, declarations.go, gosources.go),
// any other link by looking at the file system. The step markers are
// checked on their own (stepmarkers.go).
package lint
